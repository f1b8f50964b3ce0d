"""The agents' configuration judged by what its keys do (agentcfg40, policies/README.md).

A local MCP server in an agent's own configuration (Codex's `mcp_servers`, OpenCode's and Kilo's `mcp`, an
extension's `mcpServers`) is a program the agent starts later, outside its hooks. When its entry says no more than
which program starts and how (its command line, environment, timeouts), the effect model judges that
command line as the same line run now in the shell (enrich/tool_later.py `configured_commands`: a download piped
to a shell, code given inline, a read of the home's keys are stopped; a pinned public package is not), so such an
entry leaves hookd whole and self-protection compares only the rest. An entry with any other key (Gemini's
`trust`, Kilo's `alwaysAllow`, Codex's `env_vars`, a key hookd does not know) stays compared as before: never
widened by guess."""

from __future__ import annotations

import functools
import os
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hookd.dialects.approvals import has_placeholder
from hookd.dialects.launch import agents_started
from hookd.dialects.registry import AGENTS
from hookd.dialects.spec import MISSING, Surface, judged_value, keeps_hooks, settings_doc
from hookd.enrich.command_files import is_command_file
from hookd.enrich.config_commands import extension_variables
from hookd.enrich.effects.catalogue import runs_anything
from hookd.enrich.effects.words import runs_nothing
from hookd.enrich.shell.analysis import analyse_shell
from hookd.enrich.tool_args import inferred
from hookd.types import ToolCall, ToolKind

# The keys of a local server's entry that only say which program starts and how: the command line (`command`,
# `args`), its environment (judged below), whether and how long it may start. Not `cwd`: the effect model reads the
# line from the agent's directory, and `./server` from `/tmp/x` is another program (compared, as before).
# A formatter's (OpenCode's `formatter`) `extensions` and `disabled` say which files it formats and whether it runs.
_RUN_KEYS = frozenset({
    "type", "command", "args", "env", "environment", "enabled", "timeout",
    "startup_timeout_sec", "startup_timeout_ms", "tool_timeout_sec", "description", "extensions", "disabled",
})  # fmt: skip
_ENV_KEYS = ("env", "environment")
_SCOPE_KEYS = frozenset({"disabled", "extensions"})
_LOCAL_TYPES = frozenset({"local", "stdio"})


def runs_later(entry: Mapping[str, Any]) -> bool:
    """Is `entry` a local server whose change the effect model judges whole: only run keys, a command line the
    effect model reads (a string, or a list of strings, with `args` a list of strings), and an environment that
    makes its program load nothing (as a startup file's variables are judged: LD_PRELOAD, NODE_OPTIONS' `--require`,
    a PATH into scratch space are not nothing), starting no agent (whose options may start it unguarded)?"""
    if entry and "command" not in entry and _only_scopes(entry):
        return True  # no command of its own: whether and on which files OpenCode's formatter of that name runs
    if not entry.keys() <= _RUN_KEYS or entry.get("type", "local") not in _LOCAL_TYPES:
        return False
    if any(has_placeholder(entry.get(key)) for key in ("command", "args", *_ENV_KEYS)):
        return False  # a command or environment the agent fills in before it runs: not the line hookd would judge
    if not _strings(entry.get("command"), whole=True) or not _strings(entry.get("args", []), whole=False):
        return False
    if not all(_loads_nothing(entry[key]) for key in _ENV_KEYS if key in entry):
        return False
    command = entry["command"]
    return not _starts_an_agent([command] if isinstance(command, str) else command, entry.get("args", []))


def _only_scopes(entry: Mapping[str, Any]) -> bool:
    """A formatter entry of `disabled` and `extensions` only (https://opencode.ai/docs/formatters/: a built-in
    formatter's, or one the user's own config defines, switched or given other file types): it adds no command."""
    extensions = entry.get("extensions", [])
    return (
        entry.keys() <= _SCOPE_KEYS
        and isinstance(entry.get("disabled", False), bool)
        and _strings(extensions, whole=False)
    )


