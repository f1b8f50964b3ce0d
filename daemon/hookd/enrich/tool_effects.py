"""What a call of an agent's file, search, patch or web tool does, as effects (`input.effects`, the effect model
of docs/policies.md): appended to the list the shell's analysis (enrich/effects) fills for shell tools.

Built from the tool's `input.paths` entries (enrich/paths.py, which must run first): each path a file tool reads or
writes, each file a search tool's filter reaches, each file a patch adds, changes, deletes or moves (a move is a
`move` of its source with `to`, and, as in the shell's effects, a `write` of its destination: what a file there does
when it lands, a startup file run later, is judged on that write). A target that cannot be resolved now (a glob past
its caps, a patch tool whose patch is in no argument hookd knows) has `"known": false`: a policy asks on it."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from hookd.enrich.aliases import linked, other_names
from hookd.enrich.build_files import is_build_file, is_compose_file, is_started_file, is_users_started_file, make_lines
from hookd.enrich.caller_homes import caller_homes
from hookd.enrich.ci_workflows import untrusted_checkouts
from hookd.enrich.cli_tools import cli_line, pod_lines
from hookd.enrich.command_files import frontmatter, is_command_file, is_markdown, prompt_reads
from hookd.enrich.config_commands import commands_in, extension_variables, new_commands
from hookd.enrich.context_files import context_files
from hookd.enrich.edit_texts import changed_lines, inserted_text, moved_texts, patch_added_text, read_text, texts_after
from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.compose import service_runs
from hookd.enrich.effects.configtext import quiet_setting
from hookd.enrich.effects.fetches import instance_metadata, served_home_file
from hookd.enrich.effects.loaded import tool_environment
from hookd.enrich.effects.words import may_run_at_start, shadows, startup_language, startup_languages
from hookd.enrich.env_template import mark_templates
from hookd.enrich.facts import arg_class
from hookd.enrich.fed_input import runs_its_input
from hookd.enrich.gitconfig_text import (
    executing_keys,
    included_configs,
    is_git_config,
    may_set_executing_key,
    unjudged_write,
)
from hookd.enrich.holdings import mark_holdings
from hookd.enrich.hosted_deletes import hosted_deletes
from hookd.enrich.later_code import (
    added_lines,
    changes_outside,
    in_home,
    left_for_later,
    may_leave_code,
    named_script_runs_later,
    reaches_home,
    shell_effects,
)
from hookd.enrich.notebook_code import cells_run
from hookd.enrich.package_sources import redirected_sources
from hookd.enrich.patches import CODEX_MARK
from hookd.enrich.paths import PathResolver, _patch_entries
from hookd.enrich.shell.analysis import analyse_shell
from hookd.enrich.shell_aliases import unaliased
from hookd.enrich.sibling_entries import sibling_commands
from hookd.enrich.ssh_config import mark_plain_ssh_configs
from hookd.enrich.tool_args import command_lines, inferred, new_texts, url_texts, words
from hookd.types import JSON, NormalisedEvent, ToolKind, ToolSpec


def _op(entry: Mapping[str, Any], spec: ToolSpec) -> tuple[str, bool]:
    """The effect's op and whether it is recursive, for one `input.paths` entry."""
    op = entry.get("op")
    if isinstance(op, str):
        return op, entry.get("recursive") is True
    if entry.get("access") != "read":
        return "write", False
    arg = entry.get("arg")
    if arg in spec.relative_to.values() and "search" in spec.globs.values():
        return "read", True  # a search tool's root: every file below it can be read
    if arg in spec.relative_to and arg not in spec.globs:
        return "list", False  # a glob tool's pattern lists names
    return "read", False


def _effect(
    entry: Mapping[str, Any], spec: ToolSpec, program: str, *, home: str | None, project: str
) -> dict[str, JSON]:
    op, recursive = _op(entry, spec)
    path = entry.get("path")
    path = path if isinstance(path, str) else ""
    to = entry.get("to")
    return {
        "op": op,
        "path": path,
        "known": entry.get("known") is not False and bool(path),
        "recursive": recursive,
        "to": to if isinstance(to, str) else "",
        "program": program,
        "via": "tool",
        "class": arg_class(entry, path, home=home, project=project) if path else "unresolved",
    }


def _unknown(op: str, program: str) -> dict[str, JSON]:
    return {"op": op, "path": "", "known": False, "recursive": False, "to": "", "program": program,
            "via": "tool", "class": "unresolved"}  # fmt: skip


