"""ClaudeDialect: Claude Code's events onto the canonical ones, and each verdict rendered as Claude honours it.

Expected bytes are written out by hand from the Claude Code hook contract (docs/claude.md), never
computed by the code under test.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from hookd.audit.ids import DecisionIds
from hookd.config import DEFAULT_FAIL_MODES
from hookd.dialects.claude import ClaudeDialect, canonical_event
from hookd.dialects.gemini import GeminiDialect
from hookd.errors import DialectError
from hookd.pipeline import AskPolicy, Pipeline
from hookd.policy.combine import combine
from hookd.policy.holder import PolicySetHolder
from hookd.testing import StaticEngine
from hookd.types import (
    JSON,
    Caller,
    Deadline,
    Event,
    HookRequest,
    NormalisedEvent,
    Outcome,
    Verdict,
    VerdictKind,
)

DIALECT = ClaudeDialect()
CALLER = Caller(uid=1000, gid=1000, pid=4242, ppid=4241)
PKG = "hookd.p"
BASE = {
    "session_id": "a5f51dad-62da-4300-8d71-3b7db1356494",
    "transcript_path": "/home/alice/.claude/projects/-home-alice-proj/a5f5.jsonl",
    "cwd": "/home/alice/proj",
    "permission_mode": "default",
}
BASH = {"tool_name": "Bash", "tool_input": {"command": "git push -f origin feat", "description": "push"},
        "tool_use_id": "toolu_1"}  # fmt: skip


def request(client_event: str, client: str = "claude", **fields: Any) -> HookRequest:
    payload = {**BASE, "hook_event_name": client_event, **fields}
    return HookRequest(
        client=client,
        event=client_event,
        payload=json.dumps(payload).encode(),
        env={"CLAUDE_PROJECT_DIR": "/home/alice/proj", "HOME": "/home/alice"},
        cwd="/home/alice/proj",
        caller=CALLER,
        deadline=Deadline.after(5),
    )


def parsed(client_event: str, **fields: Any) -> NormalisedEvent:
    return DIALECT.parse(request(client_event, **fields))


def verdict(kind: VerdictKind, message: str = "", rule: str = "r", **patch: JSON) -> Verdict:
    return Verdict(kind, PKG, rule, message, patch)


def render(client_event: str, *verdicts: Verdict, **fields: Any) -> tuple[Any, tuple[str, ...]]:
    event = parsed(client_event, **fields)
    reply = DIALECT.render(event, combine(list(verdicts)))
    assert (reply.exit_code, reply.stderr) == (0, b"")  # only exit 2 blocks; never a bare exit 1
    return (json.loads(reply.stdout) if reply.stdout else None), reply.notes


# --- parse ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("client_event", "canonical"),
    [
        ("PreToolUse", Event.BEFORE_TOOL),
        ("PostToolUse", Event.AFTER_TOOL),
        ("PostToolUseFailure", Event.AFTER_TOOL),
        ("UserPromptSubmit", Event.BEFORE_AGENT),
        ("Stop", Event.AFTER_AGENT),
        ("SubagentStop", Event.AFTER_AGENT),
        ("SessionStart", Event.SESSION_START),
        ("SessionEnd", Event.SESSION_END),
        ("PreCompact", Event.PRE_COMPRESS),
        ("Notification", Event.NOTIFICATION),
        ("PermissionRequest", Event.OTHER),
        ("FileChanged", Event.OTHER),
        ("TaskCreated", Event.OTHER),
    ],
)
def test_claude_events_map_onto_canonical_events(client_event: str, canonical: Event) -> None:
    assert canonical_event(client_event) is canonical


@pytest.mark.parametrize("name", ["", "preToolUse", "Pre Tool", "BeforeTool!", "X" * 80])
def test_a_name_claude_cannot_send_is_refused(name: str) -> None:
    with pytest.raises(DialectError, match="unknown Claude Code hook event"):
        canonical_event(name)


def test_the_input_document_keeps_client_and_client_event() -> None:
    document = parsed("PreToolUse", **BASH).input_document()
    assert (document["client"], document["event"], document["client_event"]) == ("claude", "BeforeTool", "PreToolUse")
    assert document["tool"] == {"name": "Bash", "kind": "shell", "input": BASH["tool_input"]}
    assert document["project_dir"] == "/home/alice/proj"
    assert document["session"]["id"] == BASE["session_id"]
    failure = parsed("PostToolUseFailure", **BASH, error="Exit code 1").input_document()
    assert (failure["event"], failure["client_event"]) == ("AfterTool", "PostToolUseFailure")


def test_a_payload_for_another_event_is_refused() -> None:
    bad = HookRequest("claude", "PreToolUse", json.dumps({"hook_event_name": "Stop"}).encode(), {}, "/", CALLER,
                      Deadline.after(5))  # fmt: skip
    with pytest.raises(DialectError, match="hook_event_name='Stop'"):
        DIALECT.parse(bad)


@pytest.mark.parametrize("fields", [{}, {"tool_name": "Bash"}, {"tool_name": "Bash", "tool_input": "ls"}])
def test_a_tool_event_without_a_tool_is_refused(fields: dict[str, Any]) -> None:
    with pytest.raises(DialectError):
        parsed("PreToolUse", **fields)


def test_other_events_keep_a_tool_when_they_name_one() -> None:
    permission = parsed("PermissionRequest", tool_name="Write", tool_input={"file_path": "/x", "content": ""})
    assert permission.event is Event.OTHER
    assert permission.tool is not None and permission.tool.kind.value == "write"
    assert parsed("FileChanged", file_path="/x", event="change").tool is None


# Each pair: the same action in Gemini's and in Claude's words, which every policy must see alike.
SAME_TOOLS = [
    ("run_shell_command", "Bash", "shell"),
    ("read_file", "Read", "read"),
    ("glob", "Glob", "read"),
    ("grep_search", "Grep", "read"),
    ("list_directory", "LS", "read"),
    ("write_file", "Write", "write"),
    ("replace", "Edit", "edit"),
    ("replace", "MultiEdit", "edit"),
    ("web_fetch", "WebFetch", "web"),
    ("google_web_search", "WebSearch", "web"),
    ("mcp_github_create_issue", "mcp__github__create_issue", "mcp"),
]


@pytest.mark.parametrize(("gemini_tool", "claude_tool", "kind"), SAME_TOOLS)
def test_tool_kinds_are_the_same_for_both_clients(gemini_tool: str, claude_tool: str, kind: str) -> None:
    claude = parsed("PreToolUse", tool_name=claude_tool, tool_input={})
    gemini_request = request("BeforeTool", client="gemini", tool_name=gemini_tool, tool_input={})
    gemini = GeminiDialect().parse(gemini_request)
    assert claude.tool is not None and gemini.tool is not None
    assert claude.tool.kind.value == gemini.tool.kind.value == kind


def test_mcp_server_and_tool_are_the_same_for_both_clients() -> None:
    claude = parsed("PreToolUse", tool_name="mcp__my_server__read__file", tool_input={})
    context = {"server_name": "my_server", "tool_name": "read__file"}
    gemini = GeminiDialect().parse(
        request("BeforeTool", client="gemini", tool_name="mcp_my_server_read__file", tool_input={}, mcp_context=context)
    )
    assert claude.input_document()["tool"]["mcp"] == {"server": "my_server", "tool": "read__file"}
    assert gemini.input_document()["tool"]["mcp"] == {"server": "my_server", "tool": "read__file"}


# --- render: PreToolUse ---------------------------------------------------------------------------------


def test_allow_prints_nothing_so_that_claudes_own_checks_stay() -> None:
    assert render("PreToolUse", **BASH) == (None, ())


def test_pre_tool_use_deny_is_a_permission_deny_with_the_reason() -> None:
    out, _ = render("PreToolUse", verdict(VerdictKind.DENY, "no force push", "fp"), **BASH)
    assert out == {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                          "permissionDecisionReason": "no force push [hookd.p:fp]"}}  # fmt: skip


def test_pre_tool_use_ask_is_a_permission_ask() -> None:
    out, _ = render("PreToolUse", verdict(VerdictKind.ASK, "confirm", "c"), **BASH)
    assert out == {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask",
                                          "permissionDecisionReason": "confirm [hookd.p:c]"}}  # fmt: skip


def test_rewrite_sends_the_full_input_object_without_a_permission_decision() -> None:
    patch = {"tool_input": {"command": "git push --force-with-lease origin feat"}}
    out, notes = render("PreToolUse", verdict(VerdictKind.REWRITE, **patch), **BASH)
    assert out == {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {
        "command": "git push --force-with-lease origin feat", "description": "push"}}}  # fmt: skip
    assert notes == ()


def test_ask_with_a_rewrite_asks_about_the_rewritten_call() -> None:
    patch = {"tool_input": {"command": "ls"}}
    out, _ = render("PreToolUse", verdict(VerdictKind.ASK, "ok?"), verdict(VerdictKind.REWRITE, **patch), **BASH)
    specific = out["hookSpecificOutput"]
    assert (specific["permissionDecision"], specific["updatedInput"]) == (
        "ask",
        {"command": "ls", "description": "push"},
    )


def test_pre_tool_use_context_and_message() -> None:
    out, _ = render("PreToolUse", verdict(VerdictKind.CONTEXT, "note"), verdict(VerdictKind.MESSAGE, "hi"), **BASH)
    assert out == {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "note"},
                   "systemMessage": "hi"}  # fmt: skip


def test_halt_stops_claude_and_denies_the_call() -> None:
    out, _ = render("PreToolUse", verdict(VerdictKind.HALT, "stop", "h"), **BASH)
    assert out["continue"] is False and out["stopReason"] == "stop [hookd.p:h]"
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_a_rewrite_that_changes_nothing_prints_nothing() -> None:
    out, notes = render("PreToolUse", verdict(VerdictKind.REWRITE, tool_input={"description": "push"}), **BASH)
    assert (out, notes) == (None, ("rewrite of tool_input changed nothing",))


# --- render: the other events ---------------------------------------------------------------------------


@pytest.mark.parametrize("client_event", ["PostToolUse", "PostToolUseFailure"])
def test_after_tool_blocks_and_adds_context(client_event: str) -> None:
    fields = {**BASH, "tool_response": {"stdout": "", "stderr": ""}}
    out, _ = render(client_event, verdict(VerdictKind.DENY, "bad", "b"), **fields)
    assert out == {"decision": "block", "reason": "bad [hookd.p:b]"}
    out, _ = render(client_event, verdict(VerdictKind.CONTEXT, "hint"), **fields)
    assert out == {"hookSpecificOutput": {"hookEventName": client_event, "additionalContext": "hint"}}


def test_user_prompt_submit_blocks_and_adds_context() -> None:
    out, notes = render("UserPromptSubmit", verdict(VerdictKind.ASK, "no", "n"), prompt="hi")
    assert out == {"decision": "block", "reason": "no [hookd.p:n]"}
    assert notes == ("ask mapped to deny: UserPromptSubmit cannot ask the user",)
    out, _ = render("UserPromptSubmit", verdict(VerdictKind.CONTEXT, "ctx"), prompt="hi")
    assert out == {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "ctx"}}


@pytest.mark.parametrize("client_event", ["Stop", "SubagentStop"])
def test_stop_block_respects_stop_hook_active(client_event: str) -> None:
    deny = verdict(VerdictKind.DENY, "tests are red", "t")
    out, _ = render(client_event, deny, stop_hook_active=False)
    assert out == {"decision": "block", "reason": "tests are red [hookd.p:t]"}
    out, notes = render(client_event, deny, stop_hook_active=True)
    assert out == {"systemMessage": "hookd (deny): tests are red [hookd.p:t]"}
    assert notes == (f"deny not enforced: stop_hook_active ({client_event} is already continuing)",)


def test_session_start_context() -> None:
    out, _ = render("SessionStart", verdict(VerdictKind.CONTEXT, "guarded"), verdict(VerdictKind.MESSAGE, "hi"),
                    source="startup")  # fmt: skip
    assert out == {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "guarded"},
                   "systemMessage": "hi"}  # fmt: skip


@pytest.mark.parametrize("client_event", ["SessionEnd", "Notification", "PermissionRequest", "CwdChanged"])
def test_observed_events_show_a_block_as_a_message(client_event: str) -> None:
    assert render(client_event) == (None, ())
    out, notes = render(client_event, verdict(VerdictKind.DENY, "x", "x"))
    assert out == {"systemMessage": "hookd (deny): x [hookd.p:x]"}
    assert notes == (f"deny not enforceable on {client_event}: shown as a message",)


def test_pre_compact_can_block() -> None:
    out, _ = render("PreCompact", verdict(VerdictKind.DENY, "keep it", "k"), trigger="auto")
    assert out == {"decision": "block", "reason": "keep it [hookd.p:k]"}


# --- fail replies ---------------------------------------------------------------------------------------


def test_fail_reply_per_event() -> None:
    reason = "hookd could not evaluate:\n  line two"
    pre = json.loads(DIALECT.fail_reply(Event.BEFORE_TOOL, reason).stdout)
    specific = {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                "permissionDecisionReason": "hookd could not evaluate: line two"}  # fmt: skip
    assert pre == {"hookSpecificOutput": specific}
    for event in (Event.BEFORE_AGENT, Event.AFTER_TOOL):
        assert json.loads(DIALECT.fail_reply(event, reason).stdout)["decision"] == "block"
    for event in (Event.AFTER_AGENT, Event.SESSION_START, Event.NOTIFICATION, Event.OTHER):
        assert DIALECT.fail_reply(event, reason).stdout == b""


# --- the pipeline passes an ask through (Claude denies it itself under -p) --------------------------------


def test_ask_is_not_turned_into_the_headless_fallback_for_claude() -> None:
    pipeline = Pipeline(
        dialects={"claude": DIALECT, "gemini": GeminiDialect()},
        enrichers=(),
        policy_set=PolicySetHolder(StaticEngine([verdict(VerdictKind.ASK, "sure?", "s")])),
        fail_modes=DEFAULT_FAIL_MODES,
        ask=AskPolicy(),
        probe=lambda _pid: False,  # a headless session
        ids=DecisionIds(),
    )
    claude = asyncio.run(pipeline.handle(request("PreToolUse", **BASH)))
    assert claude.decision.outcome is Outcome.ASK
    assert json.loads(claude.reply.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"
    gemini_request = request("BeforeTool", client="gemini", tool_name="run_shell_command", tool_input={"command": "ls"})
    gemini = asyncio.run(pipeline.handle(gemini_request))
    assert gemini.decision.outcome is Outcome.DENY  # Gemini would hang on an ask: the fallback applies


def test_an_http_hook_names_its_event_in_the_payload_only() -> None:
    payload = json.dumps({**BASE, "hook_event_name": "PostToolUse", **BASH, "tool_response": {}}).encode()
    event = DIALECT.parse(HookRequest("claude", "", payload, {}, "/", CALLER, Deadline.after(5)))
    assert (event.event, event.client_event) == (Event.AFTER_TOOL, "PostToolUse")
    with pytest.raises(DialectError, match="no hook_event_name"):
        DIALECT.parse(HookRequest("claude", "", b"{}", {}, "/", CALLER, Deadline.after(5)))
