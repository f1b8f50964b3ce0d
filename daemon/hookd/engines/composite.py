"""Several engines serving one policy set (Rego beside Python policies, say): every part evaluates the
same request and their verdicts are combined together, exactly as if one engine had produced them. A part
whose policies partly failed does not drop the others' answers: they travel on in one PartialAnswer."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence

from hookd.errors import EngineError, PartialAnswer, verdicts_or_partial
from hookd.types import Engine, EngineRequest, EngineStatus, PackageInfo, Verdict


class CompositeEngine:
    name = "composite"
    remote = False

    def __init__(self, parts: Sequence[Engine]) -> None:
        if not parts:
            raise ValueError("a composite engine needs at least one part")
        self.parts = tuple(parts)
        self.immediate = all(part.immediate for part in self.parts)
        # Parts that wait on another process (Python workers) start first, so that their work overlaps the
        # in-process evaluation of the others; the verdicts keep the parts' order (it orders rewrites).
        self._start_order = sorted(range(len(self.parts)), key=lambda i: not self.parts[i].remote)

    async def evaluate(self, request: EngineRequest) -> Sequence[Verdict]:
        if len(self.parts) == 1:
            return await self.parts[0].evaluate(request)
        started = await asyncio.gather(*(_answer(self.parts[i], request) for i in self._start_order))
        per_part: list[Sequence[Verdict | EngineError]] = [()] * len(self.parts)
        for index, answered in zip(self._start_order, started, strict=True):
            per_part[index] = answered
        results = [result for answered in per_part for result in answered]
        return verdicts_or_partial(results)

    def evaluate_now(self, request: EngineRequest) -> Sequence[Verdict]:
        if len(self.parts) == 1:
            return self.parts[0].evaluate_now(request)
        return verdicts_or_partial([result for part in self.parts for result in _answer_now(part, request)])

    @property
    def packages(self) -> tuple[PackageInfo, ...]:
        """The parts' policy packages (Rego packages, Python policy functions), for ListPolicies."""
        return tuple(package for part in self.parts for package in part.packages)

    async def ready(self) -> None:
        """Wait for the parts that start in the background (Python workers after a reload)."""
        for part in self.parts:
            await part.ready()

    async def aclose(self) -> None:
        await asyncio.gather(*(part.aclose() for part in self.parts))

    def status(self) -> EngineStatus:
        parts = tuple(part.status() for part in self.parts)
        revisions = "\n".join(part.revision for part in parts)
        return EngineStatus(
            "+".join(part.engine for part in parts),
            hashlib.sha256(revisions.encode()).hexdigest()[:12],
            parts[0].policy_dir,
            tuple(name for part in parts for name in part.packages),
            parts=parts,
        )


async def _answer(part: Engine, request: EngineRequest) -> Sequence[Verdict | EngineError]:
    try:
        return await part.evaluate(request)
    except PartialAnswer as exc:
        return exc.results


def _answer_now(part: Engine, request: EngineRequest) -> Sequence[Verdict | EngineError]:
    try:
        return part.evaluate_now(request)
    except PartialAnswer as exc:
        return exc.results
