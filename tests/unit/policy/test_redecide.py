"""hookd.policy.redecide: the call a rewrite makes is the one decided again, and what blocks it is kept."""

from __future__ import annotations

from typing import Any

from hookd.policy.redecide import decided_again, rewritten_call
from hookd.types import Caller, Event, NormalisedEvent, ToolCall, ToolKind, Verdict, VerdictKind

K = VerdictKind


def v(kind: VerdictKind, message: str = "", policy: str = "hookd.p", rule: str = "r", **patch: Any) -> Verdict:
    return Verdict(kind, policy, rule, message, patch)


def shell(command: str) -> NormalisedEvent:
    arguments = {"command": command, "description": "d"}
    return NormalisedEvent(
        client="gemini", event=Event.BEFORE_TOOL, payload={"tool_name": "run_shell_command", "tool_input": arguments},
        tool=ToolCall("run_shell_command", ToolKind.SHELL, arguments), session_id="s", cwd="/p", project_dir="/p",
        caller=Caller(1, 1, 1), facts={"shell": {"source": command}},
    )  # fmt: skip


def test_the_rewritten_call_is_what_the_agent_will_run() -> None:
    event = shell("ls")
    again = rewritten_call(event, [v(K.REWRITE, tool_input={"command": "rm -rf ~"})])
    assert again is not None and again.tool is not None
    assert again.tool.input == {"command": "rm -rf ~", "description": "d"}
    assert again.payload["tool_input"] == again.tool.input  # input.raw too
    assert again.facts == {}  # built again by the enrichers
    assert event.tool is not None and event.tool.input["command"] == "ls"  # the event is not changed


def test_no_call_to_decide_again_without_a_rewrite_that_goes_out() -> None:
    event = shell("ls")
    assert rewritten_call(event, []) is None
    assert rewritten_call(event, [v(K.CONTEXT, "c")]) is None
    assert rewritten_call(event, [v(K.REWRITE, tool_input={"command": "x"}), v(K.DENY, "no")]) is None  # denied
    assert rewritten_call(event, [v(K.REWRITE, tool_input={"command": "ls"})]) is None  # no change
    assert rewritten_call(event, [v(K.REWRITE, llm_request={"model": "m"})]) is None  # not the tool call


def test_what_blocks_the_rewritten_call_is_kept_and_says_so() -> None:
    first = [v(K.REWRITE, policy="hookd.launder", rule="ls", tool_input={"command": "rm -rf ~"})]
    again = [v(K.DENY, "rm -rf of home", policy="hookd.destructive_shell", rule="rm-rf"), v(K.ASK, ""),
             v(K.REWRITE, tool_input={"command": "y"}), v(K.CONTEXT, "ctx"), v(K.MESSAGE, "msg")]  # fmt: skip
    verdicts = decided_again(first, again)
    assert verdicts[0] == first[0]
    assert [(x.kind, x.message) for x in verdicts[1:]] == [
        (K.DENY, "the call as rewritten by hookd.launder:ls: rm -rf of home"),
        (K.ASK, "the call as rewritten by hookd.launder:ls"),
    ]
    assert decided_again(first, [v(K.REWRITE, tool_input={"command": "z"})]) == first  # allowed: unchanged
