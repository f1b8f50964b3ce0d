"""The fleet dashboard's queries over real data: a small fleet (bench/fleet.py's daemons, nginx and status
receiver) exports OTLP to a real collector whose Prometheus exporter is set up as deploy/otel/collector.yaml
has it; a real Prometheus scrapes it; then every PromQL expression of every panel of
deploy/grafana/hookd-fleet.json is evaluated by that Prometheus (an instant query, and a range query for
the time-series panels). Prints ONE JSON line: per panel its title, type, gridPos and, per expression, the
series returned, so a panel that returns nothing is seen at once.

What the fleet does, so that every panel has something to show: each daemon's user layer is in monitor
mode, a local shadow candidate stands in for `acme` (it denies nothing, so each acme denial is a
disagreement), hookd is installed for Gemini CLI in each daemon's HOME (doctor's verdict per agent), acme
moves r1 -> r2 and a wrongly signed bundle is refused, every daemon is probed every second, and the last
daemon is stopped before the queries (a daemon not reporting).

Run (./dev sets the three binaries):
  .cache/venv/bin/python bench/fleet_dashboard.py --daemons 4 --json bench/results/fleet-dashboard.json
then draw it: bench/fleet_picture.py bench/results/fleet-dashboard.json docs/fleet-dashboard.png
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fleet

ROOT = fleet.ROOT
DASHBOARD = ROOT / "deploy" / "grafana" / "hookd-fleet.json"
SHADOW_POLICY = (
    'package hookd.candidate\n\ndeny contains {"id": "never", "reason": "never"} if input.tool.name == "never"\n'
)
EXPIRE_S = 5  # the collector's metric_expiration here (10m in deploy/): a stopped daemon drops out quickly


def binary(variable: str, relative: str) -> str:
    path = os.environ.get(variable) or str(ROOT / ".cache" / relative)
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"{path}: missing (${variable}; ./dev builds it)")
    return path


class Prometheus:
    """A real Prometheus on 127.0.0.1 scraping the collector's exporter every second."""

    def __init__(self, executable: str, work: Path, target_port: int) -> None:
        work.mkdir(parents=True)
        self.port = fleet.free_port()
        config = work / "prometheus.yml"
        config.write_text(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
            "scrape_configs:\n  - job_name: otelcol\n    static_configs:\n"
            f"      - targets: ['127.0.0.1:{target_port}']\n"
        )
        out = (work / "prometheus.out").open("wb")
        self.proc = subprocess.Popen(
            [
                executable, f"--config.file={config}", f"--storage.tsdb.path={work / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn",
            ],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        fleet.wait_until(self._ready, 60, "prometheus ready")

    def _ready(self) -> bool:
        with contextlib.suppress(OSError), urllib.request.urlopen(self.url("/-/ready"), timeout=2) as response:
            return bool(response.status == 200)
        return False

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def api(self, path: str, **params: str) -> list[dict[str, Any]]:
        query = urllib.parse.urlencode(params)
        with urllib.request.urlopen(self.url(f"/api/v1/{path}?{query}"), timeout=30) as response:
            body = json.loads(response.read())
        if body.get("status") != "success":
            raise RuntimeError(f"prometheus refused {params}: {body}")
        return list(body["data"]["result"])

    def query(self, expr: str, at: float) -> list[dict[str, Any]]:
        return self.api("query", query=expr, time=f"{at:.3f}")

    def query_range(self, expr: str, start: float, end: float, step: float) -> list[dict[str, Any]]:
        return self.api("query_range", query=expr, start=f"{start:.3f}", end=f"{end:.3f}", step=f"{step:g}")

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


class DashboardFleet(fleet.Fleet):
    """bench/fleet.py's fleet with a monitor user layer and a shadow candidate for acme."""

    def config(self) -> str:
        shadow = self.work / "shadow"
        (shadow / "candidate").mkdir(parents=True, exist_ok=True)
        (shadow / "candidate" / "policy.rego").write_text(SHADOW_POLICY)
        monitor = '[layers]\nwatch = false\nmode = "monitor"\n'
        rollout = f'\n[rollout]\nshadow_policies = "{shadow}"\nshadow_replaces = "acme"\n'
        return super().config().replace("[layers]\nwatch = false\n", monitor) + rollout


def install_agents(fleet_: fleet.Fleet) -> None:
    """hookd installed for Gemini CLI in each daemon's HOME, as `hookd install` does on a machine."""
    for i in range(fleet_.args.daemons):
        home = fleet_.work / "homes" / f"d{i}"
        home.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config")}
        subprocess.run(
            [fleet.PYTHON, "-m", "hookd", "install", "--client", "gemini", "--scope", "user"],
            env=env, capture_output=True, timeout=120, check=True,
        )  # fmt: skip


def panels() -> list[dict[str, Any]]:
    return list(json.loads(DASHBOARD.read_text())["panels"])


def run(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="hookd-dashboard-"))
    work.chmod(0o711)  # nginx's workers reach www/ through it
    fleet_args = fleet.parse_args(
        [
            f"--daemons={args.daemons}", f"--batch={args.daemons}", "--poll-min-s=0.5", "--poll-max-s=1",
            "--long-poll-s=5", "--status-interval-s=5", "--metrics-interval-ms=1000",
        ]
    )  # fmt: skip
    fleet_args.otelcol = binary("HOOKD_OTELCOL_PROMETHEUS_BIN", "otelcol-prometheus/otelcol-hookd-prometheus")
    fleet_args.prometheus_port, fleet_args.expire_s = fleet.free_port(), EXPIRE_S
    prometheus_bin = binary("HOOKD_PROMETHEUS_BIN", "prometheus/prometheus")
    the_fleet = DashboardFleet(fleet_args, work)
    prometheus = Prometheus(prometheus_bin, work / "prometheus", fleet_args.prometheus_port)
    try:
        return exercise(the_fleet, prometheus, args)
    finally:
        the_fleet.close()
        prometheus.stop()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def exercise(the_fleet: fleet.Fleet, prometheus: Prometheus, args: argparse.Namespace) -> dict[str, Any]:
    began = time.time()
    the_fleet.nginx.start()
    the_fleet.publish("acme", "r1")
    the_fleet.publish("lp", "r1")
    install_agents(the_fleet)
    the_fleet.start_daemons()
    the_fleet.propagation("acme", "r1", 0, 180)
    the_fleet.propagation("lp", "r1", 0, 60)
    decisions = failed = 0

    def probe_for(seconds: float, allowed: tuple[str, ...]) -> None:
        nonlocal decisions, failed
        end = time.time() + seconds
        while time.time() < end:
            n, f = the_fleet.probe_all(allowed)
            decisions, failed = decisions + n, failed + f
            time.sleep(1)

    probe_for(args.probe_s, ("r1",))
    the_fleet.propagation("acme", "r2", the_fleet.publish("acme", "r2"), 60)
    probe_for(args.probe_s, ("r2",))
    the_fleet.publish("acme", "r-bad", key=the_fleet.wrong)
    refused = the_fleet.refused_everywhere("r2", 60)
    probe_for(args.probe_s, ("r2",))
    stopped = the_fleet.daemons[-1]
    assert stopped.proc is not None
    stopped.proc.send_signal(signal.SIGTERM)
    stopped.proc.wait(timeout=60)
    up = args.daemons - 1
    fleet.wait_until(
        lambda: _value(prometheus.query("count(hookd_fleet_up)", time.time())) == up, 120, f"{up} daemons up"
    )
    end = time.time()
    out = []
    for panel in panels():
        targets = []
        for target in panel["targets"]:
            expr = target["expr"]
            entry: dict[str, Any] = {"expr": expr, "legendFormat": target.get("legendFormat", "")}
            entry["instant"] = prometheus.query(expr, end)
            if panel["type"] == "timeseries":
                entry["range"] = prometheus.query_range(expr, began, end, 2)
            targets.append(entry)
        out.append({"title": panel["title"], "type": panel["type"], "gridPos": panel["gridPos"], "targets": targets})
    return {
        "daemons": args.daemons, "daemons_stopped": 1, "decisions": decisions, "failed_decisions": failed,
        "bad_bundle_refused": refused, "start": began, "end": end, "panels": out,
    }  # fmt: skip


def _value(result: list[dict[str, Any]]) -> float:
    return float(result[0]["value"][1]) if result else -1.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--daemons", type=int, default=4)
    parser.add_argument("--probe-s", type=float, default=10.0, help="seconds of probes in each phase")
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
