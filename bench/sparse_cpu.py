"""Why a decision costs more at sparse arrivals: CPU or scheduling?

The same decisions (hookd's pipeline in-process, default policies, the five bench payloads, no transport and no
decision log) back to back, after a sleep of the gap between two requests at 100 and at 10 req/s, and after
spinning for the same gap instead of sleeping. Per decision: the thread's CPU time (time.thread_time) and its
wall time. Wall ≈ CPU means nothing waited: the extra time is CPU the decision itself spends. Sleeping against
spinning separates "time passed" from "the process went idle" (the core ran other processes or idled, and its
caches, TLB and branch predictors lost the daemon's state). Rounds interleave the three modes.

  .cache/venv/bin/python bench/sparse_cpu.py [--rounds 5] [--calls 60] [--event BeforeModel]

(perf stat's cycles and instructions would split cache misses from extra work, but this virtual machine exposes
no hardware counters: `perf stat -e instructions` says "not supported".)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import PAYLOADS, ROOT, payload  # bench/ holds no package: its scripts import each other

from hookd.assembly import build_pipeline, load_engine
from hookd.config import Config
from hookd.pipeline import Pipeline
from hookd.types import Caller, Deadline, HookRequest


def request(i: int, project: Path, event: str) -> HookRequest:
    return HookRequest(
        client="gemini",
        event=event,
        payload=payload(i, project, event),
        env={"GEMINI_PROJECT_DIR": str(project)},
        cwd=str(project),
        caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid()),
        deadline=Deadline.after(60),
    )


MODES = (("back to back", 0.0, False), ("sleep 10 ms", 0.01, False), ("spin 10 ms", 0.01, True))


async def one_mode(
    pipeline: Pipeline, project: Path, event: str, gap: float, spin: bool, calls: int
) -> tuple[float, float]:
    cpu, wall = [], []
    for i in range(calls):
        if spin:
            end = time.perf_counter() + gap
            while time.perf_counter() < end:
                pass
        elif gap:
            await asyncio.sleep(gap)
        req = request(i % len(PAYLOADS), project, event)
        cpu0, wall0 = time.thread_time(), time.perf_counter()
        await pipeline.handle(req)
        cpu.append((time.thread_time() - cpu0) * 1e6)
        wall.append((time.perf_counter() - wall0) * 1e6)
    return statistics.median(cpu), statistics.median(wall)


async def measure(event: str, rounds: int, calls: int) -> dict[str, list[tuple[float, float]]]:
    with tempfile.TemporaryDirectory(prefix="hookd-sparse-") as name:
        project = Path(name)
        pipeline, _ = build_pipeline(Config(), load_engine(Config(), ROOT / "policies"), probe=lambda _pid: False)
        for i in range(200):
            await pipeline.handle(request(i % len(PAYLOADS), project, event))
        samples: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in MODES}
        for _ in range(rounds):
            for label, gap, spin in MODES:
                samples[label].append(await one_mode(pipeline, project, event, gap, spin, calls))
        return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=60, help="decisions per mode and round")
    parser.add_argument(
        "--event", default="BeforeTool", help="BeforeTool: the five bench payloads; BeforeModel: no Rego evaluated"
    )
    args = parser.parse_args()
    samples = uvloop.run(measure(args.event, args.rounds, args.calls))
    base = statistics.median(c for c, _ in samples["back to back"])
    print(f"{'mode':14} {'CPU µs':>8} {'wall µs':>8} {'CPU / back to back':>19}   (medians of {args.rounds} rounds)")
    for label, rows in samples.items():
        cpu, wall = statistics.median(c for c, _ in rows), statistics.median(w for _, w in rows)
        print(f"{label:14} {cpu:8.0f} {wall:8.0f} {cpu / base:18.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
