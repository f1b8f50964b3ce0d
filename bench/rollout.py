"""What a shadow policy set and a monitor layer cost the enforced answer, measured on real daemons.

Two daemons over the same default policies (policies/): `plain`, and `rollout` with the same policies
again as a shadow set (replacing the user's layer) and as a monitor layer of a project. Requests go to
both alternately over their hook sockets, the time from connect to the whole reply read:

  serial    one request at a time, back to back (the observer's work competes with the next request)
  paced     one at a time with --gap-ms between requests (agents' hook calls come far apart)
  burst     --concurrency requests in flight on each daemon at once (the observer competes and sheds)

Prints p50/p99 per daemon and the rollout/plain ratio of each (1.00 = no cost), and how many decisions
the observer compared and shed (from the rollout daemon's decision log), and each daemon's CPU time per
decision in each phase (what the observer costs the machine, which a loaded box disturbs less).
With --workers N both daemons run N deciding processes (`[daemon] workers`): each worker observes its own
decisions and sends its replay lines to the daemon (the rollout daemon also keeps the replay store then),
and the CPU time counts the workers' too.
Usage: .cache/venv/bin/python bench/rollout.py [--calls N] [--concurrency N] [--gap-ms MS] [--workers N] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from python_policy import PAYLOADS  # the same four BeforeTool calls (bench/ is on sys.path)

from hookd import wire

ROOT = Path(__file__).resolve().parents[1]


def frame(i: int, project: str) -> bytes:
    payload = {
        "session_id": "bench", "transcript_path": "", "cwd": project, "hook_event_name": "BeforeTool",
        "timestamp": "2026-12-03T00:00:00Z", **PAYLOADS[i % len(PAYLOADS)],
    }  # fmt: skip
    header = {
        "client": "gemini",
        "event": "BeforeTool",
        "cwd": project,
        "ppid": 1,
        "env": {"GEMINI_PROJECT_DIR": project},
    }
    return wire.encode_request(header, json.dumps(payload).encode())


async def ask(sock: Path, data: bytes) -> float:
    start = time.perf_counter()
    reader, writer = await asyncio.open_unix_connection(str(sock))
    writer.write(data)
    reply = await reader.read()
    writer.close()
    wire.decode_reply(reply)
    return (time.perf_counter() - start) * 1e6


def start(tmp: Path, name: str, config: str, workers: int = 1) -> tuple[subprocess.Popen[bytes], Path, Path]:
    run, state = tmp / name / "run", tmp / name / "state"
    state.mkdir(parents=True)
    (tmp / name / "config.toml").write_text(f"[daemon]\nrequest_timeout_ms = 30000\nworkers = {workers}\n{config}")
    proc = subprocess.Popen(
        [sys.executable, "-m", "hookd", "--config", str(tmp / name / "config.toml"), "serve",
         "--policies", str(ROOT / "policies"), "--runtime-dir", str(run)],
        stdout=subprocess.DEVNULL, stderr=(tmp / name / "daemon.log").open("wb"),
        env={**os.environ, "XDG_STATE_HOME": str(state)},
    )  # fmt: skip
    sock = run / "hook.sock"
    end = time.monotonic() + 60
    while not sock.exists():
        if time.monotonic() > end or proc.poll() is not None:
            raise SystemExit(f"daemon {name} did not start: {(tmp / name / 'daemon.log').read_text()[-2000:]}")
        time.sleep(0.05)
    return proc, sock, state / "hookd" / "decisions.log"


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process and of its children now running (a daemon's workers), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    own = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return own + sum(cpu_seconds(int(child)) for child in children)


def cuts(samples: list[float]) -> dict[str, float]:
    q = statistics.quantiles(samples, n=100)
    return {"p50": q[49], "p99": q[98]}


def order(socks: dict[str, Path], i: int) -> list[tuple[str, Path]]:
    """Each daemon goes first every other time: the second of a pair finds the machine in another state."""
    pairs = list(socks.items())
    return pairs if i % 2 == 0 else pairs[::-1]


async def serial(socks: dict[str, Path], calls: int, project: str, gap: float = 0.0) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {name: [] for name in socks}
    for i in range(calls + 100):  # the first 100 warm up
        for name, sock in order(socks, i):
            took = await ask(sock, frame(i, project))
            if i >= 100:
                out[name].append(took)
            if gap:
                await asyncio.sleep(gap)
    return out


async def burst(socks: dict[str, Path], calls: int, concurrency: int, project: str) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {name: [] for name in socks}
    for i in range(0, calls, concurrency):
        for name, sock in order(socks, i // concurrency):  # alternate whole bursts between the daemons
            out[name] += await asyncio.gather(*(ask(sock, frame(i + j, project)) for j in range(concurrency)))
    return out


def observed(log: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in log.read_text().splitlines():
        record = json.loads(line)
        key = record.get("rollout", {}).get("skipped") or ("compared" if "shadow" in record else "")
        if key:
            counts[key] = counts.get(key, 0) + 1
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--gap-ms", type=float, default=5.0, help="pause between requests in the paced phase")
    parser.add_argument("--workers", type=int, default=1, help="[daemon] workers of both daemons")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hookd-bench-rollout-") as name:
        tmp = Path(name)
        project = tmp / "project"
        shutil.copytree(ROOT / "policies", project / ".hookd" / "policies")
        rollout = (
            f'[layers]\nprojects = ["{project}"]\nproject_mode = "monitor"\n'
            f'[rollout]\nshadow_policies = "{ROOT / "policies"}"\nshadow_replaces = "default"\n'
        )
        if args.workers > 1:
            rollout += f'[replay]\nenabled = true\npath = "{tmp / "replay"}"\n'
        daemons = {
            "plain": start(tmp, "plain", "", args.workers),
            "rollout": start(tmp, "rollout", rollout, args.workers),
        }
        socks = {n: d[1] for n, d in daemons.items()}
        runs: dict[str, Callable[[], Coroutine[Any, Any, dict[str, list[float]]]]] = {
            "serial": lambda: serial(socks, args.calls, str(project)),
            "paced": lambda: serial(socks, args.calls, str(project), args.gap_ms / 1000),
            "burst": lambda: burst(socks, args.calls, args.concurrency, str(project)),
        }
        phases, cpu = {}, {}
        try:
            for phase, run in runs.items():
                before = {n: cpu_seconds(d[0].pid) for n, d in daemons.items()}
                phases[phase] = asyncio.run(run())
                decisions = len(next(iter(phases[phase].values())))
                cpu[phase] = {n: (cpu_seconds(d[0].pid) - before[n]) * 1e6 / decisions for n, d in daemons.items()}
        finally:
            for proc, _, _ in daemons.values():
                proc.terminate()
                proc.wait(timeout=30)
        counts = observed(daemons["rollout"][2])
    report = {phase: {n: cuts(s) for n, s in samples.items()} for phase, samples in phases.items()}
    ratios = {phase: {k: r["rollout"][k] / r["plain"][k] for k in ("p50", "p99")} for phase, r in report.items()}
    if args.json:
        print(json.dumps({"calls": args.calls, "concurrency": args.concurrency, "workers": args.workers,
                          "us": report, "ratio": ratios,
                          "cpu_us": cpu, "observer": counts, "load_average": os.getloadavg()}, indent=2))  # fmt: skip
        return
    print(f"{args.calls} BeforeTool requests per daemon and phase, connect to reply read (microseconds)")
    for phase, r in report.items():
        for n in ("plain", "rollout"):
            print(f"  {phase:6} {n:8} p50 {r[n]['p50']:8.0f}  p99 {r[n]['p99']:8.0f}")
        print(f"  {phase:6} {'ratio':8} p50 {ratios[phase]['p50']:8.2f}  p99 {ratios[phase]['p99']:8.2f}")
        print(
            f"  {phase:6} CPU per decision: plain {cpu[phase]['plain']:.0f} us, rollout {cpu[phase]['rollout']:.0f} us"
        )
    print(f"observer: {', '.join(f'{k} {v}' for k, v in sorted(counts.items()))}")
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
