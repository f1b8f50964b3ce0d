"""Hostile Python policies try, and fail, to get out of their workers; each test asserts the verdict the
agent gets and that the worker was replaced (or, where nothing went wrong, that it was not)."""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import structlog
from python_support import answer, python_part, shell_request, wait_for_full_pool, wait_until_gone, write_policy

from hookd.assembly import load_engine
from hookd.config import Config, PythonConfig
from hookd.engines.python.engine import PythonEngine
from hookd.types import Event, Verdict
from support import require

ROOT_ONLY = "these tests drop the workers to uid nobody, which needs the daemon to run as root"


def one_worker_config(**python: object) -> Config:
    return replace(
        Config(), python=replace(PythonConfig(workers=1, timeout_ms=30_000, start_timeout_ms=60_000), **python)
    )  # type: ignore[arg-type]


def run_hostile(
    directory: Path, config: Config | None = None, event: Event = Event.BEFORE_TOOL
) -> tuple[list[Verdict], PythonEngine, int, int]:
    """Evaluate once with a one-worker pool; the verdicts, the engine, and the worker's pid before and after."""
    engine = load_engine(config or one_worker_config(), directory)
    python = python_part(engine)

    async def go() -> tuple[list[Verdict], int, int]:
        (before,) = python.worker_pids()
        verdicts = list(await answer(engine, shell_request("ls", event)))
        (after,) = await wait_for_full_pool(python, 1)
        return verdicts, before, after

    try:
        verdicts, before, after = asyncio.run(go())
    finally:
        asyncio.run(engine.aclose())
    return verdicts, python, before, after


def assert_failed_closed_and_replaced(verdicts: list[Verdict], python: PythonEngine, before: int, after: int) -> None:
    assert [(v.kind.value, v.rule_id) for v in verdicts] == [("deny", "python-error")], verdicts
    assert "ESCAPED" not in verdicts[0].message
    assert python.replaced == 1
    assert after != before
    assert wait_until_gone([before])


@pytest.fixture(autouse=True)
def _root() -> None:
    require(os.geteuid() == 0, ROOT_ONLY)


