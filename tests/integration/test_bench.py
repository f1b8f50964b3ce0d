"""The bench's own correctness (bench/run.py, bench/load.py): at a size that only proves it works, every
contender runs interleaved call by call and is checked, a failing contender is reported failed and not
timed, the daemon and the floor server are driven by one load generator, and the results JSON holds every
section. (It measures nothing here: speed is read from `hookd bench` runs, never asserted in a test.)"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from shims import build_native

from support import ROOT, RunningDaemon, require


def run_bench(tmp_path: Path, *args: str, cwd: Path = ROOT) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    out = tmp_path / "results"
    tiny = [
        "--calls",
        "3",
        "--seconds",
        "0.3",
        "--sparse-seconds",
        "0.5",
        "--trace-scale",
        "0.05",
        "--out",
        str(out),
        *args,
    ]
    user_state = tmp_path / "user-state"  # the invoking user's: the bench must leave it alone
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run.py"), *tiny],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=cwd,
        env={**os.environ, "XDG_STATE_HOME": str(user_state)},
    )
    assert not (user_state / "hookd" / "decisions.log").exists()
    results = list(out.glob("bench-*.json"))
    assert len(results) == 1, done.stdout[-2000:] + done.stderr[-2000:]
    return done, json.loads(results[0].read_text())


# every contender started, warmed and run: 109 s beside the agents' tests, past the default 120 s on a busier box
@pytest.mark.timeout(360)
def test_a_tiny_bench_run_covers_every_contender(tmp_path: Path) -> None:
    opa = os.environ.get("HOOKD_OPA_BIN") or shutil.which("opa") or ""
    require(bool(opa) and Path(opa).is_file(), "opa v1.22.4 (HOOKD_OPA_BIN)")
    native = build_native(tmp_path / "bin")
    # --opa given relative to the bench's cwd: it must be resolved before the contenders run elsewhere.
    relative_opa = os.path.relpath(opa, tmp_path)
    done, record = run_bench(tmp_path, "--native", str(native), "--opa", relative_opa, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert record["failed"] == []
    assert list(record["end_to_end"]) == ["native", "python", "percall", "opa", "true", "floor"]
    assert all(row["p50_ms"] > 0 for row in record["end_to_end"].values())
    assert "FAILED" not in done.stdout
    daemon = record["daemon"]
    assert list(daemon)[:2] == ["fixed_10", "fixed_100"]  # sparse arrivals first
    for phase in ("fixed_10", "fixed_100", "fixed_1000"):
        row = daemon[phase]  # hookd and the floor server in the same run, by the same load generator
        assert row["errors"] == 0 and row["floor"]["errors"] == 0, row
        assert row["requests"] == row["floor"]["requests"] > 0
        assert row["p50_over_floor"] > 0 and row["cpu_ms_per_request"] > 0
    assert done.stdout.index("sparse arrivals") < done.stdout.index("end to end")
    trace = record["trace"]  # the recorded e2e sessions, replayed interleaved with the floor
    assert trace["errors"] == 0 and trace["requests"] == trace["floor"]["requests"] == trace["trace"] > 0
    assert record["after_model_burst"]["chunks"] == 100 and record["daemon_rss_mb"] > 0
    top = daemon["max"]
    assert top["generator"] == "c" and top["errors"] == 0
    assert 0 < top["with_log_per_second"] <= top["per_second"] and top["log_drain_s"] >= 0
    workers = record["daemon_workers"]  # the daemon-alone phases again with [daemon] workers = 2
    assert workers["workers"] == 2 and workers["max"]["errors"] == 0
    assert len(workers["rss_mb"]) == 4  # the daemon, its worker, the lane and the stream lane, each measured
    assert "the same with [daemon] workers = 2" in done.stdout
    remote = record["remote_engine"]  # the OPA engine's in-daemon decision beside the embedded one
    assert remote["opa"]["p50_ms"] > 0 and remote["embedded"]["p50_ms"] > 0 and remote["p50_ratio"] > 0


def test_a_failing_contender_is_reported_failed_not_timed(tmp_path: Path) -> None:
    """An opa that exits 3 on every call: the run says FAILED with the reason, times nothing for it, exits 1,
    and still times the contenders that work. (A relative --opa once made every call fail, and was timed.)"""
    broken = tmp_path / "broken-opa"
    broken.write_text("#!/bin/sh\necho 'opa: no such bundle' >&2\nexit 3\n")
    broken.chmod(0o755)
    done, record = run_bench(tmp_path, "--opa", str(broken), "--workers", "1")
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-2000:]
    assert record["end_to_end"]["opa"] == {"failed": "call 0: exited 3: opa: no such bundle"}
    assert "opa        FAILED, not timed: call 0: exited 3: opa: no such bundle" in done.stdout
    assert record["end_to_end"]["python"]["p50_ms"] > 0 and record["end_to_end"]["floor"]["p50_ms"] > 0
    assert record["failed"] == ["opa: call 0: exited 3: opa: no such bundle"]
    assert "remote_engine" not in record


def load_run_module() -> Any:
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = module
    spec.loader.exec_module(module)
    return module


def test_contenders_run_interleaved_call_by_call_and_a_failure_stops_one(tmp_path: Path) -> None:
    """A B C A B C ...: each contender appends its name to one file; B fails its check on call 1, so it is
    run no more, holds no samples, and the others go on."""
    run = load_run_module()
    order = tmp_path / "order"

    def appender(name: str) -> Any:
        return lambda i: f"cat >/dev/null; printf '{name}{i} ' >> {order}"

    def b_check(i: int, outcome: Any) -> str | None:
        return "call 1 is wrong" if i == 1 else run.exits_zero_silently(i, outcome)

    contenders = [
        run.Contender("A", appender("A"), run.exits_zero_silently),
        run.Contender("B", appender("B"), b_check),
        run.Contender("C", appender("C"), run.exits_zero_silently),
    ]
    run.time_interleaved(contenders, 3, tmp_path, {"PATH": "/usr/bin:/bin"})
    assert order.read_text().split() == ["A0", "B0", "C0", "A1", "B1", "C1", "A2", "C2"]
    a, b, c = contenders
    assert len(a.samples) == len(c.samples) == 3 and a.failure is None
    assert b.samples == [] and b.failure == "call 1 is wrong"


def test_a_check_catches_a_wrong_exit_code_and_a_changed_decision() -> None:
    run = load_run_module()
    reference = [run.Outcome(0, b"{}", b""), run.Outcome(2, b"", b"denied (decision 0123456789abcdef)")]
    check = run.same_decision_as(reference)
    assert check(0, run.Outcome(0, b"{}", b"")) is None
    assert check(3, run.Outcome(2, b"", b"denied (decision fedcba9876543210)")) is None  # ids differ: same
    assert "exit code 0, the per-call hook's was 2" in check(1, run.Outcome(0, b"{}", b""))
    assert "printed" in check(2, run.Outcome(0, b'{"decision":"deny"}', b""))
    assert "exited 1" in run.exits_zero_silently(0, run.Outcome(1, b"", b"boom"))
    assert "expected nothing" in run.exits_zero_silently(0, run.Outcome(0, b"x", b""))


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


def test_the_phases_of_a_served_decision_add_up(tmp_path: Path) -> None:
    """bench/phases.py wraps the hot path of a real daemon in thread-CPU clocks: every phase of a decision
    decided in the reading callback is seen, nested phases fit inside their parents, and the outer ones inside
    the main thread's CPU."""
    require(shutil.which("cc") is not None, "a C compiler (the load generator)")
    out = tmp_path / "phases.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "phases.py"), "--rate", "50", "--seconds", "1", "--json", str(out)],
        capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    phases = result["phases_us"]
    assert result["errors"] == 0 and result["requests"] >= 40
    decision = phases["  the decision (HookServer._answer)"]
    parts = [label for label in phases if label.startswith("    ") and not label.startswith("     ")]
    assert all(phases[label] > 0 for label in parts), phases  # every light request was decided in the callback
    steps = [label for label in phases if label.startswith("      ") and not label.startswith("       ")]
    assert sum(phases[label] for label in steps) <= phases["    enrich (shell parse, facts, caps)"], phases
    assert phases["transport: awaited in a task (the lane, a remote engine)"] == 0
    assert sum(phases[label] for label in parts) <= decision <= phases["transport: frame read, decided and answered"]
    outer = sum(us for label, us in phases.items() if not label.startswith(" "))
    assert outer <= result["main_thread_us"]
    assert "uvloop" in done.stdout
