"""The daemon's components and their Supervisor (as OPA's plugin manager holds its plugins): each component
starts, stops, says how it is (`status`) and what it counted (`counters`, by metric name). The Supervisor
starts them in order and stops them in reverse, every stop guarded, so that one failing stop never skips
the others (the decision log, started before anything that decides, is always flushed after the last
decision). Like aiohttp's cleanup contexts: the order is the list, and the errors are collected, logged,
and the first one raised at the end. Status and metrics read the components, never the daemon.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, Protocol

import structlog

log = structlog.get_logger("hookd")


class Component(Protocol):
    """One part of the daemon: how it starts and stops (either may be sync or async), how it is, and what
    it counted (Prometheus names -> values; what /metrics and the OTLP metrics report)."""

    @property
    def name(self) -> str: ...

    def start(self) -> Awaitable[None] | None: ...

    def stop(self) -> Awaitable[None] | None: ...

    def status(self) -> Mapping[str, Any]: ...

    def counters(self) -> Mapping[str, float]: ...


async def _run(result: Awaitable[None] | None) -> None:
    if inspect.isawaitable(result):
        await result


class Supervisor:
    __slots__ = ("_started", "components")

    def __init__(self, components: Sequence[Component]) -> None:
        self.components = tuple(components)
        self._started: list[Component] = []

    async def start(self) -> None:
        """Start each in order; the ones started are stopped by `stop` even when a later one fails to start."""
        for component in self.components:
            await _run(component.start())
            self._started.append(component)

    async def stop(self) -> None:
        """Stop every started component in reverse order, whatever the others do; raises the first error."""
        errors: list[Exception] = []
        while self._started:
            component = self._started.pop()
            try:
                await _run(component.stop())
            except Exception as exc:  # keep stopping the rest: the decision log must still be flushed
                log.error("component_stop_failed", component=component.name, error=str(exc))
                errors.append(exc)
        if errors:
            raise errors[0]

    def status(self) -> dict[str, Mapping[str, Any]]:
        """Every component's own status, by name."""
        return {component.name: component.status() for component in self.components}

    def counters(self) -> dict[str, float]:
        """Every component's counters, in one mapping (their names do not overlap)."""
        merged: dict[str, float] = {}
        for component in self.components:
            merged.update(component.counters())
        return merged
