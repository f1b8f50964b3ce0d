"""The hook server writes each reply in the step that decides it, before anything the decision woke runs
(the decision log's writer is woken by every decision and must never delay the reply)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable
from pathlib import Path

import pytest
import uvloop

from hookd import wire
from hookd.errors import DaemonError, DialectError, LaneRefused, Unavailable
from hookd.transport import hook_server
from hookd.transport.hook_server import HookServer
from hookd.types import HookRequest, Reply


def test_the_reply_is_on_the_socket_before_work_the_decision_woke_runs() -> None:
    seen: list[bytes | None] = []

    async def scenario() -> None:
        base = Path(tempfile.mkdtemp(prefix="hkdt", dir="/tmp"))  # short: a socket path fits in 107 bytes
        path = base / "run" / "hook.sock"
        woken = asyncio.Event()
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)

        async def log_writer() -> None:  # what DecisionLog's task does: wait, then run when a decision wakes it
            await woken.wait()
            try:
                seen.append(client.recv(65536, socket.MSG_DONTWAIT))
            except BlockingIOError:
                seen.append(None)  # the reply was not written yet

        async def handler(request: HookRequest) -> Reply:
            woken.set()  # as Daemon.record's sink.put_nowait does
            return Reply(stdout=b'{"decision":"allow"}', stderr=b"", exit_code=0)

        server = HookServer(path, handler, limits=wire.Limits(), request_timeout=5, max_concurrency=8)
        await server.start()
        writer = asyncio.get_running_loop().create_task(log_writer())
        try:
            client.connect(str(path))
            client.sendall(wire.encode_request({"client": "gemini", "event": "BeforeTool"}, json.dumps({}).encode()))
            await asyncio.wait_for(writer, 5)
        finally:
            client.close()
            await server.stop()
            shutil.rmtree(base, ignore_errors=True)

    uvloop.run(scenario())
    assert seen and seen[0] is not None and seen[0].startswith(wire.REPLY_MAGIC), seen


def frame() -> bytes:
    return wire.encode_request({"client": "gemini", "event": "BeforeTool"}, json.dumps({}).encode())


def ask(path: Path) -> wire.DecodedReply:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(5)
        client.connect(str(path))
        client.sendall(frame())
        chunks = []
        while chunk := client.recv(65536):
            chunks.append(chunk)
    return wire.decode_reply(b"".join(chunks))


def test_a_decision_that_held_the_loop_past_the_deadline_is_not_sent() -> None:
    """The handler blocks the loop (as a long regorus evaluation does) beyond the 0.2 s deadline and then
    allows: the timer could not fire meanwhile, and the reply must still be the deadline error, not the allow."""
    replies: list[wire.DecodedReply] = []

    async def handler(request: HookRequest) -> Reply:
        time.sleep(0.4)
        return Reply(stdout=b"", stderr=b"", exit_code=0)

    async def scenario() -> None:
        base = Path(tempfile.mkdtemp(prefix="hkdt", dir="/tmp"))
        path = base / "run" / "hook.sock"
        server = HookServer(path, handler, limits=wire.Limits(), request_timeout=0.2, max_concurrency=8)
        await server.start()
        try:
            replies.append(await asyncio.get_running_loop().run_in_executor(None, ask, server.path))
        finally:
            await server.stop()
            shutil.rmtree(base, ignore_errors=True)

    uvloop.run(scenario())
    assert replies[0].status is wire.Status.ERROR and b"deadline" in replies[0].stderr, replies


def test_a_restart_waits_for_a_killed_daemons_worker_to_go_and_names_one_that_stays(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No daemon holds the lock, but something still answers on the socket (a killed daemon's worker on its
    way out): start waits for it; one that never goes is named in the error."""

    async def handler(request: HookRequest) -> Reply:
        return Reply(stdout=b"", stderr=b"", exit_code=0)

    async def scenario(base: Path, linger: float | None) -> None:
        path = base / "run" / "hook.sock"
        path.parent.mkdir(mode=0o700)
        orphan = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        orphan.bind(str(path))
        orphan.listen()
        if linger is not None:
            asyncio.get_running_loop().call_later(linger, orphan.close)
        server = HookServer(path, handler, limits=wire.Limits(), request_timeout=5, max_concurrency=8)
        try:
            await server.start()
            answer = await asyncio.get_running_loop().run_in_executor(None, ask, path)
            assert answer.status is wire.Status.OK  # the new daemon serves the path
        finally:
            orphan.close()
            await server.stop()

    monkeypatch.setattr(hook_server, "ORPHAN_GRACE_S", 1.5)
    for linger in (0.5, None):
        base = Path(tempfile.mkdtemp(prefix="hkdt", dir="/tmp"))
        try:
            if linger is None:
                with pytest.raises(DaemonError, match=f"process {os.getpid()} still answers"):
                    uvloop.run(scenario(base, linger))
            else:
                uvloop.run(scenario(base, linger))
        finally:
            shutil.rmtree(base, ignore_errors=True)


