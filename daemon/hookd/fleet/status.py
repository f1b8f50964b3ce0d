"""Status reporting (`[status]`, docs/fleet.md): a report in OPA's status API format on start, on every
bundle activation, refusal and failed request, and every `interval_seconds`; the same facts as OTLP metrics.

Nothing here runs on the decision path. Bundle events only set an event (`trigger`); the reporter task
builds the report from copies of the daemon's counters on the loop (microseconds) and a worker thread
POSTs (or PUTs) it. Triggers that arrive while a report is being sent are coalesced into one more report.
Doctor's checks run on a thread at most once per `doctor_interval_seconds`. Decisions by rule and agent are
counted from the decision log's records by its writer task (`count`, an outlet), after the reply.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import json
import socket
import ssl
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import structlog

from hookd import __version__
from hookd.audit.record import Logged
from hookd.bundle.config import StatusConfig
from hookd.config import Config
from hookd.fleet.doctor import verdict
from hookd.fleet.report import Facts, status_report
from hookd.rollout.observe import RolloutCounters
from hookd.types import LayerStatus

log = structlog.get_logger("hookd.fleet")
Reading = tuple[str, Mapping[str, str], float]  # (OTLP metric, attributes, value), as hookd.rollout.otel reads


@dataclass(frozen=True, slots=True)
class Sources:
    """Where the report's facts come from: callables over the daemon's parts (no Daemon import)."""

    bundles: Callable[[], list[dict[str, Any]]]
    bundle_modes: Callable[[], Mapping[str, str]]
    layers: Callable[[], tuple[LayerStatus, ...]]
    rollout: RolloutCounters
    discovery: Callable[[], dict[str, Any] | None] = lambda: None


class FleetStatus:
    def __init__(self, config: Config, sources: Sources, home: Path | None = None) -> None:
        self.config = config
        self.status_config: StatusConfig = config.status
        self.sources = sources
        self.home = home or Path.home()
        self.labels = {
            "app": "hookd",
            "id": str(uuid.uuid4()),
            "version": __version__,
            "host": socket.gethostname(),
            "user": getpass.getuser(),
        }
        self.by_rule: dict[tuple[str, str, str], int] = {}  # (agent, decision, policy:rule) -> decisions
        self.agents: dict[str, Any] = {}
        self.doctor: dict[str, Any] = {}
        self.sent = self.failures = 0
        self.last_error = ""
        self.last_report: dict[str, Any] = {}
        self.last_sent_at = 0.0  # the last report sent or tried (0: none yet)
        self.last_reason = ""
        self._reasons: list[str] = ["start"]
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._doctor_at = 0.0

    # --- what the daemon calls ---------------------------------------------------------------------------

    def trigger(self, reason: str = "activation") -> None:
        """A bundle activated, was refused or could not be fetched: report soon (never waits)."""
        self._reasons.append(reason)
        self._wake.set()

    def count(self, logged: Logged) -> None:
        """An outlet of the decision log's writer: count the record by agent, outcome and deciding rule."""
        record = logged.record
        if record.get("type") != "decision":
            return
        agent, decision = str(record.get("client") or ""), str(record.get("decision") or "")
        verdicts = record.get("verdicts") or []
        rules = {f"{v.get('policy')}:{v.get('rule')}" for v in verdicts if isinstance(v, dict)} or {""}
        for rule in rules:
            key = (agent, decision, rule)
            self.by_rule[key] = self.by_rule.get(key, 0) + 1

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="hookd-status")

    async def close(self, grace: float = 2.0) -> None:
        """A last report (reason "stop") when reporting is on, for up to `grace` seconds."""
        if self._task is None:
            return
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        if self.status_config.url:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.to_thread(self._send, self.report("stop")), grace)

    def control_view(self) -> dict[str, Any]:
        """What `hookd status` shows of the fleet: the status target and its last report, discovery's state."""
        return {
            "status_url": self.status_config.url,
            "last_report_at": self.last_sent_at,
            "last_report_reason": self.last_reason,
            "last_report_ok": bool(self.last_sent_at) and not self.last_error,
            "last_report_error": self.last_error,
            "reports_sent": self.sent,
            "report_failures": self.failures,
            "discovery": self.sources.discovery(),
        }

    # --- the report --------------------------------------------------------------------------------------

    def report(self, reason: str) -> dict[str, Any]:
        modes = self.sources.bundle_modes()
        bundles = [{**b, "mode": modes.get(str(b["name"]), "enforce")} for b in self.sources.bundles()]
        errors = [f"bundle {b['name']}: {b['last_error']}" for b in bundles if b["last_error"]]
        discovery = self.sources.discovery()
        if discovery is not None and discovery.get("last_error"):
            errors.append(f"discovery: {discovery['last_error']}")
        facts = Facts(
            reason=reason,
            labels=self.labels,
            bundles=bundles,
            layers=self.sources.layers(),
            rollout=self._rollout(),
            decisions=self._decisions(),
            agents=self.agents,
            doctor=self.doctor,
            plugins=self._plugins(bundles, discovery),
            discovery=discovery,
            errors=errors,
        )
        return status_report(facts)

    def _plugins(self, bundles: list[dict[str, Any]], discovery: dict[str, Any] | None) -> dict[str, dict[str, str]]:
        """OPA's plugin states: NOT_READY until every bundle serves a revision; ERROR while reports fail."""
        plugins = {
            "bundle": {"state": "OK" if all(b["revision"] for b in bundles) else "NOT_READY"},
            "status": {"state": "ERROR" if self.last_error else "OK"},
        }
        if discovery is not None:
            plugins["discovery"] = {"state": "OK" if discovery["revision"] else "NOT_READY"}
        return plugins

    def _rollout(self) -> dict[str, Any]:
        r = self.sources.rollout
        return {
            "monitor": [{"layer": k[0], "decision": k[1], "count": n} for k, n in sorted(r.monitor.copy().items())],
            "shadow_evaluated": r.shadow_evaluated,
            "disagreements": r.disagreements.copy(),
            "skipped": r.skipped.copy(),
            "errors": r.errors,
        }

    def _decisions(self) -> dict[str, Any]:
        rows = sorted(self.by_rule.copy().items())
        return {"by_rule": [{"agent": a, "decision": d, "rule": r, "count": n} for (a, d, r), n in rows]}

    # --- the reporter task -------------------------------------------------------------------------------

    async def _run(self) -> None:
        while True:  # status_config is read afresh each round: discovery may change it (docs/fleet.md)
            if time.time() - self._doctor_at >= self.status_config.doctor_interval_seconds:
                await self._run_doctor()
            reasons, self._reasons = self._reasons, []
            reason = _first(reasons)
            self.last_report = self.report(reason)
            if self.status_config.url:
                await self._deliver(self.last_report)
            self._wake.clear()
            if self._reasons:  # triggered while sending: once more, at once
                continue
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.status_config.interval_seconds):
                    await self._wake.wait()
            if not self._reasons:
                self._reasons.append("periodic")

    async def _run_doctor(self) -> None:
        self._doctor_at = time.time()
        try:
            self.agents, self.doctor = await asyncio.to_thread(verdict, self.config, self.home)
        except Exception as exc:  # doctor must never stop the reports
            self.doctor = {"ok": False, "problems": [f"doctor failed: {type(exc).__name__}: {exc}"],
                           "checked_at": time.time()}  # fmt: skip

    async def _deliver(self, report: dict[str, Any]) -> None:
        self.last_sent_at, self.last_reason = time.time(), str(report["hookd"]["reason"])
        try:
            await asyncio.to_thread(self._send, report)
        except Exception as exc:  # the next trigger or period tries again with a fresh report
            self.failures += 1
            error = f"{type(exc).__name__}: {exc}"
            if error != self.last_error:
                log.warning("status_report_failed", url=self.status_config.url, error=error)
            self.last_error = error
            return
        self.sent += 1
        self.last_error = ""

    def _send(self, report: dict[str, Any]) -> None:
        """On a worker thread: one POST (OPA's status API) or PUT (an object store) of the report."""
        config = self.status_config
        url = config.url.format(**{k: self.labels[k] for k in ("host", "user", "id")})
        headers = {"Content-Type": "application/json", "User-Agent": "hookd"}
        token = _token(config)
        if token:
            headers["Authorization"] = f"Bearer {token}"
        body = json.dumps(report, separators=(",", ":"), sort_keys=True).encode()
        request = urllib.request.Request(url, data=body, headers=headers, method=config.method)
        context = ssl.create_default_context(cafile=config.ca_file or None) if url.startswith("https:") else None
        with urllib.request.urlopen(request, timeout=config.timeout_ms / 1000, context=context) as response:
            response.read()

    # --- OTLP metrics (read on the metric reader's thread) -------------------------------------------------

    def gauges(self) -> Iterator[Reading]:
        """`hookd.fleet.up` (1 per reading daemon: a dashboard counts who stopped reporting), the serving
        revision of every layer with its mode, each bundle's failures in a row, doctor's verdict per agent."""
        policy = ",".join(f"{layer.name}={layer.revision}" for layer in self.sources.layers())
        yield "hookd.fleet.up", {"hookd.policy.revisions": policy}, 1
        for layer in self.sources.layers():
            attrs = {"layer": layer.name, "rank": layer.rank, "mode": layer.mode, "revision": layer.revision}
            yield "hookd.fleet.policy_set", attrs, 1
        for bundle in self.sources.bundles():
            failures = bundle["consecutive_failures"]
            yield "hookd.fleet.bundle.consecutive_failures", {"bundle": str(bundle["name"])}, failures
        for agent, found in dict(self.agents).items():
            attrs = {"agent": agent, "scopes": ",".join(found["installed"]), "ok": str(found["ok"]).lower()}
            yield "hookd.fleet.agent", attrs, 1
        if self.doctor:
            yield "hookd.fleet.doctor.problems", {}, len(self.doctor.get("problems", ()))

    def counters(self) -> Iterator[Reading]:
        for bundle in self.sources.bundles():
            attrs = {"bundle": str(bundle["name"])}
            yield "hookd.fleet.bundle.activations", attrs, bundle["activations"]
            yield "hookd.fleet.bundle.refusals", attrs, bundle["refusals"]
            yield "hookd.fleet.bundle.fetch_failures", attrs, bundle["fetch_failures"]
        for (agent, decision, rule), n in self.by_rule.copy().items():
            yield "hookd.decisions.by_rule", {"agent": agent, "decision": decision, "rule": rule}, n
        yield "hookd.fleet.status.sent", {}, self.sent
        yield "hookd.fleet.status.failures", {}, self.failures


PRIORITY = ("failure", "activation", "discovery", "start", "periodic")


def _first(reasons: Iterable[str]) -> str:
    """Of the reasons coalesced into one report, the one that matters most."""
    given = set(reasons) or {"periodic"}
    return next((r for r in PRIORITY if r in given), sorted(given)[0])


def _token(config: StatusConfig) -> str:
    if config.token_file:
        return Path(config.token_file).read_text(encoding="utf-8").splitlines()[0].strip()
    return config.token
