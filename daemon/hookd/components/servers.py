"""The ways requests come in, as components: the hook socket with its worker and lane processes, and the
HTTP hook endpoint. Each owns its start and stop and publishes what it counted."""

from __future__ import annotations

import socket
from collections.abc import Mapping
from typing import Any

from hookd.audit.sink import Sink
from hookd.audit.writer import Queued
from hookd.config import Config
from hookd.procs.pool import WorkerPool
from hookd.rollout.relay import Receive
from hookd.runtime.metrics import DecisionMetrics
from hookd.transport.activation import listener
from hookd.transport.hook_server import HookServer, ServerStats
from hookd.transport.http_hooks import HttpHookServer


class HookPath:
    """The hook socket's server, and the worker and lane processes that accept on the same socket
    (docs/reliability.md): no new hook requests once stopped; those in flight finish and are queued for the
    log, and each worker process finishes what it accepted and sends its last records."""

    name = "hook server"

    def __init__(
        self,
        config: Config,
        server: HookServer,
        inherited: Mapping[str, socket.socket],
        reported: tuple[Sink[Queued], DecisionMetrics, Receive],
    ) -> None:
        """`reported`: where the worker processes' records, counts and observations go (the decision log's
        sink, the metrics, hookd.rollout.relay's receiver)."""
        self.config = config
        self.server = server
        self.stats: ServerStats = server.stats
        self.inherited = inherited
        self._reported = reported
        self.workers: WorkerPool | None = None  # started once the hook socket listens

    async def start(self) -> None:
        await self.server.start(listener(self.inherited, "hook", self.server.path))
        if self.config.processes > 1:
            sink, metrics, rollout = self._reported
            self.workers = WorkerPool(self.config, self.server.listening_fd(), sink, metrics, self.stats, rollout)
            await self.workers.start()

    async def stop(self) -> None:
        await self.server.stop()
        if self.workers is not None:
            await self.workers.stop()

    def reload_workers(self) -> None:
        """The policies changed: each worker process loads them again (from the config and the bundle store)."""
        if self.workers is not None:
            self.workers.reload()

    def status(self) -> Mapping[str, Any]:
        workers = self.workers
        return {
            "socket": str(self.server.path),
            "in_flight": self.server.in_flight,
            "requests": self.stats.requests,
            "errors": dict(self.stats.errors),
            "worker_pids": workers.pids if workers is not None else [],
            "worker_restarts": workers.restarts if workers is not None else 0,
            "lane_pid": (workers.lane_pid or 0) if workers is not None else 0,
            "lane_requests": workers.lane_requests if workers is not None else 0,
            "stream_lane_pid": (workers.stream_lane_pid or 0) if workers is not None else 0,
        }

    def counters(self) -> Mapping[str, float]:
        lane = self.workers.lane_requests if self.workers is not None else 0
        return {"hookd_requests": float(self.stats.requests), "hookd_lane_requests": float(lane)}


class HttpHooks:
    """The HTTP hook endpoint ([http], docs/http.md), when it is enabled: its requests count with the
    socket's (one ServerStats), so it has no counters of its own."""

    name = "http hooks"

    def __init__(self, server: HttpHookServer | None) -> None:
        self.server = server

    async def start(self) -> None:
        if self.server is not None:
            await self.server.start()

    async def stop(self) -> None:
        if self.server is not None:
            await self.server.stop()

    def status(self) -> Mapping[str, Any]:
        return {"url": self.server.url if self.server is not None else None}

    def counters(self) -> Mapping[str, float]:
        return {}
