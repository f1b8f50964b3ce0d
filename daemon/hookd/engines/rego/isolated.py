"""Rego policies hookd did not ship, evaluated where a deadline can stop them: a pool of sandboxed worker
processes (hookd.engines.rego.evaluator), one request at a time each.

regorus has no time or instruction limit that its Python binding exposes (the pinned build, 0.13.0, like
upstream's binding: the Rust core's execution timer is not reachable from Python), and it holds the GIL
while it evaluates: in the deciding process, a rule that iterates N by N on a 9-byte command held every
session for 7.5 s. Here the daemon sends the input document and the router rule to a worker, and at the
request's deadline kills the worker (the request gets the event's fail mode, never an allow) while
every other session is served by the other workers (hookd.engines.python.pool: fair by session). The policy
sources are read by the daemon and compiled by the workers, so even a policy slow to load holds only
its own workers, up to `[python] start_timeout_ms`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping, Sequence
from pathlib import Path
from typing import Any

import structlog

from hookd.engines.python.channel import PolicyWorker, WorkerSettings
from hookd.engines.python.pool import NewWorker, session_of
from hookd.engines.python.pooled import PooledEngine, spawn_workers
from hookd.engines.rego.policyset import (
    PolicySources,
    Router,
    add_modules,
    build_router,
    new_engine,
    read_policy_sources,
)
from hookd.engines.rego.reads import union_of
from hookd.engines.rego.verdicts import verdicts_from_result
from hookd.errors import EngineError, EngineTimeout, PartialAnswer, PolicyError, WorkerGone
from hookd.policy.python_sources import PythonPolicySet
from hookd.types import JSON, EngineRequest, EngineStatus, PackageInfo, Verdict

log = structlog.get_logger("hookd")
ENGINE_POLICY = "hookd.rego"


def new_worker(sources: PolicySources, settings: WorkerSettings) -> NewWorker:
    """How a worker for `sources` is started: no Python policies, the Rego sources to compile."""
    empty, setup = PythonPolicySet(sources.policy_dir, (), sources.revision), setup_frame(sources)
    return lambda: PolicyWorker(empty, settings, rego=setup)


def setup_frame(sources: PolicySources) -> dict[str, JSON]:
    """What a worker compiles: the modules and data as the daemon read them."""
    return {
        "policy_dir": str(sources.policy_dir),
        "modules": [[path, source] for path, source in sources.modules],
        "data": [[list(document.path), document.value] for document in sources.data],
    }


class RegoIsolatedEngine(PooledEngine):
    """Build with `RegoIsolatedEngine.start(policy_dir, settings)`; like the Python engine it returns once
    every worker has compiled the policies, or with `wait=False` at once (then `await ready()`)."""

    name = "rego"
    workers_of = "Rego policy"

    def __init__(
        self,
        sources: PolicySources,
        settings: WorkerSettings,
        workers: list[PolicyWorker],
        reads: frozenset[str] | None = None,
    ) -> None:
        super().__init__(settings, new_worker(sources, settings), workers)
        self.reads = reads
        self.policy_dir = sources.policy_dir
        self.revision = sources.revision
        self._router = Router({})
        self._packages: tuple[PackageInfo, ...] = ()

    @classmethod
    def start(cls, policy_dir: Path, settings: WorkerSettings, *, wait: bool = True) -> RegoIsolatedEngine:
        """Raises PolicyLoadError (a file that cannot be read, a policy that does not compile or load in time)."""
        sources = read_policy_sources(policy_dir)
        # a syntax error is refused here, in one line, as embedded
        reads = union_of(m.reads for m in add_modules(new_engine(), sources.modules))
        engine = cls(sources, settings, spawn_workers(new_worker(sources, settings), settings), reads)
        engine._started(wait=wait)
        return engine

    def _loaded(self, ready: Mapping[str, Any]) -> None:
        self._packages = tuple(_package(entry) for entry in ready["packages"])
        self._router = Router(build_router(self._packages)[0])

    # --- the Engine protocol ---

    def evaluate(self, request: EngineRequest) -> Sequence[Verdict] | Awaitable[Sequence[Verdict]]:
        """No package applies: answered in the call (the workers route by their own router: its rules are
        theirs); else the workers' answer, awaited."""
        return self._asked(request) if self._router.rule_for(request.document) else []

    async def _asked(self, request: EngineRequest) -> Sequence[Verdict]:
        self._calls.enter()
        try:
            result = await self._evaluate(request)
        finally:
            self._calls.leave()
        if not isinstance(result, dict):
            raise EngineError(f"rego router returned {type(result).__name__}, expected an object")
        return verdicts_from_result(result)

    def status(self) -> EngineStatus:
        return EngineStatus(
            self.name,
            self.revision,
            str(self.policy_dir),
            tuple(p.name for p in self._packages),
        )

    @property
    def packages(self) -> tuple[PackageInfo, ...]:
        return self._packages

    # --- one call ---

    async def _evaluate(self, request: EngineRequest) -> Any:
        loop = asyncio.get_running_loop()
        budget = request.deadline.remaining()  # the request's alone: a busy lane's queue must not cut it short
        if budget <= 0:
            raise PartialAnswer([_timed_out("the request's deadline passed before the Rego policies ran")])
        end = loop.time() + budget
        session = session_of(request.event)
        try:
            worker = await self._pool.acquire(session, end)
        except TimeoutError:
            raise PartialAnswer([_timed_out(f"no Rego policy worker was free within {budget * 1000:.0f} ms")]) from None
        self._next_id += 1
        try:
            async with asyncio.timeout_at(end):
                answer = await worker.call({"id": self._next_id}, request.document)
        except TimeoutError:
            log.warning(
                "rego_policy_timeout", worker=worker.pid, policy_dir=str(self.policy_dir), ms=round(budget * 1000)
            )
            self._pool.replace(worker, session)
            raise PartialAnswer(
                [_timed_out(f"the Rego policies did not answer within {budget * 1000:.0f} ms")]
            ) from None
        except WorkerGone as exc:
            log.error("rego_worker_died", worker=worker.pid, reason=str(exc), stderr=worker.stderr_tail())
            self._pool.replace(worker, session)
            failed = PolicyError(f"a Rego policy worker crashed ({exc})", policy=ENGINE_POLICY, rule="rego-error")
            raise PartialAnswer([failed]) from None
        except BaseException:
            self._pool.replace(worker, session)  # cancelled mid-call: its channel is in an unknown state
            raise
        if answer.get("retire"):
            self._pool.replace(worker, session, charge=False)
        else:
            self._pool.release(worker, session)
        if "error" in answer:
            raise EngineError(f"rego evaluation failed: {answer['error']}")
        return answer.get("result")


def _timed_out(what: str) -> EngineTimeout:
    return EngineTimeout(what, policy=ENGINE_POLICY)


def _package(entry: Mapping[str, Any]) -> PackageInfo:
    routing = {str(key): frozenset(str(v) for v in values) for key, values in entry["routing"].items()}
    return PackageInfo(str(entry["name"]), {str(k): str(v) for k, v in entry["rules"].items()}, routing)
