"""The Python engine's behaviour besides the sandbox: loading, routing, verdicts, combining with Rego,
replacement after a crash, and a close that waits for the requests in flight."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest
from python_support import answer, python_part, shell_request, wait_for_full_pool, wait_until_gone, write_policy

from hookd.assembly import build_pipeline, in_process, load_engine
from hookd.config import Config, PythonConfig
from hookd.engines.python.engine import MAX_MESSAGE_CHARS
from hookd.errors import PolicyLoadError
from hookd.types import Caller, Deadline, Event, HookRequest, Outcome, Verdict
from support import eventually_async

REGO_DENY = """package hookd.rego_guard

routing := {"events": ["BeforeTool"], "kinds": ["shell"]}

deny contains {"id": "rm", "reason": "no rm"} if input.tool.input.command == "rm x"
"""


def config(workers: int = 1, **python: object) -> Config:
    """The Python engine's workers alone: the Rego part of these sets is evaluated in process."""
    return replace(
        in_process(Config()),
        python=replace(PythonConfig(workers=workers, timeout_ms=30_000, start_timeout_ms=60_000), **python),  # type: ignore[arg-type]
    )


def test_a_syntax_error_is_refused_with_a_one_line_message(tmp_path: Path) -> None:
    policies = write_policy(tmp_path / "p", "@policy()\ndef broken(input) return 1\n")
    with pytest.raises(PolicyLoadError, match=r"^Python policies do not load: SyntaxError: .*hostile.py, line 3"):
        load_engine(config(), policies)


def test_a_file_without_a_decorated_function_is_refused(tmp_path: Path) -> None:
    policies = write_policy(tmp_path / "p", "def forgot(input):\n    return deny('x')\n")
    with pytest.raises(PolicyLoadError, match=r"hostile\.py declares no policy"):
        load_engine(config(), policies)


def test_a_policy_is_not_called_for_events_it_does_not_declare(tmp_path: Path) -> None:
    policies = write_policy(tmp_path / "p", "@policy(events=['AfterTool'])\ndef later(input):\n    return deny('x')\n")
    engine = load_engine(config(), policies)
    try:
        assert list(asyncio.run(answer(engine, shell_request("ls", Event.BEFORE_TOOL)))) == []
        (verdict,) = asyncio.run(answer(engine, shell_request("ls", Event.AFTER_TOOL)))
        assert (verdict.kind.value, verdict.policy_id, verdict.rule_id) == ("deny", "hookd.hostile", "later")
    finally:
        asyncio.run(engine.aclose())


@pytest.mark.parametrize(
    ("returned", "error"),
    [
        ("'deny'", "TypeError"),
        ("rewrite(tool_input={'n': float('nan')})", "ValueError"),  # NaN is not JSON: never into the log
    ],
)
def test_a_malformed_return_value_fails_closed(tmp_path: Path, returned: str, error: str) -> None:
    source = f"from hookd.policy_api import rewrite\n@policy()\ndef wrong(input):\n    return {returned}\n"
    engine = load_engine(config(), write_policy(tmp_path / "p", source))
    try:
        (verdict,) = asyncio.run(answer(engine, shell_request("ls")))
    finally:
        asyncio.run(engine.aclose())
    assert (verdict.kind.value, verdict.rule_id) == ("deny", "python-error")
    assert error in verdict.message and not verdict.patch


def test_python_and_rego_verdicts_combine_under_the_same_rules(tmp_path: Path) -> None:
    policies = write_policy(
        tmp_path / "p",
        """
        from hookd.policy_api import rewrite

        @policy(events=["BeforeTool"], kinds=["shell"], id="hookd.py_guard")
        def guard(input):
            command = input["tool"]["input"]["command"]
            if command.startswith("git push"):
                return deny("no pushing from here", rule="push")
            if command == "ls":
                return [rewrite(tool_input={"command": "ls -la"}, rule="long"), context("listed", rule="note")]
        """,
    )
    (policies / "guard.rego").write_text(REGO_DENY)
    engine = load_engine(config(), policies)
    pipeline, _ = build_pipeline(config(), engine, probe=lambda _pid: False)

    async def decide(command: str) -> tuple[Outcome, list[str], bytes]:
        payload = {"session_id": "s", "transcript_path": "", "cwd": "/tmp", "hook_event_name": "BeforeTool",
                   "timestamp": "t", "tool_name": "run_shell_command", "tool_input": {"command": command}}  # fmt: skip
        request = HookRequest("gemini", "BeforeTool", json.dumps(payload).encode(), {}, "/tmp",
                              Caller(os.getuid(), os.getgid(), os.getpid()), Deadline.after(5))  # fmt: skip
        handled = await pipeline.handle(request)
        rules = [f"{v.policy_id}:{v.rule_id}" for v in handled.decision.verdicts]
        return handled.decision.outcome, rules, handled.reply.stdout

    async def go() -> list[tuple[Outcome, list[str], bytes]]:
        try:
            return [await decide(c) for c in ("git push origin", "rm x", "ls")]
        finally:
            await engine.aclose()

    push, rm, ls = asyncio.run(go())
    assert push[:2] == (Outcome.DENY, ["hookd.py_guard:push"]) and b"no pushing from here" in push[2]
    assert rm[:2] == (Outcome.DENY, ["hookd.rego_guard:rm"])
    assert ls[:2] == (Outcome.REWRITE, ["hookd.py_guard:long", "hookd.py_guard:note"])
    assert json.loads(ls[2])["hookSpecificOutput"]["tool_input"] == {"command": "ls -la"}


