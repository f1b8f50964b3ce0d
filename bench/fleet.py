"""A fleet on one machine: N real daemons (each its own HOME, state and runtime dir), one real nginx serving
the signed bundles, the real OpenTelemetry Collector of the tests (tests/otelcol) and a status receiver
(a small real HTTP server), all on 127.0.0.1. Prints ONE JSON line (docs/fleet.md).

Every daemon has two organisation bundles: `acme`, polled from nginx's static files (ETag, 304), and `lp`,
long-polled through nginx, which proxies /lp/ to a long-poll server (nginx itself cannot hold a request
until a file changes; OPA's long polling needs a server that implements it). Each bundle denies writing
its probe file with the reason "<name> revision <R>", so a probe over the hook socket says which revision
decided. Phases, each bounded:

  start        publish r1, start the daemons in batches, wait until every one serves r1 of both bundles
  rest         `--rest-s` seconds untouched: nginx's access log gives requests and bytes per daemon per
               minute; /proc gives each daemon's RSS and CPU
  polling      publish acme r2: seconds from the publish until each daemon's `bundle_activated`
  long polling publish lp r2: the same
  rollback     publish acme r1's bytes again: the same
  bad bundle   publish an acme signed with another key: every daemon must refuse it (its status report
               says so) and keep answering with r1
  outage       publish acme r3 and stop nginx once the first daemon has it, for `--outage-s` seconds,
               probing every daemon all along (each must answer with r1 or r3); then start nginx again
               and wait until every daemon serves r3
  records      stop the daemons (SIGTERM: each exports what it holds) and compare every decision id of
               every local decision log with what the collector received

Run: .cache/venv/bin/python bench/fleet.py --daemons 100 [--outage-s 60] [--rest-s 60] [--json FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bundle_support import BundleServer, KeyPair, make_key  # noqa: E402
from fleet_support import StatusReceiver  # noqa: E402
from run import children, cpu_seconds, rss_mb  # noqa: E402

from hookd import wire  # noqa: E402
from hookd.bundle.build import build  # noqa: E402
from hookd.bundle.signing import Key  # noqa: E402

PYTHON = str(ROOT / ".cache" / "venv" / "bin" / "python")
BUNDLES = ("acme", "lp")
RULE = (
    'deny contains {{"id": "rev", "reason": "{name} revision {rev}"}} '
    'if endswith(input.tool.input.file_path, "{name}.txt")\n'
)
USER_POLICY = 'package hookd.user\n\ndeny contains {"id": "never", "reason": "never"} if input.tool.name == "never"\n'
HEADER = {"client": "gemini", "event": "BeforeTool", "cwd": "/", "ppid": 1, "env": {}}


def nginx_binary() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Nginx:
    """nginx serving `www` on 127.0.0.1 (ETag from mtime and size; 304 on If-None-Match), proxying /lp/ to
    the long-poll server, logging status, bytes sent and URI of every request."""

    def __init__(self, binary: str, work: Path, upstream: int) -> None:
        self.binary, self.work, self.port = binary, work, free_port()
        self.www = work / "www"
        self.www.mkdir(parents=True)
        for path in (work, self.www):
            path.chmod(0o755)  # nginx's workers run as an unprivileged user
        self.access = work / "access.log"
        self.conf = work / "nginx.conf"
        self.conf.write_text(f"""
