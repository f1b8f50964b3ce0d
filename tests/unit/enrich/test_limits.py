"""hookd.enrich.limits: a shell command over a `[limits]` cap gets the input-limit verdict by rule (the
event's fail mode) without being parsed or evaluated, through the real pipeline, shell parser and regorus
on the bundled policies."""

from __future__ import annotations

import asyncio
import json

import pytest

from hookd.assembly import build_pipeline
from hookd.config import parse_config
from hookd.enrich import limits
from hookd.errors import ConfigError
from hookd.pipeline import Handled, Pipeline
from hookd.types import Caller, Deadline, HookRequest, Outcome

HEREDOC = (
    "cat > notes.py <<'EOF'\n" + "".join(f"value_{i} = compute({i}, 'x')  # line {i}\n" for i in range(300)) + "EOF"
)


@pytest.fixture(scope="module")
def pipeline() -> Pipeline:
    return build_pipeline(parse_config({}), probe=lambda _pid: False)[0]


def decide(pipeline: Pipeline, command: str, event: str = "BeforeTool") -> Handled:
    payload = {
        "session_id": "s1", "cwd": "/tmp", "hook_event_name": event, "tool_name": "run_shell_command",
        "tool_input": {"command": command},
    }  # fmt: skip
    if event == "AfterTool":
        payload["tool_response"] = {"llmContent": "done"}
    request = HookRequest(
        client="gemini", event=event, payload=json.dumps(payload).encode(), env={"HOME": "/root"}, cwd="/tmp",
        caller=Caller(uid=0, gid=0, pid=1), deadline=Deadline.after(60),
    )  # fmt: skip
    return asyncio.run(pipeline.handle(request))


def limited(handled: Handled) -> str:
    """The input-limit verdict's reason, or "" when the command was checked as usual."""
    rules = {v.rule_id: v.message for v in handled.decision.verdicts if v.policy_id == "hookd"}
    return rules.get("input-limit", "")


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("rm -rf " + " ".join(["ab"] * 20_000), "has 20002 tokens, over hookd's limit of 4096"),  # 60 KB
        ("echo " + "x" * 70_000, "has 70005 characters, over hookd's limit of 65536"),
        ("echo " + "é" * 40_000, "has 80005 bytes, over hookd's limit of 65536"),
        ("echo " + "$(" * 100 + "id" + ")" * 100, "has 100 substitutions, over hookd's limit of 32"),
        ("bash -c 'rm " + " ".join(f"f{i}" for i in range(600)) + "'", "604 words in its commands, over hookd's"),
        # each redirection names a path the policies judge, as an operand does
        ("echo x " + " ".join(f">/srv/f{i}" for i in range(300)), "302 words in its commands, over hookd's"),
    ],
)
def test_a_command_over_a_cap_is_denied_by_rule_and_never_evaluated(pipeline: Pipeline, command: str, why: str) -> None:
    handled = decide(pipeline, command)
    assert handled.decision.outcome is Outcome.DENY and not handled.engine_error
    assert why in limited(handled) and "split it into smaller commands" in limited(handled)
    assert b"[hookd:input-limit]" in handled.reply.stdout


def test_an_event_that_fails_open_gets_a_message_not_a_deny() -> None:
    config = parse_config({"fail_mode": {"AfterTool": "open"}})
    handled = decide(build_pipeline(config, probe=lambda _pid: False)[0], "rm " + " ".join(["x"] * 5000), "AfterTool")
    assert handled.decision.outcome is not Outcome.DENY and "tokens" in limited(handled)


def test_commands_under_the_caps_are_checked_as_usual(pipeline: Pipeline) -> None:
    assert not limited(decide(pipeline, HEREDOC))  # 300 lines, ~2,100 tokens: one command with few words
    handled = decide(pipeline, "rm -rf ~ " + " ".join(f"f{i}" for i in range(200)))
    assert not limited(handled) and handled.decision.outcome is Outcome.DENY  # the policies saw it


def test_the_caps_are_configurable_and_must_be_positive() -> None:
    config = parse_config({"limits": {"max_command_words": 8}})
    assert config.limits.max_command_words == 8 and config.limits.max_command_bytes == 65536
    pipeline = build_pipeline(config, probe=lambda _pid: False)[0]
    assert "has 10 words in its commands, over hookd's limit of 8" in limited(decide(pipeline, "ls " * 10))
    with pytest.raises(ConfigError, match=r"'limits\.max_command_tokens' must be a positive integer"):
        parse_config({"limits": {"max_command_tokens": 0}})


@pytest.mark.parametrize(
    ("tool", "arguments", "why"),
    [
        ("run_shell_command", {"command": "git status"}, None),
        ("run_shell_command", {"command": "rm " + " ".join(f"f{i}" for i in range(31))}, None),  # 32 tokens
        ("run_shell_command", {"command": "rm " + " ".join(f"f{i}" for i in range(32))}, "command-tokens"),
        ("run_shell_command", {"command": "echo $(a) $(b) <(c) >(d)"}, None),  # 4 substitutions
        ("run_shell_command", {"command": "echo $(a) $(b) <(c) `d`"}, "command-substitutions"),  # each ` counts
        ("read_many_files", {"paths": [f"f{i}" for i in range(16)]}, None),
        ("read_many_files", {"paths": [f"f{i}" for i in range(17)]}, "tool-paths"),
        ("write_file", {"file_path": "a", "content": "x " * 10_000}, None),  # a payload's size is the caller's
    ],
)
def test_what_goes_to_the_lane(tool: str, arguments: dict[str, object], why: str | None) -> None:
    payload = {"session_id": "s", "cwd": "/tmp", "hook_event_name": "BeforeTool", "tool_name": tool,
               "tool_input": arguments}  # fmt: skip
    request = HookRequest(
        client="gemini", event="BeforeTool", payload=json.dumps(payload).encode(), env={}, cwd="/tmp",
        caller=Caller(uid=0, gid=0, pid=1), deadline=Deadline.after(60),
    )  # fmt: skip
    pipeline = build_pipeline(parse_config({}), probe=lambda _pid: False)[0]
    assert limits.heavy(pipeline.parse(request), parse_config({}).limits) == why
