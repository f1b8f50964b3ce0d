"""Which canonical events a policy set needs hooks on: `hookd install` registers only those (plus the ones
hookd's guarantees rest on, hookd.install.registered_events), `hookd doctor` and `hookd status` report one
that is needed and not registered (docs/install.md, "Events registered only when needed")."""

from __future__ import annotations

from collections.abc import Iterable

from hookd.types import Event, PackageInfo

_NAMES = {e.value: e for e in Event}


def needed_events(packages: Iterable[PackageInfo]) -> frozenset[Event]:
    """The union of the events every package routes on. A package that declares no `routing.events` (Rego or
    Python) applies to every event, so it needs them all: an event cannot be left out on a guess."""
    needed: set[Event] = set()
    for package in packages:
        events = package.routing.get("events")
        if events is None:
            return frozenset(Event)
        needed.update(_NAMES[name] for name in events if name in _NAMES)
    return frozenset(needed)