daemon off;
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections 4096; }}
http {{
  log_format fleet '$msec $status $bytes_sent $request_uri';
  access_log {self.access} fleet;
  client_body_temp_path {work}/tmp-body;
  proxy_temp_path {work}/tmp-proxy;
  fastcgi_temp_path {work}/tmp-fastcgi;
  uwsgi_temp_path {work}/tmp-uwsgi;
  scgi_temp_path {work}/tmp-scgi;
  keepalive_timeout 65;
  server {{
    listen 127.0.0.1:{self.port};
    root {self.www};
    etag on;
    types {{ application/gzip gz; }}
    location /lp/ {{
      proxy_pass http://127.0.0.1:{upstream}/;
      proxy_read_timeout 300s;
      proxy_buffering off;
    }}
  }}
}}
""")
        self.proc: subprocess.Popen[bytes] | None = None
        self._mtime = int(time.time())

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path}"

    def start(self) -> None:
        log = (self.work / "nginx.out").open("ab")
        self.proc = subprocess.Popen([self.binary, "-c", str(self.conf)], stdout=log, stderr=subprocess.STDOUT)
        wait_until(self._listening, 30, "nginx listening")

    def _listening(self) -> bool:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
            return True
        return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # fast shutdown: held long polls are cut, as in an outage
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)

    def publish(self, name: str, data: bytes) -> float:
        """Atomically (rename) and with an mtime of its own: nginx's ETag is mtime and size, in seconds."""
        self._mtime = max(self._mtime + 1, int(time.time()))
        tmp = self.www / f".{name}.tmp"
        tmp.write_bytes(data)
        tmp.chmod(0o644)
        os.utime(tmp, (self._mtime, self._mtime))
        tmp.rename(self.www / name)
        return time.time()

    def requests_between(self, start: float, end: float) -> dict[str, tuple[int, int]]:
        """(requests, bytes sent) per bundle between two times, from the access log."""
        out = {name: [0, 0] for name in BUNDLES}
        for line in self.access.read_text().splitlines():
            at, _status, sent, uri = line.split(" ", 3)
            if start <= float(at) < end:
                name = "lp" if uri.startswith("/lp/") else "acme"
                out[name][0] += 1
                out[name][1] += int(sent)
        return {name: (n, b) for name, (n, b) in out.items()}


class Collector:
    """The test collector: OTLP in, records and metrics to files; with `prometheus_port`, the metrics also to
    the Prometheus exporter as deploy/otel/collector.yaml has it (a collector built with it: tests/otelcol-
    prometheus), series expiring after `expire_s` so a stopped daemon drops out as in production."""

    def __init__(self, binary: str, work: Path, prometheus_port: int = 0, expire_s: float = 600) -> None:
        self.port, self.work = free_port(), work
        self.logs, self.metrics = work / "logs.json", work / "metrics.json"
        self.prometheus_port = prometheus_port
        prometheus = f"""
  prometheus:
    endpoint: 127.0.0.1:{prometheus_port}
    resource_to_telemetry_conversion: {{enabled: true}}
    metric_expiration: {expire_s}s"""
        config = work / "collector.yaml"
        config.write_text(f"""
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:{self.port}
exporters:
  file/logs:
    path: {self.logs}
    flush_interval: 100ms
  file/metrics:
    path: {self.metrics}
    flush_interval: 100ms{prometheus if prometheus_port else ""}
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    logs: {{receivers: [otlp], exporters: [file/logs]}}
    metrics: {{receivers: [otlp], exporters: [file/metrics{", prometheus" if prometheus_port else ""}]}}
""")
        out = (work / "collector.out").open("wb")
        self.proc = subprocess.Popen([binary, "--config", str(config)], stdout=out, stderr=subprocess.STDOUT)
        wait_until(self._listening, 60, "the collector listening")

    def _listening(self) -> bool:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
            return True
        return False

    def record_hashes(self) -> set[str]:
        """The chain hash of every decision record received (unique per record: decision ids are not unique
        across daemons, which may number two decisions alike in the same millisecond)."""
        hashes = set()
        for export in _json_lines(self.logs):
            for resource in export.get("resourceLogs", []):
                for scope in resource.get("scopeLogs", []):
                    for record in scope.get("logRecords", []):
                        with contextlib.suppress(ValueError, KeyError, TypeError):
                            hashes.add(json.loads(record["body"]["stringValue"])["hash"])
        return hashes

    def instances_reporting(self, metric: str) -> set[str]:
        """The service.instance.id of every daemon whose exports carried `metric`."""
        seen = set()
        for export in _json_lines(self.metrics):
            for resource in export.get("resourceMetrics", []):
                attrs = {a["key"]: a["value"] for a in resource.get("resource", {}).get("attributes", [])}
                names = {m["name"] for s in resource.get("scopeMetrics", []) for m in s.get("metrics", [])}
                if metric in names:
                    seen.add(attrs.get("service.instance.id", {}).get("stringValue", ""))
        return seen

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


def _json_lines(path: Path) -> Iterator[dict[str, Any]]:
    if not path.exists():
        return
    for line in path.read_text().splitlines():
        with contextlib.suppress(ValueError):
            yield json.loads(line)


