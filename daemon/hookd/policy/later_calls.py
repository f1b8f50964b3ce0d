"""A command an agent's configuration makes it run later, judged as the same line run now (review42).

A local MCP server written into an agent's settings (Codex's `mcp_servers`, OpenCode's `mcp`) is a program the
agent starts later, outside its hooks. Self-protection leaves such an entry out of its comparison
(hookd.selfprotect_keys `runs_later`) and hands its command line as `input.hookd.later`; the pipeline evaluates
each line once more as the agent's own shell tool running it now, so that every policy (those that read
`input.shell.commands`: `hookd serve --policies DIR`, `systemctl stop hookd.service`; the privileged container,
`sudo`) judges it, and the write takes every halt, deny and ask the line gets."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace

from hookd.types import JSON, Event, NormalisedEvent, ToolCall, ToolKind, ToolSpec, Verdict, VerdictKind, settled

_BLOCKING = frozenset({VerdictKind.HALT, VerdictKind.DENY, VerdictKind.ASK})
MAX_LATER_LINES = 16  # past this many lines in one write, the rest are asked as one (`too_many`)


def later_lines(event: NormalisedEvent) -> list[str]:
    """The command lines a BeforeTool call leaves in an agent's settings for it to run later (`input.hookd.later`)."""
    hookd = event.facts.get("hookd") if event.event is Event.BEFORE_TOOL else None
    lines = hookd.get("later") if isinstance(hookd, Mapping) else None
    return [line for line in lines if isinstance(line, str) and line] if isinstance(lines, list) else []


def as_shell_call(event: NormalisedEvent, line: str, tools: Mapping[str, ToolSpec]) -> NormalisedEvent:
    """`event` as the agent's shell tool running `line` now, in the same directory (facts made again)."""
    shells = ((n, s) for n, s in tools.items() if s.kind is ToolKind.SHELL)
    name, spec = next(shells, ("shell", ToolSpec(ToolKind.SHELL)))
    arguments: dict[str, JSON] = {"command": line}
    payload = {**event.payload, "tool_name": name, "tool_input": arguments}
    return replace(event, payload=payload, tool=ToolCall(name, ToolKind.SHELL, arguments, spec=spec), facts={})


def judged_later(
    verdicts: Sequence[Verdict], lines: Sequence[str], later: Sequence[Sequence[Verdict]]
) -> list[Verdict]:
    """The write's verdicts and every halt, deny and ask each line got run now, each saying which line."""
    out = list(verdicts)
    for line, got in zip(lines, later, strict=True):
        said = f"this write leaves the command `{line}` for the agent to run later, judged as run now"
        out += [replace(v, message=f"{said}: {v.message}" if v.message else said) for v in got if v.kind in _BLOCKING]
    return out


def too_many(lines: Sequence[str]) -> list[Verdict]:
    """An ask for a write that leaves more lines than are judged one by one."""
    if len(lines) <= MAX_LATER_LINES:
        return []
    why = f"this write leaves {len(lines)} commands for the agent to run later, more than hookd judges; review them"
    return [Verdict(VerdictKind.ASK, "hookd.later_calls", "later-commands", why)]


Answer = Sequence[Verdict] | Awaitable[Sequence[Verdict]]


def with_later_calls(
    event: NormalisedEvent, answer: Answer, tools: Mapping[str, ToolSpec], judge: Callable[[NormalisedEvent], Answer]
) -> Answer:
    """`answer` with every halt, deny and ask of each command line the call leaves in an agent's settings for it to
    run later, that line judged (`judge`: enriched and evaluated) as the agent's shell tool (`tools`) running it."""
    lines = later_lines(event)
    if not lines:
        return answer
    judged = lines[:MAX_LATER_LINES]
    later = [judge(as_shell_call(event, line, tools)) for line in judged]
    if isinstance(answer, Awaitable) or any(isinstance(got, Awaitable) for got in later):
        return _joined(answer, lines, later)
    return judged_later([*answer, *too_many(lines)], judged, [got for got in later if not isinstance(got, Awaitable)])


async def _joined(answer: Answer, lines: list[str], later: list[Answer]) -> Sequence[Verdict]:
    first = await settled(answer)
    return judged_later([*first, *too_many(lines)], lines[:MAX_LATER_LINES], [await settled(got) for got in later])
