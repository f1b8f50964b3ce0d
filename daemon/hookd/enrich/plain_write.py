"""A first test for a file tool's write (issue 26 item 7; hookd.enrich.first_test's route for shell lines and reads).

A write of code goes through every content check of hookd.enrich.tool_effects (the texts' command lines, what they
fetch or reach in the home, the files they name, git's executing keys, URLs, ...), and a cold step costs some 2 µs
for each distinct function it touches. Most writes are of a plain source file in the project whose text holds
nothing any of those checks acts on; for them the full analysis yields the write's own effect only.
`plain_write_effects` answers that in a handful of functions, from three gates:

* the file has no other name (`_aliased`: a link to it, a `.git` file's directory): each check judges the write
  under every name, and the path tests below read one (a project file that `~/.bashrc` links to is a startup file);

* the path's shape (`PATH_TESTS`): each check's own first test of the path it is given, all False, the verdict
  kept per path (they read no file);
* the text (`TEXT_TESTS`): each check's own first test of the text, all False, in one pass each over the text.

Any other write falls through to the full analysis. tests/unit/enrich/test_plain_write.py compares the facts with
the full analysis' for every corpus, golden and bench write and for mutations of their texts and paths toward what
each check acts on (its own patterns and tables); a check added to the full analysis whose cases a plain write
reaches fails that comparison until a first test of it is added here.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from typing import NamedTuple

from hookd.enrich.build_files import is_build_file
from hookd.enrich.caller_homes import caller_homes
from hookd.enrich.ci_workflows import is_workflow
from hookd.enrich.command_files import is_command_file
from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.handed import _ARGUMENT, _SYNTAX, names_a_program
from hookd.enrich.effects.loaded import _SUBSTITUTED
from hookd.enrich.effects.words import home_code_lang, may_run_at_start, startup_language
from hookd.enrich.env_template import env_name
from hookd.enrich.facts import under
from hookd.enrich.gitconfig_text import included_configs, is_git_config, may_set_executing_key
from hookd.enrich.holdings import mark_holdings
from hookd.enrich.home_reach import _names_a_reach, added_lines
from hookd.enrich.later_code import _WORD, _backend_files, _home_rc, _places, is_configuration
from hookd.enrich.notebook_code import NOTEBOOK_SUFFIX
from hookd.enrich.package_sources import _format_of, _formats
from hookd.enrich.sibling_entries import _SETTINGS as SIBLING_SETTINGS
from hookd.enrich.ssh_config import is_ssh_config
from hookd.enrich.tool_args import new_texts, url_texts
from hookd.enrich.tool_effects import _aliased
from hookd.enrich.tool_entries import path_effect
from hookd.enrich.tool_later import _CONFIG_SUFFIXES
from hookd.types import JSON, NormalisedEvent, ToolKind, ToolSpec

PLAIN_PATH = re.compile(r"[A-Za-z0-9_./,+@%:=-]+")
MAX_GIT_TEXT = 4096  # tool_effects._git_keys looks up the home's included configs past this, whatever the text
# A word after a blank that may be an argument (handed._ARGUMENT's test, which looks only at a command's words)
_ARGUED = re.compile(r"(?<!\S)" + _ARGUMENT.pattern.removeprefix("^"))
# A word that may head a value file_commands reads: a line's, a setting's, a quoted one's, a list part's
_HEAD = re.compile(r"""[^\s=:;&|!"',]+""")

PathTest = Callable[[str, str, str, tuple[str, ...]], bool]  # (path, home, project, the caller's homes)
TextTest = Callable[[str, str, str, str], bool]  # (text, path, home, project): True where a check may act on it

# Each check's first test of the path a write names (tool_effects.tool_effects' steps, in order)
PATH_TESTS: dict[str, PathTest] = {
    "env template (mark_templates)": lambda p, h, pr, hs: env_name(p.rpartition("/")[2]),
    "ssh config (mark_plain_ssh_configs)": lambda p, h, pr, hs: is_ssh_config(p),
    "startup file (_runs_at_start)": lambda p, h, pr, hs: may_run_at_start(p, hs),
    "git config (_git_keys)": lambda p, h, pr, hs: is_git_config(p),
    "configured commands, context files (_CONFIG_SUFFIXES)": lambda p, h, pr, hs: p.endswith(_CONFIG_SUFFIXES),
    "program config keys": lambda p, h, pr, hs: p.rpartition("/")[2] in catalogue().program_configs,
    "build file": lambda p, h, pr, hs: is_build_file(p),
    "package source": lambda p, h, pr, hs: _format_of(_formats(), p) is not None,
    "ci workflow": lambda p, h, pr, hs: is_workflow(p),
    "sibling entries": lambda p, h, pr, hs: p.endswith(SIBLING_SETTINGS),
    "shell startup": lambda p, h, pr, hs: startup_language(p, h) is not None,
    "agent command": lambda p, h, pr, hs: is_command_file(p),
    "home code": lambda p, h, pr, hs: not under(p, pr) or home_code_lang(p, h, pr, "#!") is not None,
    "home rc": lambda p, h, pr, hs: _home_rc(p, h, pr),
    "notebook": lambda p, h, pr, hs: p.endswith(NOTEBOOK_SUFFIX),
    "configuration (scratch code)": lambda p, h, pr, hs: is_configuration(p),
    "imports (.md, instruction files)": lambda p, h, pr, hs: (
        p.endswith(".md") or p.rpartition("/")[2] in catalogue().instruction_files
    ),
}