@dataclass
class Daemon:
    index: int
    home: Path
    runtime: Path
    proc: subprocess.Popen[bytes] | None = None
    log_offset: int = 0
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def log(self) -> Path:
        return self.home / "daemon.log"

    @property
    def socket(self) -> Path:
        return self.runtime / "hook.sock"

    def read_events(self) -> list[dict[str, Any]]:
        """New JSON log lines since the last read (the daemon writes structlog JSON to its log)."""
        with self.log.open("rb") as handle:
            handle.seek(self.log_offset)
            chunk = handle.read()
        end = chunk.rfind(b"\n") + 1
        self.log_offset += end
        for line in chunk[:end].splitlines():
            with contextlib.suppress(ValueError):
                self.events.append(json.loads(line))
        return self.events

    def activated(self, source: str, revision: str, after: float) -> float | None:
        for event in self.read_events():
            if event.get("event") == "bundle_activated" and event.get("source") == source:
                at = _timestamp(event)
                if event.get("revision") == revision and at >= after:
                    return at
        return None

    def record_hashes(self) -> set[str]:
        path = self.home / "state" / "hookd" / "decisions.log"
        return {str(r["hash"]) for r in _json_lines(path) if r.get("type") == "decision"}


def _timestamp(event: dict[str, Any]) -> float:
    return datetime.datetime.fromisoformat(str(event["timestamp"])).timestamp()


def wait_until(check: Callable[[], Any], timeout: float, what: str) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise RuntimeError(f"not within {timeout:.0f}s: {what}")


def send_request(path: Path, header: dict[str, Any], payload: dict[str, Any]) -> bytes:
    """One hook request over a daemon's hook socket, as the shim sends it: the reply's bytes."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(30)
        sock.connect(str(path))
        sock.sendall(wire.encode_request(header, json.dumps(payload).encode()))
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def probe(daemon: Daemon, name: str = "acme") -> str:
    """One BeforeTool decision over the hook socket: the reason the agent would see; raises on any failure."""
    payload = {
        "session_id": "fleet", "transcript_path": "", "cwd": "/tmp", "hook_event_name": "BeforeTool",
        "timestamp": "2026-01-01T00:00:00.000Z", "tool_name": "write_file",
        "tool_input": {"file_path": f"/tmp/{name}.txt", "content": "x"},
    }  # fmt: skip
    reply = wire.decode_reply(send_request(daemon.socket, HEADER, payload))
    if reply.status is not wire.Status.OK or not reply.stdout:
        raise RuntimeError(f"daemon {daemon.index}: {reply}")
    return str(json.loads(reply.stdout)["reason"])


@dataclass
class Fleet:
    args: argparse.Namespace
    work: Path
    key: KeyPair = field(default_factory=lambda: make_key("RS256"))
    wrong: KeyPair = field(default_factory=lambda: make_key("RS256"))
    daemons: list[Daemon] = field(default_factory=list)
    published: dict[tuple[str, str], bytes] = field(default_factory=dict)

    def __post_init__(self) -> None:
        otelcol = getattr(self.args, "otelcol", "") or os.environ.get(
            "HOOKD_OTELCOL_BIN", str(ROOT / ".cache" / "otelcol" / "otelcol-hookd")
        )
        nginx = nginx_binary()
        if nginx is None:
            raise RuntimeError("nginx not found: install Debian's nginx-light (./dev does in CI)")
        if not os.access(otelcol, os.X_OK):
            raise RuntimeError(f"{otelcol}: no OpenTelemetry Collector (./dev builds tests/otelcol)")
        _, self.pub = self.key.write(self.work / "keys")
        self.longpoll = BundleServer()
        self.nginx = Nginx(nginx, self.work / "nginx", self.longpoll.port)
        self.receiver = StatusReceiver()
        self.collector = Collector(
            otelcol, self.work, getattr(self.args, "prometheus_port", 0), getattr(self.args, "expire_s", 600)
        )
        self.user_policies = self.work / "user-policies"
        self.user_policies.mkdir()
        (self.user_policies / "user.rego").write_text(USER_POLICY)

    def bundle(self, name: str, rev: str, key: KeyPair | None = None) -> bytes:
        cached = self.published.get((name, rev))
        if cached is not None and key is None:
            return cached
        source = self.work / "src" / f"{name}-{rev}-{time.monotonic_ns()}" / name
        source.mkdir(parents=True)
        (source / "policy.rego").write_text(f"package hookd.{name}\n\n" + RULE.format(name=name, rev=rev))
        signer = key or self.key
        data = build(source.parent, revision=rev, roots=[f"hookd/{name}"], key=Key(signer.algorithm, signer.private))
        if key is None:
            self.published[(name, rev)] = data
        return data

    def publish(self, name: str, rev: str, key: KeyPair | None = None) -> float:
        data = self.bundle(name, rev, key)
        if name == "lp":
            self.longpoll.publish(f"{name}.tar.gz", data)
            return time.time()
        return self.nginx.publish(f"{name}.tar.gz", data)

    def config(self) -> str:
        a = self.args
        return f"""
