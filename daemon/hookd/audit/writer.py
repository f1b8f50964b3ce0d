"""The decision log's single writer: one task owns the hash chain, the file and its rotation, and the fan-out
to live StreamDecisions subscribers.

The hot path only calls `Sink.put_nowait(Pending(...))`. This task wakes up, takes everything queued,
builds and masks each record, seals it (`ChainProcessor` numbers it, links it to the record before and renders
the line) into `RotatingFile` (append, rotate by size, optionally echo on stdout), then offers it to each
subscriber. It yields
to the event loop every few records so that a burst of decisions never stalls the hook path, and it
flushes at the end of every batch and at `close()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import structlog

from hookd.audit.chain import GENESIS, Encoded, kept, kept_path, last_record, seal, seal_encoded
from hookd.audit.mask import Masker
from hookd.audit.record import Logged, Pending, build_record, gap_record
from hookd.audit.ship import Shipper
from hookd.audit.sink import Sink
from hookd.audit.streams import StreamRecords
from hookd.config import LogConfig
from hookd.errors import DaemonError
from hookd.types import JSON

log = structlog.get_logger("hookd.audit")
YIELD_EVERY = 32  # records written between two yields to the event loop
# What the writer takes: a decision of this process, a record built here (a gap), or one a worker process
# built, masked and encoded.
Queued = Pending | dict[str, JSON] | Encoded


async def wait_for_records(sink: Sink[Any], streams: StreamRecords) -> None:
    """Until something is queued, or an open streamed response has been idle long enough to be written."""
    idle = streams.next_expiry()
    if idle is None:
        await sink.wait()
        return
    with contextlib.suppress(TimeoutError):  # asyncio.timeout: wait_for can swallow a cancellation (3.11)
        async with asyncio.timeout(idle + 0.01):
            await sink.wait()


class ChainProcessor:
    """Gives a record its `seq`, seals it to the record before (`prev`, `hash`) and returns the line. It alone
    holds the head of the chain."""

    __slots__ = ("head", "seq")

    def __init__(self, seq: int = 0, head: str = GENESIS) -> None:
        self.seq = seq
        self.head = head

    def __call__(self, fields: Mapping[str, JSON]) -> str:
        record = {**fields, "seq": self.seq + 1}  # the caller's record is left as it was (it is handed on)
        line, digest = seal(record, self.head)
        self.seq, self.head = self.seq + 1, digest
        return line

    def seal_encoded(self, encoded: Encoded) -> str:
        """The line of a record a worker encoded: numbered and sealed like any other."""
        line, digest = seal_encoded(encoded, self.seq + 1, self.head)
        self.seq, self.head = self.seq + 1, digest
        return line


class RotatingFile:
    """The decision log's file: `msg(line)` appends it, rotating by size first.

    Rotation renames decisions.log → .1 → .2 … and drops what would become .keep+1; files are 0600 in a
    0700 directory, since records hold (masked) agent input.
    """

    def __init__(self, path: Path, max_bytes: int, keep: int, echo: IO[str] | None = None) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.keep = keep
        self.echo = echo
        self._file: IO[bytes] | None = None
        self._size = 0

    def open(self) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        self._file = os.fdopen(fd, "ab")
        self._size = self._file.seek(0, os.SEEK_END)
        if self._size and _last_byte(self.path) != b"\n":
            self._write(b"\n")  # a torn last line (a crash mid-write) stays a line of its own

    def msg(self, line: str) -> str:
        data = line.encode() + b"\n"
        if self._size and self._size + len(data) > self.max_bytes:
            self.rotate()
        self._write(data)
        if self.echo is not None:
            self.echo.write(line + "\n")
        return line

    def write(self, line: str) -> None:
        """`msg`, the file opened at the first line (the kept log is made only when a record goes there)."""
        if self._file is None:
            self.open()
        self.msg(line)

    def _write(self, data: bytes) -> None:
        assert self._file is not None, "the decision log is not open"
        self._file.write(data)
        self._size += len(data)

    def rotate(self) -> None:
        self.close()
        oldest = self.path.with_name(f"{self.path.name}.{self.keep}")
        with contextlib.suppress(FileNotFoundError):
            oldest.unlink()
        for n in range(self.keep - 1, 0, -1):
            with contextlib.suppress(FileNotFoundError):
                os.replace(
                    self.path.with_name(f"{self.path.name}.{n}"), self.path.with_name(f"{self.path.name}.{n + 1}")
                )
        os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))
        self.open()

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()
        if self.echo is not None:
            self.echo.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.flush()
            self._file.close()
            self._file = None


def _last_byte(path: Path) -> bytes:
    with path.open("rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1)


@dataclass(frozen=True, slots=True)
class Filters:
    events: frozenset[str] = frozenset()
    decisions: frozenset[str] = frozenset()
    tools: frozenset[str] = frozenset()
    clients: frozenset[str] = frozenset()
    session: str = ""

    def match(self, record: dict[str, JSON]) -> bool:
        return (
            (not self.events or record.get("event") in self.events)
            and (not self.decisions or record.get("decision") in self.decisions)
            and (not self.tools or record.get("tool") in self.tools)
            and (not self.clients or record.get("client") in self.clients)
            and (not self.session or record.get("session") == self.session)
        )


@dataclass(eq=False)
class Subscription:
    """One live reader (a StreamDecisions call): a bounded queue that drops its oldest for a slow reader."""

    filters: Filters
    maxsize: int = 1024
    dropped: int = 0  # not yet reported to the reader
    closed: bool = False
    _items: deque[Logged] = field(default_factory=deque)
    _wake: asyncio.Event = field(default_factory=asyncio.Event)

    def offer(self, logged: Logged) -> None:
        if not self.filters.match(logged.record):
            return
        if len(self._items) >= self.maxsize:
            self._items.popleft()
            self.dropped += 1
        self._items.append(logged)
        self._wake.set()

    def close(self) -> None:
        self.closed = True
        self._wake.set()

    async def next(self) -> tuple[Logged, int] | None:
        """The next record and how many were dropped just before it; None once closed and drained."""
        while not self._items:
            if self.closed:
                return None
            self._wake.clear()
            await self._wake.wait()
        dropped, self.dropped = self.dropped, 0
        return self._items.popleft(), dropped


class DecisionLog:
    """The writer task and what it owns. `start()` before serving, `close()` after the servers stopped."""

    def __init__(self, config: LogConfig, sink: Sink[Queued], shipper: Shipper | None = None) -> None:
        self.config = config
        self.sink = sink
        self.shipper = shipper  # offered every decision record after it is written
        self.outlets: list[Callable[[Logged], None]] = []  # offered every record too (OpenTelemetry export)
        self.path = config.path
        self._mask = Masker.from_config(config)
        self._chain = ChainProcessor()
        self._file = RotatingFile(config.path, config.max_bytes, config.keep, sys.stdout if config.stdout else None)
        # Every record but an allow, a second time, in a file of its own: rotating the log for allows never
        # drops a deny, an ask, a rewrite or a halt (docs/decision-log.md, "Retention").
        self._kept = RotatingFile(kept_path(config.path), config.kept_max_bytes, config.kept_keep)
        self._subscribers: set[Subscription] = set()
        self.streams = StreamRecords()  # one record per streamed response (hookd.audit.streams)
        self._task: asyncio.Task[None] | None = None
        self._closing = False  # close(): the writer ends once the sink is empty
        self._streams_ended = False  # end_subscriptions(): no new live streams, but records still come in
        self._lock_fd: int | None = None
        self._drops_logged = 0
        self.written = 0
        self.write_errors = 0

    @property
    def seq(self) -> int:
        return self._chain.seq

    @property
    def head(self) -> str:
        return self._chain.head

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    def start(self) -> None:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        self._take_lock()
        found = last_record(self.path)
        if found is not None:
            self._chain.seq, self._chain.head = found
        self._file.open()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="hookd-decision-log")

    def _take_lock(self) -> None:
        lock_path = self.path.with_name(self.path.name + ".lock")
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise DaemonError(
                f"another hookd daemon writes the decision log {self.path}: give this one its own ([log] path)"
            ) from None
        self._lock_fd = fd

    def subscribe(self, filters: Filters, maxsize: int = 1024) -> Subscription:
        subscription = Subscription(filters, maxsize)
        if self._streams_ended:
            subscription.close()
        else:
            self._subscribers.add(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        self._subscribers.discard(subscription)
        subscription.close()

    def end_subscriptions(self) -> None:
        """End every live stream (at shutdown, before the control server stops). The writer keeps writing:
        the hook server stops after the control server and its requests in flight still record."""
        self._streams_ended = True
        for subscription in list(self._subscribers):
            self.unsubscribe(subscription)

    async def close(self) -> None:
        """Write everything still queued, flush, and release the file."""
        self.end_subscriptions()
        self._closing = True
        self.sink.wake()
        if self._task is not None:
            await self._task
        self._file.close()
        self._kept.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    async def _run(self) -> None:
        while True:
            await wait_for_records(self.sink, self.streams)
            await self._write_batch(self.sink.take())
            if idle := self.streams.expired():
                self._write_pending(idle)
                self._flush()
            if self._closing and not len(self.sink):
                self._write_pending(self.streams.close())  # the responses still streaming: bounded, flushed
                self._flush()
                return

    async def _write_batch(self, batch: Iterable[Queued]) -> None:
        if self.sink.dropped > self._drops_logged:
            dropped, self._drops_logged = self.sink.dropped - self._drops_logged, self.sink.dropped
            log.warning("decision_log_dropped", dropped=dropped, queue_size=self.sink.maxsize)
            self._emit(gap_record(dropped, time.time()))
        for n, item in enumerate(batch, 1):
            if isinstance(item, Encoded):
                line = self._emit(item)
                if line is not None and (self._subscribers or self.shipper is not None or self.outlets):
                    seq = self._chain.seq
                    self._hand_on(Logged(item.record(seq), seq, line, self._chain.head))
                continue
            if isinstance(item, dict):
                self._write_record(item)
            else:
                self._write_pending(self.streams.fold(item))  # a streamed response's chunks: one record
            if n % YIELD_EVERY == 0:
                self._flush()
                await asyncio.sleep(0)
        self._flush()

    def _write_pending(self, pendings: Iterable[Pending]) -> None:
        for pending in pendings:
            record = self._build(pending)
            if record is not None:
                self._write_record(record)

    def _write_record(self, record: dict[str, JSON]) -> None:
        line = self._emit(record)
        if line is not None and (self._subscribers or self.shipper is not None or self.outlets):
            self._hand_on(Logged(record, self._chain.seq, line, self._chain.head))

    def _build(self, pending: Pending) -> dict[str, JSON] | None:
        try:
            return build_record(pending, self._mask)
        except Exception:  # a record that cannot be built must not stop the log
            self.write_errors += 1
            log.exception("decision_log_record_failed", decision=pending.handled.decision_id)
            return None

    def _emit(self, record: dict[str, JSON] | Encoded) -> str | None:
        """Write `record` into the chain; its line, or None when it could not be written. A worker's encoded
        record is sealed as it came and written without the processor chain (whose only step, sealing,
        would encode it again)."""
        try:
            if isinstance(record, Encoded):
                line: str = self._file.msg(self._chain.seal_encoded(record))
            else:
                # sealed and written directly: a structlog logger's processor chain around this one step cost
                # a copy of the record through keyword arguments and ~15 µs a record
                line = self._file.msg(self._chain(record))
        except Exception:  # a full disk must not take the daemon down; the chain shows the hole
            self.write_errors += 1
            log.exception("decision_log_write_failed", seq=self._chain.seq)
            return None
        self.written += 1
        if record.kept if isinstance(record, Encoded) else kept(record):
            try:
                self._kept.write(line)
            except Exception:
                self.write_errors += 1
                log.exception("decision_log_kept_write_failed", seq=self._chain.seq)
        return line

    def _hand_on(self, logged: Logged) -> None:
        """A written record to the live streams, the shipper and the outlets (only built when one is there)."""
        for subscription in self._subscribers:
            subscription.offer(logged)
        if self.shipper is not None:
            self.shipper.offer(logged)
        for outlet in self.outlets:
            outlet(logged)

    def _flush(self) -> None:
        try:
            self._file.flush()
            self._kept.flush()
        except OSError:
            self.write_errors += 1
            log.exception("decision_log_flush_failed")
