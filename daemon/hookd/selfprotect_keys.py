"""The agents' configuration judged by what its keys do (agentcfg40, policies/README.md).

A local MCP server in an agent's own configuration (Codex's `mcp_servers`, OpenCode's and Kilo's `mcp`, an
extension's `mcpServers`) is a program the agent starts later, outside its hooks. When its entry says no more than
which program starts and how (its command line, directory, environment, timeouts), the effect model judges that
command line as the same line run now in the shell (enrich/tool_effects.py `_configured_commands`: a download piped
to a shell, code given inline, a read of the home's keys are stopped; a pinned public package is not), so such an
entry leaves hookd whole and self-protection compares only the rest. An entry with any other key (Gemini's
`trust`, Kilo's `alwaysAllow`, Codex's `env_vars`, a key hookd does not know) stays compared as before: never
widened by guess."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.words import runs_nothing
from hookd.enrich.tool_args import inferred
from hookd.types import ToolCall, ToolKind

# The keys of a local server's entry that only say which program starts and how: the command line (`command`,
# `args`), the directory it starts in, its environment (judged below), whether and how long it may start.
_RUN_KEYS = frozenset({
    "type", "command", "args", "cwd", "env", "environment", "enabled", "timeout",
    "startup_timeout_sec", "startup_timeout_ms", "tool_timeout_sec", "description",
})  # fmt: skip
_ENV_KEYS = ("env", "environment")
_LOCAL_TYPES = frozenset({"local", "stdio"})


def runs_later(entry: Mapping[str, Any]) -> bool:
    """Is `entry` a local server whose change the effect model judges whole: only run keys, a command line the
    effect model reads (a string, or a list of strings, with `args` a list of strings), and an environment that
    makes its program load nothing (as a startup file's variables are judged: LD_PRELOAD, NODE_OPTIONS' `--require`,
    a PATH into scratch space are not nothing)?"""
    if not entry.keys() <= _RUN_KEYS or entry.get("type", "local") not in _LOCAL_TYPES:
        return False
    if not _strings(entry.get("command"), whole=True) or not _strings(entry.get("args", []), whole=False):
        return False
    return all(_loads_nothing(entry[key]) for key in _ENV_KEYS if key in entry)


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
