"""The bounded sink: put_nowait never waits, the oldest is dropped and counted."""

from __future__ import annotations

import asyncio

from hookd.audit.sink import Sink
from support import settle


class TestSink:
    def test_takes_everything_in_order(self) -> None:
        sink: Sink[int] = Sink(10)
        for i in range(3):
            sink.put_nowait(i)
        assert sink.take() == [0, 1, 2]
        assert sink.take() == []
        assert sink.dropped == 0

    def test_a_full_sink_drops_the_oldest_and_counts(self) -> None:
        sink: Sink[int] = Sink(3)
        for i in range(5):
            sink.put_nowait(i)
        assert sink.take() == [2, 3, 4]
        assert sink.dropped == 2

    def test_wait_returns_once_something_is_put(self) -> None:
        async def scenario() -> list[int]:
            sink: Sink[int] = Sink(3)
            waiter = asyncio.create_task(sink.wait())
            await settle()
            assert not waiter.done()
            sink.put_nowait(7)
            await asyncio.wait_for(waiter, 1)
            return sink.take()

        assert asyncio.run(scenario()) == [7]
