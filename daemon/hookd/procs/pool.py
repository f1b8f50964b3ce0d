"""The daemon's side of the worker processes (hookd.procs): start them, take their records and counts,
tell them to reload, start again one that died. The lane and the stream lane (hookd.lane) are two more of
them, in the last two slots, each with a socket of its own instead of the hook socket."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pickle
import signal
import socket
import time
from dataclasses import dataclass, field
from typing import Any

from hookd.audit.chain import Encoded
from hookd.audit.sink import Sink
from hookd.audit.writer import Queued
from hookd.config import Config
from hookd.enrich.stream import Kept
from hookd.procs import journal as journal_files
from hookd.procs.channel import LANE_FD, STOP_TIMEOUT_S, STREAM_LANE_FD, line, log
from hookd.rollout.relay import Receive, entry_limit
from hookd.runtime import isolated
from hookd.runtime.metrics import DecisionMetrics
from hookd.transport.hook_server import ServerStats
from hookd.types import Event, Outcome

RESPAWN_DELAY_S = 1.0  # doubled for each start that fails at once, up to RESPAWN_MAX_S
RESPAWN_MAX_S = 30.0
HEALTHY_AFTER_S = 10.0  # a worker that served this long before it died starts again after RESPAWN_DELAY_S


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
    journal: journal_files.Files | None = None  # the stream lane's (hookd.procs.journal)


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
        self.lane_index = config.daemon.workers if config.daemon.lane else None  # the last slots (audit.ids)
        self.stream_index = config.daemon.workers + 1 if config.daemon.lane else None
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
        self.texts: Kept = []  # what the last stream lane left open, for the next one (hookd.procs.journal)
        self.lane_requests = 0  # heavy requests the lane took (the daemon's and the workers' forwards)

    @property
    def pids(self) -> list[int]:
        """The workers' (not the lanes')."""
        lanes = (self.lane_index, self.stream_index)
        return [w.process.pid for i, w in self._running.items() if w.ready.is_set() and i not in lanes]

    @property
    def lane_pid(self) -> int | None:
        return self._serving_pid(self.lane_index)

    @property
    def stream_lane_pid(self) -> int | None:
        return self._serving_pid(self.stream_index)

    def _serving_pid(self, index: int | None) -> int | None:
        running = self._running.get(index) if index is not None else None
        return running.process.pid if running is not None and running.ready.is_set() else None

    def _kind(self, index: int) -> str:
        """How the log names the process in slot `index`: a worker, the lane or the stream lane."""
        return {self.lane_index: "lane", self.stream_index: "stream_lane"}.get(index, "worker")

    async def start(self) -> None:
        for index in range(1, self.size + 1):
            await self._spawn(index, RESPAWN_DELAY_S)
        for lane in (self.stream_index, self.lane_index):
            if lane is not None:
                await self._spawn(lane, RESPAWN_DELAY_S)

    async def _spawn(self, index: int, delay: float) -> None:
        # each lane binds a socket of its own
        listening = {self.lane_index: LANE_FD, self.stream_index: STREAM_LANE_FD}.get(index, self._fd)
        journal = journal_files.create(self.texts) if index == self.stream_index else None
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        passed = (theirs.fileno(), *(journal or ())) if listening < 0 else (listening, theirs.fileno())
        try:
            with ours, theirs:
                process = await asyncio.create_subprocess_exec(
                    *isolated.module_command("hookd.procs.child"),
                    str(index), str(listening), str(theirs.fileno()), str(os.getpid()),
                    stdin=asyncio.subprocess.PIPE, pass_fds=passed, cwd=isolated.SAFE_CWD,
                )  # fmt: skip
                assert process.stdin is not None
                process.stdin.write(pickle.dumps(self.config))
                if journal is not None:  # where the open responses' texts are, and go
                    process.stdin.write(pickle.dumps(journal))
                await process.stdin.drain()
                process.stdin.close()
                reader, writer = await asyncio.open_unix_connection(sock=ours.dup(), limit=self._line_limit)
        except BaseException:
            if journal is not None:
                journal_files.close(journal)
            raise
        running = _Running(index, process, writer, delay, journal=journal)
        self._running[index] = running
        running.reader_task = asyncio.get_running_loop().create_task(self._read(running, reader))
        log.info(self._kind(index) + "_started", worker=index, pid=process.pid)

    async def _read(self, running: _Running, reader: asyncio.StreamReader) -> None:
        try:
            while line := await reader.readline():
                try:
                    message = json.loads(line)
                    if message.get("t") == "d":  # the record follows, encoded, in two lines (chain.Encoded)
                        halves = (await reader.readline()).decode(), (await reader.readline()).decode()
                        kept = message.get("k") is not False  # an allow, the worker says; else kept
                        message["r"] = Encoded(halves[0].rstrip("\n"), halves[1].rstrip("\n"), kept)
                    self._dispatch(running, message)
                # a worker bug must not stop the daemon
                except (ValueError, KeyError, TypeError, AttributeError) as exc:
                    log.error("worker_message_invalid", worker=running.index, error=str(exc))
        except (ValueError, OSError) as exc:  # a line over the limit, a broken channel: start it afresh
            log.error("worker_channel_failed", worker=running.index, error=str(exc))
            with contextlib.suppress(ProcessLookupError):
                running.process.kill()
        finally:
            code = await running.process.wait()
            running.writer.close()
            if running.journal is not None:  # what it left open, for the next stream lane
                self.texts = journal_files.taken_over(running.journal)
            if self._running.get(running.index) is running:
                del self._running[running.index]
            if not self._stopping:
                healthy = time.monotonic() - running.started >= HEALTHY_AFTER_S
                delay = RESPAWN_DELAY_S if healthy else running.delay
                log.error(
                    self._kind(running.index) + "_exited",
                    worker=running.index,
                    pid=running.process.pid,
                    code=code,
                    restart_in_s=delay,
                )
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
            if message["c"] is not None:  # None: a streamed response's record, its chunks counted one by one
                self._count(message["c"])
            self._rollout(message)
        elif kind == "c":
            self._count(message["c"])
        elif kind == "s":
            for counted in message.get("cs", ()):  # the stream lane's chunks of the last second
                self._count(counted)
            self._stats.requests += int(message["requests"])
            for code, n in message["errors"].items():
                self._stats.errors[code] = self._stats.errors.get(code, 0) + int(n)
            self._sink.count_dropped(int(message.get("dropped", 0)))  # the log writes a gap record for them
            self.lane_requests += int(message.get("lane", 0))
        elif kind == "ready":
            running.ready.set()
            log.info(self._kind(running.index) + "_serving", worker=running.index, pid=message["pid"])

    def _count(self, counted: list[Any]) -> None:
        event, outcome, latency_ms, engine_error = counted
        self._metrics.count(Event(event), Outcome[outcome], float(latency_ms), bool(engine_error))

    @staticmethod
    def _ack(running: _Running) -> None:
        count, running.unacked = running.unacked, 0
        with contextlib.suppress(OSError, RuntimeError):  # a worker that is exiting is started afresh anyway
            running.writer.write(line({"t": "ack", "n": count}))

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
