"""What every dialect needs: reading the payload, the pieces of a Claude-shaped hook contract that several
agents copy (event name, tool call, answer fields), writing one JSON object. No I/O."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from hookd.errors import DialectError, one_line
from hookd.policy.combine import merge_patch
from hookd.runtime.users import home_of
from hookd.types import JSON, Decision, Event, HookRequest, NormalisedEvent, Reply, ToolCall
from hookd.wire import jsonstrict

_MCP_NAME = re.compile(r"mcp__(.+?)__(.+)")


def dump_json(value: Mapping[str, Any]) -> bytes:
    """One compact, pure-ASCII JSON object that JSON.parse accepts (non-finite numbers become null,
    as JSON.stringify would make them)."""
    return _compact(value).encode("ascii")


_compact = jsonstrict.encoder(separators=(",", ":"))


def load_payload(raw: bytes) -> dict[str, JSON]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DialectError(f"hook payload is not UTF-8 (bad byte at offset {exc.start})") from None
    try:
        payload = jsonstrict.loads(text)  # NaN, Infinity and 1e999 are no JSON numbers; too deep is an error
    except ValueError as exc:
        raise DialectError(f"hook payload is not valid JSON: {one_line(str(exc))}") from None
    if not isinstance(payload, dict):
        raise DialectError(f"hook payload must be a JSON object, got {json_type(payload)}")
    return payload


def json_type(value: JSON) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array"


def string_field(payload: Mapping[str, JSON], key: str) -> str:
    value = payload.get(key)
    return value if isinstance(value, str) else ""


def rewritten_tool_input(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    """The complete new tool input (both clients replace the arguments whole), the combined merge
    patch applied over what the agent sent; None when there is no change."""
    if "tool_input" not in decision.rewrite or event.tool is None:
        return None
    patch = decision.rewrite["tool_input"]
    if not isinstance(patch, Mapping):
        notes.append("rewrite of tool_input not carried: the patch is not a JSON object")
        return None
    full = merge_patch(event.tool.input, patch)
    if full == event.tool.input:
        notes.append("rewrite of tool_input changed nothing")
        return None
    return dict(full)


# --- pieces of a rendered answer that several agents share ----------------------------------------------


def with_message(out: dict[str, Any], decision: Decision, *extra: str) -> dict[str, Any]:
    """`out` with the lines for the user (`extra`, then the decision's messages) as `systemMessage`."""
    text = "\n".join([*extra, *decision.messages])
    if text:
        out["systemMessage"] = text
    return out


def plain(decision: Decision, *extra: str) -> dict[str, Any] | None:
    """Only the message for the user, or nothing."""
    return with_message({}, decision, *extra) or None


def joined_contexts(decision: Decision) -> str:
    return "\n\n".join(decision.contexts)


def halt_output(decision: Decision) -> dict[str, Any]:
    """The Claude-shaped answer that ends the session (Claude, Codex)."""
    return {"continue": False, "stopReason": decision.explain("stopped by hookd policy")}


def block_output(decision: Decision) -> dict[str, Any]:
    """The Claude-shaped block of a post-tool, prompt or stop event (Claude, Codex, Copilot)."""
    return {"decision": "block", "reason": decision.explain("denied by hookd policy")}


def note_unused_rewrites(name: str, decision: Decision, notes: list[str], *used: str) -> None:
    """A note for every rewrite target the event `name` cannot carry (never dropped silently)."""
    for target in decision.rewrite:
        if target not in used:
            notes.append(f"rewrite of {target} not carried: {name} cannot change it")


def carries_context(output: Mapping[str, Any] | None) -> bool:
    specific = output.get("hookSpecificOutput") if output else None
    return isinstance(specific, Mapping) and "additionalContext" in specific


def reply(output: Mapping[str, Any] | None, notes: list[str]) -> Reply:
    """The reply that prints `output` (nothing when None), with the notes for the decision log."""
    if output is None:
        return Reply(notes=tuple(notes))
    return Reply(stdout=dump_json(output), notes=tuple(notes))


# --- parsing a Claude-shaped payload -----------------------------------------------------------------------


def hook_event_name(request: HookRequest, payload: Mapping[str, JSON]) -> str:
    """The event's name: the one the hook was registered for, else the payload's `hook_event_name` (an
    http hook names its event in the payload only); a payload naming another event is refused."""
    named = payload.get("hook_event_name")
    name = request.event or named
    if not isinstance(name, str) or not name:
        raise DialectError("hook payload has no hook_event_name")
    if named is not None and named != name:
        raise DialectError(f"payload says hook_event_name={named!r} but the hook was registered for {name}")
    return name


def named_tool(name: str, payload: Mapping[str, JSON]) -> tuple[str, dict[str, JSON], dict[str, str] | None]:
    """`tool_name`, `tool_input` and, for `mcp__<server>__<tool>`, the MCP server and tool of event `name`'s
    payload; DialectError when either field is missing or of the wrong type."""
    tool, args = payload.get("tool_name"), payload.get("tool_input")
    if not isinstance(tool, str) or not tool:
        raise DialectError(f"{name} payload has no tool_name string")
    if not isinstance(args, dict):
        raise DialectError(f"{name} payload: tool_input must be a JSON object")
    match = _MCP_NAME.fullmatch(tool) if tool.startswith("mcp__") else None  # most tools are not MCP tools
    return tool, args, ({"server": match.group(1), "tool": match.group(2)} if match else None)


def caller_facts(request: HookRequest) -> dict[str, JSON]:
    """The facts every agent's event carries: the caller's home directory."""
    return {"home": request.env.get("HOME") or home_of(request.caller.uid)}


def claude_shaped_event(
    request: HookRequest,
    payload: dict[str, JSON],
    name: str,
    *,
    client: str,
    event: Event,
    tool: ToolCall | None,
    session_env: str = "",
    project_env: str = "",
) -> NormalisedEvent:
    """The event of a Claude-shaped payload (`cwd`, `session_id` in snake_case): the session from the payload or
    the agent's session variable, the project from the agent's project variable or the cwd."""
    cwd = string_field(payload, "cwd") or request.cwd
    env = request.env
    return NormalisedEvent(
        client=client,
        event=event,
        payload=payload,
        tool=tool,
        session_id=string_field(payload, "session_id") or (env.get(session_env, "") if session_env else ""),
        cwd=cwd,
        project_dir=(env.get(project_env, "") if project_env else "") or cwd,
        caller=request.caller,
        env=env,
        facts=caller_facts(request),
        client_event=name,
    )
