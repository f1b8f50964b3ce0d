"""OpenTelemetry export (`[otel] endpoint`): decision records as OTLP log records, decision metrics as OTLP
metrics, over gRPC with the OpenTelemetry Python SDK and its OTLP exporter (docs/rollout.md).

Records come from the decision log's writer (`offer`, called for every record written, off the hot path):
each becomes one SDK log record (event name `hookd.decision`, the record's JSON line as its body, the
decision id and the fields people filter on as attributes) emitted to a LoggerProvider whose processor is
`RetainingProcessor`: a bounded buffer (`max_queue_size`) that a thread exports in batches, keeping every
record until the collector accepted it (a collector that is down and comes back loses nothing within the
bound; beyond it the newest are dropped and counted). The SDK's own BatchLogRecordProcessor drops a batch
whose export failed, so it is not used. Metrics are observable counters over the daemon's counters,
read by the SDK's periodic reader on its own thread. Resource attributes: service, host, user, agent,
and the policy revision serving when the export started (each record carries the revision that decided).
"""

from __future__ import annotations

import getpass
import json
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import structlog
from opentelemetry.exporter.otlp.proto.grpc._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import OTLPMetricExporter
from opentelemetry.metrics import CallbackOptions, Observation
from opentelemetry.sdk._logs import LoggerProvider, LogRecordProcessor, ReadWriteLogRecord
from opentelemetry.sdk._logs.export import LogRecordExporter, LogRecordExportResult
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    AggregationTemporality,
    Histogram,
    HistogramDataPoint,
    Metric,
    MetricExporter,
    MetricExportResult,
    MetricsData,
    PeriodicExportingMetricReader,
)
from opentelemetry.sdk.resources import Resource

from hookd import __version__
from hookd.audit.record import Logged
from hookd.config import OtelConfig
from hookd.dialects.registry import AGENTS
from hookd.rollout.observe import RolloutCounters
from hookd.runtime.metrics import LATENCY_BUCKETS, DecisionMetrics, Gauges

log = structlog.get_logger("hookd.otel")
RETRY_MIN_S, RETRY_MAX_S = 0.2, 10.0
# gRPC's reconnect back-off grows to two minutes by default: a collector that comes back would wait that long
CHANNEL_OPTIONS: Any = (("grpc.max_reconnect_backoff_ms", 5000),)
SCOPE = "hookd"
Counters = Callable[[], Iterable[tuple[str, Mapping[str, str], float]]]  # (metric, attributes, value)
Latencies = Callable[[], Iterable[tuple[Mapping[str, str], Sequence[int], float]]]  # attributes, buckets, sum (s)
LATENCY = "hookd.decision.latency"


@dataclass(frozen=True, slots=True)
class Readings:
    """What the OTLP metrics read, each on the metric reader's thread: counters and gauges as (metric,
    attributes, value), and the latency histograms (bucket counts per LATENCY_BUCKETS, the last +Inf)."""

    counters: Counters
    gauges: Counters
    latencies: Latencies


