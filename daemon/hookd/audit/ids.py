"""Decision ids: short, time-ordered, unique within a daemon, made before a decision is rendered."""

from __future__ import annotations

import time


class DecisionIds:
    """16 hex digits: 48 bits of Unix time in milliseconds, then a 16-bit sequence within the millisecond.

    Ids sort in the order they were made (also across restarts, as long as the clock moves forward) and
    say roughly when: `int(id, 16) >> 16` is the time in ms. More than 65,536 in one millisecond borrow
    from the next one, so they never repeat within a process.
    """

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last = 0

    def __call__(self) -> str:
        now = (time.time_ns() // 1_000_000) << 16
        self._last = value = max(self._last + 1, now)
        return f"{value:016x}"


def id_time_ms(decision_id: str) -> int:
    """The Unix time in ms at which the id was made."""
    return int(decision_id, 16) >> 16