def test_each_stalled_connection_gets_its_deadline_at_its_own_time_among_answered_ones() -> None:
    """One timer serves every connection's deadline: stalled connections opened at different times each get
    the deadline error about request_timeout after their own accept, answered ones in between are not
    disturbed, and a connection opened after the timer has fired still gets its deadline."""
    timeout = 0.3
    expired_after: list[float] = []
    answered: list[wire.DecodedReply] = []

    async def handler(request: HookRequest) -> Reply:
        return Reply(stdout=b'{"decision":"allow"}', stderr=b"", exit_code=0)

    def stall(path: Path) -> None:  # sends half a frame, then waits for the reply
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(5)
            client.connect(str(path))
            connected = time.monotonic()
            client.sendall(frame()[:5])
            chunks = []
            while chunk := client.recv(65536):
                chunks.append(chunk)
            reply = wire.decode_reply(b"".join(chunks))
            assert reply.status is wire.Status.ERROR and b"deadline" in reply.stdout, reply
            expired_after.append(time.monotonic() - connected)

    async def scenario() -> None:
        base = Path(tempfile.mkdtemp(prefix="hkdt", dir="/tmp"))
        path = base / "run" / "hook.sock"
        server = HookServer(path, handler, limits=wire.Limits(), request_timeout=timeout, max_concurrency=8)
        await server.start()
        loop = asyncio.get_running_loop()
        try:
            first = loop.run_in_executor(None, stall, server.path)
            await asyncio.sleep(0.1)  # staggered on purpose: the second deadline comes 0.1 s after the first
            second = loop.run_in_executor(None, stall, server.path)
            for _ in range(3):
                answered.append(await loop.run_in_executor(None, ask, server.path))
            await asyncio.wait_for(asyncio.gather(first, second), 5)
            await asyncio.wait_for(loop.run_in_executor(None, stall, server.path), 5)  # after the timer fired
        finally:
            await server.stop()
            shutil.rmtree(base, ignore_errors=True)

    uvloop.run(scenario())
    assert [reply.status for reply in answered] == [wire.Status.OK] * 3
    assert len(expired_after) == 3
    assert all(timeout - 0.01 <= after < timeout + 0.25 for after in expired_after), expired_after


def serve_with(handler: hook_server.Handler, timeout: float = 5) -> tuple[list[wire.DecodedReply], list[bool]]:
    """Three requests to a server with `handler`; the replies, and for each call of the handler whether it ran
    in a task (False: in the callback that read the request)."""
    in_task: list[bool] = []
    replies: list[wire.DecodedReply] = []

    def recording(request: HookRequest) -> Reply | Awaitable[Reply]:
        in_task.append(asyncio.current_task() is not None)
        return handler(request)

    async def scenario() -> None:
        base = Path(tempfile.mkdtemp(prefix="hkdt", dir="/tmp"))
        server = HookServer(
            base / "run" / "hook.sock", recording, limits=wire.Limits(), request_timeout=timeout, max_concurrency=8
        )
        await server.start()
        try:
            for _ in range(3):
                replies.append(await asyncio.get_running_loop().run_in_executor(None, ask, server.path))
        finally:
            await server.stop()
            shutil.rmtree(base, ignore_errors=True)

    uvloop.run(scenario())
    return replies, in_task


def test_a_request_decided_in_the_call_is_answered_in_the_callback_that_read_it() -> None:
    replies, in_task = serve_with(lambda request: Reply(stdout=b"now", stderr=b"why", exit_code=2))
    assert [(r.status, r.stdout, r.stderr, r.exit_code) for r in replies] == [(wire.Status.OK, b"now", b"why", 2)] * 3
    assert in_task == [False] * 3


def test_the_rest_of_a_decision_that_must_be_awaited_runs_in_a_task() -> None:
    awaited: list[bool] = []

    async def rest() -> Reply:
        awaited.append(asyncio.current_task() is not None)
        return Reply(stdout=b"awaited", stderr=b"", exit_code=0)

    replies, in_task = serve_with(lambda request: rest())
    assert [r.stdout for r in replies] == [b"awaited"] * 3 and in_task == [False] * 3 and awaited == [True] * 3


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (DialectError("payload: not JSON"), b"bad-payload"),
        (LaneRefused("busy", "the lane is full"), b"busy"),
        (Unavailable("the worker cannot log"), b"unavailable"),
        (KeyError("bug"), b"internal"),
    ],
)
def test_a_failure_in_the_call_gets_the_same_error_frame_as_awaited(error: Exception, code: bytes) -> None:
    def now(request: HookRequest) -> Reply:
        raise error

    async def later() -> Reply:
        raise error

    for handler in (now, lambda request: later()):
        replies, _ = serve_with(handler)
        assert {(r.status, r.stderr) for r in replies} == {(wire.Status.ERROR, code)}


