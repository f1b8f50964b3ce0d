"""The gRPC services of protos/hookd/v1/hookd.proto over a running Daemon (docs/control.md).

Evaluate and Decide go through the daemon's own pipeline, so they answer exactly what the hook socket
answers; Decide is logged and counted like a hook request (a heavy one decided by the lane, as the hook
socket's: it never holds this process's loop), Evaluate (a dry run) is neither. The caller
comes from `current_caller`, set by the control server's interceptor from the connection's SO_PEERCRED.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from importlib import metadata
from typing import Any, Protocol

import grpc

from hookd import __version__
from hookd.audit.record import Logged, rfc3339
from hookd.audit.writer import Filters
from hookd.components.outputs import Exporters, Fleet, Metrics, Recording
from hookd.components.policy import PolicyService
from hookd.components.servers import HookPath
from hookd.config import Config
from hookd.control.peers import current_caller
from hookd.dialects.registry import DEFAULT_AGENT
from hookd.errors import DialectError, LaneRefused
from hookd.lane import DECIDE_VIA
from hookd.pipeline import InteractiveProbe
from hookd.policy.layers import USER_LAYER
from hookd.runtime.metrics import DecisionMetrics
from hookd.types import Caller, Deadline, EngineStatus, Handled, HookRequest, Reply, Verdict
from hookd.v1 import hookd_pb2 as pb
from hookd.v1 import hookd_pb2_grpc


class Configured(Protocol):
    config: Config


class Decides(Configured, Protocol):
    """What the Hook service needs: the daemon's decision path, counted and logged like a hook request
    (hookd.decide.Decider)."""

    async def decide(self, request: HookRequest) -> Reply: ...  # with its decision and decision_id


class Evaluates(Configured, Protocol):
    """What the Control service's Evaluate needs: a dry run through the daemon's pipeline."""

    async def evaluate(self, request: HookRequest, probe: InteractiveProbe | None = None) -> Handled: ...


@dataclass(frozen=True, slots=True)
class Parts:
    """What the Control service reads: the daemon's components, each for its own status."""

    config: Config
    policy: PolicyService
    hook_path: HookPath
    recording: Recording
    exporters: Exporters
    metrics: Metrics
    decisions: DecisionMetrics  # counted by the decision path (hookd.decide)
    started_at: float
    fleet: Fleet | None = None  # discovery and the status reports (docs/fleet.md)


NO_PYTHON_NOTE = (
    "no Python policies are loaded, so no Python worker runs; the Rego policies run in-process in the embedded engine"
)
PYTHON_NOTE = "the isolation layers of the Python policy workers, as the workers reported them at start"


MAX_ENV = 64


def _caller(ppid: int = 0) -> Caller:
    caller = current_caller.get()
    return Caller(uid=caller.uid, gid=caller.gid, pid=caller.pid, ppid=ppid)


def verdict_message(verdict: Verdict) -> pb.Verdict:
    return pb.Verdict(
        kind=verdict.kind.value,
        policy=verdict.policy_id,
        rule=verdict.rule_id,
        message=verdict.message,
        patch_json=json.dumps(dict(verdict.patch), sort_keys=True) if verdict.patch else "",
    )


def bundle_message(status: dict[str, Any]) -> pb.BundleStatus:
    def when(key: str) -> str:
        return rfc3339(status[key]) if status.get(key) else ""

    return pb.BundleStatus(
        name=status["name"],
        location=status["location"],
        revision=status["revision"],
        active_since=when("active_since"),
        last_success=when("last_success"),
        last_error=status["last_error"],
        last_error_at=when("last_error_at"),
        next_poll=when("next_poll"),
        consecutive_failures=status["consecutive_failures"],
        downloads=status["downloads"],
        not_modified=status["not_modified"],
        activations=status["activations"],
        refusals=status["refusals"],
        fetch_failures=status["fetch_failures"],
        long_polling=status["long_polling"],
        last_activation_ms=status["last_activation_ms"],
    )


def fleet_message(fleet: Fleet | None) -> pb.FleetStatus | None:
    """The status target and its last report, and the discovery bundle in force (docs/fleet.md)."""
    if fleet is None or fleet.reports is None:
        return None
    view = fleet.reports.control_view()
    discovery = view.pop("discovery")
    at = view.pop("last_report_at")
    return pb.FleetStatus(
        **view,
        last_report_at=rfc3339(at) if at else "",
        discovery=bundle_message(discovery) if discovery is not None else None,
        overrides_refused=discovery["overrides_refused"] if discovery is not None else [],
    )


def rollout_status(policy: PolicyService) -> pb.RolloutStatus:
    counters = policy.observer.counters
    layers = policy.current.status().layers
    shadow = next((layer.name for layer in layers if layer.mode == "shadow"), "")
    return pb.RolloutStatus(
        monitor=[
            pb.MonitorCount(layer=k[0], decision=k[1], count=n) for k, n in sorted(dict(counters.monitor).items())
        ],
        shadow=shadow,
        shadow_evaluated=counters.shadow_evaluated,
        disagreements=dict(counters.disagreements),
        skipped=dict(counters.skipped),
        errors=counters.errors,
        cpu_budget_percent=policy.config.rollout.cpu_budget_percent,
    )


