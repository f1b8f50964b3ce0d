"""A decision whose enrichment reads a git repository (a discard's: hookd.enrich.effects.worktree) reads it on the
pipeline's reading threads (hookd.enrich.blocking), not on the event loop: the other connections are answered
meanwhile, and a read past the request's deadline gets the event's fail mode. The read is held on a condition
the test releases; nothing sleeps."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
from collections.abc import Awaitable, Iterator
from pathlib import Path

import pytest
import uvloop

from hookd import wire
from hookd.assembly import enrichers
from hookd.config import DEFAULT_FAIL_MODES
from hookd.dialects.gemini import GeminiDialect
from hookd.enrich.effects import worktree
from hookd.pipeline import AskPolicy, Pipeline
from hookd.policy.holder import PolicySetHolder
from hookd.testing import CALLER, StaticEngine
from hookd.transport.hook_server import HookServer
from hookd.types import Deadline, Handled, HookRequest, Outcome, Reply, settled

_GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "HOME": os.devnull, "PATH": os.defpath}
_WAIT_S = 10.0  # a bound on every wait, so that a broken mechanism fails instead of hanging


class HeldRead:
    """worktree.tracked held until `released` is set; `reading` is set once a read started, `in_time` says
    whether each read was released (False: it gave up after _WAIT_S, the loop was never free to release it)."""

    def __init__(self) -> None:
        self.reading = threading.Event()
        self.released = threading.Event()
        self.in_time: list[bool] = []
        self._read = worktree.tracked

    def __call__(self, git_dir: str, limit: int = worktree.MAX_ENTRIES) -> dict[str, worktree.Entry]:
        self.reading.set()
        self.in_time.append(self.released.wait(_WAIT_S))
        return self._read(git_dir, limit)


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldRead]:
    read = HeldRead()
    monkeypatch.setattr(worktree, "tracked", read)
    yield read
    read.released.set()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("a")
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "init"]):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, env=_GIT_ENV,
                       check=True, capture_output=True, timeout=60)  # fmt: skip
    return tmp_path


def _pipeline() -> Pipeline:
    return Pipeline(
        dialects={"gemini": GeminiDialect()},
        enrichers=enrichers(),
        policy_set=PolicySetHolder(StaticEngine(awaited=False)),
        fail_modes=DEFAULT_FAIL_MODES,
        ask=AskPolicy(),
        probe=lambda pid: None,
        ids=lambda: "0190f3a4b5c6d7e8",
    )


def _payload(command: str, cwd: Path) -> bytes:
    body = {"session_id": "s1", "cwd": str(cwd), "hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
            "tool_input": {"command": command}}  # fmt: skip
    return json.dumps(body).encode()


def _ask(path: Path, command: str, cwd: Path) -> wire.DecodedReply:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(2 * _WAIT_S)
        client.connect(str(path))
        client.sendall(wire.encode_request({"client": "gemini", "event": "BeforeTool"}, _payload(command, cwd)))
        chunks = []
        while chunk := client.recv(65536):
            chunks.append(chunk)
    return wire.decode_reply(b"".join(chunks))


def _replied(handled: Handled | Awaitable[Handled]) -> Reply | Awaitable[Reply]:
    if isinstance(handled, Handled):
        return handled.reply

    async def later() -> Reply:
        return (await handled).reply

    return later()


def test_a_second_connection_is_answered_while_a_discard_reads_its_repository(held: HeldRead, repo: Path) -> None:
    pipeline = _pipeline()
    order: list[str] = []

    async def scenario() -> None:
        base = Path(tempfile.mkdtemp(prefix="hkdr", dir="/tmp"))
        server = HookServer(base / "run" / "hook.sock", lambda request: _replied(pipeline.decide(request)),
                            limits=wire.Limits(), request_timeout=2 * _WAIT_S, max_concurrency=8)  # fmt: skip
        await server.start()
        loop = asyncio.get_running_loop()
        try:
            slow = loop.run_in_executor(None, _ask, server.path, "git reset --hard", repo)
            assert await loop.run_in_executor(None, held.reading.wait, _WAIT_S)
            other = await loop.run_in_executor(None, _ask, server.path, "ls", repo)
            order.append(f"other {other.status.name}")
            held.released.set()
            order.append(f"slow {(await slow).status.name}")
        finally:
            await server.stop()
            shutil.rmtree(base, ignore_errors=True)

    uvloop.run(scenario())
    assert order == ["other OK", "slow OK"]
    assert held.in_time == [True]  # on the loop, the read held it until it gave up waiting


def test_a_read_past_the_deadline_gets_the_fail_mode(held: HeldRead, repo: Path) -> None:
    payload = _payload("git reset --hard", repo)
    request = HookRequest(client="gemini", event="BeforeTool", payload=payload, env={}, cwd=str(repo),
                          caller=CALLER, deadline=Deadline.after(0.2))  # fmt: skip
    handled = asyncio.run(settled(_pipeline().decide(request)))
    held.released.set()
    assert handled.engine_error and handled.decision.outcome is Outcome.DENY
    assert b"deadline passed while hookd read a repository" in handled.reply.stdout


def test_a_decision_reading_no_repository_is_made_in_the_call(repo: Path) -> None:
    request = HookRequest(client="gemini", event="BeforeTool", payload=_payload("ls", repo), env={},
                          cwd=str(repo), caller=CALLER, deadline=Deadline.after(5))  # fmt: skip
    assert isinstance(_pipeline().decide(request), Handled)
