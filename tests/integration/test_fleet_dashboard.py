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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from support import ROOT

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
