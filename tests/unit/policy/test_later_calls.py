"""hookd.policy.later_calls: a command line a write leaves in an agent's settings for it to run later is the
agent's shell tool running that line now, and the write takes every halt, deny and ask the line gets (review42)."""

from __future__ import annotations

from hookd.dialects.registry import AGENTS
from hookd.policy.later_calls import MAX_LATER_LINES, as_shell_call, judged_later, later_lines, too_many
from hookd.types import JSON, Caller, Event, NormalisedEvent, ToolCall, ToolKind, Verdict, VerdictKind

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
