"""The decision path of every deciding process: `Decider` puts the lane, the pipeline and a recorder together.

Three ways in reach the same pipeline: the hook socket and the HTTP hook endpoint (`handle`), and the control
plane's Decide (`decide`); each is counted and recorded the same way, and each transport keeps only its own
wire's error mapping. Every way in sends a heavy request whole to the lane process (hookd.lane), which
decides and records it itself (issue 25: Decide's were decided on this process's loop, stalling the agents').
The control plane's Evaluate (`evaluate`) is a dry run: neither counted nor recorded.

`handle` is synchronous up to the one remote step (hookd.pipeline): a request the in-process engine decides is
answered, and recorded, in the call; one that waits on a remote engine, the lane, or room for its record
returns one awaitable. The daemon, each worker and the lane run this same Decider; only the recorder differs
(`Recorder`): the daemon's (`DaemonRecorder`) counts the decision and hands it to the decision log's sink, a
worker's sends it to the daemon over its channel (hookd.procs.child). Recording never fails the request once
admitted; everything the log does happens later, in its own task.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Protocol

from hookd.audit.record import Pending
from hookd.audit.sink import Sink
from hookd.audit.writer import Queued
from hookd.config import Config
from hookd.errors import DialectError, LaneRefused
from hookd.lane import DECIDE_VIA, Lane, with_decision
from hookd.pipeline import InteractiveProbe, Pipeline, QuietChunk
from hookd.policy.holder import PolicySetHolder
from hookd.rollout.observe import Observer
from hookd.rollout.store import ReplayStore
from hookd.runtime.metrics import DecisionMetrics
from hookd.transport.hook_server import ServerStats
from hookd.types import Deadline, Handled, HookRequest, Reply, settled


class OpenRecords(Protocol):
    """The decision records of streamed responses that take an allowed chunk now (hookd.audit.streams)."""

    def __contains__(self, key: object) -> bool: ...

    def fold(self, quiet: QuietChunk) -> None:
        """Count `quiet`, a chunk of a response `in` these, into its response's record and the metrics."""


class Recorder(Protocol):
    """Where a deciding process's decisions go."""

    def open_records(self) -> OpenRecords | None:
        """The records a quiet chunk is folded into as it is decided (hookd.pipeline, `Pipeline.quiet_chunk`);
        None when no chunk is folded so now (then every decision goes through `record`)."""

    def admit(self) -> None:
        """Raises Unavailable when a decision could not be recorded now: the request is then not decided."""

    def record(self, handled: Handled, via: str, deadline: Deadline) -> Awaitable[None] | None:
        """Take one decision; an awaitable when it must wait for room first (which raises Unavailable when
        `deadline`, the request's, comes first: the reply is then refused, and so recorded)."""


