"""Monitor and shadow layers and the replay store with `[daemon] workers > 1` (docs/rollout.md, "Worker
processes").

A worker process decides with engines of its own, so it observes its own decisions: `WorkerRollout` puts an
Observer (with the worker's own CPU budget, shedding under the worker's own load) between the worker's hot
path and the records it sends to the daemon, as the daemon's observer sits before its decision log. Off the
hot path, each record message then carries what the observation adds to the counters (`o`, a `tally`) and,
with the replay store on, the store's line for the decision, built and redacted in the worker (`p`).
`receive` is the daemon's side: it adds the tally to the daemon's counters and hands the line to the
daemon's one replay store, so the counts, the disagreements and the store cover every process.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import structlog

from hookd.audit.record import Pending
from hookd.config import Config
from hookd.rollout.observe import Forward, Observed, Observer, RolloutCounters, tally
from hookd.rollout.store import ReplayStore, entry, redactor
from hookd.types import JSON

log = structlog.get_logger("hookd.rollout")
Receive = Callable[[Mapping[str, Any]], None]
BusyBesides = Callable[[int], bool]  # hook requests other than this many are being decided right now


def entry_limit(config: Config) -> int:
    """The largest replay line a worker sends (the daemon's channel reads lines this much longer)."""
    return 4 * config.daemon.max_payload_bytes if config.replay.enabled else 0


class WorkerRollout:
    """A worker's observer and replay lines. `start()` once its loop runs; `close()` after its server stopped
    (observes what is queued and passes it on)."""

    def __init__(self, config: Config, forward: Forward, busy: BusyBesides) -> None:
        timeout = config.daemon.request_timeout_ms / 1000
        self.observer = Observer(config.rollout, forward, timeout, lambda: busy(0), config.shim.fail_modes)
        self._forward = forward
        self._busy = busy
        self._redact = redactor(config.log, config.replay) if config.replay.enabled else None
        self._limit = entry_limit(config)
        self.too_large = 0  # replay lines not sent: longer than the channel takes

    def offer(self, pending: Pending) -> None:
        """The worker's hot-path hand-over (never awaits): through the observer when its engine has monitor or
        shadow layers, else straight to the records to send."""
        served = pending.handled.policy_set
        if served is not None and served.observed:
            self.observer.offer(pending, self._busy(1))  # the answered request is still in flight
        else:
            self._forward(pending)

    def __len__(self) -> int:
        return len(self.observer)

    def start(self) -> None:
        self.observer.start()

    async def close(self) -> None:
        await self.observer.close()

    def fields(self, pending: Pending) -> dict[str, JSON]:
        """What the record message of `pending` carries for the daemon's counters and replay store."""
        fields: dict[str, JSON] = {}
        if isinstance(pending.observed, Observed):
            fields["o"] = tally(pending.observed)
        if self._redact is not None:
            line = entry(pending.handled, pending.time, self._redact)
            if len(json.dumps(line, separators=(",", ":"))) <= self._limit:
                fields["p"] = line
            else:  # the daemon would cut the channel on it: the store misses this one, counted
                self.too_large += 1
                fields["pd"] = 1
                log.error("replay_line_too_large", decision=pending.handled.decision_id)
        return fields


def receive(counters: RolloutCounters, store: ReplayStore | None) -> Receive:
    """The daemon's side of `fields`, called for each record message from a worker."""

    def take(message: Mapping[str, Any]) -> None:
        counts = message.get("o")
        if counts is not None:
            counters.add(counts)
        if store is not None:
            line = message.get("p")
            if isinstance(line, dict):
                store.offer_entry(line)
            elif message.get("pd"):
                store.sink.count_dropped(1)

    return take
