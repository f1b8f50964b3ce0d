"""Codex CLI, Copilot CLI and Qwen Code: their captured hook inputs parse onto the canonical events, and
every verdict renders the way the agent honours it, or maps by the documented rule (docs/<agent>.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookd.dialects.registry import AGENTS
from hookd.types import Caller, Deadline, Decision, Event, HookRequest, NormalisedEvent, Outcome, ToolKind

SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "agent-samples"
CALLER = Caller(uid=1000, gid=1000, pid=1)


def parse(agent: str, event: str, payload: bytes | None = None) -> NormalisedEvent:
    raw = payload if payload is not None else (SAMPLES / f"{agent}-{event}.json").read_bytes()
    request = HookRequest(agent, event, raw, {"HOME": "/home/a"}, "/", CALLER, Deadline.after(5))
    return AGENTS[agent].dialect.parse(request)


def render(event: NormalisedEvent, decision: Decision) -> tuple[Any, tuple[str, ...]]:
    reply = AGENTS[event.client].dialect.render(event, decision)
    return (json.loads(reply.stdout) if reply.stdout else None), reply.notes


DENY = Decision(Outcome.DENY, reasons=("no",), decision_id="d1")
ASK = Decision(Outcome.ASK, reasons=("sure?",))
HALT = Decision(Outcome.HALT, reasons=("stop",))
REWRITE = Decision(Outcome.REWRITE, rewrite={"tool_input": {"command": "echo safe"}})
CONTEXT = Decision(Outcome.ALLOW, contexts=("ctx",))


@pytest.mark.parametrize(
    ("agent", "event", "canonical", "tool"),
    [
        ("codex", "PreToolUse", Event.BEFORE_TOOL, "Bash"),
        ("codex", "PostToolUse", Event.AFTER_TOOL, "Bash"),
        ("codex", "UserPromptSubmit", Event.BEFORE_AGENT, None),
        ("codex", "Stop", Event.AFTER_AGENT, None),
        ("codex", "SessionStart", Event.SESSION_START, None),
        ("copilot", "preToolUse", Event.BEFORE_TOOL, "bash"),
        ("copilot", "PreToolUse", Event.BEFORE_TOOL, "Bash"),
        ("copilot", "permissionRequest", Event.BEFORE_TOOL, "bash"),
        ("codex", "PermissionRequest", Event.BEFORE_TOOL, "Bash"),
        ("qwen", "PreToolUse", Event.BEFORE_TOOL, "run_shell_command"),
    ],
)
def test_captured_inputs_parse(agent: str, event: str, canonical: Event, tool: str | None) -> None:
    parsed = parse(agent, event)
    assert (parsed.client, parsed.event, parsed.client_event) == (agent, canonical, event)
    assert (parsed.tool.name if parsed.tool else None) == tool
    if tool is not None and parsed.tool is not None:
        assert parsed.tool.kind is ToolKind.SHELL and parsed.tool.input["command"].startswith("touch ")
    assert parsed.session_id and parsed.cwd


def test_an_unknown_event_or_a_wrong_name_is_refused() -> None:
    from hookd.errors import DialectError

    for agent, event in (("codex", "BeforeTool"), ("copilot", "beforeTool"), ("qwen", "BeforeTool")):
        with pytest.raises(DialectError):
            parse(agent, event, b"{}")
    with pytest.raises(DialectError, match="hook_event_name"):
        parse("codex", "PostToolUse", (SAMPLES / "codex-PreToolUse.json").read_bytes())


# --- Codex ---------------------------------------------------------------------------------------------


def test_codex_pre_tool_use_renders_exactly_its_schema() -> None:
    event = parse("codex", "PreToolUse")
    specific = {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "no (decision d1)",
    }
    assert render(event, DENY)[0] == {"hookSpecificOutput": specific}
    allow = {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "echo safe"}}
    assert render(event, REWRITE)[0] == {"hookSpecificOutput": allow}
    assert render(event, Decision(Outcome.ALLOW)) == (None, ())  # an allow alone would be a failed hook
    assert render(event, CONTEXT)[0] == {
        "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "ctx"}
    }


@pytest.mark.parametrize(("decision", "note"), [(ASK, "ask mapped to deny"), (HALT, "halt mapped to deny")])
def test_codex_has_no_ask_and_no_halt_on_pre_tool_use(decision: Decision, note: str) -> None:
    output, notes = render(parse("codex", "PreToolUse"), decision)
    assert output["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert output["hookSpecificOutput"]["permissionDecisionReason"]
    assert any(n.startswith(note) for n in notes)


def test_codex_blocks_a_prompt_and_a_stop_and_shows_a_repeated_stop() -> None:
    assert render(parse("codex", "UserPromptSubmit"), DENY)[0] == {"decision": "block", "reason": "no (decision d1)"}
    assert render(parse("codex", "Stop"), DENY)[0] == {"decision": "block", "reason": "no (decision d1)"}
    again = parse(
        "codex",
        "Stop",
        (SAMPLES / "codex-Stop.json").read_bytes().replace(b'"stop_hook_active":false', b'"stop_hook_active":true'),
    )
    output, notes = render(again, DENY)
    assert "decision" not in (output or {}) and any("stop_hook_active" in n for n in notes)


# --- Copilot -------------------------------------------------------------------------------------------


def test_copilot_answers_each_case_in_its_own_shape() -> None:
    camel, pascal = parse("copilot", "preToolUse"), parse("copilot", "PreToolUse")
    assert render(camel, DENY)[0] == {"permissionDecision": "deny", "permissionDecisionReason": "no (decision d1)"}
    assert render(pascal, DENY)[0]["hookSpecificOutput"]["permissionDecision"] == "deny"
    full = {"command": "echo safe", "description": "test"}
    assert render(camel, REWRITE)[0] == {"modifiedArgs": full}
    nested = render(pascal, REWRITE)[0]["hookSpecificOutput"]
    assert (nested["permissionDecision"], nested["updatedInput"]) == ("allow", full)
    assert render(camel, ASK)[0] == {"permissionDecision": "ask", "permissionDecisionReason": "sure?"}
    assert render(camel, CONTEXT)[0] == {"additionalContext": "ctx"}
    assert render(camel, Decision(Outcome.ALLOW)) == (None, ())


# --- Qwen ----------------------------------------------------------------------------------------------


def test_qwen_maps_a_rewrite_to_a_deny_and_drops_pre_tool_context() -> None:
    event = parse("qwen", "PreToolUse")
    output, notes = render(event, REWRITE)
    specific = output["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert "hookd would run instead: echo safe" in specific["permissionDecisionReason"]
    assert any(n.startswith("rewrite mapped to deny") for n in notes)
    output, notes = render(event, CONTEXT)
    assert output is None and any("drops additionalContext" in n for n in notes)
    assert render(event, DENY)[0]["hookSpecificOutput"]["permissionDecisionReason"] == "no (decision d1)"


# --- PermissionRequest: the same call in the agent's approval path ---------------------------------------


def closed_schema_keys(value: Any, schema: dict[str, Any], root: dict[str, Any]) -> None:
    """Every key of `value` is one the (closed) schema names, recursively; required keys are present."""
    while "$ref" in schema or "allOf" in schema:
        ref = schema["$ref"] if "$ref" in schema else schema["allOf"][0]["$ref"]
        schema = root["definitions"][ref.rsplit("/", 1)[1]]
    if not isinstance(value, dict):
        assert "enum" not in schema or value in schema["enum"]
        return
    assert set(schema.get("required", ())) <= set(value)
    for key, item in value.items():
        assert key in schema["properties"], key
        closed_schema_keys(item, schema["properties"][key], root)


def test_codex_permission_request_denies_in_its_schema_and_never_allows() -> None:
    event = parse("codex", "PermissionRequest")
    assert (event.event, event.tool.name if event.tool else None) == (Event.BEFORE_TOOL, "Bash")
    schema = json.loads((SAMPLES / "codex-PermissionRequest.output.schema.json").read_text())
    denied = {"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                     "decision": {"behavior": "deny", "message": "no (decision d1)"}}}  # fmt: skip
    assert render(event, DENY)[0] == denied
    closed_schema_keys(denied, schema, schema)
    halted, notes = render(event, HALT)
    assert halted["hookSpecificOutput"]["decision"]["behavior"] == "deny" and "interrupt" not in str(halted)
    assert any(n.startswith("halt mapped to deny") for n in notes)
    for decision in (Decision(Outcome.ALLOW), ASK, REWRITE):
        assert render(event, decision)[0] is None  # never `allow`: that approves on the user's behalf
    spec = AGENTS["codex"].event_index["PermissionRequest"]
    assert spec.install and spec.fail_closed and spec.fail_output == {
        "hookSpecificOutput": {"hookEventName": "PermissionRequest",
                               "decision": {"behavior": "deny", "message": "\x00reason\x00"}}}  # fmt: skip


def test_copilot_permission_request_denies_flat_and_never_allows() -> None:
    event = parse("copilot", "permissionRequest")
    assert render(event, DENY)[0] == {"behavior": "deny", "message": "no (decision d1)"}
    assert render(event, HALT)[0] == {"behavior": "deny", "message": "stop", "interrupt": True}
    for decision in (Decision(Outcome.ALLOW), ASK, REWRITE, CONTEXT):
        assert render(event, decision)[0] is None
    spec = AGENTS["copilot"].event_index["permissionRequest"]
    assert spec.install and spec.fail_closed and spec.fail_output == {"behavior": "deny", "message": "\x00reason\x00"}


CAPITALISED = [
    ("View", ToolKind.READ),
    ("Create", ToolKind.WRITE),
    ("Edit", ToolKind.EDIT),
    ("Grep", ToolKind.READ),
    ("Bash", ToolKind.SHELL),
]


@pytest.mark.parametrize(("name", "kind"), CAPITALISED)
def test_copilot_pascal_case_events_name_the_same_tools_capitalised(name: str, kind: ToolKind) -> None:
    payload = {"session_id": "s", "cwd": "/p", "hook_event_name": "PreToolUse", "tool_name": name,
               "tool_input": {"path": "/p/.env"}}  # fmt: skip
    tool = parse("copilot", "PreToolUse", json.dumps(payload).encode()).tool
    assert tool is not None and tool.kind is kind and tool.spec is not None
    assert tool.spec.kind is kind and (kind is ToolKind.SHELL or tool.spec.paths)
