"""The Supervisor starts components in order, stops them in reverse, a failing stop skips nothing, and it
reads every component's own status and counters."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest

from hookd.runtime.lifecycle import Supervisor


@dataclass
class Recorder:
    name: str
    events: list[str] = field(default_factory=list)
    fail_stop: bool = False
    fail_start: bool = False
    starts: int = 0

    def start(self) -> None:
        if self.fail_start:
            raise OSError(f"{self.name} cannot start")
        self.starts += 1
        self.events.append(f"start {self.name}")

    async def stop(self) -> None:
        self.events.append(f"stop {self.name}")
        if self.fail_stop:
            raise RuntimeError(f"{self.name} failed to stop")

    def status(self) -> dict[str, int]:
        return {"starts": self.starts}

    def counters(self) -> dict[str, float]:
        return {f"hookd_{self.name}_starts": float(self.starts)}


def test_components_start_in_order_and_stop_in_reverse() -> None:
    events: list[str] = []
    supervisor = Supervisor([Recorder("log", events), Recorder("server", events)])

    async def scenario() -> None:
        await supervisor.start()
        await supervisor.stop()

    asyncio.run(scenario())
    assert events == ["start log", "start server", "stop server", "stop log"]
    assert supervisor.status() == {"log": {"starts": 1}, "server": {"starts": 1}}
    assert supervisor.counters() == {"hookd_log_starts": 1.0, "hookd_server_starts": 1.0}


def test_a_failing_stop_does_not_skip_the_others_and_is_raised_at_the_end() -> None:
    events: list[str] = []
    supervisor = Supervisor([Recorder("log", events), Recorder("bundles", events, fail_stop=True)])

    async def scenario() -> None:
        await supervisor.start()
        await supervisor.stop()

    with pytest.raises(RuntimeError, match="bundles failed to stop"):
        asyncio.run(scenario())
    assert events[-2:] == ["stop bundles", "stop log"]  # the log is flushed all the same


def test_when_one_cannot_start_the_ones_started_are_stopped() -> None:
    events: list[str] = []
    supervisor = Supervisor([Recorder("log", events), Recorder("control", events, fail_start=True)])

    async def scenario() -> None:
        try:
            await supervisor.start()
        finally:
            await supervisor.stop()

    with pytest.raises(OSError, match="control cannot start"):
        asyncio.run(scenario())
    assert events == ["start log", "stop log"]
