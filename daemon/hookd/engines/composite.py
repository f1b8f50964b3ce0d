"""Several engines serving one policy set (Rego beside Python policies, say): every part evaluates the
same request and their verdicts are combined together, exactly as if one engine had produced them. A part
whose policies partly failed does not drop the others' answers: they travel on in one PartialAnswer."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Sequence
from typing import cast

from hookd.errors import Results, results_of, verdicts_or_partial
from hookd.types import Engine, EngineRequest, EngineStatus, PackageInfo, Verdict, reads_of, settled


class CompositeEngine:
    name = "composite"

    def __init__(self, parts: Sequence[Engine]) -> None:
        if not parts:
            raise ValueError("a composite engine needs at least one part")
        self.parts = tuple(parts)
        self.remote = any(part.remote for part in self.parts)
        self.reads = reads_of(self.parts)
        # Parts that wait on another process (Python workers) start first, so that their work overlaps the
        # in-process evaluation of the others; the verdicts keep the parts' order (it orders rewrites).
        self._start_order = sorted(range(len(self.parts)), key=lambda i: not self.parts[i].remote)

    def evaluate(self, request: EngineRequest) -> Sequence[Verdict] | Awaitable[Sequence[Verdict]]:
        """Every part answered in the call: their verdicts now; else an awaitable, which asks the in-process
        parts once the remote parts' calls are on their way."""
        if len(self.parts) == 1:
            return self.parts[0].evaluate(request)
        per_part: list[Results | Awaitable[Results]] = [()] * len(self.parts)
        for position, index in enumerate(self._start_order):
            per_part[index] = answered = results_of(self.parts[index], request)
            if isinstance(answered, Awaitable):
                return self._awaited(per_part, self._start_order[position + 1 :], request)
        return verdicts_or_partial([result for answered in per_part for result in cast(Results, answered)])

    async def _awaited(
        self, per_part: list[Results | Awaitable[Results]], rest: Sequence[int], request: EngineRequest
    ) -> list[Verdict]:
        """The remote parts' awaitables each in a task, so that their calls go out before the in-process parts
        still to ask (`rest` holds both, remote first) hold the loop; then every answer, in the parts' order."""
        for index in rest:
            if self.parts[index].remote:
                per_part[index] = results_of(self.parts[index], request)
        tasks = {i: asyncio.ensure_future(a) for i, a in enumerate(per_part) if isinstance(a, Awaitable)}
        local = [index for index in rest if not self.parts[index].remote]
        try:
            if local:
                await asyncio.sleep(0)  # the tasks' first steps: their calls are sent
            for index in local:
                per_part[index] = await settled(results_of(self.parts[index], request))
        except BaseException:
            for task in tasks.values():  # they finish on their own; their errors are not ours to raise
                task.add_done_callback(_retrieved)
            raise
        for index, answered in zip(tasks, await asyncio.gather(*tasks.values()), strict=True):
            per_part[index] = answered
        return verdicts_or_partial([result for answered in per_part for result in cast(Results, answered)])

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


def _retrieved(task: asyncio.Future[Results]) -> None:
    if not task.cancelled():
        task.exception()