def engine_description(status: EngineStatus) -> str:
    name = status.engine
    if name != "rego":
        return name
    try:
        version = metadata.version("gordon-to-regorus")
    except metadata.PackageNotFoundError:  # pragma: no cover - the engine is a dependency
        version = "?"
    return f"rego (embedded regorus, gordon-to-regorus {version})"


def _event_of(payload: bytes) -> str:
    try:
        value = json.loads(payload)
    except ValueError:
        return ""
    name = value.get("hook_event_name") if isinstance(value, dict) else None
    return name if isinstance(name, str) else ""


class ControlService(hookd_pb2_grpc.ControlServicer):
    def __init__(self, parts: Parts, decider: Evaluates) -> None:
        self.parts = parts
        self.config = parts.config  # what _hook_request reads (Configured)
        self.decider = decider

    def policy_set(self) -> pb.PolicySet:
        policy = self.parts.policy
        status = policy.current.status()
        return pb.PolicySet(
            name=USER_LAYER,
            path=status.policy_dir,
            revision=status.revision,
            packages=list(status.packages),
            loaded_at=rfc3339(policy.holder.loaded_at),
        )

    def policy_sets(self) -> list[pb.PolicySet]:
        """Every policy layer that serves (bundles, the user's directory, projects), or the one set."""
        policy = self.parts.policy
        layers = policy.current.status().layers
        if len(layers) < 2:
            return [self.policy_set()]
        return [
            pb.PolicySet(
                name=layer.name,
                path=layer.location,
                revision=layer.revision,
                packages=list(layer.engine.packages),
                loaded_at=rfc3339(policy.holder.loaded_at),
                mode=layer.mode,
                replaces=layer.replaces,
            )
            for layer in layers
        ]

    async def Status(self, request: pb.StatusRequest, context: Any) -> pb.StatusResponse:
        parts = self.parts
        policy, hook_path = parts.policy, parts.hook_path.status()
        engine = policy.current.status()
        layers = engine.all_sandbox_layers()
        exported = parts.exporters.status()
        return pb.StatusResponse(
            version=__version__,
            pid=os.getpid(),
            started_at=rfc3339(parts.started_at),
            uptime_seconds=round(time.time() - parts.started_at, 3),
            engine=engine_description(engine),
            policy_sets=self.policy_sets(),
            counters=pb.Counters(
                requests=hook_path["requests"],
                decisions=parts.decisions.by_outcome(),
                errors=hook_path["errors"],
                reloads=policy.reloads,
                reload_failures=policy.reload_failures,
            ),
            sandbox_layers=[pb.SandboxLayer(name=x["name"], active=x["active"], detail=x["detail"]) for x in layers],
            sandbox_note=PYTHON_NOTE if layers else NO_PYTHON_NOTE,
            hook_socket=str(parts.config.hook_socket),
            control_socket=str(parts.config.control_socket),
            decision_log=pb.DecisionLogStatus(
                **parts.recording.status(),
                shipping=pb.LogShipping(**exported["shipping"]) if exported["shipping"] else None,
            ),
            bundles=[bundle_message(status) for status in policy.bundles.snapshot()],
            metrics_address=parts.metrics.status()["address"],
            worker_pids=hook_path["worker_pids"],
            worker_restarts=hook_path["worker_restarts"],
            lane_pid=hook_path["lane_pid"],
            stream_lane_pid=hook_path["stream_lane_pid"],
            lane_requests=hook_path["lane_requests"],
            rollout=rollout_status(policy),
            otel=pb.OtelStatus(**exported["otel"]) if exported["otel"] is not None else None,
            replay=pb.ReplayStatus(**policy.replay.status()) if policy.replay is not None else None,
            fleet=fleet_message(parts.fleet),
        )

    async def Reload(self, request: pb.ReloadRequest, context: Any) -> pb.ReloadResponse:
        caller = current_caller.get()
        result = await self.parts.policy.reload(requested_by=f"uid {caller.uid} pid {caller.pid}")
        return pb.ReloadResponse(
            ok=result.ok, error=result.error, previous_revision=result.previous, policy_set=self.policy_set()
        )

    async def ListPolicies(self, request: pb.ListPoliciesRequest, context: Any) -> pb.ListPoliciesResponse:
        packages = []
        for package in self.parts.policy.current.packages:
            routing = package.routing
            packages.append(
                pb.PolicyPackage(
                    name=package.name,
                    policy_set=package.layer or USER_LAYER,
                    rules=[pb.Rule(name=name, kind=kind) for name, kind in sorted(package.rules.items())],
                    routing=pb.Routing(
                        events=sorted(routing.get("events", ())),
                        kinds=sorted(routing.get("kinds", ())),
                        tools=sorted(routing.get("tools", ())),
                    ),
                )
            )
        return pb.ListPoliciesResponse(policy_sets=self.policy_sets(), packages=packages)

    async def Evaluate(self, request: pb.EvaluateRequest, context: Any) -> pb.EvaluateResponse:
        event = request.event or _event_of(request.payload)
        if not event:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the payload has no hook_event_name: set event")
        probe: InteractiveProbe | None = None
        if request.interactive == pb.INTERACTIVE_YES:
            probe = _always(True)
        elif request.interactive == pb.INTERACTIVE_NO:
            probe = _always(False)
        hook_request = await _hook_request(request, event, _caller(), self, context)
        try:
            handled = await self.decider.evaluate(hook_request, probe)
        except DialectError as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        except TimeoutError:
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "hookd did not decide within its deadline")
        decision, reply = handled.decision, handled.reply
        return pb.EvaluateResponse(
            decision=decision.outcome.name.lower(),
            stdout=reply.stdout,
            stderr=reply.stderr,
            exit_code=reply.exit_code,
            verdicts=[verdict_message(v) for v in decision.verdicts],
            notes=list(decision.notes),
            decision_id=decision.decision_id,
            revision=handled.policy_set.status().revision if handled.policy_set else "",
        )

    async def StreamDecisions(
        self, request: pb.StreamDecisionsRequest, context: Any
    ) -> AsyncIterator[pb.DecisionRecord]:
        filters = Filters(
            events=frozenset(request.events),
            decisions=frozenset(request.decisions),
            tools=frozenset(request.tools),
            clients=frozenset(request.clients),
            session=request.session_id,
        )
        decision_log = self.parts.recording.log
        subscription = decision_log.subscribe(filters)
        try:
            await context.send_initial_metadata(())  # tells the client it is subscribed
            while (item := await subscription.next()) is not None:
                logged, dropped = item
                yield record_message(logged, dropped)
        finally:
            decision_log.unsubscribe(subscription)