class RetainingProcessor(LogRecordProcessor):
    """A bounded buffer of log records and the thread that exports them, retrying until they are accepted."""

    def __init__(self, exporter: LogRecordExporter, config: OtelConfig) -> None:
        self._exporter = exporter
        self._max = config.max_queue_size
        self._batch = config.batch_size
        self._delay = config.schedule_delay_ms / 1000
        self._items: deque[ReadWriteLogRecord] = deque()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = False
        self.exported = self.dropped = self.failed_exports = 0
        self.last_error = ""
        self._thread = threading.Thread(target=self._run, name="hookd-otel-export", daemon=True)
        self._thread.start()

    @property
    def buffered(self) -> int:
        return len(self._items)

    def on_emit(self, log_record: ReadWriteLogRecord) -> None:
        with self._lock:
            if len(self._items) >= self._max:
                self.dropped += 1  # the newest: what is buffered is older and already waiting its turn
                return
            self._items.append(log_record)
            full = len(self._items) >= self._batch
        if full:
            self._wake.set()

    def _run(self) -> None:
        backoff = RETRY_MIN_S
        while True:
            self._wake.wait(self._delay)
            self._wake.clear()
            while self._items:
                with self._lock:
                    batch = [self._items[i] for i in range(min(self._batch, len(self._items)))]
                if self._export(batch):
                    with self._lock:
                        for _ in batch:
                            self._items.popleft()
                    backoff = RETRY_MIN_S
                    continue
                if self._stopping:
                    return
                self._wake.wait(backoff)  # the collector is down: keep the records, try again later
                backoff = min(backoff * 2, RETRY_MAX_S)
            if self._stopping:
                return

    def _export(self, batch: list[ReadWriteLogRecord]) -> bool:
        try:
            result = self._exporter.export(batch)  # type: ignore[arg-type]  # the SDK's own processors do the same
        except Exception as exc:  # the exporter must not end the thread
            result, self.last_error = LogRecordExportResult.FAILURE, f"{type(exc).__name__}: {exc}"
        if result is LogRecordExportResult.SUCCESS:
            self.exported += len(batch)
            self.last_error = ""
            return True
        self.failed_exports += 1
        self.last_error = self.last_error or "the collector did not accept the batch"
        return False

    def shutdown(self) -> None:
        """One last try at what is buffered (bounded by the exporter's timeout), then stop."""
        self._stopping = True
        self._wake.set()
        self._thread.join()
        self.dropped += len(self._items)
        self._exporter.shutdown()  # type: ignore[no-untyped-call]

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        self._wake.set()
        end = time.monotonic() + timeout_millis / 1000
        while self._items and time.monotonic() < end:
            time.sleep(0.01)
        return not self._items


def resource(config: OtelConfig, revision: str, instance: str = "") -> Resource:
    return Resource.create(
        {
            "service.name": "hookd",
            "service.instance.id": instance or str(uuid.uuid4()),  # the status reports' labels.id (docs/fleet.md)
            "service.version": __version__,
            "host.name": socket.gethostname(),
            "user.name": getpass.getuser(),
            "hookd.agent": config.agent or ",".join(AGENTS),
            "hookd.policy.revision": revision,
        }
    )


def attributes(record: Mapping[str, Any]) -> dict[str, Any]:
    """What a collector or SIEM filters on, beside the whole record in the body."""
    revisions = record.get("revisions") or {}
    out = {
        "hookd.decision.id": str(record.get("id", "")),
        "hookd.decision": str(record.get("decision", "")),
        "hookd.event": str(record.get("event", "")),
        "hookd.client": str(record.get("client", "")),
        "hookd.tool": str(record.get("tool") or ""),
        "hookd.session": str(record.get("session", "")),
        "hookd.via": str(record.get("via", "")),
        "hookd.seq": int(record.get("seq", 0)),
        "hookd.policy.revisions": json.dumps(revisions, sort_keys=True),
        "hookd.latency_ms": float(record.get("latency_ms", 0.0)),
    }
    shadow = record.get("shadow")
    if isinstance(shadow, Mapping) and shadow.get("transition"):
        out["hookd.shadow.transition"] = str(shadow["transition"])
    return out


