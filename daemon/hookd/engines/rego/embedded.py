"""The embedded Rego engine: regorus, loaded once, evaluated with one query per request (the policy set,
its router and the result mapping are hookd.engines.rego.policyset's).

regorus holds the GIL while it evaluates and its Engine may not cross threads, so evaluation runs on
the event-loop thread: a thread hop would cost more than it frees (rego-engines.md, "Threads").
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from hookd.engines.rego.policyset import (
    ROUTER_PACKAGE,
    PolicySet,
    load_policy_set,
)
from hookd.engines.rego.verdicts import verdicts_from_result
from hookd.errors import EngineError, one_line
from hookd.types import JSON, EngineRequest, EngineStatus, PackageInfo, Verdict
from hookd.wire import jsonstrict


class RegoEmbeddedEngine:
    """hookd's default engine. Build with `RegoEmbeddedEngine.load(policy_dir)`."""

    name = "rego"
    remote = False  # answers in the call: the hook server decides in the callback that read the request

    def __init__(self, policies: PolicySet) -> None:
        self._engine = policies.engine
        self._packages = policies.packages
        self._router = policies.router
        self.reads = policies.reads
        self.policy_dir = policies.policy_dir
        self.revision = policies.revision
        self._status = EngineStatus(
            self.name, self.revision, str(self.policy_dir), tuple(p.name for p in self._packages)
        )

    @classmethod
    def load(cls, policy_dir: Path) -> RegoEmbeddedEngine:
        return cls(load_policy_set(policy_dir))

    @property
    def packages(self) -> tuple[PackageInfo, ...]:
        return self._packages

    async def ready(self) -> None:
        return None

    def evaluate(self, request: EngineRequest) -> Sequence[Verdict]:
        return self.evaluate_sync(request.document)

    def evaluate_sync(self, document: Mapping[str, JSON]) -> list[Verdict]:
        route = self._router.route_for(document)
        rule = route.rule_for(document)
        if not rule:
            return []
        try:
            # regorus crashes the process on a string that holds a surrogate (a path with bytes that are not
            # UTF-8 reads as one): what reaches it is well formed whatever an enricher made.
            self._engine.set_input(jsonstrict.well_formed(route.project(document)))
            # As JSON, the way OPA answers: eval_rule cannot return a set of objects or arrays (Python sets
            # need hashable members) and would return a set where OPA's answer has a sorted array.
            result = json.loads(self._engine.eval_rule_as_json(f"data.{ROUTER_PACKAGE}.{rule}"))
        except Exception as exc:  # any evaluation error fails closed upstream
            raise EngineError(f"rego evaluation failed: {one_line(str(exc))}") from exc
        if not isinstance(result, dict):
            raise EngineError(f"rego router returned {type(result).__name__}, expected an object")
        return verdicts_from_result(result)

    async def aclose(self) -> None:
        return None

    def status(self) -> EngineStatus:
        return self._status
