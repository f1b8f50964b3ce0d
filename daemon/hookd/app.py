"""The daemon, a composition root: it builds its components (hookd.components: the policy service, the
hook path with its worker processes, the HTTP hooks, the control plane, the decision log, its exporters,
the metrics endpoint, the fleet's reports), hands them to the Supervisor and owns the signals.

The hot path is `Decider.handle` (hookd.decide): decide, count, hand the decision to the log's sink
(`put_nowait`, never awaited), reply. Everything the log does happens later, in its own task.
"""

from __future__ import annotations

import asyncio
import signal
import socket
import time
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

import structlog

from hookd.assembly import build_pipeline, kept_bundles_of, load_policy_set
from hookd.audit.ids import decision_ids
from hookd.audit.ship import Shipper
from hookd.audit.sink import Sink
from hookd.audit.writer import DecisionLog, Queued
from hookd.components.outputs import Exporters, Fleet, Metrics, Recording
from hookd.components.policy import PolicyService
from hookd.components.servers import HookPath, HttpHooks
from hookd.config import Config, loopback_address
from hookd.control.endpoint import ControlEndpoint
from hookd.control.server import ControlServer
from hookd.control.service import ControlService, HookService, Parts
from hookd.decide import DaemonRecorder, Decider
from hookd.fleet.discovery import Discovery
from hookd.lane import Lane
from hookd.rollout.observe import Observer
from hookd.rollout.relay import receive
from hookd.runtime.lifecycle import Supervisor
from hookd.runtime.logs import configure_logging
from hookd.runtime.metrics import DecisionMetrics, Gauges, HookdCollector, MetricsEndpoint
from hookd.runtime.sdnotify import Notifier
from hookd.transport.activation import take_inherited
from hookd.transport.hook_server import HookServer, ServerStats
from hookd.transport.http_hooks import HttpHookServer, load_token

if TYPE_CHECKING:
    from hookd.fleet.status import FleetStatus
    from hookd.rollout.otel import OtelExport

log = structlog.get_logger("hookd")


