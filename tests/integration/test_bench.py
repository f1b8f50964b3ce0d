"""bench/run.py end to end, at a size that only proves it works: every contender runs, the shims and the
per-call hook print the same decisions, and the results JSON holds every section. (It measures nothing
here: speed is read from `hookd bench` runs, never asserted in a test.)"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from shims import build_native

from support import ROOT, require


def test_a_tiny_bench_run_covers_every_contender(tmp_path: Path) -> None:
    opa = os.environ.get("HOOKD_OPA_BIN") or shutil.which("opa") or ""
    require(bool(opa) and Path(opa).is_file(), "opa v1.22.4 (HOOKD_OPA_BIN)")
    native = build_native(tmp_path / "bin")
    out = tmp_path / "results"
    tiny = ["--calls", "3", "--seconds", "0.3", "--native", str(native), "--opa", opa, "--out", str(out)]
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), *tiny],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "identical bytes for every call: True" in done.stdout
    (result,) = out.glob("bench-*.json")
    record = json.loads(result.read_text())
    assert set(record["end_to_end"]) == {"native", "python", "percall", "opa", "floor"}
    assert record["identical_output"] is True
    assert {"fixed_100", "fixed_1000"} <= set(record["daemon"])
    assert record["daemon"]["fixed_100"]["errors"] == 0
    assert record["after_model_burst"] and record["daemon_rss_mb"] > 0
    remote = record["remote_engine"]  # the OPA engine's in-daemon decision beside the embedded one
    assert remote["opa"]["p50_ms"] > 0 and remote["embedded"]["p50_ms"] > 0 and remote["p50_ratio"] > 0
