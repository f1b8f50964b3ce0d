"""What a file a tool writes runs later (hookd.enrich.tool_effects): the commands a configuration file, a program's
settings, a makefile or Compose file, a unit holds, judged as deferred execs."""

from __future__ import annotations

import functools
import os
import re
import shlex
from collections.abc import Mapping
from typing import Any

from hookd.enrich.build_files import is_build_file, is_compose_file, is_started_file, make_lines
from hookd.enrich.command_files import frontmatter, is_markdown
from hookd.enrich.config_commands import commands_in, extension_variables, new_commands
from hookd.enrich.devcontainer import container_lines
from hookd.enrich.edit_texts import read_text, texts_after
from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.compose import service_runs
from hookd.enrich.effects.loaded import tool_environment
from hookd.enrich.fed_input import runs_its_input
from hookd.enrich.home_reach import added_lines, changes_outside, reaches_home, unit_risk
from hookd.enrich.later_code import may_leave_code, named_script_runs_later
from hookd.enrich.package_sources import is_source_file
from hookd.enrich.shell.analysis import analyse_shell
from hookd.enrich.tool_args import new_texts
from hookd.enrich.tool_entries import (
    too_long,
    unknown_effect,
    written_paths,
)
from hookd.types import JSON, ToolSpec


@functools.lru_cache(maxsize=16)
def _ini_keys(keys: frozenset[str]) -> re.Pattern[str]:
    """A line (of a text, or a patch's added line) setting one of `keys`: `key = value`, `key: value`."""
    names = "|".join(re.escape(k) for k in sorted(keys))
    return re.compile(rf"^[+ ]?[ \t]*({names})[ \t]*[=:][ \t]*(\S.{{0,4095}})$", re.MULTILINE | re.IGNORECASE)


def program_config_keys(
    effects: list[dict[str, JSON]], tool_input: Mapping[str, Any], program: str
) -> list[dict[str, JSON]]:
    """A key of a program's configuration file whose value that program runs later (the catalogue's
    `program_configs`: `.npmrc`'s `script-shell`, `git`, `node-options`), set by a file tool's text (a write, an
    edit's new text, a patch's added lines): a deferred exec of the value, asked as a startup file's commands."""
    configs = catalogue().program_configs
    keyed = [
        (path, configs[path.rpartition("/")[2]])
        for path in written_paths(effects)
        if path.rpartition("/")[2] in configs
    ]
    out: list[dict[str, JSON]] = []
    for path, keys in keyed:
        for text in new_texts(tool_input):
            for key, value in _ini_keys(keys).findall(text[:MAX_CONFIG_TEXT]):
                if key.lower() in keys:
                    code = {"lang": "sh", "text": value.strip()}
                    out.append({**unknown_effect("exec", program), "known": True, "code": code, "deferred": True,
                                "startup": path, "key": key})  # fmt: skip
    return out


def may_run_later(effects: list[dict[str, JSON]], home: str, project: str) -> bool:
    """False only where no path written is one that `configured_commands`, `program_config_keys` or
    `left_for_later` reads (each one's own first test), whatever the texts."""
    configs, written = catalogue().program_configs, written_paths(effects)
    return any(
        p.endswith(_CONFIG_SUFFIXES)
        or p.rpartition("/")[2] in configs
        or may_leave_code(p, home, project)
        or is_build_file(p)
        or is_source_file(p)
        for p in written
    )


MAX_CONFIG_TEXT = 256 * 1024  # a configuration text past this is not parsed for the commands it holds
MAX_CONFIG_COMMANDS = 16


_CONFIG_SUFFIXES = (".json", ".jsonc", ".toml", ".yaml", ".yml")


def configured_commands(
    effects: list[dict[str, JSON]],
    tool_input: Mapping[str, Any],
    spec: ToolSpec,
    program: str,
    home: str,
    project: str,
) -> list[dict[str, JSON]]:
    """A command written into a configuration file for a program to run later (an agent's `statusLine`,
    `apiKeyHelper`, an MCP server's `command` and `args`, Codex's `notify`, a dev container's
    `postCreateCommand`, another agent's hook): when it runs code fetched or built at run time (`curl … | sh`,
    `sh -c "$(…)"`: a flow or code not known, as the shell's analysis of it says), or reaches into the home as
    home_reach.reaches_home says (deletes there, sends what it reads there), a deferred exec of it, asked as a
    startup file's commands are; a plain program start (`npx -y server`, `node x.js`, `./statusline.sh`) is not."""
    targets = [p for p in written_paths(effects) if p.endswith(_CONFIG_SUFFIXES) or is_markdown(p)]
    if not targets:
        return []
    argument = spec.content or (pairs[0][1] if (pairs := spec.replace_pairs(tool_input)) else "")
    texts = [
        added_lines(t)
        for t in ([tool_input.get(argument)] if argument else new_texts(tool_input))
        if isinstance(t, str)
    ]
    if any(_COMMAND_KEY_WORD.search(t) for t in texts):  # an edit naming a command's key (renamed, or completed):
        texts += texts_after(targets[0], tool_input, spec, False) or []  # the commands of the text it leaves
    if is_markdown(targets[0]):  # a Markdown file's configuration is its frontmatter (a subagent's hooks)
        texts = [front for text in texts if (front := frontmatter(text)) is not None]
    lines = [line for text in texts if len(text) <= MAX_CONFIG_TEXT for line in commands_in(text, MAX_CONFIG_COMMANDS)]
    after = texts
    if not spec.content:  # an edit or a patch: the commands the text it leaves holds that the file did not
        after = [t for t in texts_after(targets[0], tool_input, spec, False) or [] if len(t) <= MAX_CONFIG_TEXT]
        lines += new_commands(read_text(targets[0])[1], after, MAX_CONFIG_COMMANDS)
    lines = container_lines(targets[0], [*texts, *after], list(dict.fromkeys(lines)), home)  # a dev container's
    return judged_later(lines, targets[0], program, home, project)


