"""The stream lane's socket served with bare socket calls (hookd.transport.raw): the same frames, checks and
errors as uvloop's transports give, a frame waiting at the accept answered in the accept's callback, and every
way a connection can go wrong ending that connection only."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import uvloop

from hookd import wire
from hookd.transport import hook_server, raw
from hookd.transport.hook_server import HookServer
from hookd.types import HookRequest, Reply

HEADER = {"client": "gemini", "event": "AfterModel", "cwd": "/w", "ppid": 7, "env": {"A": "1"}}
STREAMED = frozenset({("gemini", "AfterModel")})


def frame(text: str = "x") -> bytes:
    return wire.encode_request(HEADER, json.dumps({"text": text}).encode())


def echo(request: HookRequest) -> Reply:
    return Reply(stdout=request.payload, stderr=b"", exit_code=0)


@contextmanager
def client(path: Path) -> Iterator[socket.socket]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(5)
        sock.connect(str(path))
        yield sock


def read_all(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def send(path: Path, pieces: list[bytes], *, pause: float = 0.02) -> wire.DecodedReply:
    with client(path) as sock:
        for piece in pieces:
            sock.sendall(piece)
            time.sleep(pause)  # each piece its own read at the server
        return wire.decode_reply(read_all(sock))


def serving(
    handler: hook_server.Handler,
    talk: Callable[[Path], object],
    *,
    use_raw: bool = True,
    timeout: float = 5,
    lane: bool = False,
) -> tuple[HookServer, object]:
    """`talk(path)` run in a thread against a server of `handler`; the server and what `talk` gave."""
    out: list[object] = []
    servers: list[HookServer] = []

    async def scenario() -> None:
        base = Path(tempfile.mkdtemp(prefix="hkdr", dir="/tmp"))
        server = HookServer(base / "run" / "stream.sock", handler, limits=wire.Limits(), request_timeout=timeout,
                            max_concurrency=8, lane=lane, direct=STREAMED if lane else frozenset())  # fmt: skip
        server.raw = use_raw
        servers.append(server)
        if lane:
            base.joinpath("run").mkdir(mode=0o700)
        await server.start()
        try:
            out.append(await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(None, talk, server.path), 20))
        finally:
            await server.stop()
            shutil.rmtree(base, ignore_errors=True)

    uvloop.run(scenario())
    return servers[0], out[0]


def test_the_stream_lanes_socket_is_served_raw_and_the_hook_socket_by_uvloop() -> None:
    assert HookServer(Path("/tmp/x"), echo, limits=wire.Limits(), request_timeout=1, max_concurrency=1).raw is False
    lane = HookServer(Path("/tmp/x"), echo, limits=wire.Limits(), request_timeout=1, max_concurrency=1, lane=True,
                      direct=STREAMED)  # fmt: skip
    assert lane.raw is True
    server, _ = serving(echo, lambda path: send(path, [frame()]), lane=True)
    assert isinstance(server._server, raw.RawListener)


def test_a_frame_waiting_at_the_accept_is_answered_in_the_accept_callback() -> None:
    """No loop step between the accept and the reply: the frame is read, decided and answered in the call that
    accepted the connection (uvloop waited for the connection to be readable in a step of its own)."""
    seen: list[bytes] = []

    async def scenario() -> None:
        base = Path(tempfile.mkdtemp(prefix="hkdr", dir="/tmp"))
        server = HookServer(base / "run" / "s.sock", echo, limits=wire.Limits(), request_timeout=5, max_concurrency=8)
        await server.start()
        listener = server._server
        assert isinstance(listener, raw.RawListener) is False  # the hook socket's default
        await server.stop()
        server.raw = True
        await server.start()
        listener = server._server
        assert isinstance(listener, raw.RawListener)
        try:
            with client(server.path) as sock:
                sock.sendall(frame("now"))
                listener._accept()  # called directly: no loop step runs in between
                seen.append(sock.recv(65536, socket.MSG_DONTWAIT))
        finally:
            await server.stop()
            shutil.rmtree(base, ignore_errors=True)

    uvloop.run(scenario())
    assert wire.decode_reply(seen[0]).stdout == b'{"text": "now"}'


@pytest.mark.parametrize("use_raw", [True, False])
def test_a_frame_in_pieces_whole_or_cut_short_is_answered_as_on_uvloops_transport(use_raw: bool) -> None:
    whole = wire.encode_request(HEADER, json.dumps({"text": "y" * 300_000}).encode())

    def talk(path: Path) -> list[tuple[wire.Status, bytes]]:
        replies = [
            send(path, [whole], pause=0),
            send(path, [whole[:3], whole[3:40], whole[40:100_000], whole[100_000:]]),
        ]
        replies.append(send_truncated(path, whole[:5000]))  # closed inside the frame
        with client(path) as sock:  # a liveness probe: connect and close, nothing sent
            sock.shutdown(socket.SHUT_WR)
            probe = wire.decode_reply(read_all(sock))
        return [(r.status, r.stdout if r.status is wire.Status.OK else r.stderr) for r in [*replies, probe]]

    server, got = serving(echo, talk, use_raw=use_raw)
    payload = json.dumps({"text": "y" * 300_000}).encode()
    assert got == [(wire.Status.OK, payload), (wire.Status.OK, payload), (wire.Status.ERROR, b"truncated"),
                   (wire.Status.ERROR, b"truncated")]  # fmt: skip
    assert server.stats.errors == {"truncated": 1}  # the probe is not an error


def send_truncated(path: Path, part: bytes = frame()[:9]) -> wire.DecodedReply:
    with client(path) as sock:
        sock.sendall(part)
        sock.shutdown(socket.SHUT_WR)
        return wire.decode_reply(read_all(sock))


def test_a_reply_larger_than_the_socket_buffer_is_written_whole_to_a_slow_reader() -> None:
    big = b"z" * 3_000_000

    def talk(path: Path) -> bytes:
        with client(path) as sock:
            sock.sendall(frame())
            time.sleep(0.3)  # the reply waits in the server's writer callback
            return wire.decode_reply(read_all(sock)).stdout

    _, got = serving(lambda request: Reply(stdout=big, stderr=b"", exit_code=0), talk)
    assert got == big


def test_a_reply_never_read_is_dropped_after_its_timeout_and_the_next_connection_is_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(raw, "WRITE_TIMEOUT_S", 0.2)
    big = b"z" * 3_000_000

    def talk(path: Path) -> tuple[int, wire.Status]:
        with client(path) as stuck:
            stuck.sendall(frame())
            time.sleep(0.6)  # past the write's timeout: the server closed its end
            got = 0
            try:
                while chunk := stuck.recv(1 << 20):
                    got += len(chunk)
            except ConnectionResetError:
                pass
            return got, send(path, [frame()], pause=0).status

    _, (got, status) = serving(lambda request: Reply(stdout=big, stderr=b"", exit_code=0), talk)
    assert got < len(big)
    assert status is wire.Status.OK


def test_a_protocol_that_raises_ends_its_connection_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in the protocol's read gets the shim no reply (its fail mode), never an allow, and the listener
    answers the next connection."""
    failing = [True]
    read = hook_server._HookConnection.data_received

    def data_received(self: hook_server._HookConnection, data: bytes) -> None:
        if failing.pop() if failing else False:
            raise RuntimeError("a bug")
        read(self, data)

    monkeypatch.setattr(hook_server._HookConnection, "data_received", data_received)

    def talk(path: Path) -> tuple[bytes, wire.Status]:
        with client(path) as sock:
            sock.sendall(frame())
            first = read_all(sock)
        return first, send(path, [frame()], pause=0).status

    _, (first, status) = serving(echo, talk)
    assert first == b""
    assert status is wire.Status.OK