def _starts_an_agent(command: list[str], args: list[str]) -> bool:
    """Does the line start an agent (a nested Codex `mcp-server`, `npx @openai/codex`, one inside `sh -c`), as the
    shell's analysis reads it? Its start options may switch its hooks off: such a server stays compared."""
    line = command[0] if len(command) == 1 and not args else shlex.join([*command, *args])
    shell, _ = analyse_shell(line, home="/", base_dir="/", project_dir="/")
    commands = shell.get("commands") if isinstance(shell, Mapping) else None
    for found in commands if isinstance(commands, list) else []:
        argv = [str(word) for word in found.get("argv") or []] if isinstance(found, Mapping) else []
        if argv and agents_started(str(found.get("name") or argv[0]), argv, AGENTS):
            return True
    return False


def _strings(value: Any, whole: bool) -> bool:
    """A non-empty string (where `whole`) or a list of strings (non-empty where `whole`)."""
    if isinstance(value, str):
        return whole and bool(value.strip())
    return isinstance(value, list) and all(isinstance(v, str) for v in value) and (bool(value) or not whole)


def _loads_nothing(env: Any) -> bool:
    if not isinstance(env, Mapping):
        return False
    if not all(isinstance(k, str) and k.isidentifier() and isinstance(v, str) for k, v in env.items()):
        return False
    return runs_nothing("\n".join(f"{name}={shlex.quote(value)}" for name, value in env.items()))


def undeclared_texts(tool: ToolCall, old: str | None) -> list[str] | None:
    """The texts a write tool hookd has no table for (an MCP server's `write_file`) may leave, from the content
    hookd infers it writes: that content as the whole file, or added at its end (Desktop Commander's `append`
    mode, a notes server's append); each must keep hookd's hooks. None when no content is found."""
    guess = inferred(tool) if tool.kind in (ToolKind.MCP, ToolKind.OTHER) else None
    content = tool.input.get(guess.spec.content) if guess is not None and guess.spec.content else None
    if not isinstance(content, str):
        return None
    return [content, old + content] if old else [content]


# (the file's text now, None when missing; the text a call leaves) -> does it keep what hookd compares there?
Same = Callable[[str | None, str], bool]


def settings_judge(surface: Surface, noted: list[str] | None = None) -> Same:
    """A settings, switch, trust or bypass file's comparison: its guard keys, local servers left to `runs_later`,
    the command line of each such server the text adds or changes added to `noted` (to be judged as that line run
    now: `later_lines`)."""

    def same(old: str | None, new: str) -> bool:
        kept = keeps_hooks(surface, old, new, later=runs_later, runs_any=runs_anything)
        if kept and noted is not None:
            noted.extend(line for line in later_lines(surface, old, new) if line not in noted)
        return kept

    return same


def later_lines(surface: Surface, old: str | None, new: str) -> list[str]:
    """The command line (its environment assigned before it) of every local server `new` adds or changes that
    `runs_later` leaves out of the comparison: the agent runs it later as that line run now, so every policy must
    judge it as such (pipeline: a shell call of the line, its blocking verdicts the write's)."""
    try:
        before, after = (settings_doc(surface.path, text or "", surface.jsonc) for text in (old, new))
    except ValueError:
        return []
    lines: list[str] = []
    for key in (k for k in surface.keys if k.endswith("[local]")):
        was, now = _left_to_later(before, key), _left_to_later(after, key)
        lines += [server_line(entry) for name, entry in now.items() if was.get(name) != entry and "command" in entry]
    return lines


def _left_to_later(doc: Mapping[str, Any], key: str) -> dict[str, Mapping[str, Any]]:
    local, compared = judged_value(doc, key), judged_value(doc, key, runs_later)
    if not isinstance(local, Mapping) or not isinstance(compared, Mapping):
        return {}
    return {name: entry for name, entry in local.items() if name not in compared and isinstance(entry, Mapping)}


