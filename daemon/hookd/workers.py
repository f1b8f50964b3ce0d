"""Worker processes: more than one core deciding hook-socket requests (`[daemon] workers = N`).

regorus holds the GIL while it evaluates, so one process decides on one core. With `workers = N` the
daemon starts N - 1 worker processes that accept connections on the daemon's own listening socket (the
kernel hands each connection to one of them) and decide them with the same pipeline, built from the same
configuration, and observes them (monitor and shadow layers, docs/rollout.md). Everything else stays in
the daemon: the control socket, the HTTP endpoint, bundle polling, metrics, the decision log and the
replay store. A worker builds and masks each decision's record and sends it to the daemon, whose single
writer chains and writes it, so the log stays one hash chain.

The channel between them is a socketpair of newline-delimited JSON:
  worker → daemon  {"t": "ready", "pid": P}             once serving
                   {"t": "d", "r": RECORD, "c": [event, outcome, latency_ms, engine_error],
                    "o": TALLY, "p": REPLAY_LINE}      what it observed, its replay line (hookd.rollout.relay)
                   {"t": "s", "requests": N, "errors": {code: N}, "dropped": N}   since the last one, each second
  daemon → worker  {"t": "reload"}                      load the policies (and kept bundles) again
                   {"t": "ack", "n": N}                 N more records are in the daemon's log queue
The daemon hands the configuration over on the worker's stdin (a pickle of `Config`: the same program,
the same user). A worker that dies is started again after a pause; its end of the channel closing tells
the daemon.

Nothing serves unaudited: a worker dies with its daemon (the kernel sends it SIGKILL when the daemon
exits, PR_SET_PDEATHSIG), and whichever comes first, a channel that ends or fails makes it refuse every
request (an `unavailable` error frame: the shim's fail mode) and exit. A worker holds a reply back while
more than `UNACKED_LIMIT` of its records have not reached the daemon's queue (refused at its deadline:
a daemon that stopped taking records gets no reply sent past it), so a crash loses at most that many of
its records (docs/decision-log.md). A restarted daemon waits for a killed one's
workers to be gone (`HookServer.start`).

A reload reaches the workers after the daemon has swapped: for that moment processes may decide on
different revisions, and each decision's record names the revision that decided it.
"""

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
from dataclasses import dataclass, field
from typing import Any

import structlog

from hookd.assembly import build_pipeline, load_engine
from hookd.audit.ids import decision_ids
from hookd.audit.mask import Masker
from hookd.audit.record import Pending, build_record
from hookd.audit.sink import Sink
from hookd.audit.writer import Queued
from hookd.config import Config
from hookd.errors import HookdError, Unavailable
from hookd.metrics import DecisionMetrics
from hookd.rollout.relay import Receive, WorkerRollout, entry_limit
from hookd.transport.hook_server import HookServer, ServerStats
from hookd.types import Deadline, Engine, Event, HookRequest, Outcome, Reply

log = structlog.get_logger("hookd.workers")
RESPAWN_DELAY_S = 1.0  # doubled for each start that fails at once, up to RESPAWN_MAX_S
RESPAWN_MAX_S = 30.0
HEALTHY_AFTER_S = 10.0  # a worker that served this long before it died starts again after RESPAWN_DELAY_S
STATS_EVERY_S = 1.0
STOP_TIMEOUT_S = 10.0
UNACKED_LIMIT = 16  # a worker's records not yet in the daemon's queue, beyond which a reply waits
_PR_SET_PDEATHSIG = 1


@dataclass(eq=False)
class _Running:
    index: int
    process: asyncio.subprocess.Process
    writer: asyncio.StreamWriter
    delay: float  # before this slot's next start, should this worker die soon
    started: float = field(default_factory=time.monotonic)
    reader_task: asyncio.Task[None] | None = None
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    unacked: int = 0  # records queued since the last ack