class OtelExport:
    """The log and metric pipelines. `offer` is called by the decision log's writer for each record."""

    def __init__(self, config: OtelConfig, revision: str, readings: Readings, instance: str = "") -> None:
        self.config = config
        insecure = config.endpoint.startswith("http://")
        timeout = config.export_timeout_ms / 1000
        self._resource = resource(config, revision, instance)
        self.processor = RetainingProcessor(
            OTLPLogExporter(
                endpoint=config.endpoint, insecure=insecure, timeout=timeout, channel_options=CHANNEL_OPTIONS
            ),
            config,
        )
        self._logs = LoggerProvider(resource=self._resource)
        self._logs.add_log_record_processor(self.processor)
        self._logger = self._logs.get_logger(SCOPE, __version__)
        exporter = OTLPMetricExporter(
            endpoint=config.endpoint, insecure=insecure, timeout=timeout, channel_options=CHANNEL_OPTIONS
        )
        reader = PeriodicExportingMetricReader(
            WithLatency(exporter, readings.latencies, time.time_ns()),
            export_interval_millis=config.metrics_interval_ms,
            export_timeout_millis=config.export_timeout_ms,
        )
        self._metrics = MeterProvider(resource=self._resource, metric_readers=[reader])
        self._readings = readings
        self._register_metrics()

    def offer(self, logged: Logged) -> None:
        record = logged.record
        if record.get("type") != "decision":
            return
        self._logger.emit(
            timestamp=time.time_ns(),
            body=logged.line,
            attributes=attributes({**record, "seq": logged.seq}),
            event_name="hookd.decision",
            severity_text="INFO",
        )

    def _register_metrics(self) -> None:
        meter = self._metrics.get_meter(SCOPE, __version__)
        for name, text in COUNTERS.items():
            meter.create_observable_counter(
                name, callbacks=[self._observer(name, self._readings.counters)], description=text
            )
        for name, text in GAUGES.items():
            meter.create_observable_gauge(
                name, callbacks=[self._observer(name, self._readings.gauges)], description=text
            )

    @staticmethod
    def _observer(name: str, read: Counters) -> Callable[[CallbackOptions], Iterable[Observation]]:
        def observe(_options: CallbackOptions) -> Iterable[Observation]:
            return [Observation(value, dict(attrs)) for metric, attrs, value in read() if metric == name]

        return observe

    def status(self) -> dict[str, Any]:
        p = self.processor
        return {
            "endpoint": self.config.endpoint, "exported": p.exported, "dropped": p.dropped,
            "failed_exports": p.failed_exports, "buffered": p.buffered, "last_error": p.last_error,
        }  # fmt: skip

    def close(self) -> None:
        """Blocking (call it on a thread): one last export of what is buffered and of the metrics."""
        self._metrics.shutdown()
        self._logs.shutdown()


class WithLatency(MetricExporter):
    """The OTLP metric exporter, with the decision latency histogram added to each export. The hot path
    already counts it into buckets (hookd.runtime.metrics: the Prometheus histogram's), the SDK has no asynchronous
    histogram, and recording each decision again into an SDK histogram would put a lock on the hot path; so
    each export carries the daemon's buckets as they stand (cumulative since the export started)."""

    def __init__(self, exporter: MetricExporter, latencies: Latencies, start_ns: int) -> None:
        super().__init__(exporter._preferred_temporality, exporter._preferred_aggregation)
        self._exporter = exporter
        self._latencies = latencies
        self._start_ns = start_ns

    def export(self, metrics_data: MetricsData, timeout_millis: float = 10_000, **kwargs: Any) -> MetricExportResult:
        return self._exporter.export(self.with_latency(metrics_data), timeout_millis=timeout_millis, **kwargs)

    def with_latency(self, data: MetricsData) -> MetricsData:
        now = time.time_ns()
        points = [
            HistogramDataPoint(
                attributes=dict(attrs),
                start_time_unix_nano=self._start_ns,
                time_unix_nano=now,
                count=sum(counts),
                sum=total,
                bucket_counts=list(counts),
                explicit_bounds=list(LATENCY_BUCKETS),
                min=None,  # type: ignore[arg-type]  # not tracked: OTLP's min and max are optional
                max=None,  # type: ignore[arg-type]
            )
            for attrs, counts, total in self._latencies()
        ]
        if not points or not data.resource_metrics or not data.resource_metrics[0].scope_metrics:
            return data
        metric = Metric(
            name=LATENCY,
            description=LATENCY_HELP,
            unit="s",
            data=Histogram(data_points=points, aggregation_temporality=AggregationTemporality.CUMULATIVE),
        )
        first = data.resource_metrics[0]
        scope = first.scope_metrics[0]
        scopes = [replace(scope, metrics=[*scope.metrics, metric]), *first.scope_metrics[1:]]
        return MetricsData([replace(first, scope_metrics=scopes), *data.resource_metrics[1:]])

    def force_flush(self, timeout_millis: float = 10_000) -> bool:
        return self._exporter.force_flush(timeout_millis)

    def shutdown(self, timeout_millis: float = 30_000, **kwargs: Any) -> None:
        self._exporter.shutdown(timeout_millis=timeout_millis, **kwargs)


