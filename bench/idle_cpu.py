"""An idle daemon's CPU, and the first control call after its gRPC backend stopped (docs/performance.md, "An idle
daemon uses no CPU").

Starts `hookd serve` as bench/run.py does (the lane serving), lets it settle, then sums the CPU its threads ran
over a window with no call of any kind (/proc/PID/task/*/schedstat: the daemon process, and with its children,
the lane). Then times `hookd status` (wall time, the CLI's own start included) cold, once the idle backend has
stopped (grpc.sock gone), and warm, right after another call; rounds interleave the two. Run:
    .cache/venv/bin/python bench/idle_cpu.py [--settle 5] [--seconds 20] [--rounds 10] [--code DIR] [--json]
`--code DIR` runs the daemon from DIR/daemon instead of this checkout (for the figure before a change:
`git archive REV daemon | tar -x -C DIR`); `--rounds 0` skips the latencies (a daemon whose backend never
stops has no cold call).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import ROOT, children, cpu_seconds, start_daemon


def tasks(pid: int) -> list[str]:
    names = []
    for comm in Path(f"/proc/{pid}/task").glob("*/comm"):
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            names.append(comm.read_text().strip())
    return sorted(names)


def status_ms(runtime: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "hookd", "status", "--runtime-dir", str(runtime)],
                          capture_output=True, timeout=60, check=False)  # fmt: skip
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise SystemExit(f"hookd status failed: {done.stderr.decode(errors='replace')}")
    return elapsed


def wait_until_gone(path: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while path.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"{path} is still there after {timeout} s: the backend did not stop")
        time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--settle", type=float, default=5.0, help="seconds after start before the window")
    parser.add_argument("--seconds", type=float, default=20.0, help="the idle window")
    parser.add_argument("--rounds", type=int, default=10, help="cold and warm `hookd status` calls, each")
    parser.add_argument("--policies", type=Path, default=ROOT / "policies")
    parser.add_argument("--code", type=Path, help="run the daemon from DIR/daemon")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.code is not None:
        os.environ["PYTHONPATH"] = str((args.code / "daemon").resolve())  # before the editable install's path
    runtime = Path(tempfile.mkdtemp(prefix="hkdidle", dir="/tmp")) / "run"
    proc = start_daemon(runtime, args.policies, runtime.parent / "daemon.log")
    try:
        time.sleep(args.settle)
        pids = [proc.pid, *children(proc.pid)]
        threads = tasks(proc.pid)
        before_daemon, before_all = cpu_seconds([proc.pid]), cpu_seconds(pids)
        time.sleep(args.seconds)
        daemon_us = (cpu_seconds([proc.pid]) - before_daemon) / args.seconds * 1e6
        all_us = (cpu_seconds(pids) - before_all) / args.seconds * 1e6
        cold: list[float] = []
        warm: list[float] = []
        for _ in range(args.rounds):
            wait_until_gone(runtime / "grpc.sock")
            cold.append(status_ms(runtime))
            warm.append(status_ms(runtime))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    result = {
        "daemon_threads": threads,
        "idle_cpu_us_per_s": round(daemon_us, 1),
        "idle_cpu_us_per_s_with_children": round(all_us, 1),
        "window_s": args.seconds,
        "status_cold_ms": [round(v, 1) for v in cold],
        "status_warm_ms": [round(v, 1) for v in warm],
        "status_cold_median_ms": round(statistics.median(cold), 1) if cold else None,
        "status_warm_median_ms": round(statistics.median(warm), 1) if warm else None,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"threads of the daemon: {' '.join(threads)}")
    print(f"idle CPU over {args.seconds:g} s: {daemon_us:.1f} µs/s (with the lane: {all_us:.1f} µs/s)")
    if cold:
        print(f"hookd status, median of {len(cold)}: cold {result['status_cold_median_ms']} ms, "
              f"warm {result['status_warm_median_ms']} ms")  # fmt: skip


if __name__ == "__main__":
    main()
