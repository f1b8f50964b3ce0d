"""Factory Droid: its captured hook inputs parse onto the canonical events, and every verdict renders
the way Droid 0.225.2 honours it (docs/droid.md): a deny or ask is exit 2 with the reason on stderr,
an allow is nothing, a rewrite is updatedInput without a permissionDecision."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookd.dialects.registry import AGENTS
from hookd.types import Caller, Deadline, Decision, Event, HookRequest, NormalisedEvent, Outcome, ToolKind

SAMPLES = Path(__file__).resolve().parents[2] / "fixtures" / "agent-samples"
CALLER = Caller(uid=1000, gid=1000, pid=1)
DIALECT = AGENTS["droid"].dialect


def parse(event: str, env: dict[str, str] | None = None) -> NormalisedEvent:
    raw = (SAMPLES / f"droid-{event}.json").read_bytes()
    request = HookRequest("droid", event, raw, {"HOME": "/home/a", **(env or {})}, "/", CALLER, Deadline.after(5))
    return DIALECT.parse(request)


@pytest.mark.parametrize(
    ("event", "canonical", "tool"),
    [
        ("PreToolUse", Event.BEFORE_TOOL, "Execute"),
        ("PostToolUse", Event.AFTER_TOOL, "Execute"),
        ("SessionStart", Event.SESSION_START, None),
        ("SessionEnd", Event.SESSION_END, None),
        ("Stop", Event.AFTER_AGENT, None),
    ],
)
def test_captured_inputs_parse(event: str, canonical: Event, tool: str | None) -> None:
    parsed = parse(event)
    assert (parsed.client, parsed.event, parsed.client_event) == ("droid", canonical, event)
    assert (parsed.tool.name if parsed.tool else None) == tool
    if parsed.tool is not None:
        assert parsed.tool.kind is ToolKind.SHELL and parsed.tool.input["command"].startswith("touch ")
    assert parsed.session_id and parsed.cwd == "$W/proj"


def test_the_project_dir_is_factorys() -> None:
    assert parse("PreToolUse", {"FACTORY_PROJECT_DIR": "/p"}).project_dir == "/p"


@pytest.mark.parametrize("outcome", [Outcome.DENY, Outcome.ASK])
def test_deny_and_ask_are_exit_2_with_the_reason_on_stderr(outcome: Outcome) -> None:
    reply = DIALECT.render(parse("PreToolUse"), Decision(outcome, reasons=("no",), decision_id="d1"))
    assert (reply.exit_code, reply.stdout, reply.stderr) == (2, b"", b"no (decision d1)\n")
    assert any("ask mapped to deny" in n for n in reply.notes) == (outcome is Outcome.ASK)


def test_halt_stops_the_session_and_blocks_the_call() -> None:
    reply = DIALECT.render(parse("PreToolUse"), Decision(Outcome.HALT, reasons=("stop",)))
    assert reply.exit_code == 2 and reply.stderr == b"stop\n"
    assert json.loads(reply.stdout)["continue"] is False


def test_allow_prints_nothing_and_context_is_recorded_as_not_carried() -> None:
    assert DIALECT.render(parse("PreToolUse"), Decision(Outcome.ALLOW)) == type(DIALECT.render(
        parse("PreToolUse"), Decision(Outcome.ALLOW)))()  # fmt: skip
    reply = DIALECT.render(parse("PreToolUse"), Decision(Outcome.ALLOW, contexts=("ctx",)))
    assert (reply.exit_code, reply.stdout, reply.stderr) == (0, b"", b"")
    assert any("context not carried" in n for n in reply.notes)


def test_a_rewrite_is_the_whole_input_without_a_permission_decision() -> None:
    event = parse("PreToolUse")
    reply = DIALECT.render(event, Decision(Outcome.REWRITE, rewrite={"tool_input": {"command": "echo safe"}}))
    specific = json.loads(reply.stdout)["hookSpecificOutput"]
    assert reply.exit_code == 0 and "permissionDecision" not in specific
    assert specific["updatedInput"] == {**event.payload["tool_input"], "command": "echo safe"}  # type: ignore[dict-item]


def test_the_daemons_own_fail_reply_is_exit_2_on_pre_tool_use_only() -> None:
    reply = DIALECT.fail_reply(Event.BEFORE_TOOL, "hookd is not\nrunning")
    assert (reply.exit_code, reply.stdout, reply.stderr) == (2, b"", b"hookd is not running\n")
    assert DIALECT.fail_reply(Event.AFTER_TOOL, "x").exit_code == 0


def test_unknown_events_are_refused() -> None:
    request = HookRequest("droid", "BeforeTool", b"{}", {}, "/", CALLER, Deadline.after(5))
    with pytest.raises(Exception, match="unknown Factory Droid hook event"):
        DIALECT.parse(request)