@pytest.fixture
def tcp_listener() -> Iterator[socket.socket]:
    """A listening socket nobody accepts on: a connection made to it waits in the kernel's accept queue."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.setblocking(False)
        yield server


def connections(server: socket.socket) -> list[object]:
    """Every connection made to `server` so far (the kernel completes a TCP handshake before accept)."""
    made: list[object] = []
    while True:
        try:
            made.append(server.accept())
        except BlockingIOError:
            return made


def test_a_tcp_connection_to_localhost_is_refused(tmp_path: Path, tcp_listener: socket.socket) -> None:
    port = tcp_listener.getsockname()[1]
    policies = write_policy(
        tmp_path / "p",
        f"""
        import socket

        @policy(events=["BeforeTool"])
        def phone_home(input):
            socket.create_connection(("127.0.0.1", {port}), timeout=1).sendall(b"secrets")
            return deny("ESCAPED: connected")
        """,
    )
    assert_failed_closed_and_replaced(*run_hostile(policies))
    assert connections(tcp_listener) == []


def test_a_write_outside_the_scratch_dir_is_refused(tmp_path: Path) -> None:
    target = Path("/tmp") / f"hookd-escape-{os.getpid()}-{time.monotonic_ns()}"
    policies = write_policy(
        tmp_path / "p",
        f"""
        @policy(events=["BeforeTool"])
        def scribble(input):
            with open({str(target)!r}, "w") as handle:
                handle.write("pwned")
            return deny("ESCAPED: wrote")
        """,
    )
    try:
        assert_failed_closed_and_replaced(*run_hostile(policies))
        assert not target.exists()
    finally:
        target.unlink(missing_ok=True)


def test_a_write_inside_the_scratch_dir_works(tmp_path: Path) -> None:
    policies = write_policy(
        tmp_path / "p",
        """
        import os, tempfile

        @policy(events=["BeforeTool"])
        def scratch(input):
            with tempfile.NamedTemporaryFile("w", dir=os.getcwd()) as handle:
                handle.write("fine")
                handle.flush()
            return context("wrote " + os.environ["TMPDIR"], rule="scratch")
        """,
    )
    verdicts, python, before, after = run_hostile(policies)
    assert [(v.kind.value, v.rule_id) for v in verdicts] == [("context", "scratch")]
    assert "/hookd-py-" in verdicts[0].message
    assert (python.replaced, after) == (0, before)


def test_a_file_the_worker_uid_may_not_read_stays_unread(tmp_path: Path) -> None:
    secret = Path("/tmp") / f"hookd-secret-{os.getpid()}-{time.monotonic_ns()}"
    secret.write_text("root only")
    secret.chmod(0o600)
    policies = write_policy(
        tmp_path / "p",
        f"""
        @policy(events=["BeforeTool"])
        def snoop(input):
            return deny("ESCAPED: " + open({str(secret)!r}).read())
        """,
    )
    try:
        assert_failed_closed_and_replaced(*run_hostile(policies))
    finally:
        secret.unlink()


def test_a_fork_bomb_cannot_fork(tmp_path: Path) -> None:
    policies = write_policy(
        tmp_path / "p",
        """
        import os

        @policy(events=["BeforeTool"])
        def bomb(input):
            while True:
                if os.fork() == 0:
                    continue
        """,
    )
    assert_failed_closed_and_replaced(*run_hostile(policies))


def test_running_a_program_is_refused(tmp_path: Path) -> None:
    policies = write_policy(
        tmp_path / "p",
        """
        import subprocess

        @policy(events=["BeforeTool"])
        def shell_out(input):
            subprocess.run(["/bin/true"], check=True)
            return deny("ESCAPED: ran /bin/true")
        """,
    )
    assert_failed_closed_and_replaced(*run_hostile(policies))


def test_an_endless_loop_is_killed_at_the_deadline_and_follows_the_fail_mode(tmp_path: Path) -> None:
    policies = write_policy(
        tmp_path / "p",
        """
        @policy(events=["BeforeTool", "AfterAgent"])
        def spin(input):
            while True:
                pass
        """,
    )
    config = one_worker_config(timeout_ms=300)
    verdicts, python, before, after = run_hostile(policies, config)
    assert [(v.kind.value, v.policy_id, v.rule_id) for v in verdicts] == [("deny", "hookd.python", "timeout")]
    assert (python.replaced, after != before, wait_until_gone([before])) == (1, True, True)
    # AfterAgent fails open by default: the same hang becomes a message, never a deny.
    verdicts, python, before, after = run_hostile(policies, config, Event.AFTER_AGENT)
    assert [(v.kind.value, v.rule_id) for v in verdicts] == [("message", "timeout")]
    assert (python.replaced, after != before) == (1, True)


def test_allocating_4_gb_fails(tmp_path: Path) -> None:
    policies = write_policy(
        tmp_path / "p",
        """
        @policy(events=["BeforeTool"])
        def hog(input):
            hoard = bytearray(4 * 1024 ** 3)
            return deny("ESCAPED: allocated %d" % len(hoard))
        """,
    )
    assert_failed_closed_and_replaced(*run_hostile(policies))


@pytest.mark.parametrize(
    "call",
    [
        "libc.unshare(0x10000000 | 0x40000000)",  # CLONE_NEWUSER | CLONE_NEWNET
        "libc.unshare(0x00020000)",  # CLONE_NEWNS
        "libc.prctl(4, 1, 0, 0, 0)",  # PR_SET_DUMPABLE
        "libc.setuid(0)",
    ],
)
def test_ctypes_cannot_call_unshare_prctl_or_setuid(tmp_path: Path, call: str) -> None:
    policies = write_policy(
        tmp_path / "p",
        f"""
        import ctypes

        @policy(events=["BeforeTool"])
        def escape(input):
            libc = ctypes.CDLL(None, use_errno=True)
            if {call} != 0:
                raise OSError(ctypes.get_errno(), "refused")
            return deny("ESCAPED: {call}")
        """,
    )
    assert_failed_closed_and_replaced(*run_hostile(policies))


def test_printing_to_stdout_is_harmless(tmp_path: Path) -> None:
    policies = write_policy(
        tmp_path / "p",
        """
        import sys, os

        @policy(events=["BeforeTool"])
        def chatty(input):
            print("\\x00\\x00\\x00\\x10{not a frame}" * 1000)
            sys.stdout.flush()
            os.write(1, b"\\x00\\x00\\x00\\x05hello")
            return deny("chatty said no", rule="chatty")
        """,
    )
    verdicts, python, before, after = run_hostile(policies)
    assert [(v.kind.value, v.rule_id, v.message) for v in verdicts] == [("deny", "chatty", "chatty said no")]
    assert (python.replaced, after) == (0, before)


def test_an_exception_fails_closed_and_its_traceback_goes_only_to_the_log(tmp_path: Path) -> None:
    policies = write_policy(
        tmp_path / "p",
        """
        @policy(events=["BeforeTool"])
        def broken(input):
            raise ValueError("token-1234 leaked in a message")
        """,
    )
    with structlog.testing.capture_logs() as logs:
        verdicts, python, before, after = run_hostile(policies)
    assert_failed_closed_and_replaced(verdicts, python, before, after)
    assert "token-1234" not in verdicts[0].message and "Traceback" not in verdicts[0].message
    assert "ValueError" in verdicts[0].message
    (error,) = [entry for entry in logs if entry["event"] == "python_policy_error"]
    assert "Traceback" in error["traceback"] and "token-1234" in error["traceback"]
    assert "hostile.py" in error["traceback"]


def test_a_crash_fails_closed_and_the_worker_is_replaced(tmp_path: Path) -> None:
    policies = write_policy(
        tmp_path / "p",
        """
        import ctypes

        @policy(events=["BeforeTool"])
        def segfault(input):
            ctypes.string_at(0)
        """,
    )
    with structlog.testing.capture_logs() as logs:
        verdicts, python, before, after = run_hostile(policies)
    assert_failed_closed_and_replaced(verdicts, python, before, after)
    assert "crashed" in verdicts[0].message
    assert any(entry["event"] == "python_worker_died" and "signal" in entry["reason"] for entry in logs)


def test_a_benign_policy_decides_correctly_under_concurrency(tmp_path: Path) -> None:
    policies = write_policy(
        tmp_path / "p",
        """
        @policy(events=["BeforeTool"], kinds=["shell"])
        def parity(input):
            number = int(input["tool"]["input"]["command"].split()[1])
            if number % 2:
                return deny("odd %d" % number, rule="odd")
            return context("even %d" % number, rule="even")
        """,
    )
    engine = load_engine(
        replace(Config(), python=PythonConfig(workers=2, timeout_ms=30_000, start_timeout_ms=60_000)), policies
    )
    python = python_part(engine)

    async def go() -> list[list[Verdict]]:
        before = python.worker_pids()
        results = await asyncio.gather(*(answer(engine, shell_request(f"echo {n}")) for n in range(60)))
        assert python.worker_pids() == before and python.replaced == 0
        return [list(r) for r in results]

    try:
        results = asyncio.run(go())
    finally:
        asyncio.run(engine.aclose())
    for number, verdicts in enumerate(results):
        kind, rule = ("deny", "odd") if number % 2 else ("context", "even")
        assert [(v.kind.value, v.rule_id, v.message) for v in verdicts] == [(kind, rule, f"{rule} {number}")]


def test_every_sandbox_layer_is_reported_and_none_is_claimed_without_saying_why(tmp_path: Path) -> None:
    policies = write_policy(tmp_path / "p", "@policy()\ndef nothing(input):\n    return None\n")
    engine = load_engine(one_worker_config(), policies)
    try:
        layers = {layer["name"]: layer for layer in python_part(engine).sandbox_layers}
    finally:
        asyncio.run(engine.aclose())
    assert sorted(layers) == sorted(
        [
            "resource-limits",
            "network-namespace",
            "seccomp",
            "write-restriction",
            "unprivileged-uid",
            "clean-environment",
        ]
    )
    for layer in layers.values():
        assert layer["detail"]
        if not layer["active"]:
            assert layer["detail"].startswith(("unavailable: ", "partial: ")), layer
    # Root (these tests) can always drop to nobody and make a network namespace.
    assert layers["unprivileged-uid"]["active"] and layers["network-namespace"]["active"]
