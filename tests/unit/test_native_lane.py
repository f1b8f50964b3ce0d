"""The stream lane's socket served by the native quiet chunk (hookd.procs.native_lane): random answers (secrets
in some, several streamed at once, some never ended) sent over it as a shim sends them leave what the whole path
leaves (replies, records, journal bytes, counts), with most chunks answered natively and every other one by
Python."""

from __future__ import annotations

import asyncio
import ctypes
import os
import random
import shutil
import socket
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import uvloop

from hookd import wire
from hookd.config import parse_config
from hookd.dialects.registry import STREAMED
from hookd.policy.stream_cues import StreamCues
from hookd.procs import journal as journal_files
from hookd.procs.child import WorkerProcess, send_due
from hookd.procs.native_lane import tail_of
from hookd.transport import native_quiet
from hookd.transport.hook_server import HookServer
from tests.unit.test_quiet_chunk import _ID, Answer, Channel, chunk, exchange, interleaved, responses, through


async def over_the_native_socket(
    worker: WorkerProcess, plan: list[tuple[int, int]], answers: list[Answer], channel: Channel
) -> list[wire.DecodedReply]:
    """Each chunk sent over the stream lane's socket served by the native quiet chunk; the records sent as the
    record sender does once woken."""
    base = Path(tempfile.mkdtemp(prefix="hkn", dir="/tmp"))
    server = await native_lane_socket(worker, base)
    header = {"client": "gemini", "event": "AfterModel", "cwd": "/p", "ppid": 1, "env": {"HOME": "/home/u"}}
    replies = []
    try:
        for answer, n in plan:
            session, request, chunks, ends = answers[answer]
            payload = chunk(session, request, chunks[n], final=ends and n == len(chunks) - 1).payload
            frame = wire.encode_request(header, payload)
            got = await asyncio.get_running_loop().run_in_executor(None, exchange, str(server.path), frame)
            replies.append(wire.decode_reply(got))
            await asyncio.sleep(0)  # the loop takes what the library handed over (its connection is answered)
            send_due(worker, channel)  # type: ignore[arg-type]
            worker._unacked = 0
    finally:
        await server.stop()
        worker._send_records(channel, worker._streams.close())  # type: ignore[arg-type]
        shutil.rmtree(base, ignore_errors=True)
    return replies


def test_the_native_lane_leaves_what_the_whole_path_leaves(lib: ctypes.CDLL) -> None:
    rng = random.Random(36)
    answers = responses(rng, 30)
    plan = interleaved(rng, answers)
    journals = journal_files.create([]), journal_files.create([])
    try:
        native = WorkerProcess(parse_config({}), 2, lane=True, journal=journals[0], quiet=lib)
        whole = WorkerProcess(parse_config({}), 2, lane=True, journal=journals[1])
        whole.open_records = lambda: None  # type: ignore[method-assign]  # the whole path, in the call
        channels = Channel(), Channel()
        got = uvloop.run(over_the_native_socket(native, plan, answers, channels[0]))
        expected = asyncio.run(through(whole, plan, answers, channels[1]))
        assert [(r.status, _ID.sub("ID", r.stdout.decode()), r.exit_code) for r in got] == [
            (wire.Status.OK, _ID.sub("ID", r.stdout.decode()), r.exit_code) for r in expected
        ]
        assert any(b"continue" in r.stdout for r in got)  # some chunks halted
        assert channels[0].records() == channels[1].records()
        assert [c[:2] + c[3:] for c in native._chunk_counts] == [c[:2] + c[3:] for c in whole._chunk_counts]
        sizes = [os.fstat(fd).st_size for fd in (journals[0][0], journals[1][0])]
        assert os.pread(journals[0][0], sizes[0], 0) == os.pread(journals[1][0], sizes[1], 0)  # byte for byte
        assert native.native is not None and not native.native.off
        answered = native.native.answered
        assert len(plan) // 2 < answered < len(plan)  # most chunks answered natively, not all
    finally:
        for journal in journals:
            journal_files.close(journal)


async def native_lane_socket(worker: WorkerProcess, base: Path) -> HookServer:
    base.joinpath("run").mkdir(mode=0o700)
    server = HookServer(base / "run" / "stream.sock", worker.decider.handle, limits=wire.Limits(),
                        request_timeout=30, max_concurrency=8, lane=True, direct=STREAMED)  # fmt: skip
    assert worker.native is not None
    server.listen_with, server.on_direct_header = worker.native.listen, worker.native.header
    worker.server = server
    await server.start()
    return server


HEADER = {"client": "gemini", "event": "AfterModel", "cwd": "/p", "ppid": 1, "env": {"HOME": "/home/u"}}
REQUEST = {"contents": [{"role": "user", "parts": [{"text": "question"}]}]}


