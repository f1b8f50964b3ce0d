"""deploy/grafana/hookd-fleet.json is a valid Grafana dashboard and every query in it answers over real data.

(a) Its JSON is checked against Grafana's published dashboard types (github.com/grafana/grafana-foundation-sdk
    v0.0.22, generated from Grafana's own schema; tests/grafana-check): a strict decode of the dashboard,
    every panel's options and every Prometheus query, then the SDK's Validate; broken copies show the check
    can fail.
(b) A small fleet (bench/fleet.py's daemons, nginx and status receiver) exports OTLP to a real collector
    with the Prometheus exporter (tests/otelcol-prometheus, as deploy/otel/collector.yaml has it), a real
    Prometheus scrapes it, and every panel's every PromQL expression is evaluated by that Prometheus and must
    return series. Grafana itself is not run: it is not in the package registries this project may use.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from support import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import fleet_dashboard  # bench/fleet_dashboard.py

pytestmark = pytest.mark.timeout(900)
DASHBOARD = ROOT / "deploy" / "grafana" / "hookd-fleet.json"


def tool(variable: str, relative: str, what: str) -> str:
    path = os.environ.get(variable) or str(ROOT / ".cache" / relative)
    if os.access(path, os.X_OK):
        return path
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is missing (${variable}): ./dev builds it")
    pytest.skip(f"{what} is missing (${variable}): run through ./dev test")


def check(path: Path) -> subprocess.CompletedProcess[str]:
    binary = tool("HOOKD_DASHBOARD_CHECK_BIN", "grafana-check/hookd-dashboard-check", "the dashboard checker")
    return subprocess.run([binary, str(path)], capture_output=True, text=True, timeout=60, check=False)


def test_the_dashboard_matches_grafanas_published_types() -> None:
    done = check(DASHBOARD)
    assert done.returncode == 0 and done.stdout.strip() == f"ok {DASHBOARD}", done.stdout + done.stderr


BREAKAGES: dict[str, tuple[Callable[[dict[str, Any]], Any], str]] = {
    "an unknown dashboard field": (lambda d: d.update(colour="x"), "Dashboard: unexpected field 'colour'"),
    "an unknown panel field": (lambda d: d["panels"][0].update(colour="x"), "panels[0].Panel: unexpected field"),
    "a mistyped gridPos": (lambda d: d["panels"][0]["gridPos"].update(w="wide"), "panels[0].gridPos.w"),
    "a misspelt query field": (
        lambda d: d["panels"][0]["targets"][0].update(exprr="up"),
        "panels[0].targets[0].Dataquery: unexpected field 'exprr'",
    ),
    "a mistyped stat option": (lambda d: d["panels"][0]["options"].update(graphMode=3), "options.graphMode"),
    "a missing stat option": (lambda d: d["panels"][0]["options"].pop("reduceOptions"), "reduceOptions: required"),
    "an unknown legend option": (
        lambda d: d["panels"][8]["options"]["legend"].update(shape="round"),
        "panels[8].options.legend.VizLegendOptions: unexpected field 'shape'",
    ),
    "a bad import input": (lambda d: d["__inputs"][0].update(plugin="x"), '__inputs: json: unknown field "plugin"'),
}


@pytest.mark.parametrize("breakage", list(BREAKAGES))
def test_the_check_refuses_what_grafanas_types_forbid(tmp_path: Path, breakage: str) -> None:
    board = json.loads(DASHBOARD.read_text())
    broken = copy.deepcopy(board)
    change, problem = BREAKAGES[breakage]
    change(broken)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken))
    done = check(path)
    assert done.returncode == 1 and problem in done.stdout, done.stdout


def test_every_panels_query_returns_series_from_a_real_prometheus_over_a_small_fleet() -> None:
    tool("HOOKD_PROMETHEUS_BIN", "prometheus/prometheus", "Prometheus (./dev: go install, pinned)")
    tool("HOOKD_OTELCOL_PROMETHEUS_BIN", "otelcol-prometheus/otelcol-hookd-prometheus", "the Prometheus collector")
    if fleet_dashboard.fleet.nginx_binary() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("nginx is missing: ./dev installs Debian's nginx-light in CI")
        pytest.skip("nginx is missing (apt-get install nginx-light)")
    daemons = 3
    result = fleet_dashboard.run(fleet_dashboard.parse_args([f"--daemons={daemons}", "--probe-s=4"]))
    assert result["failed_decisions"] == 0 and result["bad_bundle_refused"] == daemons
    board = json.loads(DASHBOARD.read_text())
    assert [p["title"] for p in result["panels"]] == [p["title"] for p in board["panels"]]
    empty = [
        (panel["title"], target["expr"])
        for panel in result["panels"]
        for target in panel["targets"]
        if not target["instant"] or (panel["type"] == "timeseries" and not target["range"])
    ]
    assert empty == [], empty
    by_title = {panel["title"]: panel for panel in result["panels"]}

    def instant(title: str) -> list[dict[str, Any]]:
        return [series for target in by_title[title]["targets"] for series in target["instant"]]

    assert float(instant("Daemons reporting")[0]["value"][1]) == daemons - 1
    assert float(instant("Daemons not reporting (seen in the last 24 h)")[0]["value"][1]) == 1
    assert len(instant("Daemons not reporting")) == 1
    assert {s["metric"]["transition"] for s in instant("Shadow disagreements")} == {"deny-to-allow"}
    assert {s["metric"]["layer"] for s in instant("Monitor layers: would-be decisions")} == {"default"}
    revisions = {(s["metric"]["layer"], s["metric"]["revision"]) for s in instant("Revisions across the fleet")}
    assert ("acme", "r2") in revisions
    assert {s["metric"]["agent"] for s in instant("Agents hookd is installed for (doctor's verdict)")} == {"gemini"}
    assert any(s["metric"].get("rule") == "hookd.acme:rev" for s in instant("Denials by rule (top 10, 1 h)"))