[daemon]
lane = false
request_timeout_ms = 30000

[keys.org]
algorithm = "RS256"
key_file = "{self.pub}"

[bundles.acme]
url = "{self.nginx.url("acme.tar.gz")}"
key = "org"
min_delay_seconds = {a.poll_min_s}
max_delay_seconds = {a.poll_max_s}

[bundles.lp]
url = "{self.nginx.url("lp/lp.tar.gz")}"
key = "org"
min_delay_seconds = {a.poll_min_s}
max_delay_seconds = {a.poll_max_s}
long_polling_timeout_seconds = {a.long_poll_s}

[layers]
watch = false

[status]
url = "{self.receiver.url()}"
interval_seconds = {a.status_interval_s}

[otel]
endpoint = "http://127.0.0.1:{self.collector.port}"
schedule_delay_ms = 500
metrics_interval_ms = {a.metrics_interval_ms}
"""

    def start_daemons(self) -> None:
        config = self.work / "config.toml"
        config.write_text(self.config())
        for i in range(self.args.daemons):
            home = self.work / "homes" / f"d{i}"
            (home / "state").mkdir(parents=True)
            runtime = Path(tempfile.mkdtemp(prefix=f"hkf{i}-", dir="/tmp")) / "run"
            self.daemons.append(Daemon(i, home, runtime))
        for start in range(0, len(self.daemons), self.args.batch):
            batch = self.daemons[start : start + self.args.batch]
            for d in batch:
                env = {
                    **os.environ, "HOME": str(d.home), "XDG_STATE_HOME": str(d.home / "state"),
                    "XDG_CONFIG_HOME": str(d.home / "config"), "XDG_RUNTIME_DIR": str(d.runtime.parent),
                }  # fmt: skip
                cmd = [
                    PYTHON, "-m", "hookd", "--config", str(config), "serve",
                    "--policies", str(self.user_policies), "--runtime-dir", str(d.runtime),
                ]  # fmt: skip
                with d.log.open("wb") as log:
                    d.proc = subprocess.Popen(
                        cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env
                    )
            for d in batch:
                wait_until(lambda d=d: d.socket.exists() or _exited(d), 180, f"daemon {d.index} listening")
                if _exited(d):
                    raise RuntimeError(f"daemon {d.index} exited:\n{d.log.read_text()[-3000:]}")

    def propagation(self, name: str, rev: str, published: float, timeout: float) -> dict[str, float]:
        """Seconds from the publish until each daemon activated `rev` of `name` (its own log's timestamp)."""
        seen: dict[int, float] = {}

        def everyone() -> bool:
            for d in self.daemons:
                if d.index not in seen and (at := d.activated(name, rev, published)) is not None:
                    seen[d.index] = at - published
            return len(seen) == len(self.daemons)

        try:
            wait_until(everyone, timeout, f"{name} {rev} active on every daemon")
        except RuntimeError as exc:
            raise RuntimeError(f"{exc} ({len(seen)} of {len(self.daemons)})") from None
        return spread(list(seen.values()))

    def probe_all(self, allowed: tuple[str, ...]) -> tuple[int, int]:
        """One acme probe per daemon (in parallel); (decisions, failed: an error or a revision not allowed)."""
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(_probe_or_error, self.daemons))
        failed = sum(
            1
            for a in answers
            if not any(a == f"acme revision {r}" or a.startswith(f"acme revision {r} ") for r in allowed)
        )
        return len(answers), failed

    def idle(self, seconds: float) -> dict[str, Any]:
        pids = [d.proc.pid for d in self.daemons if d.proc is not None]
        tree = pids + [c for pid in pids for c in children(pid)]
        cpu0, start = cpu_seconds(tree), time.time()
        time.sleep(seconds)
        cpu1, end = cpu_seconds(tree), time.time()
        requests = self.nginx.requests_between(start, end)
        per_minute = 60 / (end - start) / len(self.daemons)
        rss = [rss_mb(pid) + sum(rss_mb(c) for c in children(pid)) for pid in pids]
        return {
            "rest_s": round(end - start, 1),
            "requests_per_daemon_per_min": {n: round(r * per_minute, 2) for n, (r, _) in requests.items()},
            "bytes_per_daemon_per_min": {n: round(b * per_minute) for n, (_, b) in requests.items()},
            "idle_rss_mb_per_daemon": {"mean": round(statistics.mean(rss), 1), "max": round(max(rss), 1)},
            "idle_cpu_percent_per_daemon": round((cpu1 - cpu0) / (end - start) / len(pids) * 100, 3),
            "processes_per_daemon": round(len(tree) / len(pids), 2),
        }

    def refused_everywhere(self, rev_serving: str, timeout: float) -> int:
        """Daemons whose status report shows acme refused while serving `rev_serving`."""

        def refused() -> set[str]:
            ids = set()
            for _, _, report in self.receiver.snapshot():  # only the bad bundle is ever refused here
                acme = report.get("bundles", {}).get("acme", {})
                refusals = acme.get("metrics", {}).get("counter_bundle_refusals", 0)
                if acme.get("code") == "bundle_error" and acme.get("active_revision") == rev_serving and refusals:
                    ids.add(report["labels"]["id"])
            return ids

        with contextlib.suppress(RuntimeError):
            wait_until(lambda: len(refused()) >= len(self.daemons), timeout, "every daemon refused the bad bundle")
        return len(refused())

    def stop_daemons(self) -> None:
        for d in self.daemons:
            if d.proc is not None and d.proc.poll() is None:
                d.proc.send_signal(signal.SIGTERM)
        for d in self.daemons:
            if d.proc is not None:
                try:
                    d.proc.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    d.proc.kill()
                    d.proc.wait(timeout=10)

    def close(self) -> None:
        self.stop_daemons()
        self.nginx.stop()
        self.collector.stop()
        self.receiver.close()
        self.longpoll.close()
        for d in self.daemons:
            shutil.rmtree(d.runtime.parent, ignore_errors=True)