def test_a_decision_in_the_call_that_took_past_the_deadline_is_not_sent() -> None:
    def now(request: HookRequest) -> Reply:
        time.sleep(0.25)
        return Reply(stdout=b"allow", stderr=b"", exit_code=0)

    replies, _ = serve_with(now, timeout=0.2)
    assert {(r.status, r.stderr) for r in replies} == {(wire.Status.ERROR, b"deadline")}


def test_a_request_being_decided_in_the_call_counts_as_in_flight() -> None:
    counted: list[int] = []
    server: list[HookServer] = []

    def now(request: HookRequest) -> Reply:
        counted.append(server[0].in_flight)  # what the rollout's busy() reads while the decision is recorded
        return Reply(stdout=b"", stderr=b"", exit_code=0)

    async def scenario() -> None:
        base = Path(tempfile.mkdtemp(prefix="hkdt", dir="/tmp"))
        path = base / "run" / "hook.sock"
        server.append(HookServer(path, now, limits=wire.Limits(), request_timeout=5, max_concurrency=8))
        await server[0].start()
        try:
            await asyncio.get_running_loop().run_in_executor(None, ask, server[0].path)
            assert server[0].in_flight == 0
        finally:
            await server[0].stop()
            shutil.rmtree(base, ignore_errors=True)

    uvloop.run(scenario())
    assert counted == [1]


def test_a_request_decided_in_the_call_takes_no_slot_and_an_awaited_one_waits_for_one() -> None:
    """`max_concurrency` bounds the awaited work (a remote engine, the lane) only: with the one slot held, a
    request decided in the call is answered at once, and an awaited one starts its work once the slot frees."""
    release = asyncio.Event()
    started: list[str] = []

    async def awaited(name: str) -> Reply:
        started.append(name)
        if name == "first":
            await release.wait()
        return Reply(stdout=name.encode(), stderr=b"", exit_code=0)

    calls = iter(["first", "light", "third"])

    def handler(request: HookRequest) -> Reply | Awaitable[Reply]:
        name = next(calls)
        return Reply(stdout=b"light", stderr=b"", exit_code=0) if name == "light" else awaited(name)

    replies: list[wire.DecodedReply] = []

    async def scenario() -> None:
        base = Path(tempfile.mkdtemp(prefix="hkdt", dir="/tmp"))
        path = base / "run" / "hook.sock"
        server = HookServer(path, handler, limits=wire.Limits(), request_timeout=5, max_concurrency=1)
        await server.start()
        loop = asyncio.get_running_loop()
        try:
            first = loop.run_in_executor(None, ask, server.path)
            while started != ["first"]:
                await asyncio.sleep(0.005)
            replies.append(await loop.run_in_executor(None, ask, server.path))  # the slot is still held
            third = loop.run_in_executor(None, ask, server.path)
            while server.in_flight < 2:
                await asyncio.sleep(0.005)
            assert started == ["first"]  # the third's work waits for the slot the first holds
            release.set()
            replies.extend(await asyncio.wait_for(asyncio.gather(first, third), 5))
        finally:
            await server.stop()
            shutil.rmtree(base, ignore_errors=True)

    uvloop.run(scenario())
    assert [r.stdout for r in replies] == [b"light", b"first", b"third"] and started == ["first", "third"]


def serve_frames(frames: list[list[bytes]]) -> list[tuple[HookRequest, dict[str, str]]]:
    """Each frame sent in its pieces (the sender waits between them until the server has read the last), to a
    server that answers every request; the requests as the handler got them, each with its env then."""
    seen: list[tuple[HookRequest, dict[str, str]]] = []

    def handler(request: HookRequest) -> Reply:
        seen.append((request, dict(request.env)))
        env = request.env
        assert isinstance(env, dict)
        env["MUTATED"] = "by a step"  # what a request's env is given cannot reach the next one
        return Reply(stdout=b"{}", stderr=b"", exit_code=0)

    def send(path: Path, pieces: list[bytes]) -> wire.DecodedReply:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(5)
            client.connect(str(path))
            for piece in pieces:
                client.sendall(piece)
                time.sleep(0.02)  # the server reads each piece on its own
            chunks = []
            while chunk := client.recv(65536):
                chunks.append(chunk)
        return wire.decode_reply(b"".join(chunks))

    async def scenario() -> None:
        base = Path(tempfile.mkdtemp(prefix="hkdt", dir="/tmp"))
        server = HookServer(base / "run" / "hook.sock", handler, limits=wire.Limits(), request_timeout=5,
                            max_concurrency=8)  # fmt: skip
        await server.start()
        try:
            for pieces in frames:
                reply = await asyncio.get_running_loop().run_in_executor(None, send, server.path, pieces)
                assert reply.status is wire.Status.OK, reply
        finally:
            await server.stop()
            shutil.rmtree(base, ignore_errors=True)

    uvloop.run(scenario())
    return seen