class WorkerPool:
    """The daemon's side: starts the workers, takes their records and counts, tells them to reload."""

    def __init__(
        self,
        config: Config,
        listening_fd: int,
        sink: Sink[Queued],
        metrics: DecisionMetrics,
        stats: ServerStats,
        rollout: Receive,
    ) -> None:
        self.config = config
        self.size = config.daemon.workers - 1
        self._fd = listening_fd
        self._sink = sink  # the daemon's decision log queue: workers' records join its own
        self._metrics = metrics
        self._stats = stats
        self._rollout = rollout  # the observers' counts and the replay lines: hookd.rollout.relay
        # a record line holds the masked input, so it stays below a few payloads' size (and a replay line)
        self._line_limit = 4 * config.daemon.max_payload_bytes + entry_limit(config) + (1 << 20)
        self._running: dict[int, _Running] = {}
        self._respawns: set[asyncio.Task[None]] = set()
        self._stopping = False
        self.restarts = 0

    @property
    def pids(self) -> list[int]:
        return [w.process.pid for w in self._running.values() if w.ready.is_set()]

    async def start(self) -> None:
        for index in range(1, self.size + 1):
            await self._spawn(index, RESPAWN_DELAY_S)

    async def _spawn(self, index: int, delay: float) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with ours, theirs:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "hookd.workers",
                str(index), str(self._fd), str(theirs.fileno()), str(os.getpid()),
                stdin=asyncio.subprocess.PIPE,
                pass_fds=(self._fd, theirs.fileno()),
            )  # fmt: skip
            assert process.stdin is not None
            process.stdin.write(pickle.dumps(self.config))
            await process.stdin.drain()
            process.stdin.close()
            reader, writer = await asyncio.open_unix_connection(sock=ours.dup(), limit=self._line_limit)
        running = _Running(index, process, writer, delay)
        self._running[index] = running
        running.reader_task = asyncio.get_running_loop().create_task(self._read(running, reader))
        log.info("worker_started", worker=index, pid=process.pid)

    async def _read(self, running: _Running, reader: asyncio.StreamReader) -> None:
        try:
            while line := await reader.readline():
                try:
                    self._dispatch(running, json.loads(line))
                except (ValueError, KeyError, TypeError) as exc:  # a worker bug must not stop the daemon
                    log.error("worker_message_invalid", worker=running.index, error=str(exc))
        except (ValueError, OSError) as exc:  # a line over the limit, a broken channel: start it afresh
            log.error("worker_channel_failed", worker=running.index, error=str(exc))
            with contextlib.suppress(ProcessLookupError):
                running.process.kill()
        finally:
            code = await running.process.wait()
            running.writer.close()
            if self._running.get(running.index) is running:
                del self._running[running.index]
            if not self._stopping:
                healthy = time.monotonic() - running.started >= HEALTHY_AFTER_S
                delay = RESPAWN_DELAY_S if healthy else running.delay
                log.error("worker_exited", worker=running.index, pid=running.process.pid, code=code, restart_in_s=delay)
                self.restarts += 1
                task = asyncio.get_running_loop().create_task(self._respawn(running.index, delay))
                self._respawns.add(task)
                task.add_done_callback(self._respawns.discard)

    def _dispatch(self, running: _Running, message: dict[str, Any]) -> None:
        kind = message["t"]
        if kind == "d":
            self._sink.put_nowait(message["r"])
            if not running.unacked:  # one ack for all the records read in this turn of the loop
                asyncio.get_running_loop().call_soon(self._ack, running)
            running.unacked += 1
            event, outcome, latency_ms, engine_error = message["c"]
            self._metrics.count(Event(event), Outcome[outcome], float(latency_ms), bool(engine_error))
            self._rollout(message)
        elif kind == "s":
            self._stats.requests += int(message["requests"])
            for code, n in message["errors"].items():
                self._stats.errors[code] = self._stats.errors.get(code, 0) + int(n)
            self._sink.count_dropped(int(message.get("dropped", 0)))  # the log writes a gap record for them
        elif kind == "ready":
            running.ready.set()
            log.info("worker_serving", worker=running.index, pid=message["pid"])

    @staticmethod
    def _ack(running: _Running) -> None:
        count, running.unacked = running.unacked, 0
        with contextlib.suppress(OSError, RuntimeError):  # a worker that is exiting is started afresh anyway
            running.writer.write(_line({"t": "ack", "n": count}))

    async def _respawn(self, index: int, delay: float) -> None:
        while not self._stopping:
            await asyncio.sleep(delay)
            if self._stopping:
                return
            delay = min(delay * 2, RESPAWN_MAX_S)
            try:
                await self._spawn(index, delay)
                return
            except OSError as exc:  # it could not even be handed its configuration: try again later
                log.error("worker_start_failed", worker=index, error=str(exc), restart_in_s=delay)

    def reload(self) -> None:
        """Tell every worker to load its policies again (after the daemon swapped in its own)."""
        for running in self._running.values():
            with contextlib.suppress(OSError, RuntimeError):  # one that is exiting is started afresh anyway
                running.writer.write(b'{"t": "reload"}\n')

    async def stop(self) -> None:
        """SIGTERM every worker, then wait for each to send its last records and exit (SIGKILL after a while)."""
        self._stopping = True
        for task in list(self._respawns):
            task.cancel()
        running = list(self._running.values())
        for worker in running:
            with contextlib.suppress(ProcessLookupError):
                worker.process.send_signal(signal.SIGTERM)
        readers = [w.reader_task for w in running if w.reader_task is not None]
        if not readers:
            return
        _, late = await asyncio.wait(readers, timeout=STOP_TIMEOUT_S)
        for worker in running:
            if worker.reader_task in late:
                log.error("worker_killed", worker=worker.index, pid=worker.process.pid)
                with contextlib.suppress(ProcessLookupError):
                    worker.process.kill()
        if late:
            await asyncio.wait(late, timeout=STOP_TIMEOUT_S)


