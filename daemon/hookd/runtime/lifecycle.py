"""Starting and stopping the daemon's components: the Supervisor starts them in order and stops them in
reverse, every stop guarded, so that one failing stop never skips the others (the decision log, started
before anything that decides, is always flushed after the last decision). Like aiohttp's cleanup
contexts: the order is the list, and the errors are collected, logged, and the first one raised at the end.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import structlog

log = structlog.get_logger("hookd")

Action = Callable[[], Awaitable[None] | None]


async def _run(action: Action | None) -> None:
    if action is None:
        return
    result = action()
    if inspect.isawaitable(result):
        await result


@dataclass(frozen=True, slots=True)
class Component:
    """One part of the daemon: how it starts and how it stops (either may be sync or async, or nothing)."""

    name: str
    start: Action | None = None
    stop: Action | None = None


class Supervisor:
    __slots__ = ("_started",)

    def __init__(self) -> None:
        self._started: list[Component] = []

    async def start(self, components: list[Component]) -> None:
        """Start each in order; the ones started are stopped by `stop` even when a later one fails to start."""
        for component in components:
            await _run(component.start)
            self._started.append(component)

    async def stop(self) -> None:
        """Stop every started component in reverse order, whatever the others do; raises the first error."""
        errors: list[Exception] = []
        while self._started:
            component = self._started.pop()
            try:
                await _run(component.stop)
            except Exception as exc:  # keep stopping the rest: the decision log must still be flushed
                log.error("component_stop_failed", component=component.name, error=str(exc))
                errors.append(exc)
        if errors:
            raise errors[0]
