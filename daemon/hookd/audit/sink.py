"""The bounded hand-over from the hot path to the writer: put_nowait, drop the oldest, count the drops.

Nothing here awaits or does I/O on the producer side: `put_nowait` appends to a deque and sets an
asyncio.Event (both on the event-loop thread). The single consumer (the writer task) waits on the
event and takes everything that is queued at once.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class Sink(Generic[T]):
    __slots__ = ("_items", "_wake", "dropped", "maxsize")

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self._items: deque[T] = deque(maxlen=maxsize)
        self._wake = asyncio.Event()
        self.dropped = 0  # since the daemon started

    def put_nowait(self, item: T) -> None:
        if len(self._items) == self.maxsize:
            self.dropped += 1  # the deque drops the oldest on append
        self._items.append(item)
        self._wake.set()

    def count_dropped(self, n: int) -> None:
        """Items dropped before they reached this queue (a worker process's own queue overflowed)."""
        if n > 0:
            self.dropped += n
            self._wake.set()  # the writer records the gap

    def __len__(self) -> int:
        return len(self._items)

    async def wait(self) -> None:
        """Until something is queued (or `wake` is called)."""
        await self._wake.wait()

    def wake(self) -> None:
        self._wake.set()

    def take(self) -> list[T]:
        """Everything queued, oldest first; the queue is empty afterwards."""
        self._wake.clear()
        items = list(self._items)
        self._items.clear()
        return items
