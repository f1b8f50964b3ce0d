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
import contextlib
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import structlog

from hookd.engines.base import not_immediate
from hookd.engines.inflight import InFlight
from hookd.engines.python.channel import PolicyWorker, WorkerSettings
from hookd.engines.python.pool import WorkerPool, failing_to_start, session_of, start_workers, wait_all_ready
from hookd.engines.rego.policyset import (
    PolicySources,
    Router,
    add_modules,
    build_router,
    new_engine,
    read_policy_sources,
    verdicts_from_result,
)
from hookd.errors import EngineError, EngineTimeout, PartialAnswer, PolicyError, WorkerGone
from hookd.policy.python_sources import PythonPolicySet
from hookd.sandbox import scratch
from hookd.types import JSON, EngineRequest, EngineStatus, PackageInfo, Verdict

log = structlog.get_logger("hookd")
ENGINE_POLICY = "hookd.rego"


def setup_frame(sources: PolicySources) -> dict[str, JSON]:
    """What a worker compiles: the modules and data as the daemon read them."""
    return {
        "policy_dir": str(sources.policy_dir),
        "modules": [[path, source] for path, source in sources.modules],
        "data": [[list(document.path), document.value] for document in sources.data],
    }


class RegoIsolatedEngine:
    """Build with `RegoIsolatedEngine.start(policy_dir, settings)`; like the Python engine it returns once
    every worker has compiled the policies, or with `wait=False` at once (then `await ready()`)."""

    name = "rego"
    remote = True
    immediate = False

    def __init__(self, sources: PolicySources, settings: WorkerSettings, workers: list[PolicyWorker]) -> None:
        self.policy_dir = sources.policy_dir
        self.revision = sources.revision
        self.settings = settings
        self._router = Router({})
        self._packages: tuple[PackageInfo, ...] = ()
        self._starting_workers = workers
        empty = PythonPolicySet(sources.policy_dir, (), sources.revision)
        setup = setup_frame(sources)
        self._pool = WorkerPool(
            lambda: PolicyWorker(empty, settings, rego=setup), settings.workers, settings.start_timeout, workers
        )
        self._next_id = 0
        self._calls = InFlight()

    @classmethod
    def start(cls, policy_dir: Path, settings: WorkerSettings, *, wait: bool = True) -> RegoIsolatedEngine:
        """Raises PolicyLoadError (a file that cannot be read, a policy that does not compile or load in time)."""
        sources = read_policy_sources(policy_dir)
        add_modules(new_engine(), sources.modules)  # a syntax error is refused here, in one line, as embedded
        scratch.sweep(Path(settings.scratch_dir or tempfile.gettempdir()))
        empty, setup = PythonPolicySet(sources.policy_dir, (), sources.revision), setup_frame(sources)
        workers = start_workers(lambda: PolicyWorker(empty, settings, rego=setup), settings.workers)
        engine = cls(sources, settings, workers)
        if wait:
            with engine._failing_to_start():
                for worker in workers:
                    worker.wait_ready_blocking(settings.start_timeout)
            engine._serve_with(workers)
        return engine

    async def ready(self) -> None:
        workers, self._starting_workers = self._starting_workers, []
        if not workers:
            return
        with self._failing_to_start():
            await wait_all_ready(workers, self.settings.start_timeout)
        self._serve_with(workers)

    def _failing_to_start(self) -> contextlib.AbstractContextManager[None]:
        return failing_to_start("Rego policy", self._pool.live, self.close)

    def _serve_with(self, workers: list[PolicyWorker]) -> None:
        self._packages = tuple(_package(entry) for entry in workers[0].ready["packages"])
        self._router = Router(build_router(self._packages)[0])
        self._starting_workers = []
        self._pool.serve_with(workers)

    # --- the Engine protocol ---

    def evaluate_now(self, request: EngineRequest) -> Sequence[Verdict]:
        raise not_immediate("isolated Rego")

    async def evaluate(self, request: EngineRequest) -> Sequence[Verdict]:
        if not self._router.rule_for(request.document):
            return []  # no package applies (the workers route by their own router: its rules are theirs)
        self._calls.enter()
        try:
            result = await self._evaluate(request)
        finally:
            self._calls.leave()
        if not isinstance(result, dict):
            raise EngineError(f"rego router returned {type(result).__name__}, expected an object")
        return verdicts_from_result(result)

    async def aclose(self, grace: float = 5.0) -> None:
        self._pool.closing = True
        await self._calls.finished(grace)
        self.close()

    def close(self) -> None:
        self._pool.close()

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

    @property
    def replaced(self) -> int:
        return self._pool.replaced

    def worker_pids(self) -> list[int]:
        return sorted(worker.pid for worker in self._pool.live)

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