def test_an_awaited_decision_and_a_stalled_frame_get_their_reply_and_their_deadline() -> None:
    async def later(request: HookRequest) -> Reply:
        await asyncio.sleep(0.05)
        return echo(request)

    def handler(request: HookRequest) -> Reply | Awaitable[Reply]:
        return later(request)

    def talk(path: Path) -> list[tuple[wire.Status, bytes]]:
        answered = send(path, [frame("late")], pause=0)
        with client(path) as sock:
            sock.sendall(frame()[:20])
            started = time.monotonic()
            stalled = wire.decode_reply(read_all(sock))
            assert 0.25 <= time.monotonic() - started < 1.5
        return [(answered.status, answered.stdout), (stalled.status, stalled.stderr)]

    _, got = serving(handler, talk, timeout=0.3)
    assert got == [(wire.Status.OK, b'{"text": "late"}'), (wire.Status.ERROR, b"deadline")]


def test_the_stream_lanes_places_are_freed_by_every_connection_answered_or_gone() -> None:
    """A session's places at the stream lane (4) come back with each connection: answered, truncated, or closed
    by its peer while its decision was awaited."""

    async def slow(request: HookRequest) -> Reply:
        await asyncio.sleep(0.1)
        return echo(request)

    def handler(request: HookRequest) -> Reply | Awaitable[Reply]:
        return slow(request) if b"slow" in request.payload else echo(request)

    def talk(path: Path) -> list[wire.Status]:
        statuses = []
        for n in range(12):
            if n % 3 == 0:
                send_truncated(path)
            elif n % 3 == 1:
                with client(path) as sock:  # gone before its awaited reply
                    sock.sendall(frame("slow"))
                time.sleep(0.15)
            statuses.append(send(path, [frame()], pause=0).status)
        return statuses

    _, got = serving(handler, talk, lane=True)
    assert got == [wire.Status.OK] * 12