LATENCY_HELP = "From accepting the connection to the rendered reply, by hook event"
COUNTERS = {  # cumulative counters, the Prometheus metrics' (docs/control.md) under OpenTelemetry names
    "hookd.requests": "Hook requests received (hook socket and Decide)",
    "hookd.request_errors": "Requests answered with an error (the shim then applies its fail mode), by code",
    "hookd.decisions": "Decisions made, by hook event and final outcome",
    "hookd.engine_errors": "Evaluations that failed (the event's fail mode answered)",
    "hookd.fail_mode_answers": "Decisions answered by the event's fail mode, by event and mode",
    "hookd.reloads": "Policy reloads that succeeded",
    "hookd.reload_failures": "Policy reloads refused (the old policies kept serving)",
    "hookd.decision_log.written": "Decision log records written",
    "hookd.decision_log.dropped": "Decision log records dropped because the writer's queue was full",
    "hookd.decision_log.write_errors": "Decision log records that could not be written",
    "hookd.log_ship.sent": "Decision log records shipped to the collector",
    "hookd.log_ship.dropped": "Decision log records dropped from the shipping buffer",
    "hookd.log_ship.failures": "Uploads to the log collector that failed",
    "hookd.replay.written": "Lines written to the replay store",
    "hookd.replay.dropped": "Decisions not stored for replay (its queue was full, or a line too long)",
    "hookd.replay.write_errors": "Replay store lines that could not be written",
    "hookd.monitor.decisions": "What each monitor layer would have decided",
    "hookd.shadow.evaluations": "Decisions the shadow policy set was evaluated for",
    "hookd.shadow.disagreements": "Decisions where the shadow set would have decided differently",
    "hookd.rollout.skipped": "Decisions not observed by monitor and shadow layers, by reason",
    "hookd.rollout.errors": "Monitor or shadow evaluations that failed",
    "hookd.otel.exported": "Decision records the OpenTelemetry collector accepted",
    "hookd.otel.dropped": "Decision records dropped from the export buffer",
    "hookd.otel.failed_exports": "OpenTelemetry exports that failed (the records are kept and retried)",
    # the fleet's (hookd.fleet.status, docs/fleet.md)
    "hookd.decisions.by_rule": 'Decisions by agent, final outcome and deciding policy:rule ("" when none)',
    "hookd.fleet.bundle.activations": "Bundles activated, per source",
    "hookd.fleet.bundle.refusals": "Bundles refused (the last good one kept serving), per source",
    "hookd.fleet.bundle.fetch_failures": "Bundle requests that failed, per source",
    "hookd.fleet.status.sent": "Status reports the status service accepted",
    "hookd.fleet.status.failures": "Status reports that could not be delivered",
}
GAUGES = {
    "hookd.log_ship.buffered": "Decision log records waiting to be shipped",
    "hookd.otel.buffered": "Decision records waiting for OpenTelemetry export",
    "hookd.fleet.up": "1 from every daemon exporting; a daemon that stops reporting stops this series",
    "hookd.fleet.policy_set": "1 per serving policy layer, with its name, rank, mode and revision",
    "hookd.fleet.bundle.consecutive_failures": "Failed requests in a row, per bundle source",
    "hookd.fleet.agent": "1 per agent hookd is installed for, with its scopes and doctor's verdict",
    "hookd.fleet.doctor.problems": "Problems doctor's checks found at their last run",
}
# the daemon's scalar counters and gauges (hookd.runtime.metrics.Gauges) by their Prometheus names
_FROM_PROMETHEUS = {
    "hookd_requests": "hookd.requests",
    "hookd_reloads": "hookd.reloads",
    "hookd_reload_failures": "hookd.reload_failures",
    "hookd_decision_log_written": "hookd.decision_log.written",
    "hookd_decision_log_dropped": "hookd.decision_log.dropped",
    "hookd_decision_log_write_errors": "hookd.decision_log.write_errors",
    "hookd_log_ship_sent": "hookd.log_ship.sent",
    "hookd_log_ship_dropped": "hookd.log_ship.dropped",
    "hookd_log_ship_failures": "hookd.log_ship.failures",
    "hookd_log_ship_buffered": "hookd.log_ship.buffered",
    "hookd_replay_written": "hookd.replay.written",
    "hookd_replay_dropped": "hookd.replay.dropped",
    "hookd_replay_write_errors": "hookd.replay.write_errors",
    "hookd_otel_exported": "hookd.otel.exported",
    "hookd_otel_dropped": "hookd.otel.dropped",
    "hookd_otel_failed_exports": "hookd.otel.failed_exports",
    "hookd_otel_buffered": "hookd.otel.buffered",
}
NO_ATTRIBUTES: Mapping[str, str] = {}


