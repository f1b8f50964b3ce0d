"""The stream lane's socket served by the native quiet chunk (hookd.transport.native_quiet), Python keeping the
state that decides.

The library's thread accepts each connection. A quiet chunk (one that `Pipeline.quiet_chunk` would answer: a
shim's Gemini AfterModel chunk, of a response whose record is open, that does not end it, whose text with it
holds no cue) it answers itself: it journals the chunk as the journal does, writes the plain allow and queues
the chunk; Python takes the queue later, in order, and does with each chunk what `quiet_chunk` and `fold_quiet`
do (its text added, its decision given its id, folded into its response's record, counted). Every other
connection is handed to Python unread, and from then on nothing is answered natively until Python has taken it
and is done: chunks are decided in the order they came, by one reader at a time.

What the library knows is what Python told it, with the library's lock held and its thread paused: the frame
headers Python read as a shim's Gemini AfterModel, the cues, the journal's file and size, and for each response
whose next chunk may be quiet (`ResponseStreams.settled`) its session, its request's bytes, its journal line's
beginning, its chunk count and its text's last characters. Python's own work on that state (a chunk it decides,
the record sender, an ack, a reload) runs in a `section`: the thread paused, its queue taken first, and the state
told again at the end.

Python checks each chunk again as it takes it (`add_if_quiet`): a chunk the library answered that Python would
not have is logged and the library is switched off for good (every chunk Python's from then on).

A native failure never takes the lane down nor leaves its socket unserved: a server or thread that cannot be
made, or a thread that stops on its own (its note on the pipe), is logged (`native_quiet_chunk_off`) and Python's
own listener (hookd.transport.raw) accepts from then on.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import socket
from collections.abc import Callable, Iterator
from typing import Protocol

import structlog

from hookd import wire
from hookd.audit.streams import StreamRecords
from hookd.decide import OpenRecords
from hookd.dialects.registry import NATIVE_QUIET
from hookd.enrich.stream import MAX_TEXT, ResponseKey, ResponseStreams
from hookd.pipeline import Pipeline, QuietChunk
from hookd.policy.combine import combine
from hookd.policy.holder import PolicySetHolder
from hookd.policy.stream_cues import StreamCues
from hookd.procs.journal import Journal, line_start
from hookd.transport.hook_server import ServerStats
from hookd.transport.native_quiet import MAX_CUES, Library
from hookd.transport.peers import HEADER_KEPT_BYTES
from hookd.transport.raw import RawListener, RawTransport
from hookd.types import Event, Reply

log = structlog.get_logger("hookd.workers")
DRAIN_AFTER_S = 0.5  # chunks answered natively are taken this long after the first (no wake a chunk)
SLOTS = 256
_RECORD = 4  # the library's note on its pipe: a handed descriptor, -1 (chunks to take) or _THREAD_GONE
_THREAD_GONE = -2  # the library's thread stopped on its own (its socket failed): nobody accepts but Python


class LaneWorker(Protocol):
    """The worker process whose stream lane the library serves (hookd.procs.child): what a chunk answered
    natively is counted in and folded into."""

    pipeline: Pipeline
    policy_set: PolicySetHolder
    stats: ServerStats
    records: StreamRecords

    def open_records(self) -> OpenRecords | None: ...

    def fold_quiet(self, quiet: QuietChunk) -> None: ...


class NativeLane:
    """The stream lane's listener (hookd.transport.raw's `Listener`) with the library serving it."""

    def __init__(
        self, lib: ctypes.CDLL, worker: LaneWorker, journal: Journal, timeout_ms: int, limits: wire.Limits
    ) -> None:
        self._lib = lib
        self._limits = limits
        self._fallback: RawListener | None = None  # Python's listener, once the library failed
        self._worker = worker
        self._journal = journal
        self._timeout_ms = timeout_ms
        self._native: Library | None = None
        self.sockets: tuple[socket.socket, ...] = ()
        self._holds = 0  # sections and handed connections open: the thread is paused while any is
        self._taken = 0  # connections the library handed that Python has taken
        self._pushed: dict[ResponseKey, tuple[int, int, bytes, bool]] = {}  # slot, chunks, tail, eligible
        self._keys: dict[int, ResponseKey] = {}
        self._free = list(range(SLOTS - 1, -1, -1))
        self._cues: StreamCues | None = None
        self._headers: list[bytes] = []
        self._drain: asyncio.TimerHandle | None = None
        self._wake = (-1, -1)
        self.off = ""  # why the library answers nothing any more
        self._running = False  # the library may answer (and journal) since it was last told
        self.answered = 0  # chunks the library answered (and Python took)
        self._text_added = False  # the chunk being folded is in its response's text

    # --- the listener

    def listen(self, sock: socket.socket, protocol: Callable[[], asyncio.Protocol]) -> NativeLane:
        """Serve `sock`: the library's thread accepts, Python takes what it hands over (HookServer's factory)."""
        self.sockets, self._protocol = (sock,), protocol
        self._loop = asyncio.get_running_loop()
        self._wake = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        limits = self._limits
        try:
            self._native = Library(self._lib, sock.fileno(), self._wake[1], timeout_ms=self._timeout_ms,
                                   max_text=MAX_TEXT, max_header=limits.max_header_bytes,
                                   max_payload=limits.max_payload_bytes, magic=wire.REQUEST_MAGIC,
                                   version=wire.VERSION, reply=wire.encode_reply(b""))  # fmt: skip
            self._loop.add_reader(self._wake[0], self._woken)
            self._told()
            self._native.start()
        except Exception as exc:  # no memory for its server, no thread, a call refused: Python serves the socket
            self._python_listens(f"the native quiet chunk could not start: {type(exc).__name__}: {exc}")
            return self
        log.info("native_quiet_chunk_serving", socket=str(sock.getsockname()))
        return self

    def _python_listens(self, why: str) -> None:
        """The library off for good and Python's listener accepting on the socket (what it handed is taken)."""
        self.disable(why)
        native = self._native
        if native is None or not native.started:  # nothing of the library's left to stop: freed now
            self._loop.remove_reader(self._wake[0])
            if native is not None:
                native.close()
            self._native = None
            for fd in self._wake:
                os.close(fd)
        if self._fallback is None:
            self._fallback = RawListener(self.sockets[0], self._protocol)

    def close(self) -> None:
        """Stop the thread, take what it answered and close what it handed and Python did not take."""
        fallback = self._fallback
        if fallback is not None:
            fallback.close()  # the socket closed with it
        native = self._native
        if native is None:
            return
        native.close_thread()
        self._loop.remove_reader(self._wake[0])
        for fd in self._notes():
            if fd >= 0:
                os.close(fd)  # the shim reads no reply: its fail mode, as from a lane that stopped
        self._take(native)
        native.close()
        self._native = None
        for fd in (*self._wake, *(() if fallback else (self.sockets[0].fileno(),))):
            with contextlib.suppress(OSError):
                os.close(fd)
        if fallback is None:
            self.sockets[0].detach()
        if self._drain is not None:
            self._drain.cancel()

    def _notes(self) -> list[int]:
        data = b""
        with contextlib.suppress(BlockingIOError):
            while chunk := os.read(self._wake[0], 4096 * _RECORD):
                data += chunk
        return [int.from_bytes(data[n : n + _RECORD], "little", signed=True) for n in range(0, len(data), _RECORD)]

    def _woken(self) -> None:
        handed, gone = [], False
        for fd in self._notes():
            if fd >= 0:
                handed.append(fd)
            elif fd == _THREAD_GONE:
                gone = True
            elif self._drain is None:
                self._drain = self._loop.call_later(DRAIN_AFTER_S, self._drained)
        if gone:
            self._python_listens("the native quiet chunk's thread stopped (its socket failed)")
        if not handed:
            return
        self._taken += len(handed)
        self._holds += len(handed)  # the thread paused itself as it handed the first
        self._pause()
        for fd in handed:
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0, fd)
            RawTransport(self._loop, conn, self._protocol(), finished=self._release)

    def _drained(self) -> None:
        self._drain = None
        with self.section():
            pass

    # --- Python's work on the state the library reads

    @contextlib.contextmanager
    def section(self) -> Iterator[None]:
        """Python's work on the streams' state: the thread paused and its chunks taken first, the state told
        again after (when nothing else holds it)."""
        self._holds += 1
        try:
            self._pause()
            yield
        finally:
            self._release()

    def _release(self) -> None:
        self._holds -= 1
        if not self._holds:
            self._told()

    def _pause(self) -> None:
        native = self._native
        if native is None:
            return
        native.lock()
        try:
            native.lib.hq_pause(native.handle)
            if self._running:  # the library's lines went after Python's: it writes on from their end
                self._journal.moved_to(native.lib.hq_journal_size(native.handle))
                self._running = False
        finally:
            native.unlock()
        self._take(native)

    def late(self) -> int:
        """Frames the library handed over because they were not whole within its wait (a slow sender)."""
        native = self._native
        return 0 if native is None else int(native.lib.hq_late(native.handle))

    def header(self, raw: bytes, header: wire.RequestHeader) -> None:
        """A shim's frame header Python read on a direct frame: one of Gemini's AfterModel the library may take."""
        if (header.client, header.event) == NATIVE_QUIET and len(raw) <= HEADER_KEPT_BYTES:
            self._headers.append(raw)

    def disable(self, why: str) -> None:
        if not self.off:
            self.off = why
            log.error("native_quiet_chunk_off", reason=why)
        native = self._native
        if native is not None:
            native.lock()
            native.lib.hq_disable(native.handle)
            native.unlock()

    # --- the chunks the library answered

    def _take(self, native: Library) -> None:
        native.lock()
        try:
            taken = list(native.take())
        finally:
            native.unlock()
        self.answered += len(taken)
        for at, (slot, index, latency, text) in enumerate(taken):
            self._text_added = False
            try:
                self._fold(self._keys[slot], index, latency, text)
            except Exception as exc:  # the rest still reach the text, or a cue split across them is missed
                self.disable(f"folding a chunk answered natively failed: {type(exc).__name__}: {exc}")
                self._add_unfolded(taken[at + self._text_added :])
                return

    def _add_unfolded(self, taken: list[tuple[int, int, float, str]]) -> None:
        """Texts of chunks answered and journaled natively that were not folded: added to their responses."""
        streams = self._worker.pipeline.quiet.streams
        for slot, _index, _latency, text in taken:
            key = self._keys.get(slot)
            if streams is not None and key is not None:
                with contextlib.suppress(Exception):  # one text that cannot be added stops not the others
                    streams.texts.add(key, text, False, journal=False)

    def _fold(self, key: ResponseKey, index: int, latency: float, text: str) -> None:
        """What `Pipeline.quiet_chunk` and `fold_quiet` do of a quiet chunk, for one the library answered."""
        worker = self._worker
        streams = worker.pipeline.quiet.streams
        cues = self._cues
        added = None if streams is None or cues is None else streams.add_if_quiet(key, text, cues, journaled=True)
        self._text_added = added is not None
        if added != index:
            self.disable(f"chunk {index} of a response was answered natively, where Python reads {added}")
            if streams is not None and added is None:
                streams.texts.add(key, text, False, journal=False)  # journaled, and answered: the text has it
                self._text_added = True
        worker.stats.request()
        worker.stats.direct += 1
        if key not in worker.records:
            log.error("native_quiet_chunk_without_record", index=index)
            return
        decision = _ALLOWED.with_id(worker.pipeline.ids())
        worker.fold_quiet(QuietChunk(key, text, index, Event.AFTER_MODEL, decision, Reply(), latency))

    # --- the state told

    def _told(self) -> None:
        """Tell the library the state that decides, and let it answer again when everything it handed is taken."""
        native = self._native
        if native is None:
            return
        failed = ""
        native.lock()
        try:
            if self.off or not self._tell(native):
                return  # paused: every chunk is Python's until it is told again
            self._running = bool(native.lib.hq_resume(native.handle, self._taken))
        except Exception as exc:  # the library left paused: Python answers every chunk, as without it
            failed = f"telling the library failed: {type(exc).__name__}: {exc}"
        finally:
            native.unlock()
        if failed:
            self.disable(failed)

    def _tell(self, native: Library) -> bool:
        worker = self._worker
        served = worker.policy_set.current
        streams = worker.pipeline.quiet.streams
        cues = worker.pipeline.quiet.cues(served.engine)
        if worker.open_records() is None or cues is None or served.observed or streams is None:
            return False
        if len(cues.strings) > MAX_CUES or cues.longest > MAX_TEXT:  # more than the library takes: Python's
            return False
        if cues is not self._cues:
            native.set_cues(cues.strings, cues.longest)
            self._cues = cues
        for raw in self._headers:
            native.lib.hq_add_header(native.handle, raw, len(raw))
        self._headers.clear()
        native.lib.hq_set_journal(native.handle, *self._journal.place())
        self._tell_keys(native, streams, cues)
        return True

    def _tell_keys(self, native: Library, streams: ResponseStreams, cues: StreamCues) -> None:
        worker, uid = self._worker, os.getuid()
        open_now = set()
        for key in streams.texts.responses():
            if key[0] != uid or key[1] != NATIVE_QUIET[0]:
                continue
            settled = streams.settled(key, cues)
            eligible = settled is not None and key in worker.records
            text, chunks = settled or ("", 0)
            tail = tail_of(text, cues.longest)
            pushed = self._pushed.get(key)
            if pushed is not None:
                open_now.add(key)
                if pushed[1:] != (chunks, tail.encode(), eligible):
                    native.set_key(pushed[0], None, tail.encode(), chunks, eligible)
                    self._pushed[key] = (pushed[0], chunks, tail.encode(), eligible)
                continue
            request = self._request(key[3]) if eligible else None
            if request is None or not self._free:
                continue
            slot = self._free.pop()
            native.set_key(slot, (key[2].encode(), request, line_start(key)), tail.encode(), chunks, eligible)
            self._pushed[key], self._keys[slot] = (slot, chunks, tail.encode(), eligible), key
            open_now.add(key)
        for key in [k for k in self._pushed if k not in open_now]:
            slot = self._pushed.pop(key)[0]
            native.lib.hq_drop_key(native.handle, slot)
            del self._keys[slot]
            self._free.append(slot)

    def _request(self, digest: str) -> bytes | None:
        """The bytes of the Gemini AfterModel request of `digest` the parse step keeps, if it does."""
        repeated = self._worker.pipeline.repeated.get(NATIVE_QUIET)
        return None if repeated is None else repeated[0].raw_of(os.getuid(), digest)


_ALLOWED = combine(())


def tail_of(text: str, longest: int) -> str:
    """The characters of `text` a cue of at most `longest` characters could begin in and end after it: its last
    `longest - 1` (all of a shorter text), as `ResponseStreams._since` searches from them."""
    return text[max(0, len(text) - longest + 1) :]
