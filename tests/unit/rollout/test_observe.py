"""The observer: monitor and shadow layers never decide, are evaluated after the hand-over, and shed work
(never decisions) when the queue is full or the CPU budget is spent."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from hookd.audit.record import Pending
from hookd.config import RolloutConfig
from hookd.policy.combine import combine
from hookd.policy.layers import Layer, Rank, layered
from hookd.rollout.observe import CpuBudget, Observer
from hookd.testing import StaticEngine
from hookd.types import (
    Caller,
    Deadline,
    EngineRequest,
    Event,
    Handled,
    NormalisedEvent,
    PolicySet,
    Reply,
    Verdict,
    VerdictKind,
    settled,
)

EVENT = NormalisedEvent("gemini", Event.BEFORE_TOOL, {}, None, "s", "/p", "/p", Caller(0, 0, 1))
DENY = Verdict(VerdictKind.DENY, "hookd.p", "r", "no")


def Part(verdicts: Sequence[Verdict]) -> StaticEngine:
    return StaticEngine(verdicts, name="part", revision="r")


def request() -> EngineRequest:
    return EngineRequest(EVENT, EVENT.input_document(), Deadline.after(5))


def test_monitor_and_shadow_layers_take_no_part_in_the_enforced_evaluation() -> None:
    monitor, shadow = Part([DENY]), Part([DENY])
    engine = layered(
        [
            Layer("default", Rank.USER, Part([])),
            Layer("org", Rank.ORGANISATION, monitor, mode="monitor"),
            Layer("cand", Rank.USER, shadow, mode="shadow", replaces="default"),
        ]
    )
    assert asyncio.run(settled(engine.engine.evaluate(request()))) == []
    assert (len(monitor.requests), len(shadow.requests)) == (0, 0)
    assert [layer.name for layer in engine.monitored] == ["org"]
    assert [layer.name for layer in engine.shadows] == ["cand"]


def test_a_layered_engine_of_monitor_layers_only_enforces_nothing() -> None:
    engine = layered([Layer("default", Rank.USER, Part([DENY]), mode="monitor")])
    assert asyncio.run(settled(engine.engine.evaluate(request()))) == []


def test_the_budget_refills_at_its_share_and_holds_its_burst() -> None:
    now = [0.0]
    budget = CpuBudget(0.1, 0.01, clock=lambda: now[0])
    assert budget.available()
    budget.spend(0.02)
    assert not budget.available()  # 10 ms in debt
    now[0] += 0.05  # refills 5 ms
    assert not budget.available()
    now[0] += 0.06  # and 6 more: 1 ms ahead
    assert budget.available()
    now[0] += 100
    budget.available()
    assert budget.tokens == 0.01  # never more than the burst


def pending(engine: PolicySet, verdicts: Sequence[Verdict] = (), engine_error: bool = False) -> Pending:
    decision = combine(list(verdicts))
    return Pending(Handled(EVENT, decision, Reply(), 1.0, engine, engine_error), 0.0, "socket")


def run_observer(config: RolloutConfig, items: list[Pending]) -> tuple[Observer, list[Pending]]:
    out: list[Pending] = []

    async def main() -> Observer:
        observer = Observer(config, out.append, 5.0)
        for item in items:
            observer.offer(item)  # before the task runs: the queue bound applies
        observer.start()
        await observer.close()
        return observer

    return asyncio.run(main()), out


def test_every_decision_is_passed_on_in_order_and_a_full_queue_sheds_the_oldest_observation() -> None:
    monitor = Part([DENY])
    engine = layered([Layer("default", Rank.USER, Part([])), Layer("m", Rank.USER, monitor, mode="monitor")])
    items = [pending(engine) for _ in range(5)]
    observer, out = run_observer(RolloutConfig(queue_size=3, cpu_budget_percent=100, burst_ms=1000), items)
    assert [p.handled for p in out] == [p.handled for p in items]
    skipped = [p.observed.skipped if p.observed else None for p in out]
    assert skipped == ["queue", "queue", "", "", ""]
    assert len(monitor.requests) == 3
    assert observer.counters.skipped == {"queue": 2}
    assert observer.counters.monitor == {("m", "deny"): 3}


def test_a_spent_budget_passes_decisions_on_unobserved_and_counts_them() -> None:
    slow = Part([DENY])
    engine = layered([Layer("default", Rank.USER, Part([])), Layer("m", Rank.USER, slow, mode="monitor")])
    observer = Observer(RolloutConfig(), lambda p: None, 5.0)
    observer._budget.tokens = -1.0  # a second of CPU in debt: nothing is observed for a while
    out: list[Pending] = []
    observer._forward = out.append

    async def main() -> None:
        observer.offer(pending(engine))
        observer.start()
        await observer.close()

    asyncio.run(main())
    assert [p.observed.skipped for p in out if p.observed] == ["budget"]
    assert len(slow.requests) == 0 and observer.counters.skipped == {"budget": 1}


def test_a_shadow_is_compared_in_place_of_the_layer_it_replaces_and_skipped_after_an_engine_error() -> None:
    engine = layered(
        [
            Layer("default", Rank.USER, Part([])),
            Layer("cand", Rank.USER, Part([DENY]), mode="shadow", replaces="default"),
        ]
    )
    enforced = [Verdict(VerdictKind.DENY, "hookd.old", "gone", "no", layer="default", rank=1)]
    _, out = run_observer(RolloutConfig(), [pending(engine, enforced), pending(engine, engine_error=True)])
    first, second = (p.observed for p in out)
    assert first is not None and first.shadow is not None
    assert (first.shadow.enforced, first.shadow.candidate, first.shadow.transition) == ("deny", "deny", "")
    assert first.shadow.rules == ("hookd.p:r",) and first.shadow.enforced_rules == ("hookd.old:gone",)
    assert second is not None and second.skipped == "engine-error"


def test_a_decision_answered_while_others_were_being_decided_is_passed_on_unobserved() -> None:
    monitor = Part([DENY])
    engine = layered([Layer("default", Rank.USER, Part([])), Layer("m", Rank.USER, monitor, mode="monitor")])
    out: list[Pending] = []

    async def main() -> Observer:
        observer = Observer(RolloutConfig(), out.append, 5.0)
        observer.offer(pending(engine), busy=True)
        observer.offer(pending(engine), busy=False)
        observer.start()
        await observer.close()
        return observer

    observer = asyncio.run(main())
    assert [p.observed.skipped for p in out if p.observed] == ["load", ""]
    assert len(monitor.requests) == 1 and observer.counters.skipped == {"load": 1}
