"""hookd.policy.redecide: what a rewrite makes (a tool call, a tail call, a model request, a response chunk) is
the event decided again, and what blocks it is kept."""

from __future__ import annotations

from typing import Any

import pytest

from hookd.policy.redecide import decided_again, rewritten_event
from hookd.types import JSON, Caller, Event, NormalisedEvent, ToolCall, ToolKind, Verdict, VerdictKind

K = VerdictKind


def v(kind: VerdictKind, message: str = "", policy: str = "hookd.p", rule: str = "r", **patch: Any) -> Verdict:
    return Verdict(kind, policy, rule, message, patch)


def event(kind: Event, payload: dict[str, JSON], tool: ToolCall | None = None, **facts: JSON) -> NormalisedEvent:
    return NormalisedEvent(
        client="gemini", event=kind, payload=payload, tool=tool, session_id="s", cwd="/p", project_dir="/p",
        caller=Caller(1, 1, 1), facts=facts,
    )  # fmt: skip


def shell(command: str) -> NormalisedEvent:
    arguments = {"command": command, "description": "d"}
    call = ToolCall("run_shell_command", ToolKind.SHELL, arguments)
    payload: dict[str, JSON] = {"tool_name": "run_shell_command", "tool_input": arguments}
    return event(Event.BEFORE_TOOL, payload, call, shell={"source": command})


def unread(kind: Event, payload: dict[str, JSON]) -> NormalisedEvent:
    raise AssertionError(f"no {kind} to read")


def test_the_rewritten_call_is_what_the_agent_will_run() -> None:
    before = shell("ls")
    again = rewritten_event(before, [v(K.REWRITE, tool_input={"command": "rm -rf ~"})], unread)
    assert again is not None and again.tool is not None
    assert again.tool.input == {"command": "rm -rf ~", "description": "d"}
    assert again.payload["tool_input"] == again.tool.input  # input.raw too
    assert again.facts == {}  # built again by the enrichers
    assert before.tool is not None and before.tool.input["command"] == "ls"  # the event is not changed


def test_nothing_to_decide_again_without_a_rewrite_that_goes_out() -> None:
    before = shell("ls")
    assert rewritten_event(before, [], unread) is None
    assert rewritten_event(before, [v(K.CONTEXT, "c")], unread) is None
    denied = [v(K.REWRITE, tool_input={"command": "x"}), v(K.DENY, "no")]
    assert rewritten_event(before, denied, unread) is None
    assert rewritten_event(before, [v(K.REWRITE, tool_input={"command": "ls"})], unread) is None  # no change
    assert rewritten_event(before, [v(K.REWRITE, llm_request={"model": "m"})], unread) is None  # not this event's


def test_a_tail_call_is_the_before_tool_the_agent_sends_for_it() -> None:
    call = ToolCall("read_file", ToolKind.READ, {"file_path": "a"})
    after = event(Event.AFTER_TOOL, {"session_id": "s", "cwd": "/p", "hook_event_name": "AfterTool",
                                     "tool_name": "read_file", "tool_input": {"file_path": "a"},
                                     "tool_response": {"llmContent": "x"}, "mcp_context": {}}, call)  # fmt: skip
    read: list[tuple[Event, dict[str, JSON]]] = []

    def reader(kind: Event, payload: dict[str, JSON]) -> NormalisedEvent:
        read.append((kind, payload))
        return shell("rm -rf ~")

    tail = [v(K.REWRITE, tail_tool_call={"name": "run_shell_command", "args": {"command": "rm -rf ~"}})]
    assert rewritten_event(after, tail, reader) == shell("rm -rf ~")
    sent = {"session_id": "s", "cwd": "/p", "hook_event_name": "BeforeTool", "tool_name": "run_shell_command"}
    assert read == [(Event.BEFORE_TOOL, {**sent, "tool_input": {"command": "rm -rf ~"}})]
    assert rewritten_event(after, [v(K.REWRITE, tail_tool_call={"args": {}})], reader) is None  # not carried
    assert len(read) == 1


def test_a_model_request_rewrite_is_the_request_the_model_gets() -> None:
    sent: dict[str, JSON] = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    before = event(Event.BEFORE_MODEL, {"llm_request": sent}, caller_uid=1)
    again = rewritten_event(before, [v(K.REWRITE, llm_request={"model": "other"})], unread)
    assert again is not None and again.payload["llm_request"] == {**sent, "model": "other"}
    assert again.facts == before.facts
    assert rewritten_event(before, [v(K.REWRITE, llm_request={"model": "m"})], unread) is None  # no change


@pytest.mark.parametrize(
    ("value", "text"),
    [("plain", "plain"), ({"text": "t"}, "t"),
     ({"candidates": [{"content": {"role": "model", "parts": ["c"]}}]}, None)],
)  # fmt: skip
def test_a_response_rewrite_is_the_chunk_the_user_gets(value: JSON, text: str | None) -> None:
    sent = {"candidates": [{"content": {"role": "model", "parts": ["orig"]}, "finishReason": "STOP"}]}
    stream: JSON = {"text": "so far orig", "chunk": "orig"}
    before = event(Event.AFTER_MODEL, {"llm_response": sent, "llm_request": {}}, stream=stream)
    again = rewritten_event(before, [v(K.REWRITE, llm_response=value)], unread)
    assert again is not None and again.facts == before.facts  # the streams enricher replaces the chunk's text
    one = {"content": {"role": "model", "parts": [text]}, "index": 0, "finishReason": "STOP"}
    expected = value if text is None else {"candidates": [one]}
    assert again.payload["llm_response"] == expected
    assert rewritten_event(before, [v(K.REWRITE, llm_response=3)], unread) is None  # not carried


def test_what_blocks_the_rewritten_event_is_kept_and_says_so() -> None:
    first = [v(K.REWRITE, policy="hookd.launder", rule="ls", tool_input={"command": "rm -rf ~"})]
    again = [v(K.DENY, "rm -rf of home", policy="hookd.destructive_shell", rule="rm-rf"), v(K.ASK, ""),
             v(K.REWRITE, tool_input={"command": "y"}), v(K.CONTEXT, "ctx"), v(K.MESSAGE, "msg")]  # fmt: skip
    verdicts = decided_again(first, again)
    assert verdicts[0] == first[0]
    assert [(x.kind, x.message) for x in verdicts[1:]] == [
        (K.DENY, "as rewritten by hookd.launder:ls: rm -rf of home"),
        (K.ASK, "as rewritten by hookd.launder:ls"),
    ]
    assert decided_again(first, [v(K.REWRITE, tool_input={"command": "z"})]) == first  # allowed: unchanged
