"""The daemon's decision path: `Decider` owns the pipeline's use by the daemon process.

Three ways in reach the same pipeline: the hook socket and the HTTP hook endpoint (`handle`), and the control
plane's Decide (`decide`); each is counted and recorded the same way, and each transport keeps only its own
wire's error mapping. The agents' ways in send a heavy request to the lane process (hookd.lane),
which records it itself; Decide, the owner's own call, is decided here. The control plane's Evaluate
(`evaluate`) is a dry run: neither counted nor recorded. Recording never blocks and never fails the request:
the decision goes to the metrics, the replay store and the decision log's sink (`put_nowait`), through the
observer first when monitor or shadow layers are to see it. Everything the log does happens later, in its own
task.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from hookd.audit.record import Pending
from hookd.audit.sink import Sink
from hookd.audit.writer import Queued
from hookd.config import Config
from hookd.errors import DialectError
from hookd.lane import Lane, LaneDecision, decided_here, route, streamed
from hookd.pipeline import InteractiveProbe, Pipeline
from hookd.policy.holder import PolicySetHolder
from hookd.policy.layers import LayeredEngine
from hookd.rollout.observe import Observer
from hookd.rollout.store import ReplayStore
from hookd.runtime.metrics import DecisionMetrics
from hookd.transport.hook_server import ServerStats
from hookd.types import Handled, HookRequest, Reply


class Decider:
    def __init__(
        self,
        config: Config,
        pipeline: Pipeline,
        policy_set: PolicySetHolder,
        stats: ServerStats,
        metrics: DecisionMetrics,
        sink: Sink[Queued],
        observer: Observer,
        replay: ReplayStore | None,
        hook_requests_in_flight: Callable[[], int],
        lane: Lane | None = None,
    ) -> None:
        self.config = config
        self.pipeline = pipeline
        self._policy_set = policy_set
        self._stats = stats
        self._metrics = metrics
        self._sink = sink
        self._observer = observer
        self._replay = replay
        self._hook_in_flight = hook_requests_in_flight
        self._timeout = config.daemon.request_timeout_ms / 1000
        self._lane = lane

    async def handle(self, request: HookRequest) -> Reply:
        """The hook socket's and the HTTP hook endpoint's handler (each transport counts the request and maps
        errors): a heavy request goes to the lane, which decides and records it; any other is decided here."""
        routed = await route(self._lane, request, self.pipeline.parse)
        if isinstance(routed, Reply):
            return routed
        handled = await self.pipeline.handle(request, routed)
        self.record(handled, request.via)
        return handled.reply

    def handle_now(self, request: HookRequest) -> Reply | None:
        """`handle` without awaiting, for a light request when the engine is immediate (the embedded Rego
        engine): the hook socket then answers in the callback that read the request. None, with nothing
        decided or recorded, when `handle` must be awaited instead. Raises DialectError."""
        if not self.pipeline.immediate:
            return None
        event = decided_here(self._lane, request, self.pipeline.parse)
        handled = None if event is None else self.pipeline.handle_now(request, event)
        if handled is None:
            return None
        self.record(handled, request.via)
        return handled.reply

    async def decide(self, request: HookRequest) -> Handled | LaneDecision:
        """The Decide call: the hook path, counted and logged like it; a streamed chunk is decided where the
        agents' chunks are, with the same text (the lane, which records it). Raises DialectError, TimeoutError,
        LaneRefused."""
        self._stats.request()
        try:
            async with asyncio.timeout(self._timeout):
                if self._lane is not None and streamed(request):
                    return await self._lane.decide(request)
                handled = await self.pipeline.handle(request)
        except DialectError:
            self._stats.error("bad-payload")
            raise
        except TimeoutError:
            self._stats.error("deadline")
            raise
        self.record(handled, "grpc")
        return handled

    async def evaluate(self, request: HookRequest, probe: InteractiveProbe | None = None) -> Handled:
        """A dry run through the same pipeline: neither counted nor logged."""
        async with asyncio.timeout(self._timeout):
            return await self.pipeline.handle(request, probe=probe)

    def record(self, handled: Handled, via: str) -> None:
        """Count the decision and hand it to the decision log (through the observer when monitor or shadow
        layers are to see it first); never blocks, never fails the request."""
        self._metrics.observe(handled)
        if self._replay is not None:
            self._replay.offer(handled)
        engine = handled.engine
        if isinstance(engine, LayeredEngine) and engine.observed:
            self._observer.offer(Pending(handled, time.time(), via), self.busy(via))
        else:
            self._sink.put_nowait(Pending(handled, time.time(), via))

    def busy(self, via: str) -> bool:
        """Other hook requests are being decided besides the one just answered (then monitor and shadow
        layers stand aside: docs/rollout.md)."""
        answering = 1 if via == "socket" else 0  # the answered request is still the hook server's (in_flight)
        return self._hook_in_flight() > answering or self._policy_set.in_use(self._policy_set.current) > 0