def tool_effects(event: NormalisedEvent) -> list[dict[str, JSON]]:
    """The effects of the event's (non-shell) tool call, from its `paths` fact."""
    tool = event.tool
    if tool is None or tool.spec is None or tool.kind is ToolKind.SHELL:
        return []
    guess = inferred(tool)
    spec = guess.spec if guess is not None else tool.spec
    kind = spec.kind if guess is not None else tool.kind  # an MCP tool that writes is judged as a write tool
    home = event.facts.get("home")
    home_dir = home.removesuffix("/") if isinstance(home, str) else None
    project = event.project_dir.removesuffix("/")
    ran = _command_effects(tool.name, tool.input, home_dir, project) if tool.kind in _UNTABLED else []
    opened = _url_effects(url_texts(tool.input, web=tool.kind is ToolKind.WEB), tool.name, home_dir, project)
    if tool.kind is ToolKind.WEB:
        return opened
    entries = event.facts.get("paths")
    out = [
        _effect(e, spec, tool.name, home=home_dir, project=project)
        for e in (entries if isinstance(entries, list) else [])
        if isinstance(e, Mapping)
    ]
    if guess is not None and guess.searches:  # an MCP server's search: every file below a directory it is given
        out = [{**e, "recursive": os.path.isdir(str(e["path"]))} if e["op"] == "read" else e for e in out]
    if spec.patches and not any(isinstance(tool.input.get(a), str) for a in spec.patches):
        out.append(_unknown("write", tool.name))  # a patch tool whose patch hookd cannot find
    elif kind in (ToolKind.WRITE, ToolKind.EDIT) and not spec.paths and not spec.patches:
        out.extend(_unnamed_write(tool.input, tool.name, spec, home=home_dir, project=project))
    out.extend(_aliased(out, home_dir, project))
    mark_templates(out, _one_text(out, tool.input), lambda p: texts_after(p, tool.input, spec, guess is None))
    mark_plain_ssh_configs(out, lambda p: texts_after(p, tool.input, spec, guess is None))  # `plain: ssh_config`
    if home_dir and kind in (ToolKind.WRITE, ToolKind.EDIT):
        out.extend(_runs_at_start(out, tool.input, spec, tool.name, caller_homes(home_dir, event.caller.uid), project))
    writes = kind in (ToolKind.WRITE, ToolKind.EDIT) or any(e["op"] == "write" for e in out)
    new = new_texts(tool.input) if writes else []  # once a call: the steps below each judge them
    out.extend(
        _git_keys(out, tool.input, spec, tool.name, declared=guess is None, home=home_dir, project=project, new=new)
    )
    front = any(is_markdown(p) for p in _written(out)) and any(frontmatter(t) is not None for t in new)
    if home_dir and kind in (ToolKind.WRITE, ToolKind.EDIT) and (front or _may_run_later(out, home_dir, project)):
        out.extend(_configured_commands(out, tool.input, spec, tool.name, home_dir, project))
        out.extend(_program_config_keys(out, tool.input, tool.name))
        written = _written(out)
        out.extend(_build_file_effects(written, tool.input, spec, tool.name, home_dir, project, declared=guess is None))
        whole = functools.partial(texts_after, tool_input=tool.input, spec=spec, declared=guess is None)
        for later in (functools.partial(redirected_sources, project=project), untrusted_checkouts):
            out.extend(later(written, lambda p: [added_lines(t) for t in whole(p) or new], tool.name))
        for path in written:  # a sibling's entry named by its label (launch.json's preLaunchTask), a notebook's cells
            run = sibling_commands(path, new) + cells_run(path, whole(path) or new, tool.input)
            out.extend(_judged_later(run, path, tool.name, home_dir, project))
        # a shell's startup file was judged above, asked or found to only set variables (`set -gx EDITOR nvim`)
        started = {str(e["startup"]) for e in out if e["op"] == "exec" and e.get("startup")}
        started |= {p for p in written if startup_language(p, home_dir) == "sh"}
        # an edit that completes a command's marker (`!`echo X`` with `echo X` replaced) shows it in the whole text only
        texts = new + [
            t
            for p in written
            if is_command_file(p)
            for t in texts_after(p, tool.input, spec, guess is None) or []
            if t not in new
        ]
        texts += moved_texts(out, written) + changed_lines(written, tool.input, spec, guess is None)  # whole lines
        out.extend(left_for_later(written, texts, tool.name, home=home_dir, project=project, known=started))
    out.extend(
        _imports(out, tool.input, tool.name, f"{home_dir}/.{event.client}" if home_dir else "", home_dir, project)
    )
    return out + opened + ran


