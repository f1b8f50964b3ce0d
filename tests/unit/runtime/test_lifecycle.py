"""The Supervisor starts components in order, stops them in reverse, and a failing stop skips nothing."""

from __future__ import annotations

import asyncio

import pytest

from hookd.runtime.lifecycle import Component, Supervisor


def recorder(events: list[str], name: str, *, fail_stop: bool = False, fail_start: bool = False) -> Component:
    def start() -> None:
        if fail_start:
            raise OSError(f"{name} cannot start")
        events.append(f"start {name}")

    async def stop() -> None:
        events.append(f"stop {name}")
        if fail_stop:
            raise RuntimeError(f"{name} failed to stop")

    return Component(name, start, stop)


def test_components_start_in_order_and_stop_in_reverse() -> None:
    events: list[str] = []
    supervisor = Supervisor()

    async def scenario() -> None:
        await supervisor.start([recorder(events, "log"), recorder(events, "server"), Component("nothing")])
        await supervisor.stop()

    asyncio.run(scenario())
    assert events == ["start log", "start server", "stop server", "stop log"]


def test_a_failing_stop_does_not_skip_the_others_and_is_raised_at_the_end() -> None:
    events: list[str] = []
    supervisor = Supervisor()

    async def scenario() -> None:
        await supervisor.start([recorder(events, "log"), recorder(events, "bundles", fail_stop=True)])
        await supervisor.stop()

    with pytest.raises(RuntimeError, match="bundles failed to stop"):
        asyncio.run(scenario())
    assert events[-2:] == ["stop bundles", "stop log"]  # the log is flushed all the same


def test_when_one_cannot_start_the_ones_started_are_stopped() -> None:
    events: list[str] = []
    supervisor = Supervisor()

    async def scenario() -> None:
        try:
            await supervisor.start([recorder(events, "log"), recorder(events, "control", fail_start=True)])
        finally:
            await supervisor.stop()

    with pytest.raises(OSError, match="control cannot start"):
        asyncio.run(scenario())
    assert events == ["start log", "stop log"]
