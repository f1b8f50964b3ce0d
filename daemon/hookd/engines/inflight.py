"""Calls under way in one engine, so that its `aclose` lets them finish first: one implementation for the
engines that hold something a call needs (OPA's HTTP session, the Python policy workers).

The policy-set holder (hookd.policy.holder) already closes a replaced engine only after the last hook
request that used it; this count also covers what runs outside those requests: monitor and shadow layers,
evaluated after the reply (hookd.rollout), which an engine closed under them would cut off. Waiting is an
event, not a poll.
"""

from __future__ import annotations

import asyncio
import contextlib


class InFlight:
    __slots__ = ("_idle", "count")

    def __init__(self) -> None:
        self.count = 0
        self._idle: asyncio.Event | None = None  # made by the first wait

    def enter(self) -> None:
        self.count += 1

    def leave(self) -> None:
        self.count -= 1
        if not self.count and self._idle is not None:
            self._idle.set()

    async def finished(self, timeout: float) -> None:
        """Return once no call is under way, or after `timeout` seconds (the calls are bounded anyway)."""
        if not self.count:
            return
        if self._idle is None or self._idle.is_set():
            self._idle = asyncio.Event()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._idle.wait()