class Daemon:
    def __init__(
        self,
        config: Config,
        inherited: Mapping[str, socket.socket] | None = None,
        notifier: Notifier | None = None,
    ) -> None:
        discovery = Discovery(config) if config.discovery is not None else None
        if discovery is not None:  # the kept discovery bundle's settings, before any network
            config = discovery.start_config()
        self.config = config
        self.inherited = dict(inherited or {})  # sockets a service manager bound (hookd.transport.activation)
        self.notifier = notifier or Notifier()
        self.started_at = time.time()
        self._stop: asyncio.Event | None = None
        kept = kept_bundles_of(config)  # the last good bundles, before any network
        bundles = [a.layer for a in kept[0]]
        self.pipeline, holder = build_pipeline(
            config, load_policy_set(config, bundles=bundles), ids=decision_ids(0, config.processes), bundles=bundles
        )
        stats = ServerStats()
        self.metrics = DecisionMetrics(config.shim.fail_modes)
        self.sink: Sink[Queued] = Sink(config.log.queue_size)
        shipper = Shipper(config.log.ship) if config.log.ship.url else None
        self.decision_log = DecisionLog(config.log, self.sink, shipper)
        timeout = config.daemon.request_timeout_ms / 1000
        observer = Observer(
            config.rollout, self.sink.put_nowait, timeout, lambda: self.recorder.busy(""), config.shim.fail_modes
        )
        self.policy = PolicyService(config, holder, kept, observer, self.notifier)
        replay = self.policy.replay
        self.recorder = DaemonRecorder(
            self.metrics, self.sink, observer, replay, holder, lambda: self.hook_path.server.in_flight
        )
        self.decider = Decider(config, self.pipeline, self.recorder, stats, Lane.from_config(config))
        server = HookServer.from_config(config, self.decider.handle, stats)
        reported = (self.sink, self.metrics, receive(observer.counters, replay))  # the workers' records
        self.hook_path = HookPath(config, server, self.inherited, reported)
        self.policy.reloaded.append(self.hook_path.reload_workers)
        self.exporters = Exporters(shipper, self._otel if config.otel.endpoint else None, self.decision_log)
        endpoint = self._metrics_endpoint(stats) if config.metrics.listen else None
        self.recording, self.metrics_server = Recording(self.decision_log), Metrics(endpoint)
        reports = self._fleet(discovery) if config.status.url or config.otel.endpoint or discovery else None
        self.fleet = Fleet(discovery, reports)
        parts = Parts(
            config, self.policy, self.hook_path, self.recording, self.exporters, self.metrics_server, self.metrics,
            self.started_at, self.fleet,
        )  # fmt: skip
        self.control = ControlServer(
            config.control_socket,
            ControlService(parts, self.decider),
            HookService(self.decider),
            max_message_bytes=config.daemon.max_payload_bytes + config.daemon.max_header_bytes,
        )
        self.supervisor = Supervisor(
            [
                self.metrics_server,
                self.exporters,  # closed after the log's last record
                self.recording,  # writes what is queued
                # the rollout outputs observe while the engines are open; reloads and bundles change the set
                self.policy,
                # no new hook requests once stopped; those in flight finish and are queued for the log
                self.hook_path,
                HttpHooks(self._http(stats)),
                ControlEndpoint(self.control, self.inherited, self.decision_log),
                self.fleet,  # reports what started above
            ]
        )

    def _http(self, stats: ServerStats) -> HttpHookServer | None:
        config = self.config
        if not config.http.enabled:
            return None
        daemon = config.daemon
        return HttpHookServer(
            config.http.host,
            config.http.port,
            load_token(config.http.token_file),
            self.decider.handle,
            max_payload_bytes=daemon.max_payload_bytes,
            request_timeout=daemon.request_timeout_ms / 1000,
            max_concurrency=daemon.max_concurrency,
            max_connections=config.http.max_connections,
            max_connections_per_peer=config.http.max_connections_per_peer,
            stats=stats,
        )

    def _metrics_endpoint(self, stats: ServerStats) -> MetricsEndpoint:
        host, port = loopback_address(self.config.metrics.listen, "'metrics.listen'")
        return MetricsEndpoint(host, port, HookdCollector(self.metrics, self._readings(stats)))

    def _readings(self, stats: ServerStats) -> Gauges:
        """What the metrics report beside DecisionMetrics (the Prometheus scrape and the OTLP metrics): the
        components' own counters."""
        return Gauges(
            lambda: dict(stats.errors),
            lambda: self.supervisor.counters(),  # noqa: PLW0108 (late: the supervisor is built last)
            self.exporters.gauges,
            self.policy.observer.counters.families,
        )

    def _otel(self) -> OtelExport:
        """The OpenTelemetry export of docs/rollout.md (its SDK is imported only when it is configured)."""
        from hookd.rollout.otel import OtelExport, daemon_readings

        reports = self.fleet.reports
        fleet = (reports.counters, reports.gauges) if reports is not None else None
        readings = daemon_readings(
            self.metrics, self.policy.observer.counters, self._readings(self.hook_path.stats), fleet
        )
        instance = reports.labels["id"] if reports is not None else ""
        return OtelExport(self.config.otel, self.policy.current.status().revision, readings, instance)

    def _fleet(self, discovery: Discovery | None) -> FleetStatus:
        """Status reports and the fleet's OTLP metrics (docs/fleet.md): told of every bundle activation and
        failure, and offered every decision record (after the reply) to count decisions by rule and agent."""
        from hookd.fleet.status import FleetStatus, Sources

        bundles = self.policy.bundles
        sources = Sources(
            bundles.snapshot,
            lambda: {source.name: source.mode for source in self.config.bundles.sources},
            lambda: self.policy.current.status().layers,
            self.policy.observer.counters,
            discovery.snapshot if discovery is not None else lambda: None,
        )
        fleet = FleetStatus(self.config, sources)
        bundles.changed = fleet.trigger
        self.decision_log.outlets.append(fleet.count)
        if discovery is not None:
            discovery.changed = fleet.trigger
            discovery.apply = self._apply_discovered
        return fleet

    async def _apply_discovered(self, new: Config) -> None:
        """A new discovery bundle (docs/fleet.md) in force now, as OPA's discovery reconfigures its plugins:
        bundle sources, status target, log shipping, OpenTelemetry export and local layer modes (`new` is
        already merged with the local configuration: tighten-only)."""
        old = self.config
        self.config = replace(
            old, bundles=new.bundles, status=new.status, otel=new.otel, layers=new.layers,
            log=replace(old.log, ship=new.log.ship),
        )  # fmt: skip
        if new.bundles != old.bundles:
            await self.policy.bundles.reconfigure(new.bundles)
        if self.fleet.reports is not None:
            self.fleet.reports.status_config = new.status
        if new.log.ship != old.log.ship:
            await self.exporters.reship(new.log.ship)
        if new.otel != old.otel:
            await self.exporters.reexport(self._otel if new.otel.endpoint else None)
        if new.layers != old.layers:  # the local layers again, in their new modes
            self.policy.config = replace(self.policy.config, layers=new.layers)
            await self.policy.reload(requested_by="discovery")

    def stop(self) -> None:
        """Ask `run` to shut down (what SIGTERM and SIGINT do)."""
        if self._stop is not None:
            self._stop.set()

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        stop = self._stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        loop.add_signal_handler(signal.SIGHUP, self.policy.reload_soon)
        supervisor = self.supervisor
        try:
            await supervisor.start()
        except BaseException:  # it never served: stop what started, and let the one-line reason through
            await supervisor.stop()
            raise
        try:
            self._serving()
            await stop.wait()
        finally:
            log.info("stopping")
            self.notifier.stopping()
            await supervisor.stop()
            log.info("stopped", decisions_logged=self.decision_log.written, dropped=self.sink.dropped)

    def _serving(self) -> None:
        """Log what serves, from the components' own status, and tell the service manager."""
        status = self.supervisor.status()
        served = self.policy.current.status()
        shipping = status["log shipping and otel"]["shipping"]
        log.info(
            "serving",
            socket=status["hook server"]["socket"],
            control=status["control"]["socket"],
            decision_log=status["decision log"]["path"],
            http=status["http hooks"]["url"],
            metrics=status["metrics"]["address"] or None,
            ship_to=shipping["url"] if shipping else None,
            revision=served.revision,
            packages=list(served.packages),
            workers=self.config.daemon.workers,
        )
        socket_path = status["hook server"]["socket"]
        self.notifier.ready(f"serving revision {served.revision} on {socket_path}")
        self.notifier.start_watchdog()


def serve(config: Config) -> int:
    import uvloop

    configure_logging(config.daemon.log_level)
    daemon = Daemon(config, inherited=take_inherited(), notifier=Notifier.from_env())
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(daemon.run())
    return 0
