"""deploy/grafana/hookd-fleet.json and deploy/otel/collector.yaml agree with what hookd exports: every
metric a panel queries is one of hookd's OTLP metrics under the Prometheus exporter's name, every resource
label a panel groups by is a resource attribute hookd sets, and the collector's pipelines name components
it defines."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from hookd.config import OtelConfig
from hookd.rollout.otel import COUNTERS, GAUGES, LATENCY, resource

DEPLOY = Path(__file__).resolve().parents[3] / "deploy"


def prometheus_names() -> set[str]:
    """OTLP names as the collector's prometheus exporter turns them (dots to _, counters _total, units)."""
    names = {name.replace(".", "_") + "_total" for name in COUNTERS}
    names |= {name.replace(".", "_") for name in GAUGES}
    latency = LATENCY.replace(".", "_") + "_seconds"
    return names | {latency + suffix for suffix in ("_bucket", "_sum", "_count")}


def exprs() -> list[str]:
    dashboard = json.loads((DEPLOY / "grafana" / "hookd-fleet.json").read_text())
    return [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]


def test_every_queried_metric_is_exported() -> None:
    used = {name for expr in exprs() for name in re.findall(r"\bhookd_[a-z_]+", expr)}
    assert used, "the dashboard queries no hookd metric"
    assert used <= prometheus_names(), used - prometheus_names()
    assert {"hookd_fleet_up", "hookd_fleet_policy_set", "hookd_decisions_by_rule_total"} <= used


def test_resource_labels_are_hookds() -> None:
    attributes = {key.replace(".", "_") for key in resource(OtelConfig(endpoint="http://x:4317"), "r1").attributes}
    grouped = {label for expr in exprs() for clause in re.findall(r"(?:by|on) ?\(([^)]*)\)", expr)
               for label in (s.strip() for s in clause.split(","))}  # fmt: skip
    metric_attributes = {"layer", "mode", "revision", "rank", "agent", "decision", "rule", "transition", "bundle",
                         "scopes", "ok", "le"}  # fmt: skip
    assert grouped - metric_attributes <= attributes, grouped - metric_attributes - attributes


def test_the_collector_pipelines_name_defined_components() -> None:
    config = yaml.safe_load((DEPLOY / "otel" / "collector.yaml").read_text())
    for pipeline in config["service"]["pipelines"].values():
        for kind in ("receivers", "processors", "exporters"):
            assert set(pipeline.get(kind, [])) <= set(config.get(kind, {})), (kind, pipeline)
    assert config["exporters"]["prometheus"]["resource_to_telemetry_conversion"]["enabled"] is True