def test_a_request_after_a_crash_waits_for_the_replacement_within_its_deadline(tmp_path: Path) -> None:
    policies = write_policy(
        tmp_path / "p",
        """
        import os

        @policy(events=["BeforeTool"])
        def fragile(input):
            if input["tool"]["input"]["command"] == "crash":
                os._exit(3)
            return deny("still here", rule="alive")
        """,
    )
    engine = load_engine(config(workers=1), policies)
    python = python_part(engine)

    async def go() -> None:
        (crashed,) = await answer(engine, shell_request("crash"))
        assert (crashed.rule_id, "exited with status 3" in crashed.message) == ("python-error", True)
        (served,) = await answer(engine, shell_request("ls"))  # no worker is free yet: it waits for the new one
        assert served.rule_id == "alive"
        await engine.aclose()

    asyncio.run(go())
    assert python.replaced == 1 and python.worker_pids() == []


def test_closing_waits_for_the_calls_in_flight(tmp_path: Path) -> None:
    policies = write_policy(
        tmp_path / "p",
        """
        import time

        @policy(events=["BeforeTool"])
        def slow(input):
            time.sleep(0.3)
            return deny("slow but sure", rule="slow")
        """,
    )
    engine = load_engine(config(workers=2), policies)
    python = python_part(engine)

    async def go() -> None:
        pids = await wait_for_full_pool(python, 2)
        # Two sessions: one alone may hold only one of the two workers (hookd.engines.python.pool)
        calls = [asyncio.ensure_future(answer(engine, shell_request("ls", session=s))) for s in "ab"]
        await eventually_async(lambda: not python._pool._idle, what="both workers busy")
        await engine.aclose()  # returns only once both calls are answered
        assert all(call.done() for call in calls)
        assert [v.rule_id for call in calls for v in call.result()] == ["slow", "slow"]
        assert python.worker_pids() == [] and wait_until_gone(pids)

    asyncio.run(go())


def test_a_policy_that_hangs_while_loading_is_refused_at_the_start_deadline(tmp_path: Path) -> None:
    policies = write_policy(tmp_path / "p", "while True:\n    pass\n")
    with pytest.raises(PolicyLoadError, match=r"a Python policy worker did not start: did not start within 0\.5 s"):
        load_engine(config(start_timeout_ms=500), policies)


def test_a_policy_set_larger_than_a_pipe_buffer_loads_and_its_replacements_too(tmp_path: Path) -> None:
    padding = "# " + "x" * 100 + "\n"
    policies = write_policy(
        tmp_path / "p",
        padding * 2000  # about 200 KiB: the set-up frame cannot fit in a pipe at once
        + """
import os
import shutil
import subprocess
import tempfile

@policy(events=["BeforeTool"])
def big(input):
    if input["tool"]["input"]["command"] == "crash":
        os._exit(1)
    return deny("big and well", rule="big")
""",
    )
    engine = load_engine(config(workers=1), policies)
    python = python_part(engine)

    async def go() -> list[str]:
        crashed = await answer(engine, shell_request("crash"))
        await wait_for_full_pool(python, 1)  # the replacement got its set-up frame without blocking the loop
        served = await answer(engine, shell_request("ls"))
        await engine.aclose()
        return [v.rule_id for v in (*crashed, *served)]

    assert asyncio.run(go()) == ["python-error", "big"]
    assert python.replaced == 1


def forged_frame_verdicts(tmp_path: Path, frame: bytes) -> tuple[list[Verdict], int]:
    """A policy writes `frame` onto every descriptor it may find the channel on; (verdicts, replaced)."""
    policies = write_policy(
        tmp_path / "p",
        f"""
        import os

        @policy(events=["BeforeTool"])
        def forge(input):
            for fd in range(3, 20):
                try:
                    os.write(fd, {frame!r})
                except OSError:
                    pass
            return deny("ESCAPED: forged")
        """,
    )
    engine = load_engine(config(workers=1), policies)
    python = python_part(engine)
    try:
        verdicts = list(asyncio.run(answer(engine, shell_request("ls"))))
    finally:
        asyncio.run(engine.aclose())
    return verdicts, python.replaced


def test_garbage_on_the_channel_counts_as_a_crash(tmp_path: Path) -> None:
    verdicts, replaced = forged_frame_verdicts(tmp_path, b"\xff\xff\xff\xffforged")
    assert [(v.kind.value, v.rule_id) for v in verdicts] == [("deny", "python-error")]
    assert "over the" in verdicts[0].message and replaced == 1


