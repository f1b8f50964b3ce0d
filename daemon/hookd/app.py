"""The daemon: logging, signals, the hook server, reload; the pipeline comes from hookd.assembly."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys

import structlog

from hookd import wire
from hookd.assembly import build_pipeline
from hookd.config import Config
from hookd.engines.rego_embedded import RegoEmbeddedEngine
from hookd.errors import HookdError
from hookd.pipeline import Handled
from hookd.transport.hook_server import HookServer
from hookd.types import HookRequest, Reply

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


def log_decision(handled: Handled) -> None:
    event, decision = handled.event, handled.decision
    log.info(
        "decision",
        client=event.client.value,
        hook_event=event.event.value,
        tool=event.tool.name if event.tool else None,
        outcome=decision.outcome.name.lower(),
        verdicts=[f"{v.kind.value}:{v.policy_id}:{v.rule_id}" for v in decision.verdicts],
        notes=list(decision.notes) or None,
        latency_ms=round(handled.latency_ms, 3),
        uid=event.caller.uid,
        pid=event.caller.pid,
        session=event.session_id or None,
    )


class Daemon:
    def __init__(self, config: Config) -> None:
        self.config = config
        self.pipeline, self.engines = build_pipeline(config)
        daemon = config.daemon
        self.server = HookServer(
            config.hook_socket,
            self.handle,
            limits=wire.Limits(daemon.max_header_bytes, daemon.max_payload_bytes),
            request_timeout=daemon.request_timeout_ms / 1000,
            max_concurrency=daemon.max_concurrency,
        )

    async def handle(self, request: HookRequest) -> Reply:
        handled = await self.pipeline.handle(request)
        log_decision(handled)
        return handled.reply

    def reload(self) -> None:
        try:
            engine = RegoEmbeddedEngine.load(self.config.daemon.policies)
        except HookdError as exc:
            log.error("reload_failed", error=str(exc), kept_revision=self.engines.current.describe()["revision"])
            return
        self.engines.current = engine
        log.info("reloaded", revision=engine.revision, packages=len(engine.packages))

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        loop.add_signal_handler(signal.SIGHUP, self.reload)
        await self.server.start()
        engine = self.engines.current.describe()
        log.info("serving", socket=str(self.server.path), revision=engine["revision"], packages=engine["packages"])
        try:
            await stop.wait()
        finally:
            log.info("stopping")
            await self.server.stop()
            log.info("stopped")


def serve(config: Config) -> int:
    import uvloop

    configure_logging(config.daemon.log_level)
    daemon = Daemon(config)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(daemon.run())
    return 0
