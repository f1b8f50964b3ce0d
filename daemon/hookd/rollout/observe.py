"""Monitor and shadow layers, evaluated after the reply is written, within a CPU budget.

The hot path hands each decision whose policy set has monitor or shadow layers to `Observer.offer` (an
append and an event set, like the decision log's sink) instead of the log's sink. The observer's task
runs once the reply is on its way: for each decision it evaluates every monitor layer on its own (what
that layer would have decided, with the rules that decided it) and the shadow layer in place of the
layer it `replaces` (or on top of the enforced ones), compares the shadow's outcome with the enforced
one, counts both, and passes the decision on to the log with what it observed. Nothing here can change
an answer: the reply was written before this task runs.

Under load it sheds work, never decisions: while hook requests are being decided, when its queue is
full, or when the CPU it spent ran ahead of its budget (`[rollout] cpu_budget_percent` of one core, with
`burst_ms` of slack), a decision goes to the log with `"rollout": {"skipped": "load" | "queue" |
"budget"}`, counted.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import structlog

from hookd.audit.mask import Masker
from hookd.audit.record import Pending
from hookd.config import RolloutConfig
from hookd.engines.base import settle
from hookd.errors import PartialAnswer, one_line
from hookd.policy.combine import combine
from hookd.policy.layers import Layer, evaluate_layers
from hookd.rollout.compare import deciding_rules, outcome_name, transition, without_layer
from hookd.types import JSON, Deadline, EngineRequest, Event, FailMode, Verdict, settled

log = structlog.get_logger("hookd.rollout")
Forward = Callable[[Pending], None]  # the decision log's sink.put_nowait
Busy = Callable[[], bool]  # hook requests are being decided right now
YIELD_EVERY = 1  # decisions observed between two yields to the event loop: hook requests go first


@dataclass(frozen=True, slots=True)
class LayerVerdict:
    """What one monitor layer would have decided."""

    layer: str
    decision: str
    rules: tuple[str, ...]
    verdicts: tuple[Verdict, ...] = ()
    error: str = ""


@dataclass(frozen=True, slots=True)
class ShadowVerdict:
    """What the set with the shadow in it would have decided, beside what the enforced set decided."""

    layer: str
    enforced: str
    candidate: str
    rules: tuple[str, ...]  # the candidate's deciding rules
    enforced_rules: tuple[str, ...] = ()  # the enforced set's (a deny-to-allow names the rule that went)
    error: str = ""

    @property
    def transition(self) -> str:
        return "" if self.error else transition(self.enforced, self.candidate)


@dataclass(frozen=True, slots=True)
class Observed:
    monitor: tuple[LayerVerdict, ...] = ()
    shadow: ShadowVerdict | None = None
    skipped: str = ""  # "queue" or "budget" (shed under load), "engine-error" (the enforced set failed)

    def fields(self, mask: Masker) -> dict[str, JSON]:
        """The record's `monitor` (one entry per monitor layer) and `shadow`, or `rollout.skipped` when shed or
        failed: built by the decision log's writer, off the hot path, with the same masking as the rest."""
        fields: dict[str, JSON] = {}
        if self.skipped:
            fields["rollout"] = {"skipped": self.skipped}
        if self.monitor:
            fields["monitor"] = [
                {
                    "layer": v.layer,
                    "decision": v.decision,
                    "rules": list(v.rules),
                    "reasons": [
                        mask.text(x.message)
                        for x in v.verdicts
                        if x.message and f"{x.policy_id}:{x.rule_id}" in v.rules
                    ],
                    **({"error": mask.text(v.error)} if v.error else {}),
                }
                for v in self.monitor
            ]
        shadow = self.shadow
        if shadow is not None:
            fields["shadow"] = {
                "layer": shadow.layer,
                "enforced": shadow.enforced,
                "decision": shadow.candidate,
                "differs": bool(shadow.transition),
                "transition": shadow.transition,
                "rules": list(shadow.rules),
                "enforced_rules": list(shadow.enforced_rules),
                **({"error": mask.text(shadow.error)} if shadow.error else {}),
            }
        return fields


def _by(verdict: Verdict, rules: tuple[str, ...]) -> bool:
    return f"{verdict.policy_id}:{verdict.rule_id}" in rules


