"""A worker process (hookd.procs): the hook pipeline on the daemon's listening socket, each decision's
record sent to the daemon over the channel; `python -m hookd.procs.child` is its program. The lane
(hookd.lane) is the same program on a socket of its own, taking the heavy requests the daemon
and its workers forward, at a lower CPU priority; the stream lane too, on another socket, taking every
streamed chunk (the shims' and the relayed ones) at the daemon's priority."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import os
import pickle
import signal
import socket
import sys
import time
from collections.abc import Awaitable

from hookd import wire
from hookd.assembly import build_pipeline, enrichers, load_policy_set
from hookd.audit.chain import Encoded, kept
from hookd.audit.ids import decision_ids
from hookd.audit.mask import Masker
from hookd.audit.record import Pending, build_record
from hookd.audit.sink import Sink
from hookd.audit.streams import StreamRecords
from hookd.audit.writer import wait_for_records
from hookd.config import Config
from hookd.decide import Decider, OpenRecords
from hookd.dialects.registry import STREAMED
from hookd.enrich.stream import MemoryTexts, key_of
from hookd.errors import HookdError, Unavailable
from hookd.lane import Lane
from hookd.pipeline import QuietChunk
from hookd.procs import journal as journal_files
from hookd.procs.channel import LANE_FD, STOP_TIMEOUT_S, STREAM_LANE_FD, line, log
from hookd.procs.journal import Journal
from hookd.procs.native_lane import NativeLane
from hookd.rollout.relay import WorkerRollout
from hookd.transport.hook_server import HookServer, ServerStats
from hookd.transport.native_quiet import load as load_quiet
from hookd.types import JSON, Deadline, Event, Handled, Outcome, PolicySet

STATS_EVERY_S = 1.0
LANE_NICENESS = 10
UNACKED_LIMIT = 16  # a worker's records not yet in the daemon's queue, beyond which a reply waits
TEXTS_SENT = 4096  # chunks counted with their text, not yet flushed, remembered at most
_PR_SET_PDEATHSIG = 1


class WorkerProcess:
    """A worker process: the hook pipeline on the daemon's listening socket, records sent to the daemon."""

    def __init__(
        self,
        config: Config,
        index: int,
        *,
        lane: bool = False,
        journal: journal_files.Files | None = None,
        quiet: ctypes.CDLL | None = None,
    ) -> None:
        """`quiet`: the native quiet chunk's library, for the stream lane (hookd.procs.native_lane)."""
        self.config = config
        self.index = index
        self.is_lane = lane
        self._counted = asyncio.Event()  # set by each count: an idle worker does not wake to report nothing
        self.stats = ServerStats(self._counted.set)
        self._sent_requests = self._sent_dropped = self._sent_direct = 0
        self._sent_errors: dict[str, int] = {}
        self._sent_direct_errors: dict[str, int] = {}
        # The stream lane's texts: those its journal holds (a lane before it streamed them), and its journal.
        texts = MemoryTexts() if journal is not None else None
        steps, self._journal = None, None
        self._streams_here = False  # the stream lane: the process that holds the responses' texts
        if texts is not None and journal is not None:
            texts.seed(journal_files.read(journal))
            self._journal = Journal(journal, texts.kept)
            texts.journal = self._journal.append  # each chunk as it joins its text
            steps, self._streams_here = enrichers(config, texts), True
        self._chunk_counts: list[list[JSON]] = []  # the stream lane's chunks' counts, sent each second
        self.pipeline, self.policy_set = build_pipeline(
            config, self._load_policy_set(wait=True), ids=decision_ids(index, config.processes), steps=steps
        )
        self._channel: asyncio.StreamWriter | None = None
        self._text_sent: dict[str, bool] = {}  # the chunks whose decision is counted in `_chunk_counts`
        self._mask = Masker.from_config(config.log)
        self._sink: Sink[Pending] = Sink(config.log.queue_size)
        self._streams = self.records = StreamRecords()  # one record per streamed response (hookd.audit.streams)
        self._open_records = _OpenRecords(self)
        self.rollout = WorkerRollout(config, self._sink.put_nowait, self._busy)  # monitor, shadow, replay
        self.decider = Decider(config, self.pipeline, self, self.stats, None if lane else Lane.from_config(config))
        # A shim sends a streamed chunk straight to the stream lane, the process that holds its response's text
        self.server = HookServer.from_config(
            config, self.decider.handle, self.stats, lane=lane, direct=STREAMED if journal is not None else frozenset()
        )
        self.native: NativeLane | None = None
        if quiet is not None and self._journal is not None:
            limits = wire.Limits(config.daemon.max_header_bytes, config.daemon.max_payload_bytes)
            self.native = NativeLane(quiet, self, self._journal, config.daemon.request_timeout_ms, limits)
            self.server.listen_with, self.server.on_direct_header = self.native.listen, self.native.header
        self._stop = asyncio.Event()
        self._reloading = asyncio.Lock()  # one reload at a time
        self._unacked = 0  # records sent that the daemon has not yet said it queued
        self._acked = asyncio.Event()
        self._cut_off = ""  # why records can no longer reach the daemon; set once, then every request is refused

    def _load_policy_set(self, *, wait: bool) -> PolicySet:
        return load_policy_set(self.config, wait=wait)  # with the kept bundles, as the daemon has them

    # --- the Decider's recorder (hookd.decide.Recorder) ---

    def open_records(self) -> OpenRecords | None:
        """The stream lane's open records, when an allowed chunk is folded into its record as it is decided (what
        `_offer` holds: nothing queued before it, no wait for room); None in any other process."""
        if not self._streams_here or self._cut_off or len(self._sink) or len(self.rollout):
            return None
        return None if self._unacked >= UNACKED_LIMIT else self._open_records

    def fold_quiet(self, quiet: QuietChunk) -> None:
        """A quiet chunk counted, and folded into its response's open record, as `_offer` holds an allowed one."""
        self._chunk_counts.append([_EVENTS[quiet.event], _OUTCOMES[quiet.decision.outcome], quiet.latency_ms, False])
        self._streams.hold_allowed(quiet.key, quiet.chunk, quiet.index, quiet.decision)

    def admit(self) -> None:
        """Refuse to answer what could not be logged: a reply goes out only while records reach the daemon."""
        if self._cut_off:
            raise Unavailable(f"hookd worker {self.index} cannot log decisions ({self._cut_off}): not answering")

    def record(self, handled: Handled, via: str, deadline: Deadline) -> Awaitable[None] | None:
        """The decision's record, sent to the daemon; awaited while UNACKED_LIMIT records have not reached the
        daemon's queue (this bounds what a crash of the daemon loses), until the request's deadline."""
        self.admit()  # the daemon may have gone while this request was decided
        queued = len(self._sink) + len(self.rollout)
        if self._unacked + queued >= UNACKED_LIMIT:
            return self._record_with_room(handled, via, deadline)
        self._offer(Pending(handled, time.time(), via), queued)
        return None

    async def _record_with_room(self, handled: Handled, via: str, deadline: Deadline) -> None:
        if not await self._room_for_a_record(deadline):
            why = f"hookd worker {self.index}: the daemon is not taking its decision records"
            # The agent gets an error frame (the shim's fail mode), so that is what the record says.
            self.rollout.offer(Pending(self.pipeline.refused(handled, why), time.time(), via))
            raise Unavailable(why)
        self._offer(Pending(handled, time.time(), via), len(self._sink) + len(self.rollout))

    def _offer(self, pending: Pending, queued: int) -> None:
        """A decision on its way to the daemon: through the rollout (monitor, shadow) to the record sender, but
        for the stream lane's allowed chunk of an open response, folded into that response's record here and
        now (`StreamRecords.hold`) when nothing is queued before it: there is nothing to send for it, and waking
        the sender's task for each chunk cost the chunk 20-40 µs of CPU (docs/performance.md, issue 30).

        The stream lane's chunks' counts go to the daemon with the next second's (`_send_stats`): a line a
        chunk would wake the daemon for every chunk. (Each chunk's text went to the stream lane's journal as
        it joined its response's text, before the policies saw it: hookd.procs.journal.)"""
        handled = pending.handled
        if self._streams_here and key_of(handled.event) is not None:
            self._chunk_counts.append(_counted(handled))
            served = handled.policy_set
            # `queued`: the records and observations before it, folded first, in their order
            if not queued and not (served is not None and served.observed) and self._streams.hold(pending):
                return
            self._text_sent[handled.decision_id] = True
            if len(self._text_sent) > TEXTS_SENT:  # records the full queue dropped are never flushed
                del self._text_sent[next(iter(self._text_sent))]
        self.rollout.offer(pending)

    async def _room_for_a_record(self, deadline: Deadline) -> bool:
        """Wait, until the deadline, while UNACKED_LIMIT records have not reached the daemon's queue. False when
        the deadline came first."""
        while self._unacked + len(self._sink) + len(self.rollout) >= UNACKED_LIMIT:
            self._acked.clear()
            try:
                await asyncio.wait_for(self._acked.wait(), deadline.remaining())
            except TimeoutError:
                return False
            self.admit()
        return True

    def _busy(self, answering: int) -> bool:
        """Hook requests besides `answering` of them are being decided (monitor and shadow stand aside)."""
        return self.server.in_flight > answering or self.policy_set.in_use(self.policy_set.current) > 0

    def _lose_channel(self, why: str) -> None:
        if not self._cut_off:
            self._cut_off = why
            log.error("worker_cut_off", worker=self.index, reason=why)
            if self.native is not None:
                self.native.disable(why)
        self._stop.set()
        self._acked.set()  # replies waiting for an ack are refused now

    async def run(self, listener: socket.socket | None, channel: socket.socket) -> None:
        """Serve `listener` (the daemon's hook socket), or, the lane, a socket of its own."""
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, self._stop.set)
        # A terminal's Ctrl-C or hangup reaches the whole process group: the daemon answers it (it stops us
        # with SIGTERM, or sends us its reload on the channel).
        loop.add_signal_handler(signal.SIGINT, lambda: None)
        loop.add_signal_handler(signal.SIGHUP, lambda: None)
        reader, writer = await asyncio.open_unix_connection(sock=channel)
        self._channel = writer
        if listener is None:
            await self.server.start()
        else:
            await self.server.adopt(listener)
        self.rollout.start()
        writer.write(line({"t": "ready", "pid": os.getpid()}))
        tasks = [
            loop.create_task(self._send(writer)),
            loop.create_task(self._listen(reader)),
            loop.create_task(self._report(writer)),
        ]
        await self._stop.wait()
        await self.server.stop()  # in-flight requests finish; their records are queued
        await self.rollout.close()  # observed (within the budget) and queued to send
        self._sink.wake()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if not self._cut_off:  # a daemon that is gone, or not reading, cannot take them
            with contextlib.suppress(OSError, RuntimeError, TimeoutError):
                self._flush(writer)
                self._send_records(writer, self._streams.close())  # the responses still streaming
                self._send_stats(writer)
                await asyncio.wait_for(writer.drain(), STOP_TIMEOUT_S)
        writer.close()
        await self.policy_set.current.close()

    async def _send(self, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                await wait_for_records(self._sink, self._streams)
                send_due(self, writer)
                await writer.drain()
        except (OSError, RuntimeError) as exc:  # a reset channel (a killed daemon)
            self._lose_channel(f"the channel failed: {exc}")

    def _flush(self, writer: asyncio.StreamWriter) -> None:
        for pending in self._sink.take():
            written = self._streams.fold(pending)  # a streamed response's chunks: one record when it ends
            if len(written) == 1 and written[0] is pending:  # no chunk: its own record, counted with it
                self._send_records(writer, written, counted=True)
                continue
            if not self._text_sent.pop(pending.handled.decision_id, False):  # counted with its text, else now
                writer.write(line({"t": "c", "c": _counted(pending)}))  # each chunk's decision is counted
            self._send_records(writer, written)

    def _send_records(self, writer: asyncio.StreamWriter, pendings: list[Pending], *, counted: bool = False) -> None:
        """Each record to the daemon, with its decision's counts when it is not counted already."""
        for pending in pendings:
            try:
                record = build_record(pending, self._mask)
            except Exception:  # a record that cannot be built must not stop the worker
                log.exception("decision_log_record_failed", decision=pending.handled.decision_id)
                continue
            encoded = Encoded.of(record)  # canonical JSON has no raw newline: each half is one line
            counts = _counted(pending) if counted else None
            meta = line({"t": "d", "c": counts, "k": kept(record), **self.rollout.fields(pending)})
            writer.writelines((meta, encoded.before.encode(), b"\n", encoded.after.encode(), b"\n"))
            self._unacked += 1

    async def _report(self, writer: asyncio.StreamWriter) -> None:
        """A second's counts in one line, after the first count of that second: an idle worker (the lane, most
        of the time) never wakes, which at an agent's pace cost as much CPU as a tenth of its decisions."""
        while True:
            await self._counted.wait()
            await asyncio.sleep(STATS_EVERY_S)
            self._counted.clear()
            self._send_stats(writer)

    def _send_stats(self, writer: asyncio.StreamWriter) -> None:
        """Counts since the last report: requests, errors by code, and records the queue dropped (when the
        daemon's log fell this far behind)."""
        requests = self.stats.requests - self._sent_requests
        errors = {k: v - self._sent_errors.get(k, 0) for k, v in self.stats.errors.items()}
        errors = {k: v for k, v in errors.items() if v}
        lane = 0
        if self.is_lane:  # the process that forwarded each request counted it, and the error it answered
            direct = self.stats.direct - self._sent_direct  # a shim's chunks (the stream lane's): no one else's
            sent = self._sent_direct_errors
            errors = {k: v - sent.get(k, 0) for k, v in self.stats.direct_errors.items() if v != sent.get(k, 0)}
            lane, requests = requests - direct, direct
        dropped = self._sink.dropped - self._sent_dropped
        counts, self._chunk_counts = self._chunk_counts, []
        if requests or errors or dropped or lane or counts:
            message = {"t": "s", "requests": requests, "errors": errors, "dropped": dropped, "lane": lane}
            writer.write(line({**message, "cs": counts} if counts else message))
            self._sent_requests, self._sent_errors = self.stats.requests, dict(self.stats.errors)
            self._sent_direct, self._sent_direct_errors = self.stats.direct, dict(self.stats.direct_errors)
            self._sent_dropped = self._sink.dropped

    async def _listen(self, reader: asyncio.StreamReader) -> None:
        try:
            while line := await reader.readline():
                try:
                    message = json.loads(line)
                    kind = message.get("t")
                    if kind == "ack":
                        with section(self):  # fewer records in flight: the native quiet chunk may answer again
                            self._unacked -= int(message["n"])
                        self._acked.set()
                except (ValueError, AttributeError, KeyError, TypeError):
                    log.error("worker_message_invalid", worker=self.index, message=line[:200].decode(errors="replace"))
                    continue
                if kind == "reload":
                    await self.reload()
        except (OSError, ValueError) as exc:  # a reset channel (a killed daemon under load), an overlong line
            self._lose_channel(f"the channel failed: {exc}")
            return
        self._lose_channel("the daemon closed the channel")  # it is gone: so is its socket

    async def reload(self) -> None:
        async with self._reloading:
            try:
                served = self._load_policy_set(wait=False)
            except HookdError as exc:
                log.error("worker_reload_failed", worker=self.index, error=str(exc))
                return
            try:
                await served.ready()  # closes the engine when it cannot start
            except Exception as exc:  # one failed reload must not end the listener: keep serving the old set
                log.error("worker_reload_failed", worker=self.index, error=str(exc))
                return
            with section(self):  # new cues: told before the native quiet chunk answers again
                previous = self.policy_set.swap(served)
            await self.policy_set.retire(previous)
            log.info("worker_reloaded", worker=self.index, revision=served.status().revision)


class _OpenRecords:
    """The stream lane's open records as the quiet chunk's short-cut sees them (hookd.decide.OpenRecords)."""

    __slots__ = ("_worker",)

    def __init__(self, worker: WorkerProcess) -> None:
        self._worker = worker

    def __contains__(self, key: object) -> bool:
        return key in self._worker._streams

    def fold(self, quiet: QuietChunk) -> None:
        self._worker.fold_quiet(quiet)


def section(worker: WorkerProcess) -> contextlib.AbstractContextManager[None]:
    """Work on the streams' state: the native quiet chunk paused meanwhile (hookd.procs.native_lane)."""
    return worker.native.section() if worker.native is not None else contextlib.nullcontext()


def send_due(worker: WorkerProcess, writer: asyncio.StreamWriter) -> None:
    """The records queued, and those of the responses gone idle."""
    with section(worker):
        worker._flush(writer)
        worker._send_records(writer, worker._streams.expired())


def _counted(pending: Pending | Handled) -> list[JSON]:
    """What the daemon's metrics count of one decision."""
    handled = pending.handled if isinstance(pending, Pending) else pending
    return [_EVENTS[handled.event.event], _OUTCOMES[handled.decision.outcome], handled.latency_ms, handled.engine_error]


# Each name read once: an Enum's .value and .name are Python properties, and this runs on every decision
_EVENTS: dict[Event, str] = {event: event.value for event in Event}
_OUTCOMES: dict[Outcome, str] = {outcome: outcome.name for outcome in Outcome}


def lower_priority() -> None:
    """The lane's: the processes answering the light requests come first on a busy CPU. A service whose
    system call filter refuses setpriority (hookd's unit without Python policies) keeps the lane at the
    daemon's priority: still a process of its own, so still off the daemon's loop."""
    try:
        os.nice(LANE_NICENESS)
    except OSError as exc:
        log.warning("lane_priority_unchanged", error=exc.strerror or str(exc))


def die_with(parent: int) -> bool:
    """Have the kernel SIGKILL this process when its parent exits; False if the parent is already gone."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    return os.getppid() == parent  # checked after the prctl: a parent that died before it sent no signal


def main(argv: list[str]) -> int:
    import uvloop

    from hookd.runtime.logs import configure_logging

    index, listen_fd, channel_fd, parent = (int(a) for a in argv)
    if not die_with(parent):
        return 1
    given = sys.stdin.buffer  # written by the daemon that started this process
    config: Config = pickle.load(given)
    journal: journal_files.Files | None = None
    if listen_fd == STREAM_LANE_FD:  # the journal of the responses' texts (a lane before it may have left some)
        journal = pickle.load(given)
        for fd in journal:  # no process this one starts (a policy's sandboxed worker) gets them
            os.set_inheritable(fd, False)
    configure_logging(config.daemon.log_level)
    listener = socket.socket(fileno=listen_fd) if listen_fd >= 0 else None
    channel = socket.socket(fileno=channel_fd)
    quiet = load_quiet() if journal is not None else None  # None where it does not load: every chunk Python's
    try:
        worker = WorkerProcess(config, index, lane=listener is None, journal=journal, quiet=quiet)
    except HookdError as exc:
        log.error("worker_start_failed", worker=index, error=str(exc))
        return 1
    # Lowered once the policies loaded: at nice 10 on a busy box the load took seconds, and a heavy request
    # sent meanwhile waited for it past its deadline. The stream lane's chunks are light and awaited one by
    # one: it keeps the daemon's priority.
    if listen_fd == LANE_FD:
        lower_priority()
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(worker.run(listener, channel))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
