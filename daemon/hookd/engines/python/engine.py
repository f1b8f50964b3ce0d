"""Python policies, evaluated out of process in a pool of sandboxed workers (docs/python-policies.md).

Each worker is a clean interpreter (`-I -S -B`, a minimal environment) that puts itself under the sandbox
layers of hookd.sandbox.layers and then loads the set's sources. A request crosses as a length-prefixed
JSON frame on a pipe, and only when a Python policy applies to the event. Per call: a deadline, after
which the worker is killed and replaced (an EngineTimeout: the event's fail mode); an exception or a crash
is a PolicyError (closed wherever a deny can block), with the traceback in the daemon's log only; after
either, the worker is replaced, in the background, so that a respawn never holds a decision beyond its
deadline. Both reach the pipeline in a PartialAnswer beside the verdicts of the policies that answered: the
pipeline alone turns them into verdicts (hookd.engines.base).

The pipes are read with `loop.add_reader` per read instead of a transport bound to one loop, so the same
engine serves the daemon's loop and the short-lived loops of `hookd eval` and `hookd test`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import structlog

from hookd.config import Config
from hookd.engines.python.channel import PolicyWorker, WorkerSettings
from hookd.engines.python.pool import session_of
from hookd.engines.python.pooled import PooledEngine, spawn_workers
from hookd.errors import (
    EngineError,
    EngineTimeout,
    PartialAnswer,
    PolicyError,
    WorkerGone,
    verdicts_or_partial,
)
from hookd.policy.python_sources import PythonPolicySet
from hookd.types import EngineRequest, EngineStatus, PackageInfo, Verdict, VerdictKind

log = structlog.get_logger("hookd")
ENGINE_POLICY = "hookd.python"
MAX_MESSAGE_CHARS = 4096  # one verdict's message (a reason, context, or system message), cut beyond


@dataclass(frozen=True, slots=True)
class Route:
    name: str
    events: frozenset[str] | None
    kinds: frozenset[str] | None
    tools: frozenset[str] | None

    def applies(self, event: str, kind: str | None, tool: str | None) -> bool:
        for allowed, value in ((self.events, event), (self.kinds, kind), (self.tools, tool)):
            if allowed is not None and value not in allowed:
                return False
        return True


def _route(entry: Mapping[str, Any]) -> Route:
    def maybe(key: str) -> frozenset[str] | None:
        value = entry.get(key)
        return frozenset(value) if value is not None else None

    return Route(str(entry["name"]), maybe("events"), maybe("kinds"), maybe("tools"))


class PythonEngine(PooledEngine):
    """The Python policies of one policy set. Build with `PythonEngine.start(...)`: it returns once every
    worker has loaded the policies, or with `wait=False` at once, and then `await engine.ready()` does the
    waiting without holding the event loop (a reload). Either raises PolicyLoadError, and the old set serves on."""

    name = "python"
    workers_of = "Python policy"

    def __init__(
        self,
        policy_set: PythonPolicySet,
        settings: WorkerSettings,
        workers: Sequence[PolicyWorker],
    ) -> None:
        super().__init__(settings, lambda: PolicyWorker(policy_set, settings), workers)
        self.policy_set = policy_set
        self.sandbox_layers: list[dict[str, Any]] = []
        self._policies: list[dict[str, Any]] = []
        self._routes: list[Route] = []
        self._policy_ids: dict[str, str] = {}
        self._route_cache: dict[tuple[str, str | None, str | None], tuple[str, ...]] = {}

    @classmethod
    def start(
        cls,
        policy_set: PythonPolicySet,
        settings: WorkerSettings,
        *,
        wait: bool = True,
    ) -> PythonEngine:
        engine = cls(policy_set, settings, spawn_workers(lambda: PolicyWorker(policy_set, settings), settings))
        engine._started(wait=wait)
        return engine

    def _loaded(self, ready: Mapping[str, Any]) -> None:
        self.sandbox_layers = list(ready["layers"])
        self._policies = list(ready["policies"])
        self._routes = [_route(p) for p in self._policies]
        self._policy_ids = {str(p["name"]): str(p["policy_id"]) for p in self._policies}

    # --- the Engine protocol ---

    def evaluate(self, request: EngineRequest) -> Sequence[Verdict] | Awaitable[Sequence[Verdict]]:
        """No Python policy applies to the event: answered in the call, no worker asked; else the workers'
        answer, awaited."""
        document = request.document
        tool = document.get("tool") or {}
        names = self._applicable(str(document.get("event")), tool.get("kind"), tool.get("name"))
        return self._asked(names, request) if names else []

    async def _asked(self, names: Sequence[str], request: EngineRequest) -> Sequence[Verdict]:
        self._calls.enter()
        try:
            return await self._evaluate(names, request)
        finally:
            self._calls.leave()

    def status(self) -> EngineStatus:
        return EngineStatus(
            self.name,
            self.policy_set.revision,
            str(self.policy_set.policy_dir),
            tuple(sorted(set(self._policy_ids.values()))),
            sandbox_layers=tuple(dict(layer) for layer in self.sandbox_layers),
        )

    @property
    def packages(self) -> tuple[PackageInfo, ...]:
        """One entry per policy function, for ListPolicies: its policy id, its name as the rule, its routing."""
        return tuple(
            PackageInfo(
                name=self._policy_ids[route.name],
                rules={route.name.split(":", 1)[1]: "python"},
                routing={
                    key: value
                    for key, value in (("events", route.events), ("kinds", route.kinds), ("tools", route.tools))
                    if value is not None
                },
            )
            for route in self._routes
        )

    # --- one call ---

    def _applicable(self, event: str, kind: str | None, tool: str | None) -> tuple[str, ...]:
        key = (event, kind, tool)
        names = self._route_cache.get(key)
        if names is None:
            names = tuple(r.name for r in self._routes if r.applies(event, kind, tool))
            if len(self._route_cache) < 4096:
                self._route_cache[key] = names
        return names

    async def _evaluate(self, names: Sequence[str], request: EngineRequest) -> list[Verdict]:
        loop = asyncio.get_running_loop()
        budget = min(self.settings.timeout, request.deadline.remaining())
        if budget <= 0:  # nothing was sent: no worker needs replacing
            raise PartialAnswer([self._timed_out("the request's deadline passed before the Python policies ran")])
        end = loop.time() + budget
        session = session_of(request.event)
        try:
            worker = await self._pool.acquire(session, end)
        except TimeoutError:
            raise PartialAnswer(
                [self._timed_out(f"no Python policy worker was free within {budget * 1000:.0f} ms")]
            ) from None
        self._next_id += 1
        call = {"id": self._next_id, "policies": list(names)}
        try:
            async with asyncio.timeout_at(end):
                answer = await worker.call(call, request.document)
        except TimeoutError:
            log.warning("python_policy_timeout", worker=worker.pid, policies=list(names), ms=round(budget * 1000))
            self._pool.replace(worker, session)
            what = f"Python policies {', '.join(names)} did not answer within {budget * 1000:.0f} ms"
            raise PartialAnswer([self._timed_out(what)]) from None
        except WorkerGone as exc:
            log.error(
                "python_worker_died",
                worker=worker.pid,
                reason=str(exc),
                policies=list(names),
                stderr=worker.stderr_tail(),
            )
            self._pool.replace(worker, session)
            raise PartialAnswer([self._failed(ENGINE_POLICY, f"a Python policy worker crashed ({exc})")]) from None
        except BaseException:
            self._pool.replace(worker, session)  # cancelled mid-call: its channel is in an unknown state
            raise
        results = self._results(answer)
        if answer.get("retire") or answer.get("errors"):
            self._pool.replace(worker, session, charge=False)
        else:
            self._pool.release(worker, session)
        return verdicts_or_partial(results)

    def _results(self, answer: Mapping[str, Any]) -> list[Verdict | EngineError]:
        out: list[Verdict | EngineError] = []
        for error in answer.get("errors") or []:
            policy = str(error.get("policy") or ENGINE_POLICY)
            log.error("python_policy_error", policy=policy, function=error.get("name"), error=error.get("error"),
                      traceback=error.get("traceback"))  # fmt: skip
            kind = str(error.get("error", "error")).split(":", 1)[0]
            out.append(self._failed(policy, f"Python policy {error.get('name') or policy} failed ({kind})"))
        for raw in answer.get("verdicts") or []:
            try:
                out.append(_verdict(raw))
            except (KeyError, TypeError, ValueError) as exc:
                log.error("python_policy_bad_verdict", verdict=str(raw)[:500], error=str(exc))
                out.append(self._failed(ENGINE_POLICY, "a Python policy returned a malformed verdict"))
        return out

    @staticmethod
    def _failed(policy: str, what: str) -> PolicyError:
        """An exception or a crash (the pipeline fails it closed; the traceback is only logged)."""
        return PolicyError(f"{what}; the details are in the hookd log", policy=policy, rule="python-error")

    @staticmethod
    def _timed_out(what: str) -> EngineTimeout:
        return EngineTimeout(what, policy=ENGINE_POLICY)


_KINDS: Mapping[str, VerdictKind] = {kind.value: kind for kind in VerdictKind}


def _capped(message: str) -> str:
    if len(message) <= MAX_MESSAGE_CHARS:
        return message
    return f"{message[: MAX_MESSAGE_CHARS - 40]}… [cut: {len(message)} characters]"


def _verdict(raw: Mapping[str, Any]) -> Verdict:
    patch = raw.get("patch") or {}
    if not isinstance(patch, dict):
        raise TypeError("patch must be an object")
    return Verdict(
        kind=_KINDS[str(raw["kind"])],
        policy_id=str(raw["policy"]),
        rule_id=str(raw["rule"]),
        message=_capped(str(raw.get("message", ""))),
        patch=patch,
    )


def start_engine(config: Config, policy_set: PythonPolicySet, *, wait: bool = True) -> PythonEngine:
    return PythonEngine.start(policy_set, WorkerSettings.from_config(config), wait=wait)


def probe_layers(config: Config) -> list[dict[str, Any]]:
    """Start one real worker with no policies and return the layers it could put itself under."""
    empty = PythonPolicySet(Path("/"), (), "probe")
    settings = replace(WorkerSettings.from_config(config), workers=1)
    engine = PythonEngine.start(empty, settings)
    try:
        return [dict(layer) for layer in engine.sandbox_layers]
    finally:
        engine.close()


__all__ = ["PythonEngine", "WorkerSettings", "probe_layers", "start_engine"]