def server_line(entry: Mapping[str, Any], fill: Callable[[str], str] = str) -> str:
    """A local server's entry (as `runs_later` admits it) as the shell line that starts the same program: its
    environment assigned before the command, its command and arguments each one word (`fill`: each word as the
    agent fills in its variables)."""
    command = entry["command"]
    words = [fill(w) for w in ([command] if isinstance(command, str) else command) + list(entry.get("args", []))]
    env = {name: fill(value) for key in _ENV_KEYS for name, value in (entry.get(key) or {}).items()}
    assigned = [f"{name}={shlex.quote(value)}" for name, value in env.items()]
    return " ".join([*assigned, shlex.join(words)])


# The keys of an extension's manifest that change nothing of the guard and start nothing: its name, version and
# description, and the tools it turns off (https://geminicli.com/docs/extensions/reference).
_INERT_MANIFEST_KEYS = frozenset({"name", "version", "description", "excludeTools"})


def extension_judge(
    path: str, judged: Mapping[str, Surface], noted: list[str] | None = None, project: str = ""
) -> Same | None:
    """How a file of an extension is judged: a custom command under its `commands/` as one in ~/.gemini/commands is
    (the effect model judges its markers: enrich/command_files.py); the manifest of an INSTALLED extension (it is
    there already) by its keys (`manifest_keeps`); None for everything else (hooks/hooks.json, its code, a new
    extension's manifest: an extension installed is a new source of hooks, as a Claude plugin enabled is). The lines
    of the servers a kept manifest adds or changes, the agent's variables filled in, are added to `noted`."""
    root, parts = _extension_root(path, judged)
    if root is None or len(parts) < 2 or parts[0] in ("", ".", ".."):
        return None
    if parts[1] == "commands" and is_command_file(path):
        return _any_text
    manifest = os.path.join(root.path, parts[0], root.manifest)
    if parts[1:] == [root.manifest] and os.path.isfile(manifest):
        return functools.partial(manifest_keeps, os.path.dirname(manifest), noted=noted, project=project)
    return None


def _extension_root(path: str, judged: Mapping[str, Surface]) -> tuple[Surface | None, list[str]]:
    parts = path.split("/")
    for cut in range(len(parts) - 1, 0, -1):
        surface = judged.get("/".join(parts[:cut]))
        if surface is not None and surface.manifest:
            return surface, parts[cut:]
    return None, []


def _any_text(old: str | None, new: str) -> bool:
    return True


def manifest_keeps(
    directory: str, old: str | None, new: str, noted: list[str] | None = None, project: str = ""
) -> bool:
    """Does an extension's manifest (strict JSON, as Gemini CLI reads it) change only inert keys, local servers the
    effect model judges (`runs_later`), and context files inside the extension's own directory? Every other key,
    known or not, must stay as it was."""
    try:
        before, after = (settings_doc(Path("m.json"), text) for text in (old or "", new))
    except ValueError:
        return False
    for key in {*before, *after} - _INERT_MANIFEST_KEYS:
        if key == "mcpServers":
            same = judged_value(before, f"{key}[local]", runs_later) == judged_value(after, f"{key}[local]", runs_later)
        elif key == "contextFileName" and _inside(directory, after.get(key)):
            same = True
        else:
            same = before.get(key, MISSING) == after.get(key, MISSING)
        if not same:
            return False
    if noted is not None:
        was, now = _left_to_later(before, "mcpServers[local]"), _left_to_later(after, "mcpServers[local]")
        config = os.path.join(directory, "x-extension.json")  # the variables as the agent fills them for this one
        filled = (server_line(entry, lambda w: extension_variables(w, config, project)) for entry in now.values())
        changed = [line for (name, entry), line in zip(now.items(), filled, strict=True) if was.get(name) != entry]
        noted.extend(line for line in changed if line not in noted)
    return True


def _inside(directory: str, names: Any) -> bool:
    """Does every context file named (a name or a list of names) resolve inside the extension's directory?"""
    listed = [names] if isinstance(names, str) else names
    if not isinstance(listed, list) or not all(isinstance(n, str) and n for n in listed):
        return False
    top = os.path.realpath(directory)
    return all(os.path.realpath(os.path.join(top, n)).startswith(top + "/") for n in listed)
