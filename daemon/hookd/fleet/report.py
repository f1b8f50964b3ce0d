"""One status report in OPA's status API format (docs/fleet.md, "Status"): OPA's fields (`labels`,
`bundles`, `discovery`, `plugins`) as OPA fills them, so a management service built for OPA's status API
takes hookd's, and what OPA has no field for under `hookd`. A pure function of what the daemon reports."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hookd.audit.record import rfc3339
from hookd.types import LayerStatus


@dataclass(frozen=True, slots=True)
class Facts:
    """What one report says, read on the event loop (copies of the daemon's counters; no I/O)."""

    reason: str  # "start", "activation", "failure", "periodic", "stop", "discovery"
    labels: Mapping[str, str]
    bundles: Iterable[Mapping[str, Any]]  # BundleManager.snapshot()
    layers: Iterable[LayerStatus]
    rollout: Mapping[str, Any]
    decisions: Mapping[str, Any]
    agents: Mapping[str, Any]  # doctor's verdict per agent (fleet.doctor)
    doctor: Mapping[str, Any]
    plugins: Mapping[str, Mapping[str, str]]  # plugin name -> {"state": "OK" | "ERROR" | ...}
    discovery: Mapping[str, Any] | None = None  # the discovery source's snapshot, when discovery is on
    errors: list[str] = field(default_factory=list)


def status_report(facts: Facts) -> dict[str, Any]:
    report: dict[str, Any] = {
        "labels": dict(facts.labels),
        "bundles": {str(b["name"]): bundle_status(b) for b in facts.bundles},
        "plugins": {name: dict(state) for name, state in facts.plugins.items()},
        "hookd": {
            "reason": facts.reason,
            "policy_sets": [layer_status(layer) for layer in facts.layers],
            "agents": dict(facts.agents),
            "doctor": dict(facts.doctor),
            "rollout": dict(facts.rollout),
            "decisions": dict(facts.decisions),
            "errors": list(facts.errors),
        },
    }
    if facts.discovery is not None:
        report["discovery"] = bundle_status(facts.discovery)
        report["discovery"]["overrides_refused"] = list(facts.discovery.get("overrides_refused", ()))
    return report


def bundle_status(status: Mapping[str, Any]) -> dict[str, Any]:
    """A source's status as OPA's bundle status: revision, the times of the last request, successful
    request, download and activation, and `code`/`message`/`errors` while its last attempt failed."""
    out: dict[str, Any] = {
        "name": status["name"],
        "active_revision": status["revision"],
        "type": "snapshot",
        "metrics": {
            "counter_bundle_downloads": status["downloads"],
            "counter_bundle_not_modified": status["not_modified"],
            "counter_bundle_activations": status["activations"],
            "counter_bundle_refusals": status["refusals"],
            "counter_bundle_fetch_failures": status["fetch_failures"],
            "timer_bundle_activation_ns": round(float(status["last_activation_ms"]) * 1_000_000),
        },
        "hookd": {
            "location": status["location"],
            "mode": status.get("mode", "enforce"),
            "consecutive_failures": status["consecutive_failures"],
            "long_polling": status["long_polling"],
        },
    }
    for key, at in (
        ("last_request", "last_request"),
        ("last_successful_request", "last_success"),
        ("last_successful_download", "last_download"),
        ("last_successful_activation", "active_since"),
    ):
        if status.get(at):
            out[key] = rfc3339(float(status[at]))
    if status["last_error"]:
        out["code"] = "bundle_error"
        out["message"] = status["last_error"]
        out["errors"] = [status["last_error"]]
    return out


def layer_status(layer: LayerStatus) -> dict[str, str]:
    return {
        "name": layer.name,
        "rank": layer.rank,
        "mode": layer.mode,
        "revision": layer.revision,
        "replaces": layer.replaces,
        "project_root": layer.project_root,
    }
