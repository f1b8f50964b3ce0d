"""OpenTelemetry export against a real OpenTelemetry Collector (tests/otelcol: the OTLP receiver and the file
exporter, built by ./dev from the Go module proxy) on 127.0.0.1: every decision record arrives once, with
its resource attributes and the decision id; a collector that is down and comes back loses nothing within
the buffer bound, and what is beyond the bound is counted; the decision metrics arrive as OTLP metrics."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hookd import wire
from support import (
    DEMO_POLICIES,
    RunningDaemon,
    eventually,
    free_port,
    gemini_payload,
    require,
    scrape,
    send_frame,
    start_daemon,
)

TIMEOUT = 60
BUFFER = 12  # [otel] max_queue_size of the daemon under test


@dataclass
class Collector:
    port: int
    out: Path
    proc: subprocess.Popen[bytes] | None = None
    runs: int = 0

    def start(self) -> None:
        """Listen again on the same port; each run writes its own files (so none is truncated)."""
        self.runs += 1
        config = self.out / f"collector-{self.runs}.yaml"
        config.write_text(
            f"""
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:{self.port}
exporters:
  file/logs:
    path: {self.out / f"logs-{self.runs}.json"}
    flush_interval: 100ms
  file/metrics:
    path: {self.out / f"metrics-{self.runs}.json"}
    flush_interval: 100ms
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    logs: {{receivers: [otlp], exporters: [file/logs]}}
    metrics: {{receivers: [otlp], exporters: [file/metrics]}}
