"""Decision metrics: plain counters the hot path bumps (no locks, no prometheus_client call per decision),
and, opt-in (`[metrics] listen`), a Prometheus endpoint on a loopback address whose collector reads them
at scrape time (docs/control.md).

The endpoint is prometheus_client's own HTTP server, on its own thread; a scrape copies the counters
(each copy is one C call, atomic under the GIL) and never touches the event loop.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hookd.errors import DaemonError
from hookd.types import Event, FailMode, Handled, Outcome

if TYPE_CHECKING:
    from wsgiref.simple_server import WSGIServer

# Upper bounds of the latency histogram, in seconds (the hook path's budget is a few milliseconds).
LATENCY_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_BUCKETS_MS = tuple(bound * 1000 for bound in LATENCY_BUCKETS)


class Histogram:
    """Counts per bucket (the last one is +Inf) and the sum in milliseconds; seconds only at scrape time."""

    __slots__ = ("counts", "total_ms")

    def __init__(self) -> None:
        self.counts = [0] * (len(LATENCY_BUCKETS) + 1)
        self.total_ms = 0.0


class DecisionMetrics:
    """What the hot path counts for each decision: by event and outcome, latency, engine errors, fail-mode answers.

    `observe` runs on every decision, so it keys by the enum members themselves (`.value` and `.name` are
    slow properties) and leaves every conversion to the scrape.
    """

    __slots__ = ("_fail_modes", "decisions", "engine_errors", "fail_mode_answers", "latency")

    def __init__(self, fail_modes: Mapping[Event, FailMode]) -> None:
        self._fail_modes = fail_modes
        self.decisions: dict[tuple[Event, Outcome], int] = {}
        self.latency: dict[Event, Histogram] = {}  # from accepting the connection to the rendered reply
        self.engine_errors: dict[Event, int] = {}  # evaluations that failed
        self.fail_mode_answers: dict[tuple[Event, FailMode], int] = {}

    def observe(self, handled: Handled) -> None:
        self.count(handled.event.event, handled.decision.outcome, handled.latency_ms, handled.engine_error)

    def count(self, event: Event, outcome: Outcome, latency_ms: float, engine_error: bool) -> None:
        """One decision, by its parts (a worker process reports decisions this way)."""
        key = (event, outcome)
        decisions = self.decisions
        decisions[key] = decisions.get(key, 0) + 1
        histogram = self.latency.get(event)
        if histogram is None:
            histogram = self.latency[event] = Histogram()
        histogram.counts[bisect.bisect_left(_BUCKETS_MS, latency_ms)] += 1
        histogram.total_ms += latency_ms
        if engine_error:
            self.engine_errors[event] = self.engine_errors.get(event, 0) + 1
            mode = (event, self._fail_modes.get(event, FailMode.OPEN))
            self.fail_mode_answers[mode] = self.fail_mode_answers.get(mode, 0) + 1

    def by_outcome(self) -> dict[str, int]:
        totals: dict[str, int] = {}
        for (_event, outcome), count in dict(self.decisions).items():
            name = outcome.name.lower()
            totals[name] = totals.get(name, 0) + count
        return totals


@dataclass(frozen=True, slots=True)
class Gauges:
    """Everything else a scrape reports, read through callables so that this module needs no Daemon."""

    request_errors: Callable[[], Mapping[str, int]]  # requests answered with an error frame, by code
    counters: Callable[[], Mapping[str, float]]  # name -> value, counters (without _total)
    gauges: Callable[[], Mapping[str, float]]  # name -> value
    families: Callable[[], Iterable[Any]] = tuple  # more metric families, built at scrape time (hookd.rollout)


class HookdCollector:
    """A prometheus_client collector over DecisionMetrics and the daemon's other counters."""

    def __init__(self, metrics: DecisionMetrics, more: Gauges) -> None:
        self.metrics = metrics
        self.more = more

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

        m = self.metrics
        decisions = CounterMetricFamily(
            "hookd_decisions", "Decisions made, by hook event and final outcome", labels=["event", "decision"]
        )
        for event, outcome, count in sorted((e.value, o.name.lower(), n) for (e, o), n in m.decisions.copy().items()):
            decisions.add_metric([event, outcome], count)
        yield decisions
        latency = HistogramMetricFamily(
            "hookd_decision_latency_seconds",
            "From accepting the connection to the rendered reply, by hook event",
            labels=["event"],
        )
        for event, histogram in sorted((e.value, h) for e, h in m.latency.copy().items()):
            latency.add_metric([event], _cumulative(list(histogram.counts)), sum_value=histogram.total_ms / 1000)
        yield latency
        yield _labelled(
            CounterMetricFamily(
                "hookd_engine_errors", "Evaluations that failed (engine or enrichment errors)", labels=["event"]
            ),
            [((event.value,), count) for event, count in m.engine_errors.copy().items()],
        )
        yield _labelled(
            CounterMetricFamily(
                "hookd_fail_mode_answers",
                "Decisions answered by the event's fail mode because the policies could not be evaluated",
                labels=["event", "mode"],
            ),
            [((event.value, mode.value), count) for (event, mode), count in m.fail_mode_answers.copy().items()],
        )
        yield _labelled(
            CounterMetricFamily(
                "hookd_request_errors",
                "Requests answered with an error (the shim then applies its fail mode), by code",
                labels=["code"],
            ),
            [((code,), count) for code, count in dict(self.more.request_errors()).items()],
        )
        for name, value in sorted(self.more.counters().items()):
            yield CounterMetricFamily(name, _HELP.get(name, name), value=value)
        for name, value in sorted(self.more.gauges().items()):
            yield GaugeMetricFamily(name, _HELP.get(name, name), value=value)
        yield from self.more.families()


