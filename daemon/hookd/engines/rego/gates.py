"""`routing.facts`: a package evaluated only when one of the facts it names holds something.

A package whose every verdict iterates a fact (self-protection's over `input.hookd.protected` and
`input.hookd.starts`) can answer nothing while those are empty; it says so with `"facts": ["hookd.protected",
"hookd.starts"]`, and the router leaves it out of the calls where all of them are empty or missing, as it
leaves a shell-routed package out of the command lines that do not hold its commands (docs/policies.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hookd.errors import PolicyLoadError
from hookd.types import JSON, PackageInfo


@dataclass(frozen=True, slots=True)
class FactGate:
    """The facts (input paths, split at dots) of which one must hold something for `package` to be evaluated."""

    package: str
    paths: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, package: PackageInfo, input_keys: frozenset[str]) -> FactGate | None:
        """The package's gate, None when it declares none. Raises PolicyLoadError for a path outside the input
        keys (a typo would otherwise leave the package out of every call)."""
        facts = package.routing.get("facts")
        if facts is None:
            return None
        paths = tuple(tuple(fact.split(".")) for fact in sorted(facts))
        unknown = sorted(".".join(p) for p in paths if p[0] not in input_keys or "" in p)
        if unknown or not paths:
            raise PolicyLoadError(
                f"{package.name}.routing.facts must name input paths under {sorted(input_keys)}; got {unknown}"
            )
        return cls(package.name, paths)

    @property
    def keys(self) -> frozenset[str]:
        """The top-level input keys the gate reads: they must be made for it to hold."""
        return frozenset(path[0] for path in self.paths)

    def holds(self, document: Mapping[str, JSON]) -> bool:
        return any(_holds_something(_at(document, path)) for path in self.paths)


def _at(document: Mapping[str, JSON], path: tuple[str, ...]) -> Any:
    value: Any = document
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _holds_something(value: Any) -> bool:
    """A non-empty list, object or string, a number, or true; not null, false, empty or missing."""
    if isinstance(value, bool):
        return value
    return isinstance(value, int | float) or (isinstance(value, list | dict | str) and len(value) > 0)
