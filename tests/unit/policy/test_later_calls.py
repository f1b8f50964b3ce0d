"""hookd.policy.later_calls: a command line a write leaves in an agent's settings for it to run later is the
agent's shell tool running that line now, and the write takes every halt, deny and ask the line gets (review42)."""

from __future__ import annotations

import asyncio

from hookd.dialects.registry import AGENTS
from hookd.policy.later_calls import (
    MAX_LATER_LINES,
    as_shell_call,
    judged_later,
    later_lines,
    too_many,
    with_later_calls,
)
from hookd.types import JSON, Caller, Event, NormalisedEvent, ToolCall, ToolKind, Verdict, VerdictKind, settled

K = VerdictKind


def write(kind: Event = Event.BEFORE_TOOL, **facts: JSON) -> NormalisedEvent:
    arguments: dict[str, JSON] = {"file_path": "/h/.codex/config.toml", "content": "x"}
    return NormalisedEvent(
        client="gemini", event=kind, payload={"tool_name": "write_file", "tool_input": arguments},
        tool=ToolCall("write_file", ToolKind.WRITE, arguments), session_id="s", cwd="/p", project_dir="/p",
        caller=Caller(1, 1, 1), facts=facts,
    )  # fmt: skip


def test_the_lines_are_the_ones_self_protection_left_to_later_on_a_call_before_it_runs() -> None:
    assert later_lines(write(hookd={"later": ["hookd serve", 3, ""]})) == ["hookd serve"]
    assert later_lines(write(Event.AFTER_TOOL, hookd={"later": ["hookd serve"]})) == []
    assert later_lines(write()) == []


def test_a_line_becomes_the_agents_own_shell_tool_running_it_with_facts_made_again() -> None:
    shell = as_shell_call(write(hookd={"later": ["x"]}, paths=[]), "sudo id", AGENTS["gemini"].tools)
    assert shell.tool is not None and shell.tool.kind is ToolKind.SHELL
    assert (shell.tool.name, shell.tool.input, shell.facts) == ("run_shell_command", {"command": "sudo id"}, {})
    assert shell.payload["tool_input"] == {"command": "sudo id"} and shell.cwd == "/p"


def test_the_write_takes_what_blocks_each_line_saying_which_line() -> None:
    own = [Verdict(K.CONTEXT, "hookd.p", "c", "note")]
    got = [[Verdict(K.DENY, "hookd.p", "tamper", "stops hookd"), Verdict(K.REWRITE, "hookd.p", "r")], []]
    out = judged_later(own, ["hookd stop", "ls"], got)
    assert [v.rule_id for v in out] == ["c", "tamper"]
    assert "`hookd stop`" in out[1].message and out[1].message.endswith("stops hookd")


def test_more_lines_than_are_judged_are_asked() -> None:
    assert too_many(["x"] * MAX_LATER_LINES) == []
    assert [v.kind for v in too_many(["x"] * (MAX_LATER_LINES + 1))] == [K.ASK]


def test_each_line_is_judged_as_run_now_and_an_awaited_answer_is_joined_alike() -> None:
    seen: list[str] = []

    def judge(shell: NormalisedEvent) -> list[Verdict]:
        assert shell.tool is not None
        seen.append(str(shell.tool.input["command"]))
        return [Verdict(K.DENY, "hookd.p", "tamper", "no")] if "hookd" in seen[-1] else []

    event = write(hookd={"later": ["hookd stop", "npx -y s@1"]})
    got = with_later_calls(event, [], AGENTS["gemini"].tools, judge)
    assert seen == ["hookd stop", "npx -y s@1"] and [v.rule_id for v in got] == ["tamper"]  # type: ignore[union-attr]

    async def awaited() -> list[Verdict]:
        return []

    joined = with_later_calls(event, awaited(), AGENTS["gemini"].tools, judge)
    assert [v.rule_id for v in asyncio.run(settled(joined))] == ["tamper"]
    assert with_later_calls(write(), [], AGENTS["gemini"].tools, judge) == []