# A word shaped as a key naming a command (config_commands' keys: `postCreateCommand`, `initializeCommand`, `cmd`)
_COMMAND_KEY_WORD = re.compile(r"\b(?:\w*(?:Command|Cmd|Helper)|command|cmd)\b")


def judged_later(lines: list[str], target: str, program: str, home: str, project: str) -> list[dict[str, JSON]]:
    """A deferred exec (asked as a startup file's commands are) of each line that runs code fetched or built at
    run time or reaches into the home (home_reach.reaches_home); a plain program start is not one."""
    out: list[dict[str, JSON]] = []
    here = not is_compose_file(target)  # what a container's command changes is the container's
    anywhere = not _inside(target, project)  # read by the agent in every project it starts in, not only this one
    for line in (tool_environment(extension_variables(x, target, project)) for x in lines[:MAX_CONFIG_COMMANDS]):
        if anywhere and started_relative(line):  # `./serve` is whichever `serve` the next project holds
            out.append({**_later_exec(line, target, program), "known": False})
            continue
        analysed = [] if too_long(line) else analyse_shell(line, home=home, base_dir=project, project_dir=project)[1]
        built = any(e.get("flow") or (e["op"] == "exec" and e.get("known") is False) for e in analysed)
        reaches = reaches_home(analysed, home, project) or named_script_runs_later(line, target, home, project)
        if too_long(line) or built or reaches or runs_its_input(line, home, project):  # (a shell fed by the agent)
            out.append(_later_exec(line, target, program))
        # what it changes outside the project and scratch space, judged as the same change made now
        out += [{**e, "via": "tool", "deferred": True, "startup": target} for e in analysed if changes_outside(e, here)]
    return out


def _inside(path: str, project: str) -> bool:
    return bool(project) and path.startswith(project.rstrip("/") + "/")


def started_relative(line: str) -> bool:
    """A command line whose program, or the script its interpreter runs, is named relative to the directory it
    starts in (`./serve`, `bin/mcp-server`, `node dist/server.js`): what runs depends on that directory."""
    try:
        words = shlex.split(line)
    except ValueError:
        return False
    if not words:
        return False
    if _relative(words[0]):
        return True
    program = catalogue().get(words[0].rpartition("/")[2])
    operands = [w for w in words[1:] if not w.startswith("-")]
    script = operands[0] if operands and "-m" not in words else ""  # (`python -m pkg` names a module, not a file)
    return bool(program and program.script_operand and script and _relative(script, _CODE_SUFFIX.search(script)))


_CODE_SUFFIX = re.compile(r"\.(?:[cm]?[jt]s|py|sh|bash|rb|pl|php|lua)$")


def _relative(word: str, file: object = None) -> bool:
    """A path resolved against the directory the command starts in: a word with a `/` (or, for a script, a file's
    name) that is not absolute, home-relative, a variable or a URL."""
    return bool("/" in word or file) and not word.startswith(("/", "~", "$")) and "://" not in word


def judged_unit(lines: list[str], target: str, program: str, home: str, project: str) -> list[dict[str, JSON]]:
    """A deferred exec (asked) of each command line of a unit that does more than a plain program start: what
    `judged_later` asks, and any change outside the project and scratch space, a signal, a privilege."""
    out = judged_later(lines, target, program, home, project)
    for line in lines[:MAX_CONFIG_COMMANDS]:
        analysed = [] if too_long(line) else analyse_shell(line, home=home, base_dir=home, project_dir=project)[1]
        risky = any(unit_risk(e, home, project) for e in analysed)
        if risky and not any(e["code"]["text"] == line for e in out if isinstance(e.get("code"), dict)):
            out.append(_later_exec(line, target, program))
    return out


def _later_exec(line: str, target: str, program: str) -> dict[str, JSON]:
    return {**unknown_effect("exec", program), "known": True, "code": {"lang": "sh", "text": line}, "deferred": True,
            "startup": target}  # fmt: skip


def build_file_effects(
    written: list[str],
    tool_input: Mapping[str, Any],
    spec: ToolSpec,
    program: str,
    home: str,
    project: str,
    *,
    declared: bool,
) -> list[dict[str, JSON]]:
    """What a makefile's recipes or a Compose file's services will do (enrich/build_files.py), from the whole text
    the call leaves (a patch: its added lines): a recipe as a configured command is judged; a service's command
    when what it does through its bind mounts reaches into the home."""
    out: list[dict[str, JSON]] = []
    for path in (p for p in written if is_build_file(p)):
        after = texts_after(path, tool_input, spec, declared)
        texts = after if after is not None else [added_lines(t) for t in new_texts(tool_input)]
        texts = [t for t in texts if len(t) <= MAX_CONFIG_TEXT]
        judged = judged_unit if is_started_file(path) else judged_later
        out.extend(judged([line for t in texts for line in make_lines(path, t)], path, program, home, project))
        for runs in (service_runs([t], home, os.path.dirname(path)) for t in texts if is_compose_file(path)):
            if runs is None:  # more services than are read: what they run is not known
                out.append({**_later_exec("", path, program), "known": False})
            for line in runs or ():
                analysed = (
                    [] if too_long(line) else analyse_shell(line, home=home, base_dir="/", project_dir=project)[1]
                )
                if too_long(line) or reaches_home(analysed, home, project):
                    out.append(_later_exec(line, path, program))
    return out
