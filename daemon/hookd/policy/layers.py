"""Policy layers: organisation bundles, then the user's policy directory, then opted-in projects' policy
directories. Every layer that applies evaluates the same request; its verdicts are tagged with the
layer's name and rank (0 = organisation, highest precedence) and combined together, where deny-wins
keeps a lower layer from relaxing a higher one and policy.combine drops a lower layer's rewrite that
would override a higher layer's (docs/bundles.md, "Layers").

A layer's `mode` says whether it decides: "enforce" layers do; "monitor" and "shadow" layers never take
part in `evaluate` (so they cannot change an answer, not even make it slower): hookd.rollout evaluates
them after the reply is written and records what they would have decided (docs/rollout.md)."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Sequence
from dataclasses import replace

from hookd.errors import EngineError, Results, results_of, verdicts_or_partial
from hookd.types import (
    ENFORCE,
    MODES,
    MONITOR,
    SHADOW,
    USER_LAYER,
    Engine,
    EngineRequest,
    EngineStatus,
    Layer,
    LayerStatus,
    PackageInfo,
    PolicySet,
    Rank,
    Verdict,
    reads_of,
    settled,
)

__all__ = [  # the layer's words live in hookd.types (the PolicySet holds them); named here too
    "ENFORCE",
    "MODES",
    "MONITOR",
    "SHADOW",
    "USER_LAYER",
    "Layer",
    "LayeredEngine",
    "Rank",
    "evaluate_layers",
    "layered",
    "policy_set_of",
]


def layered(layers: Sequence[Layer]) -> PolicySet:
    """The policy set of `layers`: its engine evaluates the enforced ones, ranked and tagged."""
    engine = LayeredEngine(layers)
    return PolicySet(engine.layers, engine)


def policy_set_of(engine: Engine) -> PolicySet:
    """The policy set `engine` serves: a layered engine's layers, else `engine` alone as the user's layer
    (evaluated as it is, so a single engine answers exactly as before)."""
    if isinstance(engine, LayeredEngine):
        return PolicySet(engine.layers, engine)
    status = engine.status()
    return PolicySet((Layer(USER_LAYER, Rank.USER, engine, location=status.policy_dir),), engine)


class LayeredEngine:
    name = "layered"

    def __init__(self, layers: Sequence[Layer]) -> None:
        if not layers:
            raise ValueError("a layered engine needs at least one layer")
        self.layers = tuple(sorted(layers, key=lambda layer: layer.rank))
        self.enforced = tuple(layer for layer in self.layers if layer.mode == ENFORCE)
        self.observed = tuple(layer for layer in self.layers if layer.mode != ENFORCE)  # monitor and shadow
        self.remote = any(layer.engine.remote for layer in self.enforced)
        self.reads = reads_of([layer.engine for layer in self.layers])  # monitor and shadow layers see the event
        self._status = self._make_status()

    def evaluate(self, request: EngineRequest) -> Sequence[Verdict] | Awaitable[Sequence[Verdict]]:
        enforced = self.enforced
        if len(enforced) == 1 and not self.observed and not enforced[0].project_root:
            return enforced[0].engine.evaluate(request)  # one layer: nothing to rank or tag
        return evaluate_layers(enforced, request)

    async def ready(self) -> None:
        """Wait until every layer can serve (engines that start asynchronously, like Python workers)."""
        for layer in self.layers:
            await layer.engine.ready()

    async def aclose(self) -> None:
        for layer in self.layers:
            await layer.engine.aclose()

    @property
    def packages(self) -> tuple[PackageInfo, ...]:
        """Every loaded package, tagged with its layer, highest layer first."""
        return tuple(replace(p, layer=layer.name) for layer in self.layers for p in layer.engine.packages)

    def status(self) -> EngineStatus:
        return self._status

    def _make_status(self) -> EngineStatus:
        parts = tuple(layer.engine.status() for layer in self.layers)
        revisions = {layer.name: layer.revision() for layer in self.layers}
        if len(self.layers) == 1:
            revision = next(iter(revisions.values()))
        else:
            joined = "\n".join(f"{name}={rev}" for name, rev in revisions.items())
            revision = hashlib.sha256(joined.encode()).hexdigest()[:12]
        user = next((st for layer, st in zip(self.layers, parts, strict=True) if layer.rank is Rank.USER), parts[0])
        layers = tuple(
            LayerStatus(
                layer.name,
                layer.rank.name.lower(),
                layer.location,
                layer.project_root,
                revisions[layer.name],
                st,
                layer.mode,
                layer.replaces,
            )
            for layer, st in zip(self.layers, parts, strict=True)
        )
        return EngineStatus(
            "+".join(dict.fromkeys(st.engine for st in parts)),
            revision,
            user.policy_dir,
            tuple(name for st in parts for name in st.packages),
            revisions=revisions,
            layers=layers,
            parts=parts,
        )


def evaluate_layers(layers: Sequence[Layer], request: EngineRequest) -> list[Verdict] | Awaitable[list[Verdict]]:
    """Every layer that applies to the request's project, its verdicts tagged with its name and rank, one layer
    after the other: answered in the call while each layer is, an awaitable from the first layer that is not."""
    project_dir = request.event.project_dir
    results: list[Verdict | EngineError] = []
    for position, layer in enumerate(layers):
        if layer.applies(project_dir):
            answered = results_of(layer.engine, request)  # one layer's broken policy keeps the others' answers
            if isinstance(answered, Awaitable):
                return _layers_awaited(layers[position:], answered, request, results)
            _add_tagged(layer, answered, results)
    return verdicts_or_partial(results)


async def _layers_awaited(
    layers: Sequence[Layer], first: Awaitable[Results], request: EngineRequest, results: list[Verdict | EngineError]
) -> list[Verdict]:
    """`evaluate_layers` from the first layer whose answer is awaited (`first`) on."""
    _add_tagged(layers[0], await first, results)
    for layer in layers[1:]:
        if layer.applies(request.event.project_dir):
            _add_tagged(layer, await settled(results_of(layer.engine, request)), results)
    return verdicts_or_partial(results)


def _add_tagged(layer: Layer, answered: Sequence[Verdict | EngineError], results: list[Verdict | EngineError]) -> None:
    """`answered` tagged with its layer's name and rank, added to `results`."""
    for result in answered:
        if isinstance(result, EngineError):
            result.layer, result.rank = layer.name, int(layer.rank)
            results.append(result)
        else:
            results.append(replace(result, layer=layer.name, rank=int(layer.rank)))
