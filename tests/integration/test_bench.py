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

import pytest
from shims import build_native

from support import ROOT, RunningDaemon, require


def test_a_tiny_bench_run_covers_every_contender(tmp_path: Path) -> None:
    opa = os.environ.get("HOOKD_OPA_BIN") or shutil.which("opa") or ""
    require(bool(opa) and Path(opa).is_file(), "opa v1.22.4 (HOOKD_OPA_BIN)")
    native = build_native(tmp_path / "bin")
    out = tmp_path / "results"
    tiny = ["--calls", "3", "--seconds", "0.3", "--native", str(native), "--opa", opa, "--out", str(out)]
    user_state = tmp_path / "user-state"  # the invoking user's: the bench must leave it alone
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), *tiny],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
        env={**os.environ, "XDG_STATE_HOME": str(user_state)},
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
    top = record["daemon"]["max"]
    assert top["generator"] == "c" and top["errors"] == 0
    assert 0 < top["with_log_per_second"] <= top["per_second"] and top["log_drain_s"] >= 0
    assert not (user_state / "hookd" / "decisions.log").exists()
    workers = record["daemon_workers"]  # the daemon-alone phases again with [daemon] workers = 2
    assert workers["workers"] == 2 and workers["max"]["errors"] == 0 and len(workers["rss_mb"]) == 2
    assert "the same with [daemon] workers = 2" in done.stdout
    remote = record["remote_engine"]  # the OPA engine's in-daemon decision beside the embedded one
    assert remote["opa"]["p50_ms"] > 0 and remote["embedded"]["p50_ms"] > 0 and remote["p50_ratio"] > 0


@pytest.mark.parametrize("generator", ["c", "python"])
@pytest.mark.parametrize("mode", [("fixed", "200"), ("max", "2")])
def test_both_load_generators_drive_a_real_daemon(
    daemon: RunningDaemon, tmp_path: Path, generator: str, mode: tuple[str, str]
) -> None:
    """bench/load.py runs the C generator by default and the asyncio one on request; both report the same
    fields, count every request, and see no error from a healthy daemon."""
    payloads = tmp_path / "payloads.json"
    body = {"session_id": "s", "cwd": "/tmp", "hook_event_name": "BeforeTool", "tool_name": "read_file"}
    payloads.write_text(json.dumps([json.dumps({**body, "tool_input": {"file_path": f"f{i}"}}) for i in range(3)]))
    env = {**os.environ, **({"HOOKD_BENCH_PY_LOAD": "1"} if generator == "python" else {})}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "load.py"), str(daemon.socket), str(payloads), *mode, "0.5"],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["generator"] == generator
    assert result["errors"] == 0 and result["requests"] >= (100 if mode[0] == "fixed" else 10)
    assert 0 < result["p50_ms"] <= result["p99_ms"] <= result["max_ms"]
    if mode[0] == "fixed":
        assert result["requests"] == 100  # 200 req/s for 0.5 s: every one sent, none lost


def test_the_c_generator_counts_a_dead_socket_as_errors(tmp_path: Path) -> None:
    payloads = tmp_path / "payloads.json"
    payloads.write_text(json.dumps(["{}"]))
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "load.py"),
            str(tmp_path / "absent.sock"),
            str(payloads),
            "fixed",
            "100",
            "0.2",
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["generator"] == "c" and result["requests"] == 20 and result["errors"] == 20
