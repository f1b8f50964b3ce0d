"""The agents' registry and the canonical events' fail facts the config reads (hookd.types) agree."""

from __future__ import annotations

from hookd.dialects.registry import can_fail_closed, default_fail_modes
from hookd.types import CAN_FAIL_CLOSED, FAIL_CLOSED_BY_DEFAULT, FailMode


def test_the_events_that_fail_closed_by_default_are_the_agents() -> None:
    derived = frozenset(event for event, mode in default_fail_modes().items() if mode is FailMode.CLOSED)
    assert derived == FAIL_CLOSED_BY_DEFAULT, "an agent's event table changed: update hookd.types"


def test_the_events_that_can_fail_closed_are_the_agents() -> None:
    assert can_fail_closed() == CAN_FAIL_CLOSED, "an agent's event table changed: update hookd.types"