def _aliased(effects: list[dict[str, JSON]], home: str | None, project: str) -> list[dict[str, JSON]]:
    """Each effect again under every other name its file has (enrich/aliases.py: `~/dotfiles/bashrc` is
    `~/.bashrc` where that is a link to it; a `.git` file's directory is the project's `.git`), `alias` holding
    the canonical path: a rule that knows `~/.bashrc` or `.git/hooks` by its shape judges it under that name."""
    if not any(effect["path"] for effect in effects):
        return []
    names = linked(home, project)  # the stats once for every effect
    if not names:
        return []
    return [
        {**effect, "path": name, "alias": path}
        for effect in effects
        if isinstance(path := effect["path"], str) and path
        for name in other_names(path, home, project, names)
    ]


_UNTABLED = (ToolKind.MCP, ToolKind.OTHER)
_CWD_ARGS = ("cwd", "workdir", "working_directory", "workingDirectory", "directory", "dir")


def _command_effects(program: str, tool_input: Mapping[str, Any], home: str | None, project: str) -> list[JSON]:
    """What the command lines an MCP server's tool runs do (tool_args.command_lines: its name says it runs one and
    an argument holds it, or its SQL runs one): the shell's effects of each, in the tool's own directory argument
    when it gives one, as the tool's effects (`via: tool`), so that a recursive delete of the home, a write into
    `~/.ssh` or a read of a key through `start_process` is judged as through the agent's shell."""
    out: list[dict[str, JSON]] = []
    for line in [*command_lines(program, tool_input, cli_line), *pod_lines(tool_input)]:
        if _too_long(line):
            return [_unknown("write", program)]  # a line past what hookd analyses: what it changes is not known
        resolver = PathResolver(home=home or "/", project_dir=project)
        where = next((v for a in _CWD_ARGS if isinstance(v := tool_input.get(a), str) and v), "")
        base = resolver.absolute(where, project) if where else project
        _shell, analysed = analyse_shell(line, home=home or "/", base_dir=base, project_dir=project)
        out.extend({**e, "via": "tool"} for e in analysed)
    return [*out, *hosted_deletes(program, tool_input)]


@functools.lru_cache(maxsize=16)
def _ini_keys(keys: frozenset[str]) -> re.Pattern[str]:
    """A line (of a text, or a patch's added line) setting one of `keys`: `key = value`, `key: value`."""
    names = "|".join(re.escape(k) for k in sorted(keys))
    return re.compile(rf"^[+ ]?[ \t]*({names})[ \t]*[=:][ \t]*(\S.{{0,4095}})$", re.MULTILINE | re.IGNORECASE)


def _program_config_keys(
    effects: list[dict[str, JSON]], tool_input: Mapping[str, Any], program: str
) -> list[dict[str, JSON]]:
    """A key of a program's configuration file whose value that program runs later (the catalogue's
    `program_configs`: `.npmrc`'s `script-shell`, `git`, `node-options`), set by a file tool's text (a write, an
    edit's new text, a patch's added lines): a deferred exec of the value, asked as a startup file's commands."""
    configs = catalogue().program_configs
    keyed = [
        (path, configs[path.rpartition("/")[2]]) for path in _written(effects) if path.rpartition("/")[2] in configs
    ]
    out: list[dict[str, JSON]] = []
    for path, keys in keyed:
        for text in new_texts(tool_input):
            for key, value in _ini_keys(keys).findall(text[:MAX_CONFIG_TEXT]):
                if key.lower() in keys:
                    code = {"lang": "sh", "text": value.strip()}
                    out.append({**_unknown("exec", program), "known": True, "code": code, "deferred": True,
                                "startup": path, "key": key})  # fmt: skip
    return out


def _may_run_later(effects: list[dict[str, JSON]], home: str, project: str) -> bool:
    """False only where no path written is one that `_configured_commands`, `_program_config_keys` or
    `left_for_later` reads (each one's own first test), whatever the texts."""
    configs, written = catalogue().program_configs, _written(effects)
    return any(
        p.endswith(_CONFIG_SUFFIXES)
        or p.rpartition("/")[2] in configs
        or may_leave_code(p, home, project)
        or is_build_file(p)
        for p in written
    )


