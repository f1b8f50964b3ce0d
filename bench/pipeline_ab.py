"""Interleaved A/B of `Pipeline.handle` between two versions of hookd: is the hot path slower after a change?

Each version is a git revision (extracted with `git archive`) or a directory holding `daemon/hookd`. Every
round runs both, in alternating order, each in a fresh process that decides CALLS requests (the bench's five
BeforeTool payloads, after a warm-up) through the embedded engine with the same policy directory, and prints
its per-call p50 and p90. The result is the ratio of the medians over the rounds: after/before, 1.0 = as fast.
Run: .cache/venv/bin/python bench/pipeline_ab.py --before REV [--after REV|DIR] [--rounds 5] [--calls 1500]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WARM_UP = 200
PAYLOADS = [
    {"tool_name": "run_shell_command", "tool_input": {"command": "git status && ls -la src"}},
    {"tool_name": "run_shell_command", "tool_input": {"command": "rm -rf ~/"}},
    {"tool_name": "write_file", "tool_input": {"file_path": "src/app.py", "content": "print('hi')\n"}},
    {"tool_name": "write_file", "tool_input": {"file_path": ".env", "content": "KEY=1\n"}},
    {"tool_name": "read_file", "tool_input": {"file_path": "README.md"}},
]


def one_side(calls: int, policies: Path) -> dict[str, float | str]:
    """In the child process: decide `calls` requests with the hookd on PYTHONPATH; per-call µs."""
    from hookd.assembly import build_pipeline, load_engine
    from hookd.config import Config
    from hookd.types import Caller, Deadline, HookRequest

    config = Config()
    pipeline, _ = build_pipeline(config, load_engine(config, policies), probe=lambda _pid: False)
    caller = Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid())
    base = {"session_id": "s", "transcript_path": "", "cwd": "/tmp/project", "hook_event_name": "BeforeTool"}
    bodies = [json.dumps({**base, **p}).encode() for p in PAYLOADS]

    async def run() -> list[float]:
        times = []
        for i in range(WARM_UP + calls):
            body = bodies[i % len(bodies)]
            request = HookRequest(client="gemini", event="BeforeTool", payload=body, env={"HOME": "/root"},
                                  cwd="/tmp/project", caller=caller, deadline=Deadline.after(5))  # fmt: skip
            started = time.perf_counter_ns()
            await pipeline.handle(request)
            if i >= WARM_UP:
                times.append((time.perf_counter_ns() - started) / 1000)
        return sorted(times)

    import hookd

    times = asyncio.run(run())
    return {"p50_us": times[len(times) // 2], "p90_us": times[int(len(times) * 0.9)], "hookd": hookd.__file__}


def source_of(version: str, scratch: Path) -> Path:
    """A directory holding daemon/hookd for `version`: the directory itself, or the extracted revision."""
    if (Path(version) / "daemon" / "hookd").is_dir():
        return Path(version).resolve()
    target = scratch / version.replace("/", "_")
    target.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", version, "daemon"], capture_output=True,
                             timeout=120, check=True).stdout  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, timeout=120, check=True)
    return target


def measure(source: Path, calls: int, policies: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(source / "daemon"))
    done = subprocess.run([sys.executable, __file__, "--one", str(calls), "--policies", str(policies)], env=env,
                          capture_output=True, text=True, timeout=900, check=True)  # fmt: skip
    row = json.loads(done.stdout.splitlines()[-1])
    if not str(row.pop("hookd")).startswith(str(source)):  # PYTHONPATH must win over the installed hookd
        raise SystemExit(f"the child did not import hookd from {source}")
    return {key: float(value) for key, value in row.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="a git revision or a checkout directory")
    parser.add_argument("--after", default=str(ROOT), help="a git revision or a checkout directory (default: this one)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=1500)
    parser.add_argument("--policies", default=str(ROOT / "policies"), help="the policy directory both sides load")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child: measure the hookd on PYTHONPATH
    args = parser.parse_args()
    policies = Path(args.policies).resolve()
    if args.one:
        print(json.dumps(one_side(args.one, policies)))
        return 0
    if not args.before:
        parser.error("--before is required")
    with tempfile.TemporaryDirectory(prefix="hookd-ab-") as scratch:
        sides = {"before": source_of(args.before, Path(scratch)), "after": source_of(args.after, Path(scratch))}
        results: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
        for round_ in range(args.rounds):
            for side in ("before", "after") if round_ % 2 == 0 else ("after", "before"):
                row = measure(sides[side], args.calls, policies)
                results[side].append(row)
                print(f"round {round_}  {side:6}  p50 {row['p50_us']:8.1f} µs  p90 {row['p90_us']:8.1f} µs", flush=True)
    for key in ("p50_us", "p90_us"):
        before, after = (statistics.median(r[key] for r in results[s]) for s in ("before", "after"))
        print(f"median {key[:3]}: before {before:.1f} µs, after {after:.1f} µs, after/before {after / before:.3f}")
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
