"""The policy set being served, and its one owner: `PolicySetHolder`.

The serving engine is a LayeredEngine of two halves that change apart: the organisation's bundles
(activated by hookd.bundle.manager) and the local layers (the user's and opted-in projects' policy
directories and a shadow candidate, reloaded on SIGHUP, a file change or a control call). The holder
keeps both halves and composes the layered engine from them at the moment it swaps, so a bundle
activation keeps the local layers and a local reload keeps the bundles, neither asking the other.

A request holds the engine it started with from `acquire` to `release` (the pipeline does), so it
finishes on that policy set. `install` swaps in one assignment and retires the replaced engine in the
background once its last request is done; layers the two engines share are handed over, so retiring
closes only what the old engine alone held.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

import structlog

from hookd.policy.layers import Layer, LayeredEngine
from hookd.types import Engine

log = structlog.get_logger("hookd")
RETIRE_WAIT_S = 5.0  # at shutdown, for replaced engines whose last requests are still being answered


class PolicySetHolder:
    """The engine currently serving, its bundle and local layers, and how many requests use each engine."""

    __slots__ = ("_bundles", "_idle", "_in_flight", "_retired", "_retiring", "current", "loaded_at")

    def __init__(self, engine: Engine, *, bundles: Sequence[Layer] = ()) -> None:
        """`bundles` are the organisation layers among `engine`'s (the others are local)."""
        self.current = engine
        self.loaded_at = time.time()
        self._bundles = tuple(bundles)
        self._in_flight = 0  # requests using `current`: the hot path only touches this int
        self._retired: dict[int, int] = {}  # id(replaced engine) -> requests still using it
        self._idle: dict[int, asyncio.Event] = {}  # id(replaced engine) -> set when its last request is done
        self._retiring: set[asyncio.Task[None]] = set()

    # --- the hot path ---

    def acquire(self) -> Engine:
        self._in_flight += 1
        return self.current

    def release(self, engine: Engine) -> None:
        if engine is self.current:
            self._in_flight -= 1
            return
        key = id(engine)
        left = self._retired[key] - 1
        if left:
            self._retired[key] = left
            return
        del self._retired[key]
        idle = self._idle.pop(key, None)
        if idle is not None:
            idle.set()

    def in_use(self, engine: Engine) -> int:
        return self._in_flight if engine is self.current else self._retired.get(id(engine), 0)

    # --- the two halves of the policy set ---

    def local_layers(self) -> tuple[Layer, ...]:
        current = self.current
        layers = current.layers if isinstance(current, LayeredEngine) else ()
        bundles = {id(layer) for layer in self._bundles}
        return tuple(layer for layer in layers if id(layer) not in bundles)

    def serve_bundles(self, bundles: Sequence[Layer]) -> LayeredEngine:
        """Serve a new set of organisation bundles over the local layers now serving (started engines only)."""
        engine = LayeredEngine([*bundles, *self.local_layers()])
        self._bundles = tuple(bundles)
        self.install(engine)
        return engine

    def serve_local(self, local: Sequence[Layer]) -> LayeredEngine:
        """Serve new local layers (ready to serve: `await` their engines' `ready()` first) under the bundles
        now serving, taken at this moment: a bundle activated while the local layers started is kept."""
        engine = LayeredEngine([*self._bundles, *local])
        self.install(engine)
        return engine

    # --- swapping and retiring ---

    def install(self, engine: Engine) -> None:
        """Serve `engine` from the next request on (one assignment) and retire the one it replaces; layers
        the two share are handed over, so retiring the old engine closes only what it alone held."""
        previous = self.current
        if isinstance(previous, LayeredEngine) and isinstance(engine, LayeredEngine):
            previous.succeeded_by(engine)
        task = asyncio.get_running_loop().create_task(self.retire(self.swap(engine)), name="hookd-retire-engine")
        self._retiring.add(task)
        task.add_done_callback(self._retired_done)

    def swap(self, engine: Engine) -> Engine:
        """Serve `engine` from the next request on; returns the engine it replaces (maybe still in use)."""
        previous, self.current = self.current, engine
        if self._in_flight:
            self._retired[id(previous)] = self._in_flight
        self._in_flight = 0
        self.loaded_at = time.time()
        return previous

    async def retire(self, engine: Engine) -> None:
        """Close a replaced engine once no request uses it any more."""
        key = id(engine)
        if self._retired.get(key):
            await self._idle.setdefault(key, asyncio.Event()).wait()
        await engine.aclose()

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
            await self.current.aclose()
        except Exception as exc:  # shutting down regardless
            log.error("engine_close_failed", error=str(exc))
