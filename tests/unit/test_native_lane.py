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
import tempfile
from pathlib import Path

import pytest
import uvloop

from hookd import wire
from hookd.config import parse_config
from hookd.dialects.registry import STREAMED
from hookd.procs import journal as journal_files
from hookd.procs.child import WorkerProcess, send_due
from hookd.shims.build import build_quiet, find_compiler
from hookd.transport import native_quiet
from hookd.transport.hook_server import HookServer
from tests.unit.test_quiet_chunk import _ID, Answer, Channel, chunk, exchange, interleaved, responses, through


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    out = tmp_path_factory.mktemp("quiet")
    built = build_quiet(find_compiler(), out, out)
    assert built is not None
    loaded = native_quiet.load(built)
    assert loaded is not None
    return loaded


async def over_the_native_socket(
    worker: WorkerProcess, plan: list[tuple[int, int]], answers: list[Answer], channel: Channel
) -> list[wire.DecodedReply]:
    """Each chunk sent over the stream lane's socket served by the native quiet chunk; the records sent as the
    record sender does once woken."""
    base = Path(tempfile.mkdtemp(prefix="hkn", dir="/tmp"))
    base.joinpath("run").mkdir(mode=0o700)
    server = HookServer(base / "run" / "stream.sock", worker.decider.handle, limits=wire.Limits(),
                        request_timeout=30, max_concurrency=8, lane=True, direct=STREAMED)  # fmt: skip
    assert worker.native is not None
    server.listen_with, server.on_direct_header = worker.native.listen, worker.native.header
    worker.server = server
    await server.start()
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
