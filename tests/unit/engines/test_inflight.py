"""InFlight: an engine's aclose waits for its calls under way, on an event, within a bound."""

from __future__ import annotations

import asyncio

from hookd.engines.inflight import InFlight
from support import settle


def test_waiting_ends_when_the_last_call_leaves_and_not_before() -> None:
    async def scenario() -> None:
        calls = InFlight()
        calls.enter()
        calls.enter()
        waiting = asyncio.create_task(calls.finished(timeout=30))
        await settle()
        calls.leave()
        await settle()
        assert not waiting.done()  # one call still under way
        calls.leave()
        await asyncio.wait_for(waiting, 5)
        await asyncio.wait_for(calls.finished(timeout=30), 5)  # nothing under way: at once

    asyncio.run(scenario())


def test_waiting_gives_up_after_its_bound_and_can_wait_again() -> None:
    async def scenario() -> None:
        calls = InFlight()
        calls.enter()
        await calls.finished(timeout=0.01)  # a call that never ends does not hold a close for ever
        assert calls.count == 1
        again = asyncio.create_task(calls.finished(timeout=30))
        await settle()
        calls.leave()
        await asyncio.wait_for(again, 5)

    asyncio.run(scenario())
