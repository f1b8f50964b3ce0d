"""The native quiet chunk failing in the stream lane (hookd.procs.native_lane): a server or thread that cannot
start, a thread that stops on its own, a chunk whose fold fails; each logged, the library off, and the lane still
answering every chunk in Python, no chunk's text lost."""

from __future__ import annotations

import asyncio
import ctypes
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
import uvloop

from hookd import wire
from hookd.config import parse_config
from hookd.policy.stream_cues import StreamCues
from hookd.procs import journal as journal_files
from hookd.procs.child import WorkerProcess
from hookd.procs.native_lane import NativeLane
from hookd.transport import native_quiet
from tests.unit.test_native_lane import exchanged, native_lane_socket


def replies_after(lib: ctypes.CDLL, broken: object) -> tuple[list[bytes], NativeLane]:
    """Three chunks of one response sent over the lane's socket once `broken(lane)` has run."""
    journal = journal_files.create([])
    worker = WorkerProcess(parse_config({}), 2, lane=True, journal=journal, quiet=lib)
    base = Path(tempfile.mkdtemp(prefix="hkn", dir="/tmp"))

    async def run() -> list[bytes]:
        server = await native_lane_socket(worker, base)
        assert worker.native is not None
        try:
            await broken(worker.native)  # type: ignore[operator]
            return [await exchanged(worker, server, text) for text in ("one", " two", " three")]
        finally:
            await server.stop()

    try:
        replies = uvloop.run(run())
    finally:
        journal_files.close(journal)
        shutil.rmtree(base, ignore_errors=True)
    assert worker.native is not None
    return [wire.decode_reply(r).stdout for r in replies], worker.native


def test_a_thread_that_cannot_start_leaves_python_listening(lib: ctypes.CDLL, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_thread(self: native_quiet.Library) -> None:
        raise OSError("no thread")

    monkeypatch.setattr(native_quiet.Library, "start", no_thread)

    async def nothing(lane: NativeLane) -> None:
        return None

    replies, lane = replies_after(lib, nothing)
    assert replies == [b""] * 3 and lane.answered == 0 and "could not start" in lane.off


def test_a_server_that_cannot_be_made_leaves_python_listening(
    lib: ctypes.CDLL, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lib, "hq_new", lambda *args: None)  # out of memory

    async def nothing(lane: NativeLane) -> None:
        return None

    opened = len(os.listdir("/proc/self/fd"))
    replies, lane = replies_after(lib, nothing)
    assert replies == [b""] * 3 and "out of memory" in lane.off and lane._native is None
    assert len(os.listdir("/proc/self/fd")) <= opened  # its pipe closed


def test_a_thread_that_stops_on_its_own_leaves_python_listening(lib: ctypes.CDLL) -> None:
    """The thread gone (its note on the pipe): Python accepts again; before, nobody did and the shims waited."""

    async def stopped(lane: NativeLane) -> None:
        native = lane._native
        assert native is not None
        native.close_thread()
        os.write(lane._wake[1], (-2).to_bytes(4, "little", signed=True))
        for _ in range(1000):
            if lane.off:
                return
            await asyncio.sleep(0.001)

    replies, lane = replies_after(lib, stopped)
    assert replies == [b""] * 3 and "thread stopped" in lane.off


class Taken:
    """A library's queue of chunks answered natively (what `Library.take` yields), its lock a no-op."""

    def __init__(self, chunks: list[tuple[int, int, float, str]]) -> None:
        self.chunks = chunks

    def lock(self) -> None: ...

    def unlock(self) -> None: ...

    def take(self) -> Iterator[tuple[int, int, float, str]]:
        yield from self.chunks


def test_a_fold_that_fails_leaves_the_rest_in_the_text() -> None:
    added: list[tuple[object, str, bool]] = []
    texts = SimpleNamespace(add=lambda key, text, final, journal: added.append((key, text, journal)))
    worker = SimpleNamespace(pipeline=SimpleNamespace(quiet=SimpleNamespace(streams=SimpleNamespace(texts=texts))))
    lane = NativeLane(None, worker, None, 1000, wire.Limits())  # type: ignore[arg-type]
    lane._keys = {0: ("k",)}  # type: ignore[dict-item]
    folded = []

    def fold(key: object, index: int, latency: float, text: str) -> None:
        folded.append(text)
        if text == "b":
            raise RuntimeError("a record that cannot be folded")

    lane._fold = fold  # type: ignore[method-assign,assignment]
    lane._take(Taken([(0, 1, 0.1, "a"), (0, 2, 0.1, "b"), (0, 3, 0.1, "c")]))  # type: ignore[arg-type]
    assert folded == ["a", "b"]
    assert added == [(("k",), "b", False), (("k",), "c", False)]  # journaled already: added, not journaled again
    assert "folding" in lane.off


def test_a_cue_longer_than_a_chunks_text_leaves_its_chunks_to_python(lib: ctypes.CDLL) -> None:
    """A policy set with a cue past MAX_TEXT characters (which the library's tail would not hold): every chunk
    answered by Python, the library not told and not switched off."""
    long_cue = StreamCues.of(["x" * (16 * 1024 + 1)])

    async def long_cues(lane: NativeLane) -> None:
        lane._worker.pipeline.quiet.cues = lambda engine: long_cue  # type: ignore[attr-defined]

    replies, lane = replies_after(lib, long_cues)
    assert replies == [b""] * 3 and lane.answered == 0 and not lane.off
