"""The lane's admission (hookd.lane.FairSlots): a session over its share is refused at once, a freed slot
goes to the waiting session that holds the fewest, and a wait that gives up passes its slot on."""

from __future__ import annotations

import asyncio

import pytest

from hookd.errors import LaneRefused
from hookd.lane import FairSlots


async def hold(slots: FairSlots, session: str, release: asyncio.Event, order: list[str]) -> None:
    async with slots.held(session):
        order.append(session)
        await release.wait()


def test_a_freed_slot_goes_to_the_session_holding_the_fewest() -> None:
    async def go() -> list[str]:
        slots, order, release = FairSlots(2, 8), [], asyncio.Event()
        flood = [asyncio.ensure_future(hold(slots, "flood", release, order)) for _ in range(5)]
        await asyncio.sleep(0)
        other = asyncio.ensure_future(hold(slots, "other", release, order))
        await asyncio.sleep(0)
        assert order == ["flood", "flood"]  # both slots taken, four waiting (three of them the flood's)
        release.set()
        await asyncio.gather(*flood, other)
        return order

    order = asyncio.run(go())
    assert order[:3] == ["flood", "flood", "other"]  # the other session first, though it came last


def test_a_session_over_its_share_is_refused_at_once_and_others_are_not() -> None:
    async def go() -> None:
        slots, order, release = FairSlots(1, 3), [], asyncio.Event()
        held = [asyncio.ensure_future(hold(slots, "flood", release, order)) for _ in range(3)]
        await asyncio.sleep(0)
        with pytest.raises(LaneRefused) as refused:
            async with slots.held("flood"):
                pass
        assert refused.value.code == "busy"
        other = asyncio.ensure_future(hold(slots, "other", release, order))
        await asyncio.sleep(0)
        release.set()
        await asyncio.gather(*held, other)
        assert sorted(order) == ["flood"] * 3 + ["other"]

    asyncio.run(go())


def test_a_wait_that_times_out_leaves_the_slots_as_they_were() -> None:
    async def go() -> None:
        slots, order, release = FairSlots(1, 4), [], asyncio.Event()
        first = asyncio.ensure_future(hold(slots, "a", release, order))
        await asyncio.sleep(0)
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.01), slots.held("b"):
                pass
        release.set()
        await first
        async with asyncio.timeout(1), slots.held("b"):  # the one slot is free again
            order.append("b")
        assert order == ["a", "b"]

    asyncio.run(go())