"""
        )
        log = (self.out / f"collector-{self.runs}.log").open("wb")
        self.proc = subprocess.Popen(
            [os.environ["HOOKD_OTELCOL_BIN"], "--config", str(config)], stdout=log, stderr=subprocess.STDOUT
        )
        wait(self._listening, f"the collector on port {self.port}")

    def _listening(self) -> bool:
        assert self.proc is not None
        assert self.proc.poll() is None, (self.out / f"collector-{self.runs}.log").read_text()[-3000:]
        with socket.socket() as probe:
            probe.settimeout(1)
            return probe.connect_ex(("127.0.0.1", self.port)) == 0

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=TIMEOUT)

    def lines(self, kind: str) -> list[dict[str, Any]]:
        out = []
        for path in sorted(self.out.glob(f"{kind}-*.json")):
            for line in path.read_text().splitlines():
                with contextlib.suppress(ValueError):  # the line the collector is writing right now
                    out.append(json.loads(line))
        return out

    def log_records(self) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """(resource attributes, log record) for every log record received, in arrival order."""
        out = []
        for line in self.lines("logs"):
            for resource_logs in line.get("resourceLogs", []):
                resource = attributes(resource_logs["resource"].get("attributes", []))
                for scope in resource_logs.get("scopeLogs", []):
                    out += [(resource, record) for record in scope.get("logRecords", [])]
        return out

    def decision_ids(self) -> Counter[str]:
        return Counter(attributes(r["attributes"])["hookd.decision.id"] for _, r in self.log_records())


def attributes(pairs: list[dict[str, Any]]) -> dict[str, Any]:
    return {p["key"]: next(iter(p["value"].values()), None) for p in pairs}


def wait(condition: Any, what: str, timeout: float = TIMEOUT) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.05)


@pytest.fixture
def collector(tmp_path: Path) -> Iterator[Collector]:
    require(os.access(os.environ.get("HOOKD_OTELCOL_BIN", "/nonexistent"), os.X_OK), "the test collector (./dev)")
    found = Collector(free_port(), tmp_path)
    found.start()
    try:
        yield found
    finally:
        found.stop()


def decide(daemon: RunningDaemon, n: int, name: str) -> None:
    for i in range(n):
        payload = gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": f"{name}{i}.txt"})
        header = {"client": "gemini", "event": "BeforeTool", "cwd": "/tmp", "ppid": 1, "env": {}}
        reply = wire.decode_reply(send_frame(daemon.socket, wire.encode_request(header, json.dumps(payload).encode())))
        assert reply.status is wire.Status.OK


def status(daemon: RunningDaemon) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "hookd", "status", "--json", "--runtime-dir", str(daemon.runtime_dir)],
        capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ, "HOOKD_CONFIG": ""}, check=True,
    )  # fmt: skip
    export = json.loads(done.stdout)["otel"]
    return {k: int(v) if k in ("exported", "dropped", "buffered", "failed_exports") else v for k, v in export.items()}


def test_records_arrive_once_survive_a_collector_restart_within_the_bound_and_metrics_arrive(
    tmp_path: Path, collector: Collector
) -> None:
    config = (
        f'[otel]\nendpoint = "http://127.0.0.1:{collector.port}"\nagent = "gemini"\nmax_queue_size = {BUFFER}\n'
        "batch_size = 4\nschedule_delay_ms = 100\nexport_timeout_ms = 1000\nmetrics_interval_ms = 500\n"
    )
    daemon = start_daemon(tmp_path, DEMO_POLICIES, config=config)
    try:
        decide(daemon, 5, "up")
        wait(lambda: len(collector.decision_ids()) >= 5, "5 records at the collector")
        records = daemon.decisions(at_least=5)
        resource, first = collector.log_records()[0]
        assert resource["service.name"] == "hookd" and resource["hookd.agent"] == "gemini"
        assert resource["host.name"] == socket.gethostname() and resource["user.name"]
        assert resource["hookd.policy.revision"] == records[0]["revisions"]["default"]
        assert first["eventName"] == "hookd.decision"
        body = json.loads(first["body"]["stringValue"])
        assert body["id"] == records[0]["id"] == attributes(first["attributes"])["hookd.decision.id"]

        collector.stop()  # down: what is decided meanwhile waits in the buffer
        decide(daemon, 7, "down")
        wait(lambda: status(daemon)["buffered"] == 7, "7 records buffered while the collector is down")
        collector.start()
        wait(lambda: len(collector.decision_ids()) >= 12, "12 records after the collector came back")
        assert status(daemon)["dropped"] == 0

        collector.stop()  # down again, and more than the buffer holds
        decide(daemon, BUFFER + 3, "over")
        wait(lambda: status(daemon)["buffered"] == BUFFER, "a full buffer")
        assert status(daemon)["dropped"] == 3
        collector.start()
        wait(lambda: len(collector.decision_ids()) >= 12 + BUFFER, "the buffered records after the second restart")
        text = subprocess.run(
            [sys.executable, "-m", "hookd", "status", "--runtime-dir", str(daemon.runtime_dir)],
            capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ, "HOOKD_CONFIG": ""}, check=True,
        ).stdout  # fmt: skip
        wait(lambda: any(_decisions_metric(line) >= 12 + BUFFER + 3 for line in collector.lines("metrics")), "metrics")
        records = daemon.decisions(at_least=12 + BUFFER + 3)
    finally:
        assert daemon.stop() == 0

    ids = collector.decision_ids()
    assert set(ids.values()) == {1}, "every record arrives once"
    logged = [r["id"] for r in records]
    lost = logged[12 : 12 + 3 + BUFFER]
    assert set(ids) == set(logged[:12]) | set(lost[:BUFFER]), "the first 12, then the buffer's worth of the rest"
    assert f"otel:      http://127.0.0.1:{collector.port}: exported {12 + BUFFER}, buffered 0, dropped 3" in text


def _decisions_metric(line: dict[str, Any]) -> float:
    """The sum of hookd.decisions data points in one metrics export (0 without them)."""
    total = 0.0
    for resource in line.get("resourceMetrics", []):
        for scope in resource.get("scopeMetrics", []):
            for metric in scope.get("metrics", []):
                if metric["name"] == "hookd.decisions":
                    total += sum(float(p.get("asInt", p.get("asDouble", 0))) for p in metric["sum"]["dataPoints"])
    return total


def metrics_of(line: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The metrics of one export by name."""
    return {
        metric["name"]: metric
        for resource in line.get("resourceMetrics", [])
        for scope in resource.get("scopeMetrics", [])
        for metric in scope.get("metrics", [])
    }


