"""The policy set being served, and its one owner: `PolicySetHolder`.

The serving PolicySet is made of two halves that change apart: the organisation's bundles
(activated by hookd.bundle.manager) and the local layers (the user's and opted-in projects' policy
directories and a shadow candidate, reloaded on SIGHUP, a file change or a control call). The holder
keeps both halves and composes the policy set from them at the moment it swaps, so a bundle
activation keeps the local layers and a local reload keeps the bundles, neither asking the other.

A request holds the set it started with from `acquire` to `release` (the pipeline does), so it
finishes on that policy set. `install` swaps in one assignment and retires the replaced set in the
background once its last request is done; layers the two sets share are handed over, so retiring
closes only what the old set alone held.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

import structlog

from hookd.policy.layers import Layer, layered, policy_set_of
from hookd.types import Engine, PolicySet

log = structlog.get_logger("hookd")
RETIRE_WAIT_S = 5.0  # at shutdown, for replaced engines whose last requests are still being answered


class PolicySetHolder:
    """The policy set currently serving, its bundle and local layers, and how many requests use each set."""

    __slots__ = ("_bundles", "_idle", "_in_flight", "_retired", "_retiring", "current", "loaded_at")

    def __init__(self, served: PolicySet | Engine, *, bundles: Sequence[Layer] = ()) -> None:
        """`bundles` are the organisation layers among `served`'s (the others are local)."""
        self.current = served if isinstance(served, PolicySet) else policy_set_of(served)
        self.loaded_at = time.time()
        self._bundles = tuple(bundles)
        self._in_flight = 0  # requests using `current`: the hot path only touches this int
        self._retired: dict[int, int] = {}  # id(replaced engine) -> requests still using it
        self._idle: dict[int, asyncio.Event] = {}  # id(replaced engine) -> set when its last request is done
        self._retiring: set[asyncio.Task[None]] = set()

    # --- the hot path ---

    def acquire(self) -> PolicySet:
        self._in_flight += 1
        return self.current

    def release(self, served: PolicySet) -> None:
        if served is self.current:
            self._in_flight -= 1
            return
        key = id(served)
        left = self._retired[key] - 1
        if left:
            self._retired[key] = left
            return
        del self._retired[key]
        idle = self._idle.pop(key, None)
        if idle is not None:
            idle.set()

    def in_use(self, served: PolicySet) -> int:
        return self._in_flight if served is self.current else self._retired.get(id(served), 0)

    # --- the two halves of the policy set ---

    def local_layers(self) -> tuple[Layer, ...]:
        bundles = {id(layer) for layer in self._bundles}
        return tuple(layer for layer in self.current.layers if id(layer) not in bundles)

    def serve_bundles(self, bundles: Sequence[Layer]) -> PolicySet:
        """Serve a new set of organisation bundles over the local layers now serving (started engines only)."""
        served = layered([*bundles, *self.local_layers()])
        self._bundles = tuple(bundles)
        self.install(served)
        return served

    def serve_local(self, local: Sequence[Layer]) -> PolicySet:
        """Serve new local layers (ready to serve: `await` their engines' `ready()` first) under the bundles
        now serving, taken at this moment: a bundle activated while the local layers started is kept."""
        served = layered([*self._bundles, *local])
        self.install(served)
        return served

    # --- swapping and retiring ---

    def install(self, served: PolicySet) -> None:
        """Serve `served` from the next request on (one assignment) and retire the set it replaces; layers
        the two share are handed over, so retiring the old set closes only what it alone held."""
        retiring = self.retire(self.swap(served), successor=served)
        task = asyncio.get_running_loop().create_task(retiring, name="hookd-retire-engine")
        self._retiring.add(task)
        task.add_done_callback(self._retired_done)

    def swap(self, served: PolicySet) -> PolicySet:
        """Serve `served` from the next request on; returns the set it replaces (maybe still in use)."""
        previous, self.current = self.current, served
        if self._in_flight:
            self._retired[id(previous)] = self._in_flight
        self._in_flight = 0
        self.loaded_at = time.time()
        return previous

    async def retire(self, served: PolicySet, successor: PolicySet | None = None) -> None:
        """Close a replaced set once no request uses it any more (but the layers its successor serves)."""
        key = id(served)
        if self._retired.get(key):
            await self._idle.setdefault(key, asyncio.Event()).wait()
        await served.close(keep=successor)

    def _retired_done(self, task: asyncio.Task[None]) -> None:
        self._retiring.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("engine_close_failed", error=str(task.exception()))

    async def close(self) -> None:
        """At shutdown, once nothing decides any more: close the engines still retiring, then the serving one
        (which ends its Python workers)."""
        if self._retiring:
            await asyncio.wait(set(self._retiring), timeout=RETIRE_WAIT_S)
        try:
            await self.current.close()
        except Exception as exc:  # shutting down regardless
            log.error("engine_close_failed", error=str(exc))