def test_an_exception_on_an_event_that_cannot_block_is_a_message_not_a_deny(tmp_path: Path) -> None:
    policies = write_policy(tmp_path / "p", "@policy()\ndef broken(input):\n    raise KeyError('x')\n")
    engine = load_engine(config(), policies)
    try:
        (verdict,) = asyncio.run(answer(engine, shell_request("ls", Event.AFTER_AGENT)))
    finally:
        asyncio.run(engine.aclose())
    assert (verdict.kind.value, verdict.rule_id) == ("message", "python-error")  # a deny on AfterAgent loops the agent


def test_scratch_dirs_live_in_the_configured_dir_and_go_with_their_workers(tmp_path: Path) -> None:
    base = Path(tempfile.mkdtemp(prefix="hookd-scratch-base-", dir="/tmp")) / "made-on-demand"
    base.parent.chmod(0o755)  # the workers' user must reach it
    policies = write_policy(
        tmp_path / "p",
        "import os\n@policy()\ndef where(input):\n    return context(os.getcwd(), rule='cwd')\n",
    )
    engine = load_engine(config(workers=2, scratch_dir=base), policies)
    try:
        (verdict,) = asyncio.run(answer(engine, shell_request("ls")))
        assert Path(verdict.message).parent == base
        assert len(list(base.iterdir())) == 2  # one per worker (their stderr files are unlinked already)
    finally:
        asyncio.run(engine.aclose())
        remaining = list(base.iterdir())
        shutil.rmtree(base.parent)
    assert remaining == []


@pytest.mark.parametrize(
    ("body", "why"),
    [(b"[" * 100_000 + b"]" * 100_000, "nested too deeply"), (b'{"t":"result","x":NaN}', "NaN is not a JSON number")],
)
def test_a_forged_frame_that_is_not_strict_json_counts_as_a_crash(tmp_path: Path, body: bytes, why: str) -> None:
    verdicts, replaced = forged_frame_verdicts(tmp_path, len(body).to_bytes(4, "big") + body)
    assert [(v.kind.value, v.rule_id) for v in verdicts] == [("deny", "python-error")]
    assert why in verdicts[0].message and replaced == 1


def test_a_verdict_past_the_caps_cannot_inflate_the_daemon(tmp_path: Path) -> None:
    """A 60 MB reason is refused from the frame's length prefix (the worker is replaced, the verdict fails
    closed) without the daemon reading it; a long one under the frame cap is cut to MAX_MESSAGE_CHARS."""
    policies = write_policy(
        tmp_path / "p",
        """
        @policy(events=["BeforeTool"])
        def huge(input):
            return deny("x" * (60 << 20) if input["tool"]["input"]["command"] == "huge" else "y" * 100_000)
        """,
    )
    # A worker that burns CPU is demoted (niced): on a loaded box building and sending 60 MB can pass 30 s, and a
    # timeout would hide the frame cap this test is about.
    engine = load_engine(config(workers=1, timeout_ms=180_000), policies)
    python = python_part(engine)
    try:
        (huge,) = asyncio.run(answer(engine, shell_request("huge", deadline=180)))
        (long,) = asyncio.run(answer(engine, shell_request("long")))
    finally:
        asyncio.run(engine.aclose())
    assert (huge.kind.value, huge.rule_id) == ("deny", "python-error")
    assert "over the 1048576 bytes an answer may carry" in huge.message and python.replaced == 1
    assert long.kind.value == "deny" and len(long.message) == MAX_MESSAGE_CHARS - 40 + len("… [cut: 100000 characters]")


def test_scratch_dirs_a_dead_daemon_left_are_swept_at_start_and_live_ones_kept(tmp_path: Path) -> None:
    base = Path(tempfile.mkdtemp(prefix="hookd-scratch-base-", dir="/tmp"))
    base.chmod(0o755)  # the workers' user must reach it
    sleeper = subprocess.Popen(["sleep", "60"], env={"TMPDIR": str(base / "hookd-py-inuse123")})
    try:
        dead = subprocess.Popen(["true"])
        dead.wait()
        leftovers = [base / f"hookd-py-{dead.pid}-abc123", base / "hookd-py-old45678"]
        kept = [
            base / f"hookd-py-{sleeper.pid}-live01",
            base / "hookd-py-inuse123",
            base / "hookd-py-x",
        ]  # x: not a name of ours
        for path in leftovers + kept:
            path.mkdir()
            (path / "junk").write_text("x")
        os.symlink(base / "hookd-py-old45678", base / "hookd-py-link1234")
        kept.append(base / "hookd-py-link1234")
        engine = load_engine(
            config(scratch_dir=base), write_policy(tmp_path / "p", "@policy()\ndef f(input):\n    pass\n")
        )
        asyncio.run(engine.aclose())
        assert [p for p in leftovers if os.path.lexists(p)] == []
        assert [p for p in kept if os.path.lexists(p)] == kept
    finally:
        sleeper.kill()
        sleeper.wait()
        shutil.rmtree(base)