def _command_line(text: str, path: str, home: str, project: str) -> bool:
    """loaded.file_commands may find a line: a JSON document, a substitution, a JSON string's escape, or a word
    naming a program (handed.names_a_program) in a text holding a command's syntax or an argument."""
    if text.lstrip()[:1] in ("{", "[") or "\\" in text or _SUBSTITUTED.search(text):
        return True
    if not (_SYNTAX.search(text) or _ARGUED.search(text)):
        return False  # (handed._heads_command: a known head with neither is no command line)
    return any(names_a_program(word) for word in set(_HEAD.findall(text)))


def _names_a_file(text: str, path: str, home: str, project: str) -> bool:
    """later_code._named_file_runs may read a file the text names: a build backend's, or one there is where a word
    may name one (`_places`: a path, a dotted module's source)."""
    return bool(_backend_files(text)) or any(
        os.path.lexists(place) for word in set(_WORD.findall(text)) for place in _places(word, path, home, project)
    )


def _git_config_keys(text: str, path: str, home: str, project: str) -> bool:
    """tool_effects._git_keys reads the text of a file the home's or the project's git configuration includes when
    the text may set a key git runs (or is too long to tell)."""
    return (len(text) > MAX_GIT_TEXT or may_set_executing_key(text)) and path in included_configs(home, project)


# Each check's first test of the texts a write leaves
TEXT_TESTS: dict[str, TextTest] = {
    "a patch's added lines (added_lines)": lambda t, p, h, pr: added_lines(t) is not t,
    "git's executing keys (_git_keys)": _git_config_keys,
    "command lines (left_for_later, _later_signals)": _command_line,
    "code reaching the home (code_reaching_home)": lambda t, p, h, pr: _names_a_reach(t, h),
    "files named (_named_file_runs)": _names_a_file,
}


class PlainWrite(NamedTuple):
    """A declared write tool's write of one plain project path (`path`, absolute) with its text."""

    spec: ToolSpec
    entry: dict[str, JSON]
    path: str
    text: str
    home: str
    project: str


def plain_write_of(event: NormalisedEvent) -> PlainWrite | None:
    """The write when the event is a declared write tool's (`content`, no patch, glob or directory argument) of one
    path that resolves in the project, named plainly, its input nothing but that path and the text; else None."""
    tool = event.tool
    if tool is None or tool.kind is not ToolKind.WRITE:  # (before any call: most events are not writes)
        return None
    spec, entries, home = tool.spec, event.facts.get("paths"), event.facts.get("home")
    if spec is None or not spec.content or spec.patches or spec.globs or spec.relative_to or spec.cwd_args:
        return None
    if not isinstance(entries, list) or len(entries) != 1 or not isinstance(home, str) or not home.strip("/"):
        return None
    entry, named = entries[0], [arg for arg, access in spec.paths if arg in tool.input]
    if len(named) != 1 or set(tool.input) != {named[0], spec.content} or event.cwd not in ("", event.project_dir):
        return None
    raw, text = tool.input[named[0]], tool.input[spec.content]
    if not isinstance(raw, str) or not isinstance(text, str) or not PLAIN_PATH.fullmatch(raw):
        return None
    if not isinstance(entry, dict) or entry.get("raw") != raw or entry.get("in_project") is not True:
        return None
    path = entry.get("path")
    if not isinstance(path, str):
        return None
    return PlainWrite(spec, entry, path, text, home.removesuffix("/"), event.project_dir.removesuffix("/"))


def plain_write_effects(event: NormalisedEvent) -> NormalisedEvent | None:
    """`effects` of a declared write tool's write of one plain project file whose text no check acts on, as
    hookd.enrich.tool_effects.enrich_tool_effects makes them; None for any other event."""
    write = plain_write_of(event)
    if write is None or "/." in write.path:  # (a dot-named part: `_plain_place` says so, after a call more)
        return None
    tool, path, home_dir, project = event.tool, write.path, write.home, write.project
    assert tool is not None  # (plain_write_of answered)
    if not _plain_place(path, home_dir, project, caller_homes(home_dir, event.caller.uid), tool.name):
        return None
    if url_texts(tool.input, web=False) or not all(
        plain_text(t, path, home_dir, project) for t in new_texts(tool.input)
    ):
        return None
    out = [path_effect(write.entry, write.spec, tool.name, home=home_dir, project=project)]
    if _aliased(out, home_dir, project):  # each check judges every name of the file: another name is not plain
        return None
    return with_effects(event, out)


def plain_text(text: str, path: str, home: str, project: str) -> bool:
    """No check's first test of the text holds (TEXT_TESTS)."""
    return not any(test(text, path, home, project) for test in TEXT_TESTS.values())


def with_effects(event: NormalisedEvent, effects: list[dict[str, JSON]]) -> NormalisedEvent:
    """The event with `effects` after those it holds, marked as enrich_tool_effects marks them."""
    before = event.facts.get("effects")
    every: list[JSON] = [*(before if isinstance(before, list) else []), *effects]
    return event.with_facts(effects=mark_holdings(every, event.facts.get("home"), event.project_dir.removesuffix("/")))


@functools.lru_cache(maxsize=1024)
def _plain_place(path: str, home: str, project: str, homes: tuple[str, ...], program: str) -> bool:
    """No check's first test of the path holds, its name no part starting with a dot, and the program no memory
    tool's (tool_imports.import_reads' first test of a tool's name)."""
    if any(part.startswith(".") for part in path.split("/")) or "mem" in program.lower():
        return False
    return "remember" not in program.lower() and not any(
        test(path, home, project, homes) for test in PATH_TESTS.values()
    )
