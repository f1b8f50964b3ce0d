"""Shipping decision log records to an HTTP collector (opt-in, `[log.ship]`) in OPA's decision-log format, or
as OCSF events (`format = "ocsf"`, hookd.audit.ocsf) for a SIEM's HTTP collector.

The writer task offers each record after writing it (`offer`: a deque append, never a wait). This task
takes up to `batch_size` records, and a worker thread turns them into OPA decision-log events, gzips the
JSON array and POSTs it (stdlib urllib). A failed upload puts the batch back at the front and backs off
(min_delay_ms doubling to max_delay_ms), so records arrive in order and none is lost while the buffer
holds them. The buffer counts queued and in-flight records against `max_buffer`; when it is full the
oldest queued record is dropped and counted. The hook path never waits for any of this.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import socket
import time
import urllib.request
import uuid
from collections import deque
from collections.abc import Sequence

import structlog

from hookd import __version__
from hookd.audit.ocsf import ocsf_event
from hookd.audit.record import Logged, rfc3339
from hookd.config import ShipConfig
from hookd.types import JSON
from hookd.wire import jsonstrict

log = structlog.get_logger("hookd.audit.ship")


def opa_event(logged: Logged, labels: dict[str, str]) -> dict[str, JSON]:
    """One decision log record as an OPA decision-log event (EventV1). hookd's own fields that OPA has no
    place for (the chain position, session, caller) are under `hookd`."""
    record = logged.record
    caller = record.get("caller") or {}
    revisions = record.get("revisions") or {}
    assert isinstance(caller, dict) and isinstance(revisions, dict)
    latency_ms = record.get("latency_ms") or 0.0
    assert isinstance(latency_ms, int | float)
    result: dict[str, JSON] = {
        "decision": record.get("decision"),
        "reason": record.get("reason"),
        "tool": record.get("tool"),
        "verdicts": record.get("verdicts"),
        "notes": record.get("notes"),
    }
    if "stream" in record:  # a streamed response's one record (hookd.audit.streams)
        result["stream"] = record["stream"]
    return {
        "labels": dict(labels),
        "decision_id": record.get("id"),
        "bundles": {str(name): {"revision": revision} for name, revision in revisions.items()},
        "path": f"hookd/{record.get('client')}/{record.get('event')}",
        "input": record.get("input"),
        "result": result,
        "requested_by": f"uid:{caller.get('uid')} pid:{caller.get('pid')}",
        "timestamp": record.get("time"),
        "metrics": {"timer_hookd_decision_ns": round(latency_ms * 1_000_000)},
        "hookd": {
            "seq": logged.seq,
            "hash": logged.hash,
            "session": record.get("session"),
            "via": record.get("via"),
            "caller": caller,
        },
    }


class Shipper:
    """The bounded buffer and the upload task. `start()` on the daemon loop; `close()` after the writer's last
    record, to make one last bounded attempt."""

    def __init__(self, config: ShipConfig) -> None:
        self.config = config
        self.labels = {"app": "hookd", "id": str(uuid.uuid4()), "version": __version__}
        self._queue: deque[Logged] = deque()
        self._in_flight = 0
        self._wake = asyncio.Event()
        self._closing = False
        self._task: asyncio.Task[None] | None = None
        self.sent = self.dropped = self.failures = 0
        self.last_error = ""
        self.last_success = ""

    @property
    def buffered(self) -> int:
        return len(self._queue) + self._in_flight

    def offer(self, logged: Logged) -> None:
        """Called by the log writer for every decision record; never waits."""
        if self.buffered >= self.config.max_buffer:
            self.dropped += 1
            if not self._queue:  # everything held is in flight: this one is the one that cannot be kept
                return
            self._queue.popleft()
        self._queue.append(logged)
        if len(self._queue) >= self.config.batch_size:
            self._wake.set()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="hookd-log-ship")

    async def close(self, grace: float = 2.0) -> None:
        """One last upload attempt of what is buffered, for up to `grace` seconds; then stop (the local log
        keeps everything)."""
        self._closing = True
        self._wake.set()
        if self._task is None:
            return
        _done, pending = await asyncio.wait({self._task}, timeout=grace)
        if pending:
            self._task.cancel()
            await asyncio.wait({self._task})
        if self.buffered:
            log.warning("log_ship_unsent", records=self.buffered, url=self.config.url)

    async def _run(self) -> None:
        delay = self.config.min_delay_ms / 1000
        while not self._closing:
            if len(self._queue) < self.config.batch_size:
                await self._wait_for_wake(self.config.min_delay_ms / 1000)
            if self._closing:
                break
            if await self._upload_all():
                delay = self.config.min_delay_ms / 1000
                continue
            deadline = asyncio.get_running_loop().time() + delay
            while not self._closing and (left := deadline - asyncio.get_running_loop().time()) > 0:
                await self._wait_for_wake(left)  # back off; close() cuts it short
            delay = min(delay * 2, self.config.max_delay_ms / 1000)
        await self._upload_all()  # closing: one last attempt, stopped by the first failure

    async def _wait_for_wake(self, seconds: float) -> None:
        """Until `offer` fills a batch or `close` is called, or `seconds` pass. asyncio.timeout rather than
        wait_for: on 3.11, wait_for can swallow a cancellation when the awaited event is set at the same time."""
        self._wake.clear()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await self._wake.wait()

    async def _upload_all(self) -> bool:
        """Upload batches until the queue is empty; False after the first failure (the batch is back in front)."""
        while self._queue:
            size = min(self.config.batch_size, len(self._queue))
            batch = [self._queue.popleft() for _ in range(size)]
            self._in_flight = size
            try:
                await asyncio.to_thread(self._post, batch)
            except asyncio.CancelledError:  # close() gave up: keep the count of what was not shipped right
                self._queue.extendleft(reversed(batch))
                raise
            except Exception as exc:  # any failure: keep the batch, back off, try again
                self._queue.extendleft(reversed(batch))
                self.failures += 1
                error = f"{type(exc).__name__}: {exc}"
                if error != self.last_error:
                    log.warning("log_ship_failed", url=self.config.url, error=error, buffered=self.buffered)
                self.last_error = error
                return False
            finally:
                self._in_flight = 0
            self.sent += size
            self.last_success = rfc3339(time.time())
        return True

    def _post(self, batch: Sequence[Logged]) -> None:
        """On a worker thread: encode, gzip and POST one batch; raises unless the collector answers 2xx."""
        config = self.config  # discovery may swap it meanwhile (docs/fleet.md): one batch, one configuration
        if config.format == "ocsf":  # decisions only: OCSF has no class for the log's own records (gaps)
            host = socket.gethostname()
            decisions = [logged for logged in batch if logged.record.get("type") == "decision"]
            events = [ocsf_event(logged.record, logged.seq, logged.hash, host) for logged in decisions]
            if not events:
                return
        else:
            events = [opa_event(logged, self.labels) for logged in batch]
        body = gzip.compress(jsonstrict.dumps(events, separators=(",", ":")).encode(), compresslevel=6)
        headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
        if config.token:
            headers["Authorization"] = f"Bearer {config.token}"
        request = urllib.request.Request(config.url, data=body, headers=headers, method="POST")
        with urllib.request.urlopen(request, timeout=config.timeout_ms / 1000) as response:
            response.read()
