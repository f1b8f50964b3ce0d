"""What keeping the serving path warm would buy at sparse rates, measured before building it.

The daemon at 10 req/s (the bench mix, interleaved with the floor server as in bench/run.py) while a second
load generator keeps it busy with W background requests a second (AfterModel chunks: the transport, the
dialect and the decision log run, no Rego package applies), for W = 0, 50, 200. If a keeper inside the daemon
were worth building, the 10 req/s stream's p50 would fall toward the back-to-back figure as W grows; what it
would cost is the CPU of W decisions a second, which the run prints too.

  .cache/venv/bin/python bench/warm_lever.py [--seconds 15]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import (  # bench/ holds no package: its scripts import each other
    LOAD,
    PAYLOADS,
    Target,
    cpu_seconds,
    daemon_target,
    floor_server,
    interleaved_phase,
    payload,
    start_daemon,
)

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hkdw", dir="/tmp") as name:
        tmp = Path(name)
        project, runtime = tmp / "project", tmp / "run"
        project.mkdir()
        mix, chunks = tmp / "mix.json", tmp / "chunks.json"
        mix.write_text(json.dumps([payload(i, project).decode() for i in range(len(PAYLOADS))]))
        chunks.write_text(json.dumps([payload(i, project, "AfterModel").decode() for i in range(10)]))
        daemon = start_daemon(runtime, ROOT / "policies", tmp / "daemon.log")
        try:
            with floor_server(tmp / "floor.sock") as floor_proc:
                hookd = daemon_target(daemon, runtime)
                floor = Target("floor", tmp / "floor.sock", lambda: [floor_proc.pid])
                print("background req/s | hookd p50 / p99 ms | floor p50 / p99 ms | p50 over floor | daemon CPU s/s")
                for rate in (0, 50, 200, 0):
                    print(row(hookd, floor, mix, chunks, rate, args.seconds))
        finally:
            daemon.terminate()
            daemon.wait(timeout=30)
    return 0


def row(hookd: Target, floor: Target, mix: Path, chunks: Path, rate: int, seconds: float) -> str:
    background = None
    if rate:  # AfterModel chunks at `rate` from a generator of their own, for the whole phase
        command = [sys.executable, str(LOAD), str(hookd.socket), str(chunks), "fixed", str(rate), str(seconds + 2)]
        background = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    cpu0 = cpu_seconds(hookd.pids())
    result = interleaved_phase(hookd, floor, mix, "fixed", 10, seconds)
    cpu = (cpu_seconds(hookd.pids()) - cpu0) / seconds
    if background is not None:
        background.wait(timeout=seconds + 60)
    return (
        f"{rate:16} | {result['p50_ms']:7.3f} / {result['p99_ms']:7.3f} | {result['floor']['p50_ms']:6.3f} / "
        f"{result['floor']['p99_ms']:6.3f} | {result['p50_over_floor']:13.2f}x | {cpu:.3f}"
    )


if __name__ == "__main__":
    sys.exit(main())