def test_a_frame_in_pieces_is_read_as_the_frame_in_one_piece() -> None:
    header = {"client": "gemini", "event": "AfterModel", "cwd": "/w", "ppid": 7, "env": {"A": "1"}}
    payload = json.dumps({"text": "x" * 70_000}).encode()
    whole = wire.encode_request(header, payload)
    cuts = [[whole], [whole[:3], whole[3:]], [whole[:20], whole[20:30], whole[30:40_000], whole[40_000:]]]
    seen = serve_frames(cuts)
    got = [(r.client, r.event, r.cwd, r.caller.ppid, r.payload, env) for r, env in seen]
    assert got == [("gemini", "AfterModel", "/w", 7, payload, {"A": "1"})] * 3


def test_requests_with_the_same_header_bytes_each_get_their_own_env() -> None:
    header = {"client": "gemini", "event": "BeforeTool", "cwd": "/w", "ppid": 7, "env": {"GEMINI_SESSION_ID": "s"}}
    whole = wire.encode_request(header, b"{}")
    seen = serve_frames([[whole], [whole], [whole]])
    assert [env for _, env in seen] == [{"GEMINI_SESSION_ID": "s"}] * 3  # as sent, whatever a step did before


SEND_ONE = """
import socket, sys
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
    client.settimeout(10)
    client.connect(sys.argv[1])
    client.sendall(bytes.fromhex(sys.argv[2]))
    chunks = []
    while chunk := client.recv(65536):
        chunks.append(chunk)
sys.stdout.write(b"".join(chunks).hex())
"""


@pytest.mark.parametrize("event", ["AfterModel", "BeforeTool"])
def test_the_stream_lane_refuses_a_forwarded_frame_from_a_process_that_is_not_its_daemons(event: str) -> None:
    """A shim (a process of the daemon's user, but not the daemon nor a worker) may send the stream lane its
    streamed chunk, never a forwarded frame: that names the caller and the deadline the lane decides and records
    for. Refused for a streamed event as for any other; the handler never runs."""
    handled: list[HookRequest] = []
    replies: list[wire.DecodedReply] = []
    forwarded = {"uid": 0, "gid": 0, "pid": 1, "received_at": time.monotonic(), "deadline": time.monotonic() + 5,
                 "via": "socket"}  # fmt: skip
    header = {"client": "gemini", "event": event, "cwd": "/", "ppid": 1, "env": {}, "forwarded": forwarded}

    def handler(request: HookRequest) -> Reply:
        handled.append(request)
        return Reply(stdout=b"{}", stderr=b"", exit_code=0)

    def send(path: Path) -> None:  # from a child process: its parent is this test, not the lane's daemon
        frame = wire.encode_request(header, b"{}").hex()
        done = subprocess.run([sys.executable, "-c", SEND_ONE, str(path), frame], capture_output=True, timeout=30,
                              check=True)  # fmt: skip
        replies.append(wire.decode_reply(bytes.fromhex(done.stdout.decode())))

    async def scenario() -> None:
        base = Path(tempfile.mkdtemp(prefix="hkdt", dir="/tmp"))
        path = base / "stream.sock"
        server = HookServer(path, handler, limits=wire.Limits(), request_timeout=5, max_concurrency=8, lane=True,
                            direct=frozenset({("gemini", "AfterModel")}))  # fmt: skip
        await server.start()
        try:
            await asyncio.get_running_loop().run_in_executor(None, send, server.path)
        finally:
            await server.stop()
            shutil.rmtree(base, ignore_errors=True)

    uvloop.run(scenario())
    assert handled == []
    assert [(r.status, r.stderr) for r in replies] == [(wire.Status.ERROR, b"forbidden")], replies


def test_the_reply_that_prints_nothing_is_encoded_once_and_the_same() -> None:
    from hookd.transport.hook_server import _frame

    assert _frame(Reply()) == wire.encode_reply(b"", b"", 0)
    assert _frame(Reply(exit_code=2)) == wire.encode_reply(b"", b"", 2)
    assert _frame(Reply(stderr=b"e")) == wire.encode_reply(b"", b"e", 0)