class CpuBudget:
    """A token bucket of CPU seconds: refills at `share` of one core, holds at most `burst` seconds."""

    def __init__(self, share: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.share, self.burst, self._clock = share, burst, clock
        self.tokens = burst
        self._at = clock()

    def available(self) -> bool:
        now = self._clock()
        self.tokens = min(self.burst, self.tokens + (now - self._at) * self.share)
        self._at = now
        return self.tokens > 0

    def spend(self, seconds: float) -> None:
        self.tokens -= seconds


def tally(observed: Observed) -> dict[str, JSON]:
    """What one observation adds to the counters, as JSON: `skipped` (the reason, or ""), `monitor` (a
    [layer, would-be decision] per monitor layer evaluated), `errors` (evaluations that failed), `shadow`
    (the transition, "" when both sides agree; null when the shadow was not compared)."""
    errors = sum(1 for v in observed.monitor if v.error)
    shadow = observed.shadow
    compared: str | None = None
    if shadow is not None:
        if shadow.error:
            errors += 1
        else:
            compared = shadow.transition
    return {
        "skipped": observed.skipped,
        "monitor": [[v.layer, v.decision] for v in observed.monitor if not v.error],
        "errors": errors,
        "shadow": compared,
    }


class RolloutCounters:
    """What the observer counted, by layer and outcome; read by status and the metrics scrape."""

    __slots__ = ("disagreements", "errors", "monitor", "shadow_evaluated", "skipped")

    def __init__(self) -> None:
        self.monitor: dict[tuple[str, str], int] = {}  # (layer, would-be outcome) -> decisions
        self.shadow_evaluated = 0
        self.disagreements: dict[str, int] = {}  # transition -> decisions
        self.skipped: dict[str, int] = {}  # reason -> decisions not observed
        self.errors = 0  # monitor or shadow evaluations that failed

    def count(self, observed: Observed) -> None:
        self.add(tally(observed))

    def add(self, counts: Mapping[str, Any]) -> None:
        """Add one observation's `tally` (made here, or in a worker process and sent to the daemon)."""
        skipped = str(counts.get("skipped") or "")
        if skipped:
            self.skipped[skipped] = self.skipped.get(skipped, 0) + 1
        for layer, decision in counts.get("monitor") or ():
            key = (str(layer), str(decision))
            self.monitor[key] = self.monitor.get(key, 0) + 1
        self.errors += int(counts.get("errors") or 0)
        shadow = counts.get("shadow")
        if shadow is not None:
            self.shadow_evaluated += 1
            if shadow:
                self.disagreements[str(shadow)] = self.disagreements.get(str(shadow), 0) + 1

    def families(self) -> Iterator[Any]:
        """Prometheus metric families (the collector in hookd.runtime.metrics yields them at scrape time)."""
        from prometheus_client.core import CounterMetricFamily

        monitor = CounterMetricFamily(
            "hookd_monitor_decisions", "What each monitor layer would have decided", labels=["layer", "decision"]
        )
        for (layer, decision), count in sorted(dict(self.monitor).items()):
            monitor.add_metric([layer, decision], count)
        yield monitor
        yield CounterMetricFamily(
            "hookd_shadow_evaluations", "Decisions the shadow policy set was evaluated for", value=self.shadow_evaluated
        )
        disagreements = CounterMetricFamily(
            "hookd_shadow_disagreements",
            "Decisions where the shadow set would have decided differently, by transition (enforced-to-shadow)",
            labels=["transition"],
        )
        for name, count in sorted(dict(self.disagreements).items()):
            disagreements.add_metric([name], count)
        yield disagreements
        skipped = CounterMetricFamily(
            "hookd_rollout_skipped", "Decisions not observed by monitor and shadow layers, by reason", labels=["reason"]
        )
        for reason, count in sorted(dict(self.skipped).items()):
            skipped.add_metric([reason], count)
        yield skipped
        yield CounterMetricFamily(
            "hookd_rollout_errors", "Monitor or shadow evaluations that failed", value=self.errors
        )


class Observer:
    """The queue and the task between the hot path and the decision log, for engines with observed layers."""

    def __init__(
        self,
        config: RolloutConfig,
        forward: Forward,
        timeout_s: float,
        busy: Busy = bool,
        fail_modes: Mapping[Event, FailMode] | None = None,
    ) -> None:
        self.config = config
        self._fail_modes: Mapping[Event, FailMode] = fail_modes or {}
        self._busy = busy
        self.counters = RolloutCounters()
        self._forward = forward
        self._timeout = timeout_s
        self._budget = CpuBudget(config.cpu_budget_percent / 100, config.burst_ms / 1000)
        self._items: deque[tuple[Pending, bool]] = deque()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False

    def offer(self, pending: Pending, busy: bool = False) -> None:
        """The hot path's hand-over: never awaits. `busy`: other hook requests were being decided when this
        one was answered, so observing it would compete with them; it is passed on unobserved. A full
        queue passes its oldest on unobserved."""
        if len(self._items) >= self.config.queue_size:
            self._skip(self._items.popleft()[0], "queue")
        self._items.append((pending, busy))
        self._wake.set()

    def __len__(self) -> int:
        """Decisions waiting to be observed (and then passed on)."""
        return len(self._items)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="hookd-rollout")

    async def close(self) -> None:
        """Observe what is queued (within the budget) and pass everything on; the engines are still open."""
        self._closing = True
        self._wake.set()
        if self._task is not None:
            await self._task
        while self._items:  # never started (a test, or start-up failed): pass on what came in
            self._skip(self._items.popleft()[0], "closing")

    async def _run(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._items:
                await asyncio.sleep(0)  # hook requests go first (and the answered one's task is done)
                pending, busy = self._items.popleft()
                try:
                    await self._observe_one(pending, busy or self._busy())
                except Exception:  # a bug here must not end the task: the next decisions still need passing on
                    log.exception("rollout_failed", decision=pending.handled.decision_id)
            if self._closing:
                return

    async def _observe_one(self, pending: Pending, busy: bool) -> None:
        if pending.handled.engine_error:
            self._skip(pending, "engine-error")
            return
        if busy:
            self._skip(pending, "load")
            return
        if not self._budget.available():
            self._skip(pending, "budget")
            return
        try:
            observed = await self.observe(pending)
        except Exception as exc:  # never lose the decision because observing it failed
            log.exception("rollout_observe_failed")
            observed = Observed(skipped=f"error: {type(exc).__name__}")
        self._pass_on(pending, observed)

    async def observe(self, pending: Pending) -> Observed:
        handled = pending.handled
        served = handled.policy_set
        if served is None:
            return Observed()
        request = EngineRequest(handled.event, handled.event.input_document(), Deadline.after(self._timeout))
        monitor = []
        for layer in served.monitored:
            if not layer.applies(handled.event.project_dir):
                continue  # a project's layer, and this request is in another project: nothing to say
            monitor.append(await self._monitor(layer, request))
            await asyncio.sleep(0)  # a hook request waits for one layer's evaluation at most
        shadows = served.shadows
        shadow = await self._shadow(shadows[0], request, handled.decision.verdicts) if shadows else None
        return Observed(monitor=tuple(monitor), shadow=shadow)

    async def _monitor(self, layer: Layer, request: EngineRequest) -> LayerVerdict:
        try:
            verdicts = await self._evaluate(layer, request)
        except Exception as exc:  # EngineError, or a closed engine after a reload
            return LayerVerdict(layer.name, "", (), error=one_line(str(exc)) or type(exc).__name__)
        decision = combine(verdicts)
        return LayerVerdict(layer.name, outcome_name(decision.outcome), deciding_rules(decision), tuple(verdicts))

    async def _shadow(self, layer: Layer, request: EngineRequest, enforced: tuple[Verdict, ...]) -> ShadowVerdict:
        enforced_decision = combine(enforced)
        before = outcome_name(enforced_decision.outcome)
        try:
            candidate = await self._evaluate(layer, request)
        except Exception as exc:
            return ShadowVerdict(layer.name, before, "", (), error=one_line(str(exc)) or type(exc).__name__)
        kept = without_layer(enforced, layer.replaces) if layer.replaces else list(enforced)
        decision = combine([*kept, *candidate])
        after = outcome_name(decision.outcome)
        return ShadowVerdict(layer.name, before, after, deciding_rules(decision), deciding_rules(enforced_decision))

    async def _evaluate(self, layer: Layer, request: EngineRequest) -> list[Verdict]:
        """One layer's verdicts, its cost spent from the budget: this thread's CPU time where the layer
        evaluates here, the time it took where it evaluates in other processes (isolated Rego, Python
        policies: hookd.engines.python.pool), so that a slow one is shed, not waited for decision after decision."""
        clock = time.monotonic if layer.engine.remote else time.thread_time
        started = clock()
        try:
            return await settled(evaluate_layers([layer], request))
        except PartialAnswer as exc:  # as the pipeline would decide it, had the layer been enforced
            return settle(request.event.event, exc.results, self._fail_modes)
        finally:
            self._budget.spend(clock() - started)

    def _skip(self, pending: Pending, reason: str) -> None:
        self._pass_on(pending, Observed(skipped=reason))

    def _pass_on(self, pending: Pending, observed: Observed) -> None:
        self._forward(replace(pending, observed=observed))  # first: the record must never be lost
        self.counters.count(observed)
        shadow = observed.shadow
        if shadow is not None and shadow.transition:
            log.info(
                "shadow_disagrees",
                decision=pending.handled.decision_id,
                transition=shadow.transition,
                hook_event=pending.handled.event.event.value,
                rules=list(shadow.rules or shadow.enforced_rules),
            )
