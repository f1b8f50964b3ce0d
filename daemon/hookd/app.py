"""The daemon, a composition root: it builds its components (the pipeline from hookd.assembly, the
policy set's holder, the decision path, the servers, the decision log, bundles, rollout) and hands them
to the lifecycle Supervisor; it owns signals and reload.

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
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog

from hookd.assembly import build_pipeline, bundle_compiler, kept_bundles_of, load_engine, local_layers
from hookd.audit.ids import decision_ids
from hookd.audit.ship import Shipper
from hookd.audit.sink import Sink
from hookd.audit.writer import DecisionLog, Queued
from hookd.bundle.activate import Active
from hookd.bundle.manager import BundleManager
from hookd.bundle.store import BundleStore
from hookd.config import Config, loopback_address
from hookd.control.server import ControlServer
from hookd.control.service import ControlService, HookService
from hookd.decide import Decider
from hookd.errors import HookdError
from hookd.fleet.discovery import Discovery
from hookd.lane import Lane
from hookd.policy.layers import Layer, LayeredEngine
from hookd.procs.pool import WorkerPool
from hookd.rollout.observe import Observer
from hookd.rollout.relay import receive
from hookd.rollout.store import ReplayStore
from hookd.runtime.lifecycle import Component, Supervisor
from hookd.runtime.logs import configure_logging
from hookd.runtime.metrics import DecisionMetrics, Gauges, HookdCollector, MetricsEndpoint
from hookd.runtime.sdnotify import Notifier
from hookd.transport.activation import listener, take_inherited
from hookd.transport.hook_server import HookServer, ServerStats
from hookd.transport.http_hooks import HttpHookServer, load_token
from hookd.types import ReloadResult

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
        self.discovery = Discovery(config) if config.discovery is not None else None
        if self.discovery is not None:  # the kept discovery bundle's settings, before any network
            config = self.discovery.start_config()
        self.config = config
        self.inherited = dict(inherited or {})  # sockets a service manager bound (hookd.transport.activation)
        self.notifier = notifier or Notifier()
        kept, kept_errors = kept_bundles_of(config)  # the last good bundles, before any network
        store = BundleStore(config.daemon.state_dir / "bundles")
        compile_bundle = bundle_compiler(config, wait=False)  # the manager awaits ready() before the swap
        self.bundles = BundleManager(config.bundles, store, compile_bundle, self._swap_bundles)
        self.bundles.adopt_kept(kept, kept_errors)
        bundles = [a.layer for a in kept]
        self.pipeline, self.policy_set = build_pipeline(
            config,
            load_engine(config, bundles=bundles),
            ids=decision_ids(0, config.processes),
            bundles=bundles,
        )
        self.workers: WorkerPool | None = None  # started in run(), once the hook socket listens
        self.bundles.kept = self._bundles_kept
        self._watcher: asyncio.Task[None] | None = None
        self._watch_stop = asyncio.Event()
        daemon = config.daemon
        self.started_at = time.time()
        self.stats = ServerStats()
        self.metrics = DecisionMetrics(config.shim.fail_modes)
        self.reloads = self.reload_failures = 0
        self._stop: asyncio.Event | None = None
        self._reloading: set[asyncio.Task[Any]] = set()
        self._reload_lock = asyncio.Lock()
        self.sink: Sink[Queued] = Sink(config.log.queue_size)
        self.shipper = Shipper(config.log.ship) if config.log.ship.url else None
        self.decision_log = DecisionLog(config.log, self.sink, self.shipper)
        self.replay = ReplayStore(config.replay, config.log) if config.replay.enabled else None
        self.otel: OtelExport | None = None  # started in run() when [otel] endpoint is set
        self.observer = Observer(
            config.rollout,
            self.sink.put_nowait,
            daemon.request_timeout_ms / 1000,
            lambda: self.decider.busy(""),
            config.shim.fail_modes,
        )
        self.metrics_endpoint = self._metrics_endpoint() if config.metrics.listen else None
        self.fleet = self._fleet() if config.status.url or config.otel.endpoint or self.discovery else None
        self.server: HookServer
        self.decider = Decider(
            config,
            self.pipeline,
            self.policy_set,
            self.stats,
            self.metrics,
            self.sink,
            self.observer,
            self.replay,
            lambda: self.server.in_flight,
            Lane.from_config(config),
        )
        decider = self.decider
        self.server = HookServer.from_config(config, decider.handle, self.stats, handler_now=decider.handle_now)
        self.http: HttpHookServer | None = None
        if config.http.enabled:
            self.http = HttpHookServer(
                config.http.host,
                config.http.port,
                load_token(config.http.token_file),
                self.decider.handle,
                max_payload_bytes=daemon.max_payload_bytes,
                request_timeout=daemon.request_timeout_ms / 1000,
                max_concurrency=daemon.max_concurrency,
                max_connections=config.http.max_connections,
                max_connections_per_peer=config.http.max_connections_per_peer,
                stats=self.stats,
            )
        self.control = ControlServer(
            config.control_socket,
            ControlService(self, self.decider),
            HookService(self.decider),
            max_message_bytes=daemon.max_payload_bytes + daemon.max_header_bytes,
        )

    def _metrics_endpoint(self) -> MetricsEndpoint:
        host, port = loopback_address(self.config.metrics.listen, "'metrics.listen'")
        return MetricsEndpoint(
            host,
            port,
            HookdCollector(self.metrics, self._readings()),
        )

    def _fleet(self) -> FleetStatus:
        """Status reports and the fleet's OTLP metrics (docs/fleet.md): told of every bundle activation and
        failure, and offered every decision record (after the reply) to count decisions by rule and agent."""
        from hookd.fleet.status import FleetStatus, Sources

        sources = Sources(
            self.bundles.snapshot,
            lambda: {source.name: source.mode for source in self.config.bundles.sources},
            lambda: self.policy_set.current.status().layers,
            self.observer.counters,
            self.discovery.snapshot if self.discovery is not None else lambda: None,
        )
        fleet = FleetStatus(self.config, sources)
        self.bundles.changed = fleet.trigger
        self.decision_log.outlets.append(fleet.count)
        if self.discovery is not None:
            self.discovery.changed = fleet.trigger
            self.discovery.apply = self._apply_discovered
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
            await self.bundles.reconfigure(new.bundles)
        if self.fleet is not None:
            self.fleet.status_config = new.status
        if new.log.ship != old.log.ship:
            await self._reship()
        if new.otel != old.otel:
            await self._reexport()
        if new.layers != old.layers:
            await self.reload(requested_by="discovery")  # the local layers again, in their new modes

    async def _reship(self) -> None:
        """[log.ship] changed: the shipper takes the new target (what it holds goes there), or starts, or
        stops after one last bounded upload."""
        ship, shipper = self.config.log.ship, self.shipper
        if shipper is not None and ship.url:
            shipper.config = ship
            return
        self.shipper = self.decision_log.shipper = Shipper(ship) if ship.url else None
        self._start_shipper()
        if shipper is not None:
            await shipper.close()

    async def _reexport(self) -> None:
        """[otel] changed: a new export takes every record from now on; the old one exports what it holds
        (bounded by its timeout) and stops, on a thread."""
        old = self.otel
        self.otel = None
        if old is not None:
            self.decision_log.outlets.remove(old.offer)
        self._start_export()
        if old is not None:
            await asyncio.to_thread(old.close)

    def _readings(self) -> Gauges:
        """What the metrics report beside DecisionMetrics (the Prometheus scrape and the OTLP metrics)."""
        return Gauges(self._errors, self._counters, self._gauges, self.observer.counters.families)

    def _errors(self) -> dict[str, int]:
        return dict(self.stats.errors)

    def _counters(self) -> dict[str, float]:
        counters = {
            "hookd_requests": self.stats.requests,
            "hookd_reloads": self.reloads,
            "hookd_reload_failures": self.reload_failures,
            "hookd_decision_log_written": self.decision_log.written,
            "hookd_decision_log_dropped": self.sink.dropped,
            "hookd_decision_log_write_errors": self.decision_log.write_errors,
            "hookd_lane_requests": self.workers.lane_requests if self.workers is not None else 0,
        }
        if self.shipper is not None:
            shipper = self.shipper
            counters |= {
                "hookd_log_ship_sent": shipper.sent,
                "hookd_log_ship_dropped": shipper.dropped,
                "hookd_log_ship_failures": shipper.failures,
            }
        if self.replay is not None:
            replay = self.replay
            counters |= {
                "hookd_replay_written": replay.written,
                "hookd_replay_dropped": replay.sink.dropped,
                "hookd_replay_write_errors": replay.write_errors,
            }
        if self.otel is not None:
            export = self.otel.processor
            counters |= {
                "hookd_otel_exported": export.exported,
                "hookd_otel_dropped": export.dropped,
                "hookd_otel_failed_exports": export.failed_exports,
            }
        return {name: float(value) for name, value in counters.items()}

    def _gauges(self) -> dict[str, float]:
        gauges = {"hookd_log_ship_buffered": float(self.shipper.buffered)} if self.shipper is not None else {}
        if self.otel is not None:
            gauges["hookd_otel_buffered"] = float(self.otel.processor.buffered)
        return gauges

    async def reload(self, requested_by: str = "SIGHUP") -> ReloadResult:
        """Load the policies again and swap once the new engine is ready: Python workers start in the
        background, so the old engine keeps answering meanwhile. Reloads run one at a time."""
        async with self._reload_lock:
            previous = self.policy_set.current.status().revision
            self.notifier.reloading()
            try:
                local = await _started(local_layers(self.config, wait=False))
            except HookdError as exc:
                self.reload_failures += 1
                log.error("reload_failed", error=str(exc), kept_revision=previous, requested_by=requested_by)
                self.notifier.ready(f"serving revision {previous} (a reload was refused)")
                return ReloadResult(ok=False, error=str(exc), previous=previous, revision=previous)
            engine = self.policy_set.serve_local(local)  # under the bundles serving now
            if self.workers is not None:
                self.workers.reload()
            self.reloads += 1
            status = engine.status()
            revision = status.revision
            log.info("reloaded", revision=revision, packages=len(status.packages), requested_by=requested_by)
            self.notifier.ready(f"serving revision {revision}")
            return ReloadResult(ok=True, error="", previous=previous, revision=revision)

    def _reload_on_signal(self) -> None:
        task = asyncio.get_running_loop().create_task(self.reload())
        self._reloading.add(task)  # kept referenced until done; shutdown waits for it
        task.add_done_callback(self._reloading.discard)

    async def close_engines(self) -> None:
        """At shutdown, after the servers stopped: let reloads under way finish, then close the engines."""
        while self._reloading:
            await asyncio.gather(*list(self._reloading))
        await self.policy_set.close()

    def _swap_bundles(self, active: Mapping[str, Active]) -> None:
        """Serve a new set of organisation bundles over the local layers now serving: one assignment."""
        self.policy_set.serve_bundles([a.layer for a in active.values()])

    def _bundles_kept(self) -> None:
        """A bundle was activated and stored: the workers load it from the store."""
        if self.workers is not None:
            self.workers.reload()

    def bundle_status(self) -> list[dict[str, object]]:
        """Per bundle source: revision, last success, last error, next poll, counters (docs/bundles.md)."""
        return self.bundles.snapshot()

    def local_dirs(self) -> list[Path]:
        """The local policy directories that hot-reload on change: the user's and the opted-in projects'."""
        dirs = [self.config.daemon.policies]
        dirs += [Path(root) / self.config.layers.project_policy_dir for root in self.config.layers.projects]
        return [d for d in dirs if d.is_dir()]

    async def _watch_local(self) -> None:
        import watchfiles

        dirs = self.local_dirs()
        if not dirs:
            return
        debounce = self.config.layers.watch_debounce_ms
        async for changes in watchfiles.awatch(*dirs, debounce=debounce, stop_event=self._watch_stop):
            log.info("policy_files_changed", files=sorted({path for _, path in changes})[:10])
            await self.reload(requested_by="watch")

    def stop(self) -> None:
        """Ask `run` to shut down (what SIGTERM and SIGINT do)."""
        if self._stop is not None:
            self._stop.set()

    def components(self) -> list[Component]:
        """The daemon's parts in start order; they stop in reverse. What the hook path records into (the
        decision log, its shipper, the observer, the engines) starts before anything that decides and stops
        after every decision in flight has been answered."""
        return [
            Component("metrics", self._start_metrics, self._stop_metrics),
            Component("shipper", self._start_shipper, self._close_shipper),
            Component("otel export", None, self._close_export),  # after the log's last record
            Component("decision log", self.decision_log.start, self.decision_log.close),  # write what is queued
            Component("engines", None, self.close_engines),
            Component("rollout", self._start_rollout, self._close_rollout),  # observes while engines are open
            # no new hook requests once stopped; those in flight finish and are queued for the log, and each
            # worker process finishes what it accepted and sends its last records
            Component("hook server", self._start_hook_path, self._stop_hook_path),
            Component("http hooks", self._start_http, self._stop_http),
            Component("control", self._start_control, self._stop_control),
            Component("bundles", self.bundles.start, self.bundles.stop),
            Component("discovery", self._start_discovery, self._stop_discovery),
            Component("policy watcher", self._start_watcher, self._stop_watcher),
            Component("status", self._start_status, self._close_status),  # reports what started above
        ]

    async def _start_hook_path(self) -> None:
        await self.server.start(listener(self.inherited, "hook", self.server.path))
        if self.config.processes > 1:
            rollout = receive(self.observer.counters, self.replay)  # what the workers observe and store
            self.workers = WorkerPool(
                self.config, self.server.listening_fd(), self.sink, self.metrics, self.stats, rollout
            )
            await self.workers.start()

    async def _stop_hook_path(self) -> None:
        await self.server.stop()
        if self.workers is not None:
            await self.workers.stop()

    async def _start_http(self) -> None:
        if self.http is not None:
            await self.http.start()

    async def _stop_http(self) -> None:
        if self.http is not None:
            await self.http.stop()

    async def _start_control(self) -> None:
        await self.control.start(listener(self.inherited, "control", self.control.path))

    async def _stop_control(self) -> None:
        self.decision_log.end_subscriptions()  # live StreamDecisions calls end cleanly
        await self.control.stop()  # Decide and Evaluate calls in flight finish within the grace period

    def _start_shipper(self) -> None:
        if self.shipper is not None:
            self.shipper.start()

    async def _close_shipper(self) -> None:
        if self.shipper is not None:
            await self.shipper.close()  # one last bounded upload of what is buffered

    def _start_metrics(self) -> None:
        if self.metrics_endpoint is not None:
            self.metrics_endpoint.start()

    def _stop_metrics(self) -> None:
        if self.metrics_endpoint is not None:
            self.metrics_endpoint.stop()

    def _start_watcher(self) -> None:
        if self.config.layers.watch:
            self._watcher = asyncio.create_task(self._watch_local(), name="watch-local-policies")

    async def _stop_watcher(self) -> None:
        self._watch_stop.set()
        if self._watcher is not None:
            await asyncio.wait([self._watcher], timeout=2)

    def _start_discovery(self) -> None:
        if self.discovery is not None:
            self.discovery.start()

    async def _stop_discovery(self) -> None:
        if self.discovery is not None:
            await self.discovery.stop()

    def _start_status(self) -> None:
        if self.fleet is not None:
            self.fleet.start()

    async def _close_status(self) -> None:
        if self.fleet is not None:
            await self.fleet.close()

    def _start_rollout(self) -> None:
        """The outputs of docs/rollout.md, after the decision log: the observer, the replay store, and the
        OpenTelemetry export (its SDK is imported only when it is configured)."""
        self.observer.start()
        if self.replay is not None:
            self.replay.start()
        self._start_export()

    def _start_export(self) -> None:
        if self.config.otel.endpoint:
            from hookd.rollout.otel import OtelExport, daemon_readings

            revision = self.policy_set.current.status().revision
            fleet = (self.fleet.counters, self.fleet.gauges) if self.fleet is not None else None
            readings = daemon_readings(self.metrics, self.observer.counters, self._readings(), fleet)
            instance = self.fleet.labels["id"] if self.fleet is not None else ""
            self.otel = OtelExport(self.config.otel, revision, readings, instance)
            self.decision_log.outlets.append(self.otel.offer)

    async def _close_rollout(self) -> None:
        await self.observer.close()  # observes what is queued, passes it on to the decision log
        if self.replay is not None:
            await self.replay.close()  # writes what is queued

    async def _close_export(self) -> None:
        """After the decision log wrote its last record: one last bounded export, on a thread."""
        if self.otel is not None:
            await asyncio.to_thread(self.otel.close)

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        stop = self._stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        loop.add_signal_handler(signal.SIGHUP, self._reload_on_signal)
        supervisor = Supervisor()
        try:
            await supervisor.start(self.components())
        except BaseException:  # it never served: stop what started, and let the one-line reason through
            await supervisor.stop()
            raise
        try:
            engine = self.policy_set.current.status()
            log.info(
                "serving",
                socket=str(self.server.path),
                control=str(self.control.path),
                decision_log=str(self.decision_log.path),
                http=self.http.url if self.http is not None else None,
                metrics=self.metrics_endpoint.address if self.metrics_endpoint else None,
                ship_to=self.shipper.config.url if self.shipper else None,
                revision=engine.revision,
                packages=list(engine.packages),
                workers=self.config.daemon.workers,
            )
            self.notifier.ready(f"serving revision {engine.revision} on {self.server.path}")
            self.notifier.start_watchdog()
            await stop.wait()
        finally:
            log.info("stopping")
            self.notifier.stopping()
            await supervisor.stop()
            log.info("stopped", decisions_logged=self.decision_log.written, dropped=self.sink.dropped)


async def _started(local: list[Layer]) -> list[Layer]:
    """Wait until every new local layer can serve (Python workers start in the background)."""
    await LayeredEngine(local).ready()
    return local


def serve(config: Config) -> int:
    import uvloop

    configure_logging(config.daemon.log_level)
    daemon = Daemon(config, inherited=take_inherited(), notifier=Notifier.from_env())
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(daemon.run())
    return 0