def daemon_readings(
    metrics: DecisionMetrics, rollout: RolloutCounters, more: Gauges, fleet: tuple[Counters, Counters] | None = None
) -> Readings:
    """The daemon's counters as OTLP metrics read them, on the metric reader's thread (each dict is copied
    first: one C call, atomic under the GIL)."""

    def counters() -> Iterable[tuple[str, Mapping[str, str], float]]:
        for (event, outcome), n in metrics.decisions.copy().items():
            yield "hookd.decisions", {"event": event.value, "decision": outcome.name.lower()}, n
        for event, n in metrics.engine_errors.copy().items():
            yield "hookd.engine_errors", {"event": event.value}, n
        for (event, mode), n in metrics.fail_mode_answers.copy().items():
            yield "hookd.fail_mode_answers", {"event": event.value, "mode": mode.value}, n
        for code, n in dict(more.request_errors()).items():
            yield "hookd.request_errors", {"code": code}, n
        for (layer, decision), n in rollout.monitor.copy().items():
            yield "hookd.monitor.decisions", {"layer": layer, "decision": decision}, n
        yield "hookd.shadow.evaluations", NO_ATTRIBUTES, rollout.shadow_evaluated
        for transition, n in rollout.disagreements.copy().items():
            yield "hookd.shadow.disagreements", {"transition": transition}, n
        for reason, n in rollout.skipped.copy().items():
            yield "hookd.rollout.skipped", {"reason": reason}, n
        yield "hookd.rollout.errors", NO_ATTRIBUTES, rollout.errors
        yield from _renamed(more.counters())
        if fleet is not None:  # (counters, gauges) of hookd.fleet.status
            yield from fleet[0]()

    def gauges() -> Iterable[tuple[str, Mapping[str, str], float]]:
        yield from _renamed(more.gauges())
        if fleet is not None:
            yield from fleet[1]()

    def latencies() -> Iterable[tuple[Mapping[str, str], Sequence[int], float]]:
        for event, histogram in metrics.latency.copy().items():
            yield {"event": event.value}, list(histogram.counts), histogram.total_ms / 1000

    return Readings(counters, gauges, latencies)


def _renamed(values: Mapping[str, float]) -> Iterable[tuple[str, Mapping[str, str], int]]:
    for name, value in values.items():
        if name in _FROM_PROMETHEUS:
            yield _FROM_PROMETHEUS[name], NO_ATTRIBUTES, int(value)  # all counts (the scrape's are floats)