def _exited(d: Daemon) -> bool:
    return d.proc is not None and d.proc.poll() is not None


def _probe_or_error(d: Daemon) -> str:
    try:
        return probe(d)
    except Exception as exc:
        return f"error: {type(exc).__name__}: {exc}"


def spread(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, max(0, round(0.99 * len(ordered)) - 1))]
    return {"p50": round(statistics.median(ordered), 3), "p99": round(p99, 3), "max": round(ordered[-1], 3)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="hookd-fleet-"))
    work.chmod(0o711)  # nginx's workers (an unprivileged user) reach www/ through it
    began = time.monotonic()
    fleet = Fleet(args, work)
    result: dict[str, Any] = {"daemons": args.daemons}
    phases: dict[str, float] = {}

    def mark(phase: str) -> None:  # seconds each phase took (where a run's time goes)
        phases[phase] = round(time.monotonic() - began - sum(phases.values()), 1)

    mark("setup")
    try:
        result |= rollout(fleet, args, mark)
        result["status_reports"] = len(fleet.receiver.snapshot())
        result["daemons_reporting_status"] = len(fleet.receiver.latest())
        fleet.stop_daemons()
        mark("stop")
        result |= records(fleet)
        mark("records")
        result["phases_s"] = phases
    finally:
        fleet.close()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return result