class HookService(hookd_pb2_grpc.HookServicer):
    def __init__(self, daemon: Decides) -> None:
        self.daemon = daemon

    async def Decide(self, request: pb.DecideRequest, context: Any) -> pb.DecideResponse:
        hook_request = await _hook_request(request, request.event, _caller(int(request.ppid)), self.daemon, context)
        hook_request = replace(hook_request, via=DECIDE_VIA)  # recorded so, and a heavy one goes to the lane
        try:
            reply: Reply = await self.daemon.decide(hook_request)
        except DialectError as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        except TimeoutError:
            ms = self.daemon.config.daemon.request_timeout_ms
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, f"hookd did not decide within its {ms} ms deadline")
        except LaneRefused as exc:  # a heavy request the lane did not decide: as the hook socket's error frame
            await context.abort(_LANE_STATUS.get(exc.code, grpc.StatusCode.UNAVAILABLE), f"{exc.code}: {exc}")
        return pb.DecideResponse(
            stdout=reply.stdout,
            stderr=reply.stderr,
            exit_code=reply.exit_code,
            decision=reply.decision,
            decision_id=reply.decision_id,
        )


_LANE_STATUS = {"deadline": grpc.StatusCode.DEADLINE_EXCEEDED, "busy": grpc.StatusCode.RESOURCE_EXHAUSTED}


async def _hook_request(
    request: pb.EvaluateRequest | pb.DecideRequest, event: str, caller: Caller, daemon: Configured, context: Any
) -> HookRequest:
    if len(request.env) > MAX_ENV:
        await context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"env has more than {MAX_ENV} entries")
    return HookRequest(
        client=request.client or DEFAULT_AGENT,
        event=event,
        payload=request.payload,
        env=dict(request.env),
        cwd=request.cwd,
        caller=caller,
        deadline=Deadline.after(daemon.config.daemon.request_timeout_ms / 1000),
        received_at=time.monotonic(),
    )


def _always(answer: bool) -> InteractiveProbe:
    return lambda _pid: answer


def record_message(logged: Logged, dropped: int = 0) -> pb.DecisionRecord:
    record = logged.record
    caller = record.get("caller") or {}
    return pb.DecisionRecord(
        id=str(record.get("id", "")),
        time=str(record.get("time", "")),
        seq=logged.seq,
        client=str(record.get("client", "")),
        event=str(record.get("event", "")),
        tool=str(record.get("tool") or ""),
        decision=str(record.get("decision", "")),
        verdicts=[
            pb.Verdict(
                kind=v["kind"],
                policy=v["policy"],
                rule=v["rule"],
                message=v["message"],
                patch_json=json.dumps(v["patch"], sort_keys=True) if "patch" in v else "",
            )
            for v in record.get("verdicts", [])
        ],
        latency_ms=float(record.get("latency_ms", 0.0)),
        uid=int(caller.get("uid", -1)),
        pid=int(caller.get("pid", 0)),
        session_id=str(record.get("session", "")),
        revisions={str(k): str(v) for k, v in (record.get("revisions") or {}).items()},
        via=str(record.get("via", "")),
        json=logged.line,
        dropped_before=dropped,
    )
