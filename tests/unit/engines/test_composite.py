import asyncio
from collections.abc import Sequence

import pytest

from hookd.engines.composite import CompositeEngine
from hookd.errors import EngineError
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
    assert list(asyncio.run(engine.evaluate(_request()))) == [DENY, CONTEXT]


def test_one_failing_part_fails_the_whole_evaluation() -> None:
    engine = CompositeEngine([Part("a", [DENY]), Part("b", [], fail=True)])
    with pytest.raises(EngineError, match="b is down"):
        asyncio.run(engine.evaluate(_request()))


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
        async def evaluate(self, request: EngineRequest) -> Sequence[Verdict]:
            started.append(self.name)
            return await super().evaluate(request)

    local, remote = Recording([DENY], name="local"), Recording([CONTEXT], name="remote")
    remote.remote = True
    assert list(asyncio.run(CompositeEngine([local, remote]).evaluate(_request()))) == [DENY, CONTEXT]
    assert started == ["remote", "local"]
