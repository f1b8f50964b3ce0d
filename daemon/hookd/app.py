"""The daemon: logging, signals, the hook server, the control server, the decision log, reload; the
pipeline comes from hookd.assembly.

The hot path is `Daemon.handle`: decide, count, hand the decision to the log's sink (`put_nowait`,
never awaited), reply. Everything the log does happens later, in its own task.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import time
from dataclasses import dataclass
from typing import Any

import structlog

from hookd import wire
from hookd.assembly import build_pipeline, load_engine, ready
from hookd.audit.record import Pending
from hookd.audit.sink import Sink
from hookd.audit.writer import DecisionLog
from hookd.config import Config
from hookd.control.server import ControlServer
from hookd.control.service import ControlService, HookService
from hookd.errors import DialectError, HookdError
from hookd.pipeline import Handled, InteractiveProbe
from hookd.transport.hook_server import HookServer, ServerStats
from hookd.transport.http_hooks import HttpHookServer, load_token
from hookd.types import Engine, HookRequest, Outcome, Reply

log = structlog.get_logger("hookd")


def configure_logging(level: str) -> None:
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )


_OUTCOME_NAMES = {outcome: outcome.name.lower() for outcome in Outcome}


@dataclass(frozen=True, slots=True)
class ReloadResult:
    ok: bool
    error: str
    previous: str  # the revision before the reload
    revision: str  # the revision serving now


class Daemon:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.pipeline, self.engines = build_pipeline(config)
        daemon = config.daemon
        self.started_at = self.loaded_at = time.time()
        self.stats = ServerStats()
        self.outcomes: dict[str, int] = {}
        self.reloads = self.reload_failures = 0
        self._stop: asyncio.Event | None = None
        self._closing: set[asyncio.Task[Any]] = set()
        self._reload_lock = asyncio.Lock()
        self.sink: Sink[Pending] = Sink(config.log.queue_size)
        self.decision_log = DecisionLog(config.log, self.sink)
        self.server = HookServer(
            config.hook_socket,
            self.handle,
            limits=wire.Limits(daemon.max_header_bytes, daemon.max_payload_bytes),
            request_timeout=daemon.request_timeout_ms / 1000,
            max_concurrency=daemon.max_concurrency,
            stats=self.stats,
        )
        self.http: HttpHookServer | None = None
        if config.http.enabled:
            self.http = HttpHookServer(
                config.http.host,
                config.http.port,
                load_token(config.http.token_file),
                self.handle_http,
                max_payload_bytes=daemon.max_payload_bytes,
                request_timeout=daemon.request_timeout_ms / 1000,
                max_concurrency=daemon.max_concurrency,
                stats=self.stats,
            )
        self.control = ControlServer(
            config.control_socket,
            ControlService(self),
            HookService(self),
            max_message_bytes=daemon.max_payload_bytes + daemon.max_header_bytes,
        )

    async def handle(self, request: HookRequest) -> Reply:
        """The hook socket's handler (the hook server counts the request and maps errors)."""
        handled = await self.pipeline.handle(request)
        self.record(handled, "socket")
        return handled.reply

    async def handle_http(self, request: HookRequest) -> Reply:
        """The HTTP hook endpoint's handler: the same pipeline and the same log as the socket."""
        handled = await self.pipeline.handle(request)
        self.record(handled, "http")
        return handled.reply

    async def decide(self, request: HookRequest) -> Handled:
        """The Decide call: the hook path, counted and logged like it. Raises DialectError, TimeoutError."""
        self.stats.requests += 1
        try:
            async with asyncio.timeout(self.config.daemon.request_timeout_ms / 1000):
                handled = await self.pipeline.handle(request)
        except DialectError:
            self.stats.error("bad-payload")
            raise
        except TimeoutError:
            self.stats.error("deadline")
            raise
        self.record(handled, "grpc")
        return handled

    async def evaluate(self, request: HookRequest, probe: InteractiveProbe | None = None) -> Handled:
        """A dry run through the same pipeline: neither counted nor logged."""
        async with asyncio.timeout(self.config.daemon.request_timeout_ms / 1000):
            return await self.pipeline.handle(request, probe=probe)

    def record(self, handled: Handled, via: str) -> None:
        """Count the decision and hand it to the decision log; never blocks, never fails the request."""
        name = _OUTCOME_NAMES[handled.decision.outcome]
        self.outcomes[name] = self.outcomes.get(name, 0) + 1
        self.sink.put_nowait(Pending(handled, time.time(), via))

    async def reload(self, requested_by: str = "SIGHUP") -> ReloadResult:
        """Load the policies again and swap once the new engine is ready: Python workers start in the
        background, so the old engine keeps answering meanwhile. Reloads run one at a time."""
        async with self._reload_lock:
            previous = str(self.engines.current.describe()["revision"])
            try:
                engine = load_engine(self.config, wait=False)
                await ready(engine)
            except HookdError as exc:
                self.reload_failures += 1
                log.error("reload_failed", error=str(exc), kept_revision=previous, requested_by=requested_by)
                return ReloadResult(ok=False, error=str(exc), previous=previous, revision=previous)
            old, self.engines.current = self.engines.current, engine
            self._retire(old)
            self.loaded_at = time.time()
            self.reloads += 1
            described = engine.describe()
            revision, packages = str(described["revision"]), described.get("packages") or []
            log.info("reloaded", revision=revision, packages=len(packages), requested_by=requested_by)
            return ReloadResult(ok=True, error="", previous=previous, revision=revision)

    def _reload_on_signal(self) -> None:
        task = asyncio.get_running_loop().create_task(self.reload())
        self._closing.add(task)  # kept referenced until done, like the closing engines
        task.add_done_callback(self._closing.discard)

    def _retire(self, engine: Engine) -> None:
        """Close a replaced engine once the requests it is serving are answered (its aclose waits for them,
        up to the request timeout), so that a reload never fails a request in flight."""
        task = asyncio.get_running_loop().create_task(engine.aclose())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def stop(self) -> None:
        """Ask `run` to shut down (what SIGTERM and SIGINT do)."""
        if self._stop is not None:
            self._stop.set()

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        stop = self._stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        loop.add_signal_handler(signal.SIGHUP, self._reload_on_signal)
        await self.server.start()
        try:
            if self.http is not None:
                await self.http.start()
            self.decision_log.start()
            await self.control.start()
            engine = self.engines.current.describe()
            log.info(
                "serving",
                socket=str(self.server.path),
                control=str(self.control.path),
                decision_log=str(self.decision_log.path),
                http=self.http.url if self.http is not None else None,
                revision=engine["revision"],
                packages=engine["packages"],
            )
            await stop.wait()
        finally:
            log.info("stopping")
            await self.server.stop()  # no new hook requests; those in flight finish and are queued for the log
            if self.http is not None:
                await self.http.stop()
            self.decision_log.end_subscriptions()  # live StreamDecisions calls end cleanly
            await self.control.stop()  # Decide and Evaluate calls in flight finish within the grace period
            await self.decision_log.close()  # write what is queued, flush
            while self._closing:  # reloads under way and replaced engines still answering
                await asyncio.gather(*list(self._closing))
            await self.engines.current.aclose()  # ends the Python workers
            log.info("stopped", decisions_logged=self.decision_log.written, dropped=self.sink.dropped)


def serve(config: Config) -> int:
    import uvloop

    configure_logging(config.daemon.log_level)
    daemon = Daemon(config)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(daemon.run())
    return 0
