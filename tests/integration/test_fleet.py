"""The fleet test, small (bench/fleet.py --daemons N is the same code at scale; docs/fleet.md): real
daemons, each with its own HOME, state and runtime dir, polling and long polling signed bundles from a real
nginx on 127.0.0.1, exporting to the real OpenTelemetry Collector (tests/otelcol), reporting status to a
real HTTP receiver. Every new revision reaches every daemon, a rollback too; a wrongly signed bundle is
refused by every daemon and reported; with nginx down mid-rollout every decision is still answered from the
last good bundle; the collector holds every decision record of every daemon."""

from __future__ import annotations

import os
import sys

import pytest

from support import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import fleet  # bench/fleet.py

pytestmark = pytest.mark.timeout(600)
DAEMONS = 6


def test_a_small_fleet() -> None:
    if fleet.nginx_binary() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("nginx is missing: ./dev installs Debian's nginx-light in CI")
        pytest.skip("nginx is missing (apt-get install nginx-light)")
    if not os.access(os.environ.get("HOOKD_OTELCOL_BIN", ""), os.X_OK):
        if os.environ.get("CI") == "true":
            pytest.fail("HOOKD_OTELCOL_BIN is not set: ./dev builds the collector")
        pytest.skip("no OpenTelemetry Collector ($HOOKD_OTELCOL_BIN): run through ./dev test")
    args = fleet.parse_args(
        [
            f"--daemons={DAEMONS}", "--batch=3", "--rest-s=3", "--outage-s=3", "--poll-min-s=0.5",
            "--poll-max-s=1", "--long-poll-s=5", "--status-interval-s=5", "--metrics-interval-ms=1000",
        ]
    )  # fmt: skip
    result = fleet.run(args)
    assert result["daemons"] == DAEMONS
    for phase in ("polling", "long_polling"):
        assert set(result["propagation_s"][phase]) == {"p50", "p99", "max"}
    assert result["propagation_s"]["max"] == result["propagation_s"]["polling"]["max"]
    assert result["rollback_s"]["max"] > 0
    assert result["bad_bundle_refused"] == DAEMONS
    assert result["outage"]["probe_rounds"] >= 1 and result["outage"]["decisions"] >= DAEMONS
    assert result["failed_decisions"] == 0
    assert result["records"] >= result["decisions"]
    assert result["lost_records"] == 0
    assert result["daemons_reporting_status"] == DAEMONS
    assert result["daemons_reporting_metrics"] == DAEMONS
    assert result["requests_per_daemon_per_min"]["acme"] > 0
    assert result["idle_rss_mb_per_daemon"]["max"] > 0
