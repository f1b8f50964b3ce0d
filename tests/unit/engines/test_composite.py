import asyncio
from collections.abc import Awaitable, Sequence

import pytest

from hookd.engines.base import settle
from hookd.engines.composite import CompositeEngine
from hookd.errors import EngineError, PartialAnswer, PolicyError
from hookd.testing import StaticEngine
from hookd.types import (
    Caller,
    Deadline,
    EngineRequest,
    Event,
    NormalisedEvent,
    PackageInfo,
    Verdict,
    VerdictKind,
    settled,
)


def Part(name: str, verdicts: Sequence[Verdict], fail: bool = False, revision: str = "") -> StaticEngine:
    return StaticEngine(
        verdicts,
        name=name,
        error=EngineError(f"{name} is down") if fail else None,
        revision=revision or f"rev-{name}",
        packages=[PackageInfo(f"hookd.{name}", {})],
    )


def _request() -> EngineRequest:
    event = NormalisedEvent(
        client="gemini",
        event=Event.BEFORE_TOOL,
        payload={},
        tool=None,
        session_id="s",
        cwd="/",
        project_dir="/",
        caller=Caller(0, 0, 1),
    )
    return EngineRequest(event, {}, Deadline.after(1))


DENY = Verdict(VerdictKind.DENY, "hookd.a", "r1", "no")
CONTEXT = Verdict(VerdictKind.CONTEXT, "hookd.b", "r2", "fyi")


def test_every_part_evaluates_and_the_verdicts_are_concatenated() -> None:
    engine = CompositeEngine([Part("a", [DENY]), Part("b", [CONTEXT])])
    assert list(asyncio.run(settled(engine.evaluate(_request())))) == [DENY, CONTEXT]


def test_one_failing_part_fails_the_whole_evaluation() -> None:
    engine = CompositeEngine([Part("a", [DENY]), Part("b", [], fail=True)])
    with pytest.raises(EngineError, match="b is down"):
        asyncio.run(settled(engine.evaluate(_request())))


def test_status_names_every_part_and_changes_revision_with_any_part() -> None:
    a, b = Part("a", []), Part("b", [])
    status = CompositeEngine([a, b]).status()
    assert status.engine == "a+b"
    assert status.packages == ("hookd.a", "hookd.b")
    assert [part.revision for part in status.parts] == ["rev-a", "rev-b"]
    assert CompositeEngine([a, Part("b", [], revision="rev-b2")]).status().revision != status.revision


def test_aclose_closes_every_part() -> None:
    parts = [Part("a", []), Part("b", [])]
    asyncio.run(CompositeEngine(parts).aclose())
    assert all(p.closed for p in parts)


def test_an_empty_composite_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one part"):
        CompositeEngine([])


def test_a_remote_part_starts_first_but_its_verdicts_keep_the_parts_order() -> None:
    started: list[str] = []

    class Recording(StaticEngine):
        async def _at_gate(self, request: EngineRequest) -> Sequence[Verdict]:
            started.append(self.name)  # when its evaluation runs, not when it was called
            return await super()._at_gate(request)

    local, remote = Recording([DENY], name="local"), Recording([CONTEXT], name="remote")
    remote.remote = True
    assert list(asyncio.run(CompositeEngine([local, remote]).evaluate(_request()))) == [DENY, CONTEXT]
    assert started == ["remote", "local"]


def test_a_part_whose_policies_partly_failed_keeps_every_answer_in_order() -> None:
    # One broken Python policy must not drop another part's deny: its error travels beside the answers, and
    # the pipeline alone makes its verdict (hookd.engines.base.settle).
    rego = Verdict(VerdictKind.DENY, "hookd.rego", "r", "no")
    answered = Verdict(VerdictKind.CONTEXT, "hookd.ok", "c", "fine")
    broken = PolicyError("hostile.py:f failed (ValueError)", policy="hookd.hostile", rule="python-error")
    python = StaticEngine(name="python", error=PartialAnswer([answered, broken]))
    composite = CompositeEngine([Part("rego", [rego]), python])
    with pytest.raises(PartialAnswer) as caught:
        asyncio.run(settled(composite.evaluate(_request())))
    assert caught.value.results == (rego, answered, broken)
    verdicts = settle(Event.BEFORE_TOOL, caught.value.results, {})
    assert [(v.kind, v.policy_id, v.rule_id) for v in verdicts] == [
        (VerdictKind.DENY, "hookd.rego", "r"),
        (VerdictKind.CONTEXT, "hookd.ok", "c"),
        (VerdictKind.DENY, "hookd.hostile", "python-error"),  # fails closed wherever a deny can block
    ]


def test_parts_that_answer_in_the_call_make_the_composite_answer_in_the_call() -> None:
    rego = Verdict(VerdictKind.DENY, "hookd.rego", "r", "no")
    broken = PolicyError("hostile.py:f failed (ValueError)", policy="hookd.hostile", rule="python-error")
    in_call = [StaticEngine([rego], awaited=False), StaticEngine(error=PartialAnswer([broken]), awaited=False)]
    with pytest.raises(PartialAnswer) as now:
        CompositeEngine(in_call).evaluate(_request())  # raised in the call: nothing to await
    awaited = CompositeEngine([StaticEngine([rego]), StaticEngine(error=PartialAnswer([broken]))])
    with pytest.raises(PartialAnswer) as later:
        asyncio.run(settled(awaited.evaluate(_request())))
    assert list(now.value.results) == list(later.value.results) == [rego, broken]
    answer = CompositeEngine([in_call[0], StaticEngine([CONTEXT])]).evaluate(_request())
    assert isinstance(answer, Awaitable)  # one awaited part makes the whole answer awaited
    assert list(asyncio.run(settled(answer))) == [rego, CONTEXT]
