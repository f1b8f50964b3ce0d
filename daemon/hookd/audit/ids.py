"""Decision ids: short, time-ordered, unique within a daemon, made before a decision is rendered."""

from __future__ import annotations

import time

from hookd.config import MAX_WORKERS


class DecisionIds:
    """16 hex digits: 48 bits of Unix time in milliseconds, then a 16-bit sequence within the millisecond.

    Ids sort in the order they were made (also across restarts, as long as the clock moves forward) and
    say roughly when: `int(id, 16) >> 16` is the time in ms. More than 65,536 in one millisecond borrow
    from the next one, so they never repeat within a process.

    With several deciding processes (`daemon.workers`), process `index` of them makes only ids whose
    sequence is `index` modulo `stride` (64, the most workers allowed), so no two processes make the same
    id; each then has 1,024 ids a millisecond before it borrows from the next.
    """

    __slots__ = ("_last", "_offset", "_stride")

    def __init__(self, index: int = 0, stride: int = 1) -> None:
        if not 0 <= index < stride or (1 << 16) % stride:
            raise ValueError(f"decision id slot {index} of {stride}: the stride must divide 65536")
        self._offset = index
        self._stride = stride
        self._last = index - stride

    def __call__(self) -> str:
        now = ((time.time_ns() // 1_000_000) << 16) + self._offset
        self._last = value = max(self._last + self._stride, now)
        return f"{value:016x}"


def id_time_ms(decision_id: str) -> int:
    """The Unix time in ms at which the id was made."""
    return int(decision_id, 16) >> 16


def decision_ids(index: int, processes: int) -> DecisionIds:
    """Process `index`'s decision ids (the daemon is 0, the lane last): distinct across processes when there
    are several."""
    return DecisionIds(index, MAX_WORKERS) if processes > 1 else DecisionIds()
