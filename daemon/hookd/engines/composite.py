"""Several engines serving one policy set (Rego beside Python policies, say): every part evaluates the
same request and their verdicts are combined together, exactly as if one engine had produced them."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from hookd.types import JSON, Engine, EngineRequest, Verdict


class CompositeEngine:
    name = "composite"

    def __init__(self, parts: Sequence[Engine]) -> None:
        if not parts:
            raise ValueError("a composite engine needs at least one part")
        self.parts = tuple(parts)
        # Parts that wait on another process (Python workers) start first, so that their work overlaps the
        # in-process evaluation of the others; the verdicts keep the parts' order (it orders rewrites).
        self._start_order = sorted(range(len(self.parts)), key=lambda i: not getattr(self.parts[i], "remote", False))

    async def evaluate(self, request: EngineRequest) -> Sequence[Verdict]:
        if len(self.parts) == 1:
            return await self.parts[0].evaluate(request)
        started = await asyncio.gather(*(self.parts[i].evaluate(request) for i in self._start_order))
        results: list[Sequence[Verdict]] = [()] * len(self.parts)
        for index, verdicts in zip(self._start_order, started, strict=True):
            results[index] = verdicts
        return [verdict for verdicts in results for verdict in verdicts]

    @property
    def packages(self) -> tuple[Any, ...]:
        """The parts' policy packages (Rego packages, Python policy functions), for ListPolicies."""
        return tuple(package for part in self.parts for package in getattr(part, "packages", ()))

    async def ready(self) -> None:
        """Wait for the parts that start in the background (Python workers after a reload)."""
        for part in self.parts:
            ready = getattr(part, "ready", None)
            if ready is not None:
                await ready()

    async def aclose(self) -> None:
        await asyncio.gather(*(part.aclose() for part in self.parts))

    def describe(self) -> Mapping[str, JSON]:
        described = [dict(part.describe()) for part in self.parts]
        revisions = "\n".join(str(d.get("revision", "")) for d in described)
        packages: list[JSON] = [p for d in described for p in _as_list(d.get("packages"))]
        return {
            "engine": "+".join(str(d.get("engine", part.name)) for d, part in zip(described, self.parts, strict=True)),
            "policy_dir": described[0].get("policy_dir", ""),
            "revision": hashlib.sha256(revisions.encode()).hexdigest()[:12],
            "packages": packages,
            "parts": list[JSON](described),
        }


def _as_list(value: JSON) -> list[JSON]:
    return list(value) if isinstance(value, list) else []