_HELP = {
    "hookd_requests": "Hook requests received (hook socket and Decide)",
    "hookd_reloads": "Policy reloads that succeeded",
    "hookd_reload_failures": "Policy reloads refused (the old policies kept serving)",
    "hookd_decision_log_written": "Decision log records written",
    "hookd_decision_log_dropped": "Decision log records dropped because the writer's queue was full",
    "hookd_decision_log_write_errors": "Decision log records that could not be written",
    "hookd_log_ship_sent": "Decision log records shipped to the collector",
    "hookd_log_ship_dropped": "Decision log records dropped from the shipping buffer (it was full)",
    "hookd_log_ship_failures": "Uploads to the collector that failed (retried with back-off)",
    "hookd_log_ship_buffered": "Decision log records waiting to be shipped (queued and in flight)",
    "hookd_replay_written": "Lines written to the replay store",
    "hookd_replay_dropped": "Decisions not stored for replay (its queue was full, or a line too long)",
    "hookd_replay_write_errors": "Replay store lines that could not be written",
    "hookd_otel_exported": "Decision records the OpenTelemetry collector accepted",
    "hookd_otel_dropped": "Decision records dropped from the OpenTelemetry export buffer (it was full)",
    "hookd_otel_failed_exports": "OpenTelemetry exports that failed (the records are kept and retried)",
    "hookd_otel_buffered": "Decision records waiting for OpenTelemetry export",
}


def _cumulative(counts: list[int]) -> list[tuple[str, float]]:
    buckets, running = [], 0
    for bound, count in zip((*map(str, LATENCY_BUCKETS), "+Inf"), counts, strict=True):
        running += count
        buckets.append((bound, float(running)))
    return buckets


def _labelled(family: Any, samples: Iterable[tuple[tuple[str, ...], int]]) -> Any:
    for labels, count in sorted(samples):
        family.add_metric(list(labels), count)
    return family


class MetricsEndpoint:
    """prometheus_client's HTTP server on a loopback address, serving one registry with hookd's collector."""

    def __init__(self, host: str, port: int, collector: HookdCollector) -> None:
        self.host, self.port = host, port
        self.collector = collector
        self._server: WSGIServer | None = None

    def start(self) -> str:
        """Listen and serve on a thread; returns the address it listens on (the port when 0 was asked for)."""
        from prometheus_client import CollectorRegistry, ProcessCollector, start_http_server

        registry = CollectorRegistry(auto_describe=False)
        registry.register(self.collector)
        ProcessCollector(registry=registry)
        try:
            self._server, _thread = start_http_server(self.port, addr=self.host, registry=registry)
        except OSError as exc:
            raise DaemonError(f"cannot serve metrics on {self.address}: {exc.strerror or exc}") from None
        self.port = self._server.server_port
        return self.address

    @property
    def address(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
