"""A first test for the write of an env file (issue 26 item 7; hookd.enrich.plain_write's route for plain code).

A write of `.env` or `prod.env` reaches three checks of hookd.enrich.tool_effects that a plain source file does not:
the env file's template (`mark_templates`), the commands a configuration file holds under a command's key
(`_configured_commands`, by the `.env` suffix) and the scratch-space code a configuration names (`_scratch_code`,
a configuration by its name), and then every other content check of `_may_run_later`'s block, some 170 distinct
functions. `plain_env_write_effects` answers it from the write's own effect, its other names and `mark_templates`
itself (the only one of the three that marks the effect whatever the text) when:

* the path: its name is an env file's (`env_name`), no directory part is dot-named, and every other check's first
  test of the path (plain_write.PATH_TESTS but the three above) is False;
* the text: no check's first test of it holds (plain_write.TEXT_TESTS), and neither does each of the two checks'
  own: a word naming a command's key, in any case and however spelled inside a word (`command`, `cmd`, `helper`,
  `notify`: a superset of config_commands' key patterns), or an escape that could spell one; a `/`, without which
  no path into scratch space can be named (`_SCRATCH_CODE` and `_scratch_program` both read one).

Any other write falls through to the full analysis. tests/unit/enrich/test_plain_env_write.py compares the facts
with the full analysis' for every corpus, golden and bench write and for mutations toward what each check acts on.
"""

from __future__ import annotations

import functools
import re

from hookd.enrich.caller_homes import caller_homes
from hookd.enrich.edit_texts import texts_after
from hookd.enrich.env_template import env_name, mark_templates
from hookd.enrich.plain_write import PATH_TESTS, plain_text, plain_write_of, with_effects
from hookd.enrich.tool_args import new_texts, url_texts
from hookd.enrich.tool_effects import _aliased, _one_text
from hookd.enrich.tool_entries import path_effect
from hookd.types import NormalisedEvent

# The path tests of the checks this route answers for an env file (the rest must all be False)
ANSWERED_PATH_TESTS = frozenset(
    {
        "env template (mark_templates)",
        "configured commands, context files (_CONFIG_SUFFIXES)",
        "configuration (scratch code)",
    }
)
_COMMAND_KEY_WORD = re.compile(r"command|cmd|helper|notify", re.IGNORECASE)


def configured_command_key(text: str) -> bool:
    """config_commands.commands_in may find a command: a key naming one (any case, any part of a word), or an
    escape (JSON's, YAML's, TOML's) that could spell such a key."""
    return "\\" in text or _COMMAND_KEY_WORD.search(text) is not None


def names_scratch_space(text: str) -> bool:
    """later_code._scratch_code may find code in scratch space: a path is named (its patterns all hold a `/`)."""
    return "/" in text


ENV_TEXT_TESTS = {
    "configured commands (_configured_commands)": configured_command_key,
    "scratch code (_scratch_code)": names_scratch_space,
}


def plain_env_write_effects(event: NormalisedEvent) -> NormalisedEvent | None:
    """`effects` of a declared write tool's write of one plain env file of the project whose text no check acts on,
    as hookd.enrich.tool_effects.enrich_tool_effects makes them; None for any other event."""
    write = plain_write_of(event)
    if write is None:
        return None
    directory, _, base = write.path.rpartition("/")
    if not env_name(base) or "/." in directory:
        return None
    tool, path, home, project = event.tool, write.path, write.home, write.project
    assert tool is not None  # (plain_write_of answered)
    if not _env_place(path, home, project, caller_homes(home, event.caller.uid), tool.name):
        return None
    texts = new_texts(tool.input)
    if url_texts(tool.input, web=False) or not all(_plain_env_text(t, path, home, project) for t in texts):
        return None
    out = [path_effect(write.entry, write.spec, tool.name, home=home, project=project)]
    if _aliased(out, home, project):  # each check judges every name of the file: another name is not plain
        return None
    mark_templates(out, _one_text(out, tool.input), lambda p: texts_after(p, tool.input, write.spec, True))
    return with_effects(event, out)


def _plain_env_text(text: str, path: str, home: str, project: str) -> bool:
    return plain_text(text, path, home, project) and not any(test(text) for test in ENV_TEXT_TESTS.values())


@functools.lru_cache(maxsize=1024)
def _env_place(path: str, home: str, project: str, homes: tuple[str, ...], program: str) -> bool:
    """No first test of the path holds but those of the checks answered here, and the program is no memory tool's
    (tool_effects._imports' first test of a tool's name)."""
    if "mem" in program.lower() or "remember" in program.lower():
        return False
    return not any(
        test(path, home, project, homes) for name, test in PATH_TESTS.items() if name not in ANSWERED_PATH_TESTS
    )