def latest_export(collector: Collector, requests: int) -> dict[str, dict[str, Any]] | None:
    """The last metrics export whose `hookd.requests` counts `requests` (a worker reports its count each
    second) and whose latency histogram counts as many decisions; None before it arrives."""
    for line in reversed(collector.lines("metrics")):
        metrics = metrics_of(line)
        counted = metrics.get("hookd.requests", {}).get("sum", {}).get("dataPoints", [])
        points = metrics.get("hookd.decision.latency", {}).get("histogram", {}).get("dataPoints", [])
        if counted and int(counted[0]["asInt"]) == requests and sum(int(p["count"]) for p in points) == requests:
            return metrics
    return None


def test_the_latency_histogram_and_the_other_prometheus_metrics_arrive_as_otlp_metrics(
    tmp_path: Path, collector: Collector
) -> None:
    """With a worker process beside the daemon: the OTLP histogram's buckets are the Prometheus histogram's,
    per event, and every decision of both processes is in it."""
    port = free_port()
    config = (
        f'[daemon]\nworkers = 2\n[metrics]\nlisten = "127.0.0.1:{port}"\n'
        f'[otel]\nendpoint = "http://127.0.0.1:{collector.port}"\nmetrics_interval_ms = 300\n'
    )
    daemon = start_daemon(tmp_path, DEMO_POLICIES, config=config)
    try:
        wait(lambda: '"worker_serving"' in daemon.log(), "the worker serving")
        decide(daemon, 30, "h")
        after = gemini_payload("AfterTool", tool_name="read_file", tool_input={"file_path": "a"}, tool_response={})
        header = {"client": "gemini", "event": "AfterTool", "cwd": "/tmp", "ppid": 1, "env": {}}
        for _ in range(7):
            frame = wire.encode_request(header, json.dumps(after).encode())
            assert wire.decode_reply(send_frame(daemon.socket, frame)).status is wire.Status.OK
        records = daemon.decisions(at_least=37)
        metrics = eventually(lambda: latest_export(collector, 37), timeout=TIMEOUT, what="an export counting 37")
        scraped = scrape(f"127.0.0.1:{port}")
    finally:
        assert daemon.stop() == 0
    assert {int(r["id"], 16) % 64 for r in records} == {0, 1}, "both processes decided"
    latency = metrics["hookd.decision.latency"]
    assert latency["unit"] == "s" and latency["histogram"]["aggregationTemporality"] == 2  # cumulative
    points = {attributes(p["attributes"])["event"]: p for p in latency["histogram"]["dataPoints"]}
    assert {event: int(p["count"]) for event, p in points.items()} == {"BeforeTool": 30, "AfterTool": 7}
    for event, point in points.items():
        prometheus = {  # upper bound -> cumulative count
            float(dict(labels)["le"]): value
            for (name, labels), value in scraped.items()
            if name == "hookd_decision_latency_seconds_bucket" and dict(labels)["event"] == event
        }
        bounds = [*(float(b) for b in point["explicitBounds"]), float("inf")]
        running = 0
        for bound, count in zip(bounds, point["bucketCounts"], strict=True):
            running += int(count)
            assert running == prometheus[bound], (event, bound)
        assert point["sum"] == pytest.approx(scraped[("hookd_decision_latency_seconds_sum", (("event", event),))])
    written = metrics["hookd.decision_log.written"]["sum"]["dataPoints"][0]
    assert int(written["asInt"]) >= 30  # written by now: the export was read after at least these were
    assert {"hookd.shadow.evaluations", "hookd.rollout.errors", "hookd.otel.exported"} <= set(metrics)
    assert "gauge" in metrics["hookd.otel.buffered"]