def in_pieces(path: str, frame: bytes, handed: Callable[[], bool] | None) -> bytes:
    """`frame` sent whole, or with `handed` in two writes, the second once `handed()` says the lane took the
    connection (a key of the payload split across reads, its end after the library's wait)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(path)
        cut = len(frame) - 40 if handed is not None else len(frame)
        sock.sendall(frame[:cut])
        deadline = time.monotonic() + 10
        while handed is not None and not handed() and time.monotonic() < deadline:
            time.sleep(0.001)
        if cut < len(frame):  # a send of nothing to a peer that answered and closed would fail
            sock.sendall(frame[cut:])
        reply = b""
        while data := sock.recv(65536):
            reply += data
    return reply


async def exchanged(worker: WorkerProcess, server: HookServer, text: str, *, split: bool = False) -> bytes:
    frame = wire.encode_request(HEADER, chunk("s", REQUEST, text, final=False).payload)
    loop = asyncio.get_running_loop()
    native = worker.native
    assert native is not None
    taken = native._taken
    handed = (lambda: native._taken > taken) if split else None
    reply = await loop.run_in_executor(None, in_pieces, str(server.path), frame, handed)
    await asyncio.sleep(0)
    send_due(worker, Channel())  # type: ignore[arg-type]
    worker._unacked = 0
    return reply


def test_a_frame_in_pieces_and_a_journal_that_fails_are_pythons(lib: ctypes.CDLL) -> None:
    """A frame whose end comes after the library's wait is handed to Python (and answered as the whole path
    does); a journal the library cannot write is Python's too, whose failure is the fail mode, never an allow."""
    journal = journal_files.create([])
    worker = WorkerProcess(parse_config({}), 2, lane=True, journal=journal, quiet=lib)
    base = Path(tempfile.mkdtemp(prefix="hkn", dir="/tmp"))

    async def run() -> list[bytes]:
        server = await native_lane_socket(worker, base)
        replies: list[bytes] = []

        async def natively(text: str, *, split: bool = False) -> bool | None:
            """Whether the library answered the chunk; None when its sender was too slow for it to know."""
            native = worker.native
            assert native is not None
            answered, late = native.answered, native.late()
            replies.append(await exchanged(worker, server, text, split=split))
            return native.answered > answered if split or native.late() == late else None

        try:
            assert await natively("first") in (False, None)  # a response's first chunk
            assert await natively(" second") in (True, None)
            assert await natively(" in pieces", split=True) is False
            assert await natively(" whole again") in (True, None)
            read_only = os.open("/dev/null", os.O_RDONLY)
            worker._journal._files = (read_only, read_only)  # type: ignore[union-attr]
            send_due(worker, Channel())  # type: ignore[arg-type]  # the library told of it
            assert await natively(" unjournaled") in (False, None)
            return replies
        finally:
            await server.stop()

    try:
        replies = [wire.decode_reply(r) for r in uvloop.run(run())]
        assert [r.stdout for r in replies[:4]] == [b""] * 4
        assert b"hookd could not evaluate its policies" in replies[4].stdout  # AfterModel's fail mode: open, told
    finally:
        journal_files.close(journal)
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("before", ["", "a", "abcgithub_pa", "x" * 14, "y" * 15, "z" * 40])
def test_the_tail_told_is_where_python_searches_from(before: str) -> None:
    """The tail the library searches with the next chunk is the text from where `_since` begins its search: a
    text shorter than the longest cue whole (a cue begun in its first characters and ended in the chunk)."""
    cues = StreamCues.of(["github_pat_", "PRIVATE KEY-----"])
    start = max(0, len(before) - cues.longest + 1)  # ResponseStreams._since, the text before the chunk
    assert tail_of(before, cues.longest) == before[start:]
    assert (cues.latest_in(before + "t_abc", start) >= 0) == any(
        c in tail_of(before, cues.longest) + "t_abc" for c in cues.strings
    )


def test_a_cue_begun_in_a_short_text_is_pythons(lib: ctypes.CDLL) -> None:
    """A cue of the default policies (`github_pat_`) begun in a text shorter than the longest cue and ended in the
    next chunk: that chunk is not answered natively."""
    journal = journal_files.create([])
    worker = WorkerProcess(parse_config({}), 2, lane=True, journal=journal, quiet=lib)
    base = Path(tempfile.mkdtemp(prefix="hkn", dir="/tmp"))

    async def run() -> int:
        server = await native_lane_socket(worker, base)
        try:
            for text in ("abcgithub_pa", "t_abc"):
                await exchanged(worker, server, text)
            assert worker.native is not None
            return worker.native.answered
        finally:
            await server.stop()

    try:
        assert uvloop.run(run()) == 0  # "t_abc" is Python's
    finally:
        journal_files.close(journal)
        shutil.rmtree(base, ignore_errors=True)


def test_cues_past_the_librarys_are_pythons(lib: ctypes.CDLL) -> None:
    """A policy set whose cues the library cannot hold: every chunk answered by Python, the lane unharmed."""
    journal = journal_files.create([])
    worker = WorkerProcess(parse_config({}), 2, lane=True, journal=journal, quiet=lib)
    many = StreamCues.of([f"cue-{n}" for n in range(native_quiet.MAX_CUES + 1)])
    worker.pipeline.quiet.cues = lambda engine: many  # type: ignore[method-assign]
    base = Path(tempfile.mkdtemp(prefix="hkn", dir="/tmp"))

    async def run() -> list[bytes]:
        server = await native_lane_socket(worker, base)
        try:
            return [await exchanged(worker, server, text) for text in ("one", " two", " three")]
        finally:
            await server.stop()

    try:
        assert [wire.decode_reply(r).stdout for r in uvloop.run(run())] == [b""] * 3
        assert worker.native is not None and worker.native.answered == 0 and not worker.native.off
    finally:
        journal_files.close(journal)
        shutil.rmtree(base, ignore_errors=True)