class Decider:
    def __init__(
        self, config: Config, pipeline: Pipeline, recorder: Recorder, stats: ServerStats, lane: Lane | None = None
    ) -> None:
        self.config = config
        self.pipeline = pipeline
        self.recorder = recorder
        self._stats = stats
        self._timeout = config.daemon.request_timeout_ms / 1000  # Decide's and Evaluate's
        self._lane = lane

    def handle(self, request: HookRequest) -> Reply | Awaitable[Reply]:
        """The hook socket's and the HTTP hook endpoint's handler (each transport counts the request and maps
        errors): a heavy request goes to the lane, which decides and records it; any other is decided and
        recorded here, in the call unless a step must be awaited. Raises DialectError, Unavailable."""
        self.recorder.admit()
        lane = self._lane
        if lane is not None and (why := lane.sends(request)):
            return lane.forward(request, why)
        event = None
        if request.via != DECIDE_VIA and (open_records := self.recorder.open_records()) is not None:
            quiet = self.pipeline.quiet_chunk(request, open_records)  # a Decide's reply carries its decision
            if isinstance(quiet, QuietChunk):
                open_records.fold(quiet)
                return quiet.reply
            if isinstance(quiet, Handled):
                return self._recorded(quiet, request)
            event = quiet  # read already, or None
        if event is None:
            event = self.pipeline.parse(request)
        if lane is not None and (why := lane.sends_event(event)):
            return lane.forward(request, why)
        decided = self.pipeline.decide(request, event)
        if isinstance(decided, Handled):
            return self._recorded(decided, request)
        return self._recorded_later(decided, request)

    def _recorded(self, handled: Handled, request: HookRequest) -> Reply | Awaitable[Reply]:
        taken = self.recorder.record(handled, request.via, request.deadline)
        reply = with_decision(handled, request.via)  # a forwarded Decide's outcome, for the daemon (hookd.lane)
        return reply if taken is None else _then(taken, reply)

    async def _recorded_later(self, decided: Awaitable[Handled], request: HookRequest) -> Reply:
        return await settled(self._recorded(await decided, request))

    async def decide(self, request: HookRequest) -> Reply:
        """The Decide call: the hook path, counted and logged like it, a heavy request sent to the lane like the
        agents' (its reply carries the outcome and the record's id). Raises DialectError, TimeoutError and
        LaneRefused."""
        self._stats.request()
        try:
            async with asyncio.timeout(self._timeout):
                lane = self._lane
                if lane is not None and (why := lane.sends(request)):
                    return await lane.forward(request, why)
                event = self.pipeline.parse(request)
                if lane is not None and (why := lane.sends_event(event)):
                    return await lane.forward(request, why)
                handled = await self.pipeline.handle(request, event)
        except DialectError:
            self._stats.error("bad-payload")
            raise
        except TimeoutError:
            self._stats.error("deadline")
            raise
        except LaneRefused as exc:
            self._stats.error(exc.code)
            raise
        await settled(self.recorder.record(handled, "grpc", request.deadline))
        outcome = handled.decision.outcome.name.lower()
        return replace(handled.reply, decision=outcome, decision_id=handled.decision_id)

    async def evaluate(self, request: HookRequest, probe: InteractiveProbe | None = None) -> Handled:
        """A dry run through the same pipeline: neither counted nor logged."""
        async with asyncio.timeout(self._timeout):
            return await self.pipeline.handle(request, probe=probe)


async def _then(taken: Awaitable[None], reply: Reply) -> Reply:
    await taken
    return reply


class DaemonRecorder:
    """The daemon's: each decision counted, offered to the replay store and handed to the decision log's sink
    (through the observer first when monitor or shadow layers are to see it); never blocks, never fails."""

    def __init__(
        self,
        metrics: DecisionMetrics,
        sink: Sink[Queued],
        observer: Observer,
        replay: ReplayStore | None,
        policy_set: PolicySetHolder,
        hook_requests_in_flight: Callable[[], int],
    ) -> None:
        self._metrics = metrics
        self._sink = sink
        self._observer = observer
        self._replay = replay
        self._policy_set = policy_set
        self._hook_in_flight = hook_requests_in_flight

    def admit(self) -> None:
        return None  # the daemon's own log is always there to take a record

    def open_records(self) -> None:
        return None  # the daemon's writer folds a streamed response's chunks as it writes (hookd.audit.streams)

    def record(self, handled: Handled, via: str, deadline: Deadline | None = None) -> None:
        self._metrics.observe(handled)
        if self._replay is not None:
            self._replay.offer(handled)
        served = handled.policy_set
        if served is not None and served.observed:
            self._observer.offer(Pending(handled, time.time(), via), self.busy(via))
        else:
            self._sink.put_nowait(Pending(handled, time.time(), via))

    def busy(self, via: str) -> bool:
        """Other hook requests are being decided besides the one just answered (then monitor and shadow
        layers stand aside: docs/rollout.md)."""
        answering = 1 if via == "socket" else 0  # the answered request is still the hook server's (in_flight)
        return self._hook_in_flight() > answering or self._policy_set.in_use(self._policy_set.current) > 0