def rollout(fleet: Fleet, args: argparse.Namespace, mark: Callable[[str], None]) -> dict[str, Any]:
    """Start, rest, then each rollout phase, probing every daemon after each."""
    settle = args.poll_max_s * 3 + 120
    result: dict[str, Any] = {}
    fleet.nginx.start()
    fleet.publish("acme", "r1")
    fleet.publish("lp", "r1")
    started = time.time()
    fleet.start_daemons()
    fleet.propagation("acme", "r1", 0, settle + 10 * args.daemons)
    fleet.propagation("lp", "r1", 0, settle)
    result["start_s"] = round(time.time() - started, 1)
    decisions, failed = fleet.probe_all(("r1",))
    mark("start")
    result |= fleet.idle(args.rest_s)
    mark("rest")

    polling = fleet.propagation("acme", "r2", fleet.publish("acme", "r2"), settle)
    long_polling = fleet.propagation("lp", "r2", fleet.publish("lp", "r2"), settle)
    result["propagation_s"] = {**polling, "polling": polling, "long_polling": long_polling}
    n, f = fleet.probe_all(("r2",))
    decisions, failed = decisions + n, failed + f
    mark("propagation")

    result["rollback_s"] = fleet.propagation("acme", "r1", fleet.publish("acme", "r1"), settle)
    n, f = fleet.probe_all(("r1",))
    decisions, failed = decisions + n, failed + f
    mark("rollback")

    fleet.publish("acme", "r-bad", key=fleet.wrong)
    result["bad_bundle_refused"] = fleet.refused_everywhere("r1", settle)
    n, f = fleet.probe_all(("r1",))
    decisions, failed = decisions + n, failed + f
    mark("bad_bundle")

    result["outage"] = outage(fleet, args, settle)
    mark("outage")
    result["decisions"] = decisions + result["outage"]["decisions"]
    result["failed_decisions"] = failed + result["outage"]["failed_decisions"]
    return result


def records(fleet: Fleet) -> dict[str, Any]:
    """After the daemons stopped (each exported what it held): every local record at the collector?"""
    time.sleep(0.5)  # the collector's file exporter flushes every 100 ms
    local = {h for d in fleet.daemons for h in d.record_hashes()}
    with contextlib.suppress(RuntimeError):  # what is missing then is lost
        wait_until(lambda: local <= fleet.collector.record_hashes(), 30, "every record at the collector")
    return {
        "records": len(local),
        "lost_records": len(local - fleet.collector.record_hashes()),
        "daemons_reporting_metrics": len(fleet.collector.instances_reporting("hookd.fleet.up")),
    }


def outage(fleet: Fleet, args: argparse.Namespace, settle: float) -> dict[str, Any]:
    """acme r3 published, nginx stopped as soon as one daemon has it, probes all along the outage."""
    published = fleet.publish("acme", "r3")
    wait_until(lambda: any(d.activated("acme", "r3", published) for d in fleet.daemons), settle, "a first daemon on r3")
    fleet.nginx.stop()
    down_at = time.time()
    on_new = sum(1 for d in fleet.daemons if d.activated("acme", "r3", published))
    decisions = failed = rounds = 0
    while time.time() - down_at < args.outage_s:
        n, f = fleet.probe_all(("r1", "r3"))
        decisions, failed, rounds = decisions + n, failed + f, rounds + 1
        time.sleep(min(1.0, max(0.0, args.outage_s - (time.time() - down_at))))
    fleet.nginx.start()
    back_at = time.time()
    recovered = fleet.propagation("acme", "r3", published, settle)
    n, f = fleet.probe_all(("r3",))
    return {
        "seconds": round(back_at - down_at, 1),
        "daemons_on_new_when_down": on_new,
        "probe_rounds": rounds,
        "decisions": decisions + n,
        "failed_decisions": failed + f,
        "all_on_new_s_after_back": round(max(0.0, recovered["max"] - (back_at - published)), 3),
    }


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--daemons", type=int, default=100)
    parser.add_argument("--batch", type=int, default=10, help="daemons started at once")
    parser.add_argument("--rest-s", type=float, default=60.0)
    parser.add_argument("--outage-s", type=float, default=60.0)
    parser.add_argument("--poll-min-s", type=float, default=10.0)
    parser.add_argument("--poll-max-s", type=float, default=20.0)
    parser.add_argument("--long-poll-s", type=int, default=60)
    parser.add_argument("--status-interval-s", type=int, default=60)
    parser.add_argument("--metrics-interval-ms", type=int, default=10_000)
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs) for a look")
    parser.add_argument("--json", help="also write the result to this file")
    return parser.parse_args(argv)


def main() -> None:
    args = parse_args()
    result = run(args)
    line = json.dumps(result, separators=(",", ":"))
    print(line)
    if args.json:
        Path(args.json).write_text(line + "\n")


if __name__ == "__main__":
    main()