class Worker:
    """A worker process: the hook pipeline on the daemon's listening socket, records sent to the daemon."""

    def __init__(self, config: Config, index: int) -> None:
        self.config = config
        self.index = index
        self.stats = ServerStats()
        self._sent_requests = self._sent_dropped = 0
        self._sent_errors: dict[str, int] = {}
        self.pipeline, self.policy_set = build_pipeline(
            config, self._load_engine(wait=True), ids=decision_ids(index, config.daemon.workers)
        )
        self._mask = Masker.from_config(config.log)
        self._sink: Sink[Pending] = Sink(config.log.queue_size)
        self.rollout = WorkerRollout(config, self._sink.put_nowait, self._busy)  # monitor, shadow, replay
        self.server = HookServer.from_config(config, self.handle, self.stats)
        self._stop = asyncio.Event()
        self._reloading = asyncio.Lock()  # one reload at a time
        self._unacked = 0  # records sent that the daemon has not yet said it queued
        self._acked = asyncio.Event()
        self._cut_off = ""  # why records can no longer reach the daemon; set once, then every request is refused

    def _load_engine(self, *, wait: bool) -> Engine:
        return load_engine(self.config, wait=wait)  # with the kept bundles, as the daemon has them

    async def handle(self, request: HookRequest) -> Reply:
        self._check_channel()
        handled = await self.pipeline.handle(request)
        self._check_channel()  # the daemon may have gone while this request was decided
        if not await self._room_for_a_record(request.deadline):
            why = f"hookd worker {self.index}: the daemon is not taking its decision records"
            # The agent gets an error frame (the shim's fail mode), so that is what the record says.
            self.rollout.offer(Pending(self.pipeline.refused(handled, why), time.time(), "socket"))
            raise Unavailable(why)
        self.rollout.offer(Pending(handled, time.time(), "socket"))
        return handled.reply

    async def _room_for_a_record(self, deadline: Deadline) -> bool:
        """Wait, until the deadline, while UNACKED_LIMIT records have not reached the daemon's queue: this
        bounds what a crash of the daemon loses. False when the deadline came first."""
        while self._unacked + len(self._sink) + len(self.rollout) >= UNACKED_LIMIT:
            self._acked.clear()
            try:
                await asyncio.wait_for(self._acked.wait(), deadline.remaining())
            except TimeoutError:
                return False
            self._check_channel()
        return True

    def _busy(self, answering: int) -> bool:
        """Hook requests besides `answering` of them are being decided (monitor and shadow stand aside)."""
        return self.server.in_flight > answering or self.policy_set.in_use(self.policy_set.current) > 0

    def _check_channel(self) -> None:
        """Refuse to answer what could not be logged: a reply goes out only while records reach the daemon."""
        if self._cut_off:
            raise Unavailable(f"hookd worker {self.index} cannot log decisions ({self._cut_off}): not answering")

    def _lose_channel(self, why: str) -> None:
        if not self._cut_off:
            self._cut_off = why
            log.error("worker_cut_off", worker=self.index, reason=why)
        self._stop.set()
        self._acked.set()  # replies waiting for an ack are refused now

    async def run(self, listener: socket.socket, channel: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, self._stop.set)
        # A terminal's Ctrl-C or hangup reaches the whole process group: the daemon answers it (it stops us
        # with SIGTERM, or sends us its reload on the channel).
        loop.add_signal_handler(signal.SIGINT, lambda: None)
        loop.add_signal_handler(signal.SIGHUP, lambda: None)
        reader, writer = await asyncio.open_unix_connection(sock=channel)
        await self.server.adopt(listener)
        self.rollout.start()
        writer.write(_line({"t": "ready", "pid": os.getpid()}))
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
                self._send_stats(writer)
                await asyncio.wait_for(writer.drain(), STOP_TIMEOUT_S)
        writer.close()
        await self.policy_set.current.aclose()

    async def _send(self, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                await self._sink.wait()
                self._flush(writer)
                await writer.drain()
        except (OSError, RuntimeError) as exc:  # a reset channel (a killed daemon)
            self._lose_channel(f"the channel failed: {exc}")

    def _flush(self, writer: asyncio.StreamWriter) -> None:
        for pending in self._sink.take():
            handled = pending.handled
            try:
                record = build_record(pending, self._mask)
            except Exception:  # a record that cannot be built must not stop the worker
                log.exception("decision_log_record_failed", decision=handled.decision_id)
                continue
            counted = [
                handled.event.event.value,
                handled.decision.outcome.name,
                handled.latency_ms,
                handled.engine_error,
            ]
            writer.write(_line({"t": "d", "r": record, "c": counted, **self.rollout.fields(pending)}))
            self._unacked += 1

    async def _report(self, writer: asyncio.StreamWriter) -> None:
        while True:
            await asyncio.sleep(STATS_EVERY_S)
            self._send_stats(writer)

    def _send_stats(self, writer: asyncio.StreamWriter) -> None:
        """Counts since the last report: requests, errors by code, and records the queue dropped (when the
        daemon's log fell this far behind)."""
        requests = self.stats.requests - self._sent_requests
        errors = {k: v - self._sent_errors.get(k, 0) for k, v in self.stats.errors.items()}
        errors = {k: v for k, v in errors.items() if v}
        dropped = self._sink.dropped - self._sent_dropped
        if requests or errors or dropped:
            writer.write(_line({"t": "s", "requests": requests, "errors": errors, "dropped": dropped}))
            self._sent_requests, self._sent_errors = self.stats.requests, dict(self.stats.errors)
            self._sent_dropped = self._sink.dropped

    async def _listen(self, reader: asyncio.StreamReader) -> None:
        try:
            while line := await reader.readline():
                try:
                    message = json.loads(line)
                    kind = message.get("t")
                    if kind == "ack":
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
                engine = self._load_engine(wait=False)
            except HookdError as exc:
                log.error("worker_reload_failed", worker=self.index, error=str(exc))
                return
            try:
                await engine.ready()  # closes the engine when it cannot start
            except Exception as exc:  # one failed reload must not end the listener: keep serving the old set
                log.error("worker_reload_failed", worker=self.index, error=str(exc))
                return
            previous = self.policy_set.swap(engine)
            await self.policy_set.retire(previous)
            log.info("worker_reloaded", worker=self.index, revision=engine.status().revision)


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def die_with(parent: int) -> bool:
    """Have the kernel SIGKILL this process when its parent exits; False if the parent is already gone."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    return os.getppid() == parent  # checked after the prctl: a parent that died before it sent no signal


def main(argv: list[str]) -> int:
    import uvloop

    from hookd.logs import configure_logging

    index, listen_fd, channel_fd, parent = (int(a) for a in argv)
    if not die_with(parent):
        return 1
    config: Config = pickle.loads(sys.stdin.buffer.read())  # written by the daemon that started this process
    configure_logging(config.daemon.log_level)
    listener = socket.socket(fileno=listen_fd)
    channel = socket.socket(fileno=channel_fd)
    try:
        worker = Worker(config, index)
    except HookdError as exc:
        log.error("worker_start_failed", worker=index, error=str(exc))
        return 1
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(worker.run(listener, channel))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