def _written(effects: list[dict[str, JSON]]) -> list[str]:
    return list(dict.fromkeys(str(e["path"]) for e in effects if e["op"] == "write" and e["path"]))


MAX_COMMAND_LINE = 16 * 1024  # a command line a tool holds past this (or past MAX_COMMAND_WORDS) is not analysed
MAX_COMMAND_WORDS = 2000


def _too_long(line: str) -> bool:
    return len(line) > MAX_COMMAND_LINE or len(line.split()) > MAX_COMMAND_WORDS


MAX_CONFIG_TEXT = 256 * 1024  # a configuration text past this is not parsed for the commands it holds
MAX_CONFIG_COMMANDS = 16
_CONFIG_SUFFIXES = (".json", ".jsonc", ".toml", ".yaml", ".yml")


def _configured_commands(
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
    later_code.reaches_home says (deletes there, sends what it reads there), a deferred exec of it, asked as a
    startup file's commands are; a plain program start (`npx -y server`, `node x.js`, `./statusline.sh`) is not."""
    targets = [p for p in _written(effects) if p.endswith(_CONFIG_SUFFIXES) or is_markdown(p)]
    if not targets:
        return []
    argument = spec.content or (spec.replace[1] if spec.replace else "")
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
    if not spec.content:  # an edit or a patch: the commands the text it leaves holds that the file did not
        after = [t for t in texts_after(targets[0], tool_input, spec, False) or [] if len(t) <= MAX_CONFIG_TEXT]
        lines += new_commands(read_text(targets[0])[1], after, MAX_CONFIG_COMMANDS)
    return _judged_later(list(dict.fromkeys(lines)), targets[0], program, home, project)


# A word shaped as a key naming a command (config_commands' keys: `postCreateCommand`, `initializeCommand`, `cmd`)
_COMMAND_KEY_WORD = re.compile(r"\b(?:\w*(?:Command|Cmd|Helper)|command|cmd)\b")


def _judged_later(lines: list[str], target: str, program: str, home: str, project: str) -> list[dict[str, JSON]]:
    """A deferred exec (asked as a startup file's commands are) of each line that runs code fetched or built at
    run time or reaches into the home (later_code.reaches_home); a plain program start is not one."""
    out: list[dict[str, JSON]] = []
    here = not is_compose_file(target)  # what a container's command changes is the container's
    for line in (tool_environment(extension_variables(x, target, project)) for x in lines[:MAX_CONFIG_COMMANDS]):
        analysed = [] if _too_long(line) else analyse_shell(line, home=home, base_dir=project, project_dir=project)[1]
        built = any(e.get("flow") or (e["op"] == "exec" and e.get("known") is False) for e in analysed)
        reaches = reaches_home(analysed, home, project) or named_script_runs_later(line, target, home, project)
        if _too_long(line) or built or reaches or runs_its_input(line, home, project):  # (a shell fed by the agent)
            out.append(_later_exec(line, target, program))
        # what it changes outside the project and scratch space, judged as the same change made now
        out += [{**e, "via": "tool", "deferred": True, "startup": target} for e in analysed if changes_outside(e, here)]
    return out


# what a unit's command may not do unseen outside the project and scratch space: it runs whenever the unit starts
_UNIT_RISKS = frozenset({"write", "delete", "move", "chmod", "link", "signal", "privilege", "device"})


def _judged_unit(lines: list[str], target: str, program: str, home: str, project: str) -> list[dict[str, JSON]]:
    """A deferred exec (asked) of each command line of a unit that does more than a plain program start: what
    `_judged_later` asks, and any change outside the project and scratch space, a signal, a privilege."""
    out = _judged_later(lines, target, program, home, project)
    for line in lines[:MAX_CONFIG_COMMANDS]:
        analysed = [] if _too_long(line) else analyse_shell(line, home=home, base_dir=home, project_dir=project)[1]
        risky = any(_unit_risk(e, home, project) for e in analysed)
        if risky and not any(e["code"]["text"] == line for e in out if isinstance(e.get("code"), dict)):
            out.append(_later_exec(line, target, program))
    return out


def _unit_risk(effect: dict[str, JSON], home: str, project: str) -> bool:
    """A change outside the project and scratch space (the home's own files count, wherever the home is), a
    signal or privilege; or a program or script run from scratch space (`/tmp/x`, `~/.cache/x.sh`), where any call
    may leave code hookd never sees run."""
    path, cls = str(effect.get("path") or ""), effect.get("class")
    if effect["op"] == "exec":
        return bool(path) and cls == "scratch" and not in_home(path, home, project)
    return effect["op"] in _UNIT_RISKS and (cls not in ("project", "scratch") or in_home(path, home, project))


def _later_exec(line: str, target: str, program: str) -> dict[str, JSON]:
    return {**_unknown("exec", program), "known": True, "code": {"lang": "sh", "text": line}, "deferred": True,
            "startup": target}  # fmt: skip


def _build_file_effects(
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
        judged = _judged_unit if is_started_file(path) else _judged_later
        out.extend(judged([line for t in texts for line in make_lines(path, t)], path, program, home, project))
        for runs in (service_runs([t], home, os.path.dirname(path)) for t in texts if is_compose_file(path)):
            if runs is None:  # more services than are read: what they run is not known
                out.append({**_later_exec("", path, program), "known": False})
            for line in runs or ():
                analysed = (
                    [] if _too_long(line) else analyse_shell(line, home=home, base_dir="/", project_dir=project)[1]
                )
                if _too_long(line) or reaches_home(analysed, home, project):
                    out.append(_later_exec(line, path, program))
    return out


# Words of a tool's name that make it save what it is given into a file the agent loads every session
# (Gemini's and Qwen's `save_memory`: ~/.gemini/GEMINI.md, ~/.qwen/QWEN.md).
_MEMORY_WORDS = frozenset({"memory", "memories", "remember"})
# An import line of an instruction file: `@~/x`, `@./x`, `@../x`, `@/x`, `@dir/file`, `@file.md` (not an email
# address, a decorator in a code span, a scoped npm package's `@scope/name` is a relative path and harmless).
_IMPORT = re.compile(r"(?<![\w@`/])@((?:~|\.{1,2})?/[^\s`'\"<>)\]]+|[\w.-]+/[^\s`'\"<>)\]]*|[\w-]*\.[A-Za-z][\w.-]*)")
MAX_IMPORTS = 32


def _imports(
    effects: list[dict[str, JSON]],
    tool_input: Mapping[str, Any],
    program: str,
    memory_dir: str,
    home: str | None,
    project: str,
) -> list[dict[str, JSON]]:
    """An `@path` import written into a file an agent loads into every session's context (the catalogue's
    `instruction_files`: CLAUDE.md, GEMINI.md, …; any Markdown file, which they may import, and whose own imports
    the agents follow, Claude Code's to five hops, Gemini's memport; or a memory tool's own file): a `read` of
    that path, `deferred` (it reaches the model in every later session, outside the hooks), judged as any read is."""
    names = catalogue().instruction_files
    loaded = [
        (path.rpartition("/")[0], new_texts(tool_input))
        for e in effects
        if e["op"] == "write"
        and isinstance(path := e["path"], str)
        and (path.endswith(".md") or path.rpartition("/")[2] in names)
    ]
    if not loaded and ("mem" in program.lower() or "remember" in program.lower()) and words(program) & _MEMORY_WORDS:
        texts = [v for v in tool_input.values() if isinstance(v, str)]
        loaded = [(base, texts) for base in (memory_dir, project) if base]
    raws = [(base, m.group(1).rstrip(".,;:!?")) for base, texts in loaded for t in texts for m in _IMPORT.finditer(t)]
    raws += [(project, name) for name in context_files(_written(effects), lambda: _added_texts(tool_input))]
    if any(is_command_file(p) for p in _written(effects)):  # what its `@{path}` and marker lines put in the prompt
        shell = functools.partial(shell_effects, home=home or "/", project=project)
        raws += [(project, name) for name in prompt_reads(_added_texts(tool_input), shell)]
    if not raws:
        return []
    resolver = PathResolver(home=home or "/", project_dir=project)
    out: list[dict[str, JSON]] = []
    for base, raw in raws:
        if len(out) >= MAX_IMPORTS:
            return [*out, _unknown("read", program)]
        entry = {"arg": "import", **resolver.resolve(raw, base), "access": "read"}
        read = _effect(entry, ToolSpec(ToolKind.READ), program, home=home, project=project)
        out.append({**read, "deferred": True, "import": raw})
    return out


def _one_text(effects: list[dict[str, JSON]], tool_input: Mapping[str, Any]) -> dict[str, str]:
    """The text of the one file a call writes whole (a write's content, a patch's one added file), by its path."""
    writes = [e["path"] for e in effects if e["op"] == "write" and isinstance(e["path"], str) and e["path"]]
    texts = new_texts(tool_input)
    return {writes[0]: added_lines(texts[0])} if len(writes) == 1 and len(texts) == 1 else {}


def _added_texts(tool_input: Mapping[str, Any]) -> list[str]:
    """The texts a tool's input writes, a patch's as its added lines."""
    return [added_lines(t) for t in new_texts(tool_input)]


def _git_keys(
    effects: list[dict[str, JSON]],
    tool_input: Mapping[str, Any],
    spec: ToolSpec,
    program: str,
    declared: bool,
    *,
    home: str | None = None,
    project: str = "",
    new: list[str] | None = None,
) -> list[dict[str, JSON]]:
    """A write into a git configuration file (`~/.gitconfig`, a repository's `config`): judged on the text the
    file will hold, one `write` effect per key whose value git runs (`key`, `value`, `executes`), as the
    shell's `git config` has. Where that text cannot be known whole (a move or copy onto it, an edit of a file
    that cannot be read, a patch, a text that a tool hookd has no table for may append or insert: not
    `declared` by the agent's module), an exec of code not known (asked), and the new texts judged alone."""
    landed = {str(e["to"]) for e in effects if e["op"] in ("move", "copy", "link") and e.get("to")}
    out: list[dict[str, JSON]] = []
    writes = [e for e in effects if e["op"] == "write"]
    new = new_texts(tool_input) if new is None else new  # `new`: new_texts(tool_input), when the caller has it
    written = new if writes else []
    # a key git runs in the text, else no include could take one (a long text: the includes are cheaper)
    asks = home and any(len(t) > 4096 or may_set_executing_key(t) for t in written)
    included = included_configs(home, project) if asks and home else frozenset()
    configs = {str(e["path"]): e for e in writes if is_git_config(str(e["path"])) or e["path"] in included}
    for target in configs.values():
        path = str(target["path"])
        texts = None if path in landed else texts_after(path, tool_input, spec, declared)
        if texts is None:
            out.append(unjudged_write(path, program, "tool"))
            texts = new  # each key by its name, whatever its section
        for text in texts:
            out.extend(_keyed(target, path, text, home))
    return out


def _keyed(target: dict[str, JSON], path: str, text: str, home: str | None) -> list[dict[str, JSON]]:
    keys = executing_keys(text, path, home or "")
    if keys is None:
        return [{**target, "op": "write", "path": path, "to": "", "key": "", "value": "", "executes": True,
                 "known": False}]  # fmt: skip
    return [{**target, "op": "write", "path": path, "to": "", "key": k, "value": v, "executes": True} for k, v in keys]


# A file URL in each form a client takes (RFC 8089): `file:///p`, `file://localhost/p`, `file://host/p`, `file:/p`.
_FILE_URL = re.compile(r"\bfile:(?://[^/\s'\"<>`]*)?(/(?!/)[^\s'\"<>`)]*)", re.IGNORECASE)
_URL = re.compile(r"\b[a-z][a-z0-9+.-]{0,20}://[^\s'\"<>`]+", re.IGNORECASE)
MAX_URLS = 16


def _url_effects(texts: list[tuple[str, bool]], program: str, home: str | None, project: str) -> list[dict[str, JSON]]:
    """What opening each URL does, for any tool (a web tool, a browser's `navigate`, an MCP server's `fetch` or
    resource `uri`): a `file:` URL reads its file, judged as any file tool's read would be; any other is a
    `fetch`, and a fetch of the cloud instance metadata service (in any spelling of its address) a read of the
    machine's credentials (`metadata`), as the shell's downloaders have."""
    out: list[dict[str, JSON]] = []
    seen: set[str] = set()
    resolver: PathResolver | None = None
    for text, whole in texts:
        if ":" not in text:
            continue  # no URL (the common case: a path, a pattern, a text)
        found = [m.group() for m in _URL.finditer(text)]
        urls = [text.strip()] if whole and not found and text.strip() and " " not in text.strip() else found
        for url in [*urls, *(m.group() for m in _FILE_URL.finditer(text) if m.group() not in urls)]:
            if url in seen:
                continue
            if len(seen) >= MAX_URLS:
                return [*out, _unknown("read", program)]
            seen.add(url)
            local = _FILE_URL.fullmatch(url)
            served = "" if local else served_home_file(url, home or "")  # a local server's file of the home
            if local or served:
                resolver = resolver or PathResolver(home=home or "/", project_dir=project)
                placed = resolver.resolve(unquote(local.group(1).split("?", 1)[0]) if local else served, project)
                entry = {"arg": "url", **placed, "access": "read"}
                out.append({**_effect(entry, ToolSpec(ToolKind.READ), program, home=home, project=project), "url": url})
                if local:
                    continue
            if url[:5].lower() == "file:":
                continue  # a file URL with no path (`file://` explained in a prompt)
            out.append({**_unknown("fetch", program), "known": True, "class": "outside", "url": url})
            if instance_metadata(url):
                out.append({**_unknown("read", program), "known": True, "class": "outside", "url": url,
                            "metadata": True})  # fmt: skip
    return out


def _runs_at_start(
    effects: list[dict[str, JSON]],
    tool_input: Mapping[str, Any],
    spec: ToolSpec,
    program: str,
    homes: tuple[str, ...],
    project: str,
) -> list[dict[str, JSON]]:
    """A write into a file a shell or session runs at start (`~/.bashrc`), or the system runs or trusts later (a
    `.pth`): code run later (`deferred`), unless the text written into a shell's file only sets variables or aliases."""
    argument = spec.content or (spec.replace[1] if spec.replace else "")
    given = tool_input.get(argument) if argument else "\n".join(new_texts(tool_input)) or None  # a MultiEdit's
    later: list[dict[str, JSON]] = []
    for effect in effects:
        path = effect["path"]
        if effect["op"] != "write" or not isinstance(path, str) or not may_run_at_start(path, homes):
            continue
        if spec.patches:  # a patch: what it adds there
            text = patch_added_text(path, tool_input, spec)
        else:  # an edit that only adds lines is judged on them: the lines it keeps were in the file before it
            text = inserted_text(path, tool_input, spec) if effect["via"] == "tool" else None
            text = given if text is None else text
        if is_users_started_file(path) and texts_after(path, tool_input, spec, True) is not None:
            continue  # a user's unit seen whole: its commands are judged as a build file's (_judged_unit)
        langs = startup_languages(path, homes)
        when = next((w for h in homes if (w := shadows(path, h))), None) if langs <= {None} else None
        if when:  # a program before the system's, under a system program's name: any text there is asked
            code = {"lang": "text", "text": text if isinstance(text, str) else ""}
            later.append({**_unknown("exec", program), "known": isinstance(text, str), "code": code, "deferred": True,
                          "startup": path, "when": when})  # fmt: skip
            continue
        if langs <= {None}:
            continue
        lang = "sh" if "sh" in langs else "text"  # another program's file (`/etc/sudoers.d/x`): no shell settings
        text = unaliased(text, homes[0], project) if lang == "sh" and isinstance(text, str) else text
        if isinstance(text, str) and quiet_setting(effect, path, text, lang, homes[0]):
            continue
        code = {"lang": lang, "text": text if isinstance(text, str) else ""}
        later.append({**_unknown("exec", program), "known": isinstance(text, str), "code": code, "deferred": True,
                      "startup": path})  # fmt: skip
    return later


def _unnamed_write(
    tool_input: Mapping[str, Any], program: str, spec: ToolSpec, *, home: str | None, project: str
) -> list[dict[str, JSON]]:
    """A write or edit tool whose arguments hookd does not know (Droid's ApplyPatch): the files of a patch in
    any of its arguments, else one write it cannot name (asked)."""
    resolver = PathResolver(home=home or "/", project_dir=project)
    for arg, text in tool_input.items():
        if isinstance(text, str) and (CODEX_MARK in text or "\n+++ " in text):
            entries = _patch_entries(resolver, arg, text, project)
            if entries:
                return [_effect(e, spec, program, home=home, project=project) for e in entries]
    return [_unknown("write", program)]


def enrich_tool_effects(event: NormalisedEvent) -> NormalisedEvent:
    """Appends the effects of a file, search, patch or web tool call to `effects`; other events pass unchanged."""
    effects = tool_effects(event)
    before = event.facts.get("effects")
    every = [*(before if isinstance(before, list) else []), *effects]
    marked = mark_holdings(every, event.facts.get("home"), event.project_dir.removesuffix("/"))
    return event if marked is every and not effects else event.with_facts(effects=marked)
