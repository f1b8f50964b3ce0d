"""GeminiDialect.render / fail_reply: every event x verdict -> the exact stdout bytes and exit code.

Expected bytes are written out by hand from the Gemini CLI hook contract
(as read from Gemini CLI's source; section numbers in the comments), never computed by the code
under test. Every reply is also checked to be exactly one JSON object (or nothing), exit 0, no stderr.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from hookd.dialects.gemini import FAIL_CLOSED_DENY_EVENTS, GEMINI_EVENTS, GeminiDialect
from hookd.policy.combine import combine
from hookd.types import Caller, Deadline, Event, HookRequest, NormalisedEvent, Reply, Verdict, VerdictKind

DIALECT = GeminiDialect()
PKG = "hookd.p"

BASE = {
    "session_id": "3f0c2a9e-8b7d-4c1e-9f5a-2d6b1e7c4a10",
    "transcript_path": "/home/alice/.gemini/tmp/p/chats/session.jsonl",
    "cwd": "/home/alice/proj",
    "timestamp": "2026-08-21T16:17:03.512Z",
}
LLM_REQUEST = {
    "model": "gemini-2.5-flash",
    "messages": [{"role": "user", "content": "env"}, {"role": "user", "content": "Tell me a story"}],
    "config": {"temperature": 1, "topP": 0.95, "topK": 64},
}
LLM_CHUNK = {
    "text": "Once upon",
    "candidates": [{"content": {"role": "model", "parts": ["Once upon"]}, "finishReason": "STOP", "index": 0}],
}
FIELDS: dict[Event, dict[str, Any]] = {
    Event.BEFORE_TOOL: {"tool_name": "write_file", "tool_input": {"file_path": "a.txt", "content": "hi"}},
    Event.AFTER_TOOL: {
        "tool_name": "read_file",
        "tool_input": {"file_path": "a.txt"},
        "tool_response": {"llmContent": "hi", "returnDisplay": ""},
    },
    Event.BEFORE_AGENT: {"prompt": "Hello"},
    Event.AFTER_AGENT: {"prompt": "Hello", "prompt_response": "Hi", "stop_hook_active": False},
    Event.BEFORE_MODEL: {"llm_request": LLM_REQUEST},
    Event.AFTER_MODEL: {"llm_request": LLM_REQUEST, "llm_response": LLM_CHUNK},
    Event.BEFORE_TOOL_SELECTION: {"llm_request": LLM_REQUEST},
    Event.SESSION_START: {"source": "startup"},
    Event.SESSION_END: {"reason": "exit"},
    Event.PRE_COMPRESS: {"trigger": "auto"},
    Event.NOTIFICATION: {
        "notification_type": "ToolPermission",
        "message": "Tool Confirm Shell Command requires execution",
        "details": {"type": "exec", "title": "Confirm Shell Command", "command": "ls", "rootCommand": "ls"},
    },
}


def event_of(event: Event, **overrides: Any) -> NormalisedEvent:
    payload = {**BASE, "hook_event_name": event.value, **FIELDS[event], **overrides}
    request = HookRequest(
        client="gemini",
        event=event.value,
        payload=json.dumps(payload).encode(),
        env={"HOME": "/home/alice"},
        cwd="/home/alice/proj",
        caller=Caller(uid=1000, gid=1000, pid=4242),
        deadline=Deadline.after(5),
    )
    return DIALECT.parse(request)


def halt(text: str = "stop now", rule: str = "h1", **patch: Any) -> Verdict:
    return Verdict(VerdictKind.HALT, PKG, rule, text, patch)


def deny(text: str = "not allowed", rule: str = "d1", **patch: Any) -> Verdict:
    return Verdict(VerdictKind.DENY, PKG, rule, text, patch)


def ask(text: str = "confirm?", rule: str = "a1") -> Verdict:
    return Verdict(VerdictKind.ASK, PKG, rule, text)


def rewrite(rule: str = "w1", **patch: Any) -> Verdict:
    return Verdict(VerdictKind.REWRITE, PKG, rule, "", patch)


def context(text: str = "ctx") -> Verdict:
    return Verdict(VerdictKind.CONTEXT, PKG, "c1", text)


def message(text: str = "note") -> Verdict:
    return Verdict(VerdictKind.MESSAGE, PKG, "m1", text)


def render(event: NormalisedEvent, *verdicts: Verdict) -> Reply:
    reply = DIALECT.render(event, combine(verdicts))
    assert_one_object(reply)
    return reply


def assert_one_object(reply: Reply) -> None:
    """Gemini honours exactly one JSON value on stdout (§2.1, §9.4); exit 0, nothing on stderr."""
    assert reply.exit_code == 0
    assert reply.stderr == b""
    if reply.stdout:
        text = reply.stdout.decode("ascii")  # pure ASCII: no multi-byte char to split (§3.7)
        value, end = json.JSONDecoder().raw_decode(text)
        assert end == len(text), "a second value follows the JSON object"
        assert isinstance(value, dict)
        assert json.loads(reply.stdout) == value


HALT_OUT = b'{"continue":false,"stopReason":"stop now [hookd.p:h1]"}'
DENY_OUT = b'{"decision":"deny","reason":"not allowed [hookd.p:d1]"}'
ASK_AS_DENY = b'{"decision":"deny","reason":"confirm? [hookd.p:a1]"}'
NONE_CONFIG = b'{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"mode":"NONE","allowedFunctionNames":[]}}}'  # noqa: E501
MSG_OUT = b'{"systemMessage":"note"}'


def shown(kind: str, reason: str) -> bytes:
    return b'{"systemMessage":"hookd (' + kind.encode() + b"): " + reason.encode() + b'"}'


# (event, verdicts, stdout, notes)
MATRIX: list[tuple[Event, str, tuple[Verdict, ...], bytes, tuple[str, ...]]] = [
    # BeforeTool (§2.3 BeforeTool, §6)
    (Event.BEFORE_TOOL, "allow", (), b"", ()),
    (Event.BEFORE_TOOL, "halt", (halt(),), HALT_OUT, ()),
    (Event.BEFORE_TOOL, "deny", (deny(),), DENY_OUT, ()),
    (Event.BEFORE_TOOL, "ask", (ask(),), b'{"decision":"ask","systemMessage":"confirm? [hookd.p:a1]"}', ()),
    (
        Event.BEFORE_TOOL,
        "rewrite",
        (rewrite(tool_input={"content": "bye"}),),
        b'{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"file_path":"a.txt","content":"bye"}}}',
        (),
    ),
    (
        Event.BEFORE_TOOL,
        "context",
        (context(),),
        b"",
        ("context not carried: BeforeTool cannot add it to this reply",),
    ),
    (Event.BEFORE_TOOL, "message", (message(),), MSG_OUT, ()),
    # AfterTool (§2.3 AfterTool): ask cannot be carried -> deny
    (Event.AFTER_TOOL, "allow", (), b"", ()),
    (Event.AFTER_TOOL, "halt", (halt(),), HALT_OUT, ()),
    (Event.AFTER_TOOL, "deny", (deny(),), DENY_OUT, ()),
    (Event.AFTER_TOOL, "ask", (ask(),), ASK_AS_DENY, ("ask mapped to deny: AfterTool cannot ask the user",)),
    (
        Event.AFTER_TOOL,
        "rewrite",
        (rewrite(tail_tool_call={"name": "write_file", "args": {"file_path": "b.txt", "content": "x"}}),),
        b'{"hookSpecificOutput":{"hookEventName":"AfterTool","tailToolCallRequest":'
        b'{"name":"write_file","args":{"file_path":"b.txt","content":"x"}}}}',
        (),
    ),
    (
        Event.AFTER_TOOL,
        "context",
        (context(),),
        b'{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"ctx"}}',
        (),
    ),
    (Event.AFTER_TOOL, "message", (message(),), MSG_OUT, ()),
    # BeforeAgent (§2.3 BeforeAgent): ask -> deny
    (Event.BEFORE_AGENT, "allow", (), b"", ()),
    (Event.BEFORE_AGENT, "halt", (halt(),), HALT_OUT, ()),
    (Event.BEFORE_AGENT, "deny", (deny(),), DENY_OUT, ()),
    (
        Event.BEFORE_AGENT,
        "ask",
        (ask(),),
        ASK_AS_DENY,
        ("ask mapped to deny: BeforeAgent cannot ask the user",),
    ),
    (
        Event.BEFORE_AGENT,
        "rewrite",
        (rewrite(tool_input={"a": 1}),),
        b"",
        ("rewrite of tool_input not carried: BeforeAgent cannot change it",),
    ),
    (
        Event.BEFORE_AGENT,
        "context",
        (context(),),
        b'{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"ctx"}}',
        (),
    ),
    (Event.BEFORE_AGENT, "message", (message(),), MSG_OUT, ()),
    # AfterAgent (§2.3 AfterAgent): ask -> a message
    (Event.AFTER_AGENT, "allow", (), b"", ()),
    (Event.AFTER_AGENT, "halt", (halt(),), HALT_OUT, ()),
    (Event.AFTER_AGENT, "deny", (deny(),), DENY_OUT, ()),
    (
        Event.AFTER_AGENT,
        "ask",
        (ask(),),
        shown("ask", "confirm? [hookd.p:a1]"),
        ("ask not carried: AfterAgent cannot ask; shown as a message",),
    ),
    (
        Event.AFTER_AGENT,
        "rewrite",
        (rewrite(llm_response="x"),),
        b"",
        ("rewrite of llm_response not carried: AfterAgent cannot change it",),
    ),
    (
        Event.AFTER_AGENT,
        "context",
        (context(),),
        b"",
        ("context not carried: AfterAgent cannot add it to this reply",),
    ),
    (Event.AFTER_AGENT, "message", (message(),), MSG_OUT, ()),
    # BeforeModel (§2.3 BeforeModel): ask -> deny; config sent whole (§9.17)
    (Event.BEFORE_MODEL, "allow", (), b"", ()),
    (Event.BEFORE_MODEL, "halt", (halt(),), HALT_OUT, ()),
    (Event.BEFORE_MODEL, "deny", (deny(),), DENY_OUT, ()),
    (
        Event.BEFORE_MODEL,
        "ask",
        (ask(),),
        ASK_AS_DENY,
        ("ask mapped to deny: BeforeModel cannot ask the user",),
    ),
    (
        Event.BEFORE_MODEL,
        "rewrite",
        (rewrite(llm_request={"config": {"temperature": 0}}),),
        b'{"hookSpecificOutput":{"hookEventName":"BeforeModel","llm_request":'
        b'{"config":{"temperature":0,"topP":0.95,"topK":64}}}}',
        (),
    ),
    (
        Event.BEFORE_MODEL,
        "context",
        (context(),),
        b"",
        ("context not carried: BeforeModel cannot add it to this reply",),
    ),
    (Event.BEFORE_MODEL, "message", (message(),), MSG_OUT, ()),
    # AfterModel (§2.3 AfterModel): ask -> deny; llm_response replaces the chunk
    (Event.AFTER_MODEL, "allow", (), b"", ()),
    (Event.AFTER_MODEL, "halt", (halt(),), HALT_OUT, ()),
    (Event.AFTER_MODEL, "deny", (deny(),), DENY_OUT, ()),
    (
        Event.AFTER_MODEL,
        "ask",
        (ask(),),
        ASK_AS_DENY,
        ("ask mapped to deny: AfterModel cannot ask the user",),
    ),
    (
        Event.AFTER_MODEL,
        "rewrite",
        (rewrite(llm_response="[redacted]"),),
        b'{"hookSpecificOutput":{"hookEventName":"AfterModel","llm_response":'
        b'{"candidates":[{"content":{"role":"model","parts":["[redacted]"]},"index":0,"finishReason":"STOP"}]}}}',
        (),
    ),
    (
        Event.AFTER_MODEL,
        "context",
        (context(),),
        b"",
        ("context not carried: AfterModel cannot add it to this reply",),
    ),
    (Event.AFTER_MODEL, "message", (message(),), MSG_OUT, ()),
    # BeforeToolSelection (§2.3, §5.4, §9.18): blocks -> mode NONE; no-op and messages print nothing
    (Event.BEFORE_TOOL_SELECTION, "allow", (), b"", ()),
    (
        Event.BEFORE_TOOL_SELECTION,
        "halt",
        (halt(),),
        NONE_CONFIG,
        ("halt mapped to tool mode NONE: no tool may be called this turn",),
    ),
    (
        Event.BEFORE_TOOL_SELECTION,
        "deny",
        (deny(),),
        NONE_CONFIG,
        ("deny mapped to tool mode NONE: no tool may be called this turn",),
    ),
    (
        Event.BEFORE_TOOL_SELECTION,
        "ask",
        (ask(),),
        NONE_CONFIG,
        ("ask mapped to tool mode NONE: no tool may be called this turn",),
    ),
    (
        Event.BEFORE_TOOL_SELECTION,
        "rewrite",
        (rewrite(tool_config={"mode": "ANY", "allowed": ["read_file", "glob"]}),),
        b'{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":'
        b'{"mode":"ANY","allowedFunctionNames":["glob","read_file"]}}}',
        (),
    ),
    (
        Event.BEFORE_TOOL_SELECTION,
        "context",
        (context(),),
        b"",
        ("context not carried: BeforeToolSelection cannot add it to this reply",),
    ),
    (
        Event.BEFORE_TOOL_SELECTION,
        "message",
        (message(),),
        b"",
        ("message not shown: any output on BeforeToolSelection would reset the tool config",),
    ),
    # SessionStart (§2.3 SessionStart): cannot block -> message
    (Event.SESSION_START, "allow", (), b"", ()),
    (
        Event.SESSION_START,
        "halt",
        (halt(),),
        shown("halt", "stop now [hookd.p:h1]"),
        ("halt not enforceable on SessionStart: shown as a message",),
    ),
    (
        Event.SESSION_START,
        "deny",
        (deny(),),
        shown("deny", "not allowed [hookd.p:d1]"),
        ("deny not enforceable on SessionStart: shown as a message",),
    ),
    (
        Event.SESSION_START,
        "ask",
        (ask(),),
        shown("ask", "confirm? [hookd.p:a1]"),
        ("ask not enforceable on SessionStart: shown as a message",),
    ),
    (
        Event.SESSION_START,
        "rewrite",
        (rewrite(tool_input={"a": 1}),),
        b"",
        ("rewrite of tool_input not carried: SessionStart cannot change it",),
    ),
    (
        Event.SESSION_START,
        "context",
        (context(),),
        b'{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"}}',
        (),
    ),
    (Event.SESSION_START, "message", (message(),), MSG_OUT, ()),
]
for _observed in (Event.SESSION_END, Event.PRE_COMPRESS, Event.NOTIFICATION):
    _name = _observed.value
    MATRIX += [
        (_observed, "allow", (), b"", ()),
        (
            _observed,
            "halt",
            (halt(),),
            shown("halt", "stop now [hookd.p:h1]"),
            (f"halt not enforceable on {_name}: shown as a message",),
        ),
        (
            _observed,
            "deny",
            (deny(),),
            shown("deny", "not allowed [hookd.p:d1]"),
            (f"deny not enforceable on {_name}: shown as a message",),
        ),
        (
            _observed,
            "ask",
            (ask(),),
            shown("ask", "confirm? [hookd.p:a1]"),
            (f"ask not enforceable on {_name}: shown as a message",),
        ),
        (
            _observed,
            "rewrite",
            (rewrite(tool_input={"a": 1}),),
            b"",
            (f"rewrite of tool_input not carried: {_name} cannot change it",),
        ),
        (
            _observed,
            "context",
            (context(),),
            b"",
            (f"context not carried: {_name} cannot add it to this reply",),
        ),
        (_observed, "message", (message(),), MSG_OUT, ()),
    ]


def test_matrix_covers_every_event_and_verdict() -> None:
    kinds = {"allow", "halt", "deny", "ask", "rewrite", "context", "message"}
    assert {(e, k) for e, k, *_ in MATRIX} == {(e, k) for e in GEMINI_EVENTS.values() for k in kinds}


@pytest.mark.parametrize(
    ("event", "verdicts", "stdout", "notes"),
    [pytest.param(e, v, out, n, id=f"{e.value}-{k}") for e, k, v, out, n in MATRIX],
)
def test_event_by_verdict(event: Event, verdicts: tuple[Verdict, ...], stdout: bytes, notes: tuple[str, ...]) -> None:
    reply = render(event_of(event), *verdicts)
    assert reply.stdout == stdout
    assert reply.exit_code == 0
    assert reply.notes == notes


# --- BeforeTool ----------------------------------------------------------------------------------


def test_before_tool_rewrite_null_deletes_a_key_and_the_full_object_is_sent() -> None:
    # tool_input replaces the arguments whole (§2.3 BeforeTool step 4, §9.6): keys not sent are dropped
    ev = event_of(
        Event.BEFORE_TOOL,
        tool_name="run_shell_command",
        tool_input={"command": "rm -rf build", "description": "clean", "is_background": True},
    )
    reply = render(ev, rewrite(tool_input={"is_background": None, "command": "rm -rf ./build"}))
    assert reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":'
        b'{"command":"rm -rf ./build","description":"clean"}}}'
    )


def test_before_tool_rewrite_merges_nested_objects() -> None:
    ev = event_of(Event.BEFORE_TOOL, tool_name="mcp_srv_q", tool_input={"opts": {"a": 1, "b": 2}, "q": "x"})
    reply = render(ev, rewrite(tool_input={"opts": {"b": None, "c": 3}}))
    assert reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"opts":{"a":1,"c":3},"q":"x"}}}'
    )


def test_before_tool_rewrite_that_changes_nothing_prints_nothing() -> None:
    reply = render(event_of(Event.BEFORE_TOOL), rewrite(tool_input={"content": "hi", "absent": None}))
    assert reply.stdout == b""
    assert reply.notes == ("rewrite of tool_input changed nothing",)


def test_before_tool_rewrite_that_changes_nothing_still_shows_messages() -> None:
    reply = render(event_of(Event.BEFORE_TOOL), rewrite(tool_input={"content": "hi"}), message())
    assert reply.stdout == MSG_OUT


def test_before_tool_two_rewrites_later_null_still_deletes() -> None:
    reply = render(
        event_of(Event.BEFORE_TOOL),
        rewrite("w1", tool_input={"content": "first"}),
        rewrite("w2", tool_input={"content": None}),
    )
    assert reply.stdout == b'{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"file_path":"a.txt"}}}'


def test_before_tool_rewrite_patch_not_an_object_is_not_carried() -> None:
    reply = render(event_of(Event.BEFORE_TOOL), rewrite(tool_input="rm -rf /"))
    assert reply.stdout == b""
    assert reply.notes == ("rewrite of tool_input not carried: the patch is not a JSON object",)


def test_before_tool_rewrite_with_message() -> None:
    reply = render(event_of(Event.BEFORE_TOOL), rewrite(tool_input={"content": "bye"}), message("sanitised"))
    assert reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"file_path":"a.txt","content":"bye"}},'
        b'"systemMessage":"sanitised"}'
    )


def test_before_tool_ask_carries_the_rewrite_the_user_confirms() -> None:
    # Gemini applies tool_input and then forces the prompt (§2.3 BeforeTool steps 3-4, §6)
    reply = render(event_of(Event.BEFORE_TOOL), rewrite(tool_input={"content": "bye"}), ask())
    assert reply.stdout == (
        b'{"decision":"ask","hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":'
        b'{"file_path":"a.txt","content":"bye"}},"systemMessage":"confirm? [hookd.p:a1]"}'
    )


def test_before_tool_ask_system_message_is_reason_then_messages() -> None:
    reply = render(event_of(Event.BEFORE_TOOL), message("first"), ask("sure?"), ask("really?", rule="a2"))
    assert reply.stdout == b'{"decision":"ask","systemMessage":"sure? [hookd.p:a1]; really? [hookd.p:a2]\\nfirst"}'


def test_before_tool_deny_wins_over_ask_and_rewrite_and_keeps_messages() -> None:
    reply = render(event_of(Event.BEFORE_TOOL), ask(), rewrite(tool_input={"content": "x"}), deny(), message())
    assert reply.stdout == b'{"decision":"deny","reason":"not allowed [hookd.p:d1]","systemMessage":"note"}'


def test_before_tool_halt_wins_over_deny() -> None:
    reply = render(event_of(Event.BEFORE_TOOL), deny(), halt())
    assert reply.stdout == HALT_OUT


def test_several_deny_reasons_join() -> None:
    reply = render(event_of(Event.BEFORE_TOOL), deny("one"), deny("two", rule="d2"))
    assert reply.stdout == b'{"decision":"deny","reason":"one [hookd.p:d1]; two [hookd.p:d2]"}'


# --- AfterTool -----------------------------------------------------------------------------------


def test_after_tool_context_tail_and_message_together() -> None:
    reply = render(
        event_of(Event.AFTER_TOOL),
        context("first"),
        context("second"),
        rewrite(tail_tool_call={"name": "read_file", "args": {"file_path": "b.txt"}}),
        message(),
    )
    assert reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"first\\n\\nsecond",'
        b'"tailToolCallRequest":{"name":"read_file","args":{"file_path":"b.txt"}}},"systemMessage":"note"}'
    )


def test_after_tool_tail_call_without_args_gets_an_empty_object() -> None:
    reply = render(event_of(Event.AFTER_TOOL), rewrite(tail_tool_call={"name": "list_directory"}))
    assert reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"AfterTool","tailToolCallRequest":{"name":"list_directory","args":{}}}}'
    )


@pytest.mark.parametrize(
    "tail", [{"name": "x", "args": "not an object"}, {"args": {}}, {"name": ""}, "read_file", {"name": 3}]
)
def test_after_tool_malformed_tail_call_is_not_carried(tail: Any) -> None:
    reply = render(event_of(Event.AFTER_TOOL), rewrite(tail_tool_call=tail))
    assert reply.stdout == b""
    assert reply.notes == ("tail_tool_call not carried: it needs a non-empty `name` and an object `args`",)


def test_after_tool_deny_drops_context_with_a_note() -> None:
    reply = render(event_of(Event.AFTER_TOOL), context(), deny())
    assert reply.stdout == DENY_OUT
    assert reply.notes == ("context not carried: AfterTool cannot add it to this reply",)


# --- BeforeAgent / AfterAgent --------------------------------------------------------------------


def test_before_agent_deny_with_message_keeps_the_reason_visible() -> None:
    # the UI shows `systemMessage || reason` for a BeforeAgent block (§2.3 BeforeAgent, §2.4)
    reply = render(event_of(Event.BEFORE_AGENT), deny(), message())
    assert reply.stdout == (
        b'{"decision":"deny","reason":"not allowed [hookd.p:d1]","systemMessage":"not allowed [hookd.p:d1]\\nnote"}'
    )


def test_before_agent_context_and_message() -> None:
    reply = render(event_of(Event.BEFORE_AGENT), context("a"), context("b"), message())
    assert reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"a\\n\\nb"},"systemMessage":"note"}'
    )


def test_after_agent_deny_with_stop_hook_active_is_not_enforced() -> None:
    # a deny while Gemini is already retrying would loop until the turn budget is spent (§2.3 AfterAgent)
    reply = render(event_of(Event.AFTER_AGENT, stop_hook_active=True), deny(clear_context=True), message())
    assert reply.stdout == b'{"systemMessage":"hookd (deny): not allowed [hookd.p:d1]\\nnote"}'
    assert reply.notes == ("deny not enforced: stop_hook_active (AfterAgent is already retrying)",)


def test_after_agent_halt_with_stop_hook_active_is_enforced() -> None:
    reply = render(event_of(Event.AFTER_AGENT, stop_hook_active=True), halt())
    assert reply.stdout == HALT_OUT


def test_after_agent_deny_clear_context() -> None:
    reply = render(event_of(Event.AFTER_AGENT), deny(clear_context=True))
    assert reply.stdout == (
        b'{"decision":"deny","reason":"not allowed [hookd.p:d1]",'
        b'"hookSpecificOutput":{"hookEventName":"AfterAgent","clearContext":true}}'
    )


def test_after_agent_halt_clear_context() -> None:
    reply = render(event_of(Event.AFTER_AGENT), halt(clear_context=True))
    assert reply.stdout == (
        b'{"continue":false,"stopReason":"stop now [hookd.p:h1]",'
        b'"hookSpecificOutput":{"hookEventName":"AfterAgent","clearContext":true}}'
    )


def test_after_agent_clear_context_from_a_deny_is_kept_when_a_halt_wins() -> None:
    reply = render(event_of(Event.AFTER_AGENT), deny(clear_context=True), halt())
    assert reply.stdout == (
        b'{"continue":false,"stopReason":"stop now [hookd.p:h1]",'
        b'"hookSpecificOutput":{"hookEventName":"AfterAgent","clearContext":true}}'
    )


def test_after_agent_halt_with_message_keeps_the_reason_visible() -> None:
    reply = render(event_of(Event.AFTER_AGENT), halt(), message())
    assert reply.stdout == (
        b'{"continue":false,"stopReason":"stop now [hookd.p:h1]","systemMessage":"stop now [hookd.p:h1]\\nnote"}'
    )


def test_after_agent_ask_with_message() -> None:
    reply = render(event_of(Event.AFTER_AGENT), ask(), message())
    assert reply.stdout == b'{"systemMessage":"hookd (ask): confirm? [hookd.p:a1]\\nnote"}'


# --- BeforeModel ---------------------------------------------------------------------------------

SYNTHETIC = (
    b'{"decision":"deny","reason":"not allowed [hookd.p:d1]",'
    b'"hookSpecificOutput":{"hookEventName":"BeforeModel","llm_response":{"candidates":'
    b'[{"content":{"role":"model","parts":["I cannot help with that."]},'
    b'"index":0,"finishReason":"STOP"}]}}}'
)


@pytest.mark.parametrize(
    ("synthetic", "stdout"),
    [
        ("I cannot help with that.", SYNTHETIC),
        ({"text": "I cannot help with that."}, SYNTHETIC),
        (
            {"candidates": [{"content": {"parts": ["I cannot help with that."]}, "finishReason": "STOP", "index": 0}]},
            SYNTHETIC,
        ),
        (
            # candidates given whole are kept as given: Gemini itself sets a missing finishReason to STOP
            {"candidates": [{"content": {"role": "model", "parts": ["I cannot help with that."]}}]},
            SYNTHETIC.replace(b',"finishReason":"STOP"', b""),
        ),
    ],
    ids=["string", "text", "candidates-full", "candidates-no-finish"],
)
def test_before_model_deny_with_synthetic_response(synthetic: Any, stdout: bytes) -> None:
    # with a blocking decision, llm_response becomes the synthetic answer (§2.3 BeforeModel step 2)
    reply = render(event_of(Event.BEFORE_MODEL), deny(llm_response=synthetic))
    assert reply.stdout == stdout
    assert reply.notes == ()


@pytest.mark.parametrize(
    "synthetic",
    [
        {"candidates": [{"content": "oops"}]},
        {"candidates": []},
        {"candidates": [{"content": {"parts": [{"text": "x"}]}}]},
        {"candidates": [{"content": {"parts": []}}]},
        "",
        42,
        {"other": 1},
    ],
)
def test_before_model_malformed_synthetic_response_is_dropped_and_the_block_kept(synthetic: Any) -> None:
    # a malformed llm_response makes Gemini treat the deny as "not blocked" (§2.3 BeforeModel, §9.16)
    reply = render(event_of(Event.BEFORE_MODEL), deny(llm_response=synthetic))
    assert reply.stdout == DENY_OUT
    assert reply.notes == ("synthetic llm_response not sent: it has no text (a string, text or candidates)",)


def test_before_model_halt_ignores_synthetic_response() -> None:
    reply = render(event_of(Event.BEFORE_MODEL), deny(llm_response="x"), halt())
    assert reply.stdout == HALT_OUT


def test_before_model_ask_mapped_to_deny_keeps_no_synthetic() -> None:
    reply = render(event_of(Event.BEFORE_MODEL), ask(), message())
    assert reply.stdout == b'{"decision":"deny","reason":"confirm? [hookd.p:a1]","systemMessage":"note"}'


def test_before_model_llm_request_messages_and_model() -> None:
    messages = [{"role": "user", "content": "env"}, {"role": "user", "content": "Tell me a short story"}]
    reply = render(event_of(Event.BEFORE_MODEL), rewrite(llm_request={"model": "gemini-2.5-pro", "messages": messages}))
    assert reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"BeforeModel","llm_request":{"model":"gemini-2.5-pro",'
        b'"messages":[{"role":"user","content":"env"},{"role":"user","content":"Tell me a short story"}]}}}'
    )


def test_before_model_llm_request_config_null_clears_one_value() -> None:
    reply = render(event_of(Event.BEFORE_MODEL), rewrite(llm_request={"config": {"topK": None}}))
    assert reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"BeforeModel","llm_request":{"config":{"temperature":1,"topP":0.95}}}}'
    )


def test_before_model_llm_request_that_changes_nothing_prints_nothing() -> None:
    reply = render(event_of(Event.BEFORE_MODEL), rewrite(llm_request={"config": {"temperature": 1}}))
    assert reply.stdout == b""
    assert reply.notes == ("rewrite of llm_request changed nothing",)


def test_before_model_llm_request_model_cannot_be_deleted() -> None:
    reply = render(event_of(Event.BEFORE_MODEL), rewrite(llm_request={"model": None}))
    assert reply.stdout == b""
    assert reply.notes == (
        "llm_request.model not carried: Gemini cannot delete it",
        "rewrite of llm_request changed nothing",
    )


# --- AfterModel ----------------------------------------------------------------------------------


def test_after_model_replacement_candidates() -> None:
    response = {"candidates": [{"content": {"role": "model", "parts": ["a", "b"]}, "finishReason": "STOP"}]}
    reply = render(event_of(Event.AFTER_MODEL), rewrite(llm_response=response), message())
    assert reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"AfterModel","llm_response":{"candidates":'
        b'[{"content":{"role":"model","parts":["a","b"]},"index":0,"finishReason":"STOP"}]}},"systemMessage":"note"}'
    )


def test_after_model_string_replacement_keeps_a_mid_stream_chunk_unfinished() -> None:
    chunk = {"candidates": [{"content": {"role": "model", "parts": ["Once"]}, "index": 0}]}
    reply = render(event_of(Event.AFTER_MODEL, llm_response=chunk), rewrite(llm_response={"text": "[redacted]"}))
    assert reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"AfterModel","llm_response":'
        b'{"candidates":[{"content":{"role":"model","parts":["[redacted]"]},"index":0}]}}}'
    )


@pytest.mark.parametrize("response", ["", {"candidates": [{"content": {"parts": []}}]}, {"candidates": "x"}, 7])
def test_after_model_replacement_without_text_is_not_carried(response: Any) -> None:
    # Gemini needs candidates[0].content.parts non-empty (§2.2)
    reply = render(event_of(Event.AFTER_MODEL), rewrite(llm_response=response))
    assert reply.stdout == b""
    assert reply.notes == ("llm_response rewrite not carried: it has no text parts",)


# --- BeforeToolSelection -------------------------------------------------------------------------


def _config(reply: Reply) -> Any:
    return json.loads(reply.stdout)["hookSpecificOutput"]["toolConfig"]


def test_before_tool_selection_rewrite_with_message_prints_only_the_config() -> None:
    reply = render(event_of(Event.BEFORE_TOOL_SELECTION), rewrite(tool_config={"mode": "NONE"}), message())
    assert reply.stdout == NONE_CONFIG
    assert reply.notes == ("message not shown: any output on BeforeToolSelection would reset the tool config",)


def test_before_tool_selection_missing_mode_is_auto() -> None:
    reply = render(event_of(Event.BEFORE_TOOL_SELECTION), rewrite(tool_config={"allowed": ["read_file"]}))
    assert reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":'
        b'{"mode":"AUTO","allowedFunctionNames":["read_file"]}}}'
    )


def test_before_tool_selection_two_configs_compose() -> None:
    reply = render(
        event_of(Event.BEFORE_TOOL_SELECTION),
        rewrite("w1", tool_config={"mode": "AUTO", "allowed": ["read_file", "glob", "grep_search"]}),
        rewrite("w2", tool_config={"mode": "ANY", "allowedFunctionNames": ["glob", "read_file", "write_file"]}),
    )
    assert reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":'
        b'{"mode":"ANY","allowedFunctionNames":["glob","read_file"]}}}'
    )


def test_before_tool_selection_disjoint_allow_lists_mean_no_tool() -> None:
    # ANY with allowedFunctionNames [] would allow every tool; an empty intersection allows none
    reply = render(
        event_of(Event.BEFORE_TOOL_SELECTION),
        rewrite("w1", tool_config={"mode": "ANY", "allowed": ["read_file"]}),
        rewrite("w2", tool_config={"mode": "ANY", "allowed": ["glob"]}),
    )
    assert reply.stdout == NONE_CONFIG


def test_before_tool_selection_empty_allow_list_means_no_tool() -> None:
    reply = render(event_of(Event.BEFORE_TOOL_SELECTION), rewrite(tool_config={"mode": "ANY", "allowed": []}))
    assert reply.stdout == NONE_CONFIG
    assert reply.notes == ("tool_config allows no tool name: mode NONE",)


def test_before_tool_selection_unknown_mode_is_auto_with_a_note() -> None:
    reply = render(event_of(Event.BEFORE_TOOL_SELECTION), rewrite(tool_config={"mode": "VALIDATED"}))
    assert reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":'
        b'{"mode":"AUTO","allowedFunctionNames":[]}}}'
    )
    assert reply.notes == ("tool_config mode 'VALIDATED' not understood: AUTO used",)


def test_before_tool_selection_non_object_config_prints_nothing() -> None:
    reply = render(event_of(Event.BEFORE_TOOL_SELECTION), rewrite(tool_config="NONE"))
    assert reply.stdout == b""
    assert reply.notes == ("rewrite of tool_config not carried: it is not a JSON object",)


def test_before_tool_selection_message_only_prints_nothing() -> None:
    assert render(event_of(Event.BEFORE_TOOL_SELECTION), message(), message("two")).stdout == b""


# --- SessionStart and the observed events --------------------------------------------------------


def test_session_start_context_and_message() -> None:
    reply = render(event_of(Event.SESSION_START), context(), message())
    assert reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"},"systemMessage":"note"}'
    )


def test_session_start_deny_with_context_and_message() -> None:
    reply = render(event_of(Event.SESSION_START), deny(), context(), message())
    assert reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"},'
        b'"systemMessage":"hookd (deny): not allowed [hookd.p:d1]\\nnote"}'
    )


def test_session_start_after_clear_notes_that_context_is_ignored() -> None:
    reply = render(event_of(Event.SESSION_START, source="clear"), context())
    assert reply.stdout == b'{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx"}}'
    assert reply.notes == ("context sent, but Gemini ignores SessionStart additionalContext after /clear",)


@pytest.mark.parametrize("event", [Event.SESSION_END, Event.PRE_COMPRESS, Event.NOTIFICATION])
def test_observed_events_join_outcome_and_messages(event: Event) -> None:
    reply = render(event_of(event), message("one"), halt(), message("two"))
    assert reply.stdout == b'{"systemMessage":"hookd (halt): stop now [hookd.p:h1]\\none\\ntwo"}'


# --- encoding ------------------------------------------------------------------------------------


def test_output_is_ascii_with_unicode_escapes() -> None:
    # Gemini decodes each stdout chunk on its own: a split multi-byte char would be garbled (§3.7)
    reply = render(event_of(Event.BEFORE_TOOL), deny("caf\u00e9 \u2713 \U0001f600"))
    assert reply.stdout == b'{"decision":"deny","reason":"caf\\u00e9 \\u2713 \\ud83d\\ude00 [hookd.p:d1]"}'
    assert json.loads(reply.stdout)["reason"] == "caf\u00e9 \u2713 \U0001f600 [hookd.p:d1]"


def test_lone_surrogate_from_the_payload_is_replaced_not_an_error() -> None:
    # The payload is read with hookd.wire.jsonstrict: a lone surrogate is U+FFFD from then on, as Node writes it
    # to a file (a str holding one would crash the embedded engine).
    ev = event_of(Event.BEFORE_TOOL, tool_input={"file_path": "a.txt", "content": "\ud800"})
    reply = render(ev, rewrite(tool_input={"file_path": "b.txt"}))
    assert reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"file_path":"b.txt","content":"\\ufffd"}}}'
    )


def test_non_finite_numbers_become_null() -> None:
    # JSON.parse rejects NaN/Infinity: the whole stdout would turn into a plain-text allow (§2.1). A
    # payload cannot carry one (1e999 is a bad payload), but a Python policy's rewrite can.
    request = HookRequest(
        client="gemini",
        event="BeforeTool",
        payload=b'{"tool_name":"x","tool_input":{"s":"a"}}',
        env={},
        cwd="/",
        caller=Caller(1, 1, 1),
        deadline=Deadline.after(5),
    )
    ev = DIALECT.parse(request)
    reply = render(ev, rewrite(tool_input={"s": "b", "n": math.inf}))
    assert reply.stdout == b'{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"s":"b","n":null}}}'


def test_control_characters_and_quotes_are_escaped() -> None:
    reply = render(event_of(Event.BEFORE_TOOL), deny('a "b"\n\tc\\'))
    assert reply.stdout == b'{"decision":"deny","reason":"a \\"b\\"\\n\\tc\\\\ [hookd.p:d1]"}'


# --- fail_reply ----------------------------------------------------------------------------------


@pytest.mark.parametrize("event", list(GEMINI_EVENTS.values()), ids=lambda e: e.value)
def test_fail_reply_per_event(event: Event) -> None:
    reply = DIALECT.fail_reply(event, "hookd could not be reached: connection refused")
    assert_one_object(reply)
    if event in (Event.BEFORE_TOOL, Event.BEFORE_AGENT, Event.BEFORE_MODEL, Event.AFTER_TOOL):
        assert reply.stdout == b'{"decision":"deny","reason":"hookd could not be reached: connection refused"}'
    else:
        assert reply.stdout == b""
    assert reply.exit_code == 0


def test_fail_closed_events_are_exactly_the_four_that_can_block_without_looping() -> None:
    assert frozenset({Event.BEFORE_TOOL, Event.BEFORE_AGENT, Event.BEFORE_MODEL, Event.AFTER_TOOL}) == (
        FAIL_CLOSED_DENY_EVENTS
    )


def test_fail_reply_reason_is_one_line() -> None:
    reply = DIALECT.fail_reply(Event.BEFORE_TOOL, "engine failed:\n  line two\nStack backtrace:\n  0: x")
    assert reply.stdout == b'{"decision":"deny","reason":"engine failed: line two"}'


# --- the decision id in what the user sees ------------------------------------------------------------

ID = "01a2b3c4d5e6f708"


def render_with_id(event: NormalisedEvent, *verdicts: Verdict) -> Reply:
    from dataclasses import replace

    reply = DIALECT.render(event, replace(combine(verdicts), decision_id=ID))
    assert_one_object(reply)
    return reply


@pytest.mark.parametrize(
    ("event", "verdicts", "stdout"),
    [
        (Event.BEFORE_TOOL, (deny(),), b'{"decision":"deny","reason":"not allowed [hookd.p:d1] (decision 01a2b3c4d5e6f708)"}'),  # noqa: E501
        (Event.BEFORE_TOOL, (halt(),), b'{"continue":false,"stopReason":"stop now [hookd.p:h1] (decision 01a2b3c4d5e6f708)"}'),  # noqa: E501
        (Event.BEFORE_TOOL, (ask(),), b'{"decision":"ask","systemMessage":"confirm? [hookd.p:a1] (decision 01a2b3c4d5e6f708)"}'),  # noqa: E501
        (Event.AFTER_TOOL, (ask(),), b'{"decision":"deny","reason":"confirm? [hookd.p:a1] (decision 01a2b3c4d5e6f708)"}'),  # noqa: E501
        (Event.BEFORE_AGENT, (deny(), message()), b'{"decision":"deny","reason":"not allowed [hookd.p:d1] (decision 01a2b3c4d5e6f708)","systemMessage":"not allowed [hookd.p:d1] (decision 01a2b3c4d5e6f708)\\nnote"}'),  # noqa: E501
        (Event.SESSION_END, (deny(),), b'{"systemMessage":"hookd (deny): not allowed [hookd.p:d1] (decision 01a2b3c4d5e6f708)"}'),  # noqa: E501
    ],
)  # fmt: skip
def test_blocking_replies_quote_the_decision_id(event: Event, verdicts: tuple[Verdict, ...], stdout: bytes) -> None:
    assert render_with_id(event_of(event), *verdicts).stdout == stdout


def test_a_deny_without_reasons_still_quotes_the_id() -> None:
    from hookd.types import Decision, Outcome

    decision = Decision(outcome=Outcome.DENY, decision_id=ID)
    out = DIALECT.render(event_of(Event.BEFORE_TOOL), decision)
    assert out.stdout == b'{"decision":"deny","reason":"denied by hookd policy (decision 01a2b3c4d5e6f708)"}'


def test_allow_rewrite_and_context_carry_no_id() -> None:
    assert render_with_id(event_of(Event.BEFORE_TOOL)).stdout == b""
    rewritten = render_with_id(event_of(Event.BEFORE_TOOL), rewrite(tool_input={"content": "x"}))
    assert ID.encode() not in rewritten.stdout
    assert ID.encode() not in render_with_id(event_of(Event.AFTER_TOOL), context()).stdout


@pytest.mark.parametrize("decision_id", ["", "0123456789abcdef"])
@pytest.mark.parametrize("extras", [{}, {"clear_context": True}])
def test_a_plain_allow_of_a_streamed_chunk_renders_as_the_after_model_renderer_does(
    decision_id: str, extras: dict[str, Any]
) -> None:
    """GeminiDialect.render answers a plain allow on AfterModel without the renderer (every chunk of a streamed
    answer gets one): the same reply, whatever the chunk."""
    from dataclasses import replace

    from hookd.dialects.common import reply
    from hookd.dialects.gemini import render_output
    from hookd.types import Decision, Outcome

    decision = replace(Decision(Outcome.ALLOW, reasons=("r",), extras=extras), decision_id=decision_id)
    for payload in ({}, {"llm_response": {"candidates": [{"content": {"parts": ["x"]}, "finishReason": "STOP"}]}}):
        event = NormalisedEvent("gemini", Event.AFTER_MODEL, payload, None, "s", "/p", "/p", Caller(1, 1, 1))
        assert GeminiDialect().render(event, decision) == reply(*render_output(event, decision)) == Reply()
