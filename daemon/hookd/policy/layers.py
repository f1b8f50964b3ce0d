"""Policy layers: organisation bundles, then the user's policy directory, then opted-in projects' policy
directories. Every layer that applies evaluates the same request; its verdicts are tagged with the
layer's name and rank (0 = organisation, highest precedence) and combined together, where deny-wins
keeps a lower layer from relaxing a higher one and policy.combine drops a lower layer's rewrite that
would override a higher layer's (docs/bundles.md, "Layers")."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import IntEnum
from typing import Any

from hookd.types import JSON, Engine, EngineRequest, Verdict

USER_LAYER = "default"  # the user's policy directory (daemon.policies); bundles go by their names


class Rank(IntEnum):
    ORGANISATION = 0
    USER = 1
    PROJECT = 2


@dataclass(frozen=True, slots=True)
class Layer:
    name: str  # a bundle's name, "default" (the user's policy directory), or "project:/abs/root"
    rank: Rank
    engine: Engine
    location: str = ""  # a directory, URL or file, for status
    project_root: str = ""  # a project layer applies only to events whose project_dir is within it
    pinned_revision: str = ""  # a bundle's manifest revision (what OPA and the decision log name)

    def applies(self, project_dir: str) -> bool:
        root = self.project_root
        return not root or project_dir == root or project_dir.startswith(root.rstrip("/") + "/")

    def revision(self) -> str:
        return self.pinned_revision or str(self.engine.describe().get("revision", ""))


class LayeredEngine:
    name = "layered"

    def __init__(self, layers: Sequence[Layer]) -> None:
        if not layers:
            raise ValueError("a layered engine needs at least one layer")
        self.layers = tuple(sorted(layers, key=lambda layer: layer.rank))
        self._described = self._describe()
        self._handed_over: frozenset[int] = frozenset()

    def succeeded_by(self, successor: LayeredEngine) -> None:
        """The layers the successor carries over stay open when this engine is closed: layers are shared
        between consecutive engines (a bundle swap keeps the local layers, a local reload the bundles)."""
        self._handed_over = frozenset(id(layer.engine) for layer in successor.layers)

    async def evaluate(self, request: EngineRequest) -> Sequence[Verdict]:
        if len(self.layers) == 1 and not self.layers[0].project_root:
            return await self.layers[0].engine.evaluate(request)  # one layer: nothing to rank or tag
        project_dir = request.event.project_dir
        verdicts: list[Verdict] = []
        for layer in self.layers:
            if layer.applies(project_dir):
                for verdict in await layer.engine.evaluate(request):
                    verdicts.append(replace(verdict, layer=layer.name, rank=int(layer.rank)))
        return verdicts

    async def ready(self) -> None:
        """Wait until every layer can serve (engines that start asynchronously, like Python workers)."""
        for layer in self.layers:
            waiting = getattr(layer.engine, "ready", None)
            if waiting is not None:
                await waiting()

    async def aclose(self) -> None:
        for layer in self.layers:
            if id(layer.engine) not in self._handed_over:
                await layer.engine.aclose()

    @property
    def packages(self) -> tuple[Any, ...]:
        return tuple(p for _, p in self.packages_by_layer())

    def packages_by_layer(self) -> list[tuple[str, Any]]:
        """(layer name, package) for every loaded package, highest layer first."""
        return [(layer.name, p) for layer in self.layers for p in getattr(layer.engine, "packages", ())]

    def describe(self) -> Mapping[str, JSON]:
        return self._described

    def _describe(self) -> dict[str, JSON]:
        parts = [dict(layer.engine.describe()) for layer in self.layers]
        revisions = {layer.name: layer.revision() for layer in self.layers}
        if len(self.layers) == 1:
            revision = next(iter(revisions.values()))
        else:
            joined = "\n".join(f"{name}={rev}" for name, rev in revisions.items())
            revision = hashlib.sha256(joined.encode()).hexdigest()[:12]
        user = next((d for layer, d in zip(self.layers, parts, strict=True) if layer.rank is Rank.USER), parts[0])
        return {
            "engine": "+".join(dict.fromkeys(str(d.get("engine", "")) for d in parts)),
            "policy_dir": user.get("policy_dir", ""),
            "revision": revision,
            "revisions": revisions,
            "packages": [p for d in parts for p in (d.get("packages") or [])],
            "parts": list(parts),  # as CompositeEngine's: where the status finds the Python sandbox layers
            "layers": [
                {"name": layer.name, "rank": layer.rank.name.lower(), "location": layer.location,
                 "project_root": layer.project_root, **d}
                for layer, d in zip(self.layers, parts, strict=True)
            ],
        }  # fmt: skip
