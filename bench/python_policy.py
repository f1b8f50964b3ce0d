"""What one Python policy adds to a decision, in-process, on uvloop.

Two pipelines over the same BeforeTool payloads, decided alternately (so that the noise of a shared
machine falls on both alike), N decisions each:

  rego          the default policies (policies/)
  rego+python   the same, plus one Python policy that applies to every tool call (the worker round trip:
                JSON frame over a pipe, the policy, the answer)

Prints p50/p90/p99 wall-clock latency in microseconds and the extra latency of the Python policy at each
percentile, then CPU time per decision (the daemon's, and the workers' from /proc), which a loaded machine
disturbs far less than wall-clock time (a round trip to a worker waits for the scheduler twice).
Usage: .cache/venv/bin/python bench/python_policy.py [--calls N] [--workers N] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import uvloop

from hookd.assembly import build_pipeline, load_engine
from hookd.config import Config, PythonConfig
from hookd.pipeline import Pipeline
from hookd.types import Caller, Deadline, Engine, HookRequest

ROOT = Path(__file__).resolve().parents[1]
PAYLOADS = [
    {"tool_name": "run_shell_command", "tool_input": {"command": "git status && ls -la src"}},
    {"tool_name": "run_shell_command", "tool_input": {"command": "git push --force origin main"}},
    {"tool_name": "write_file", "tool_input": {"file_path": "src/app.py", "content": "print('hi')\n" * 40}},
    {"tool_name": "read_file", "tool_input": {"file_path": "README.md"}},
]
PYTHON_POLICY = """
from hookd.policy_api import policy, deny

@policy(events=["BeforeTool"])
def no_force_push(input):
    for command in (input.get("shell") or {}).get("commands", []):
        if command["name"] == "git" and "push" in command["argv"] and "--force" in command["argv"]:
            return deny("force-pushing is not allowed", rule="force-push")
"""


def request(i: int, project: str) -> HookRequest:
    payload = {
        "session_id": "bench", "transcript_path": "", "cwd": project, "hook_event_name": "BeforeTool",
        "timestamp": "2026-12-02T00:00:00Z", **PAYLOADS[i % len(PAYLOADS)],
    }  # fmt: skip
    return HookRequest(
        client="gemini", event="BeforeTool", payload=json.dumps(payload).encode(),
        env={"GEMINI_PROJECT_DIR": project, "HOME": "/root"}, cwd=project,
        caller=Caller(0, 0, 1), deadline=Deadline.after(5),
    )  # fmt: skip


def percentiles(samples: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(samples, n=100)
    return {"p50": cuts[49], "p90": cuts[89], "p99": cuts[98]}


async def measure(pipelines: dict[str, Pipeline], calls: int, project: str) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {name: [] for name in pipelines}
    for i in range(calls + 200):  # the first 200 warm up caches and workers
        for name, pipeline in pipelines.items():
            req = request(i, project)
            start = time.perf_counter_ns()
            await pipeline.handle(req)
            if i >= 200:
                samples[name].append((time.perf_counter_ns() - start) / 1000)
    return samples


def worker_ticks(engine: Engine) -> int:
    """utime + stime of the engine's Python workers, in clock ticks."""
    total = 0
    for part in getattr(engine, "parts", ()):
        for pid in getattr(part, "worker_pids", list)():
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total


async def cpu_per_decision(pipeline: Pipeline, engine: Engine, calls: int, project: str) -> tuple[float, float]:
    """Microseconds of CPU per decision: the daemon's own, and its Python workers'."""
    ticks, start = worker_ticks(engine), time.process_time_ns()
    for i in range(calls):
        await pipeline.handle(request(i, project))
    daemon = (time.process_time_ns() - start) / 1000 / calls
    workers = (worker_ticks(engine) - ticks) / os.sysconf("SC_CLK_TCK") * 1e6 / calls
    return daemon, workers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    config = replace(Config(), python=PythonConfig(workers=args.workers, start_timeout_ms=120_000))
    with tempfile.TemporaryDirectory(prefix="hookd-bench-") as tmp:
        with_python = Path(tmp, "policies")
        shutil.copytree(ROOT / "policies", with_python)
        (with_python / "no_force_push.py").write_text(PYTHON_POLICY)
        project = Path(tmp, "project")
        project.mkdir()
        engines = {"rego": load_engine(config, ROOT / "policies"), "rego+python": load_engine(config, with_python)}
        pipelines = {
            name: build_pipeline(config, engine, probe=lambda _pid: False)[0] for name, engine in engines.items()
        }

        async def run() -> tuple[dict[str, list[float]], dict[str, tuple[float, float]]]:
            try:
                samples = await measure(pipelines, args.calls, str(project))
                cpu = {n: await cpu_per_decision(pipelines[n], engines[n], args.calls, str(project)) for n in engines}
                return samples, cpu
            finally:
                for engine in engines.values():
                    await engine.aclose()

        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            samples, cpu = runner.run(run())
    result = {name: percentiles(values) for name, values in samples.items()}
    extra = {key: result["rego+python"][key] - result["rego"][key] for key in ("p50", "p90", "p99")}
    if args.json:
        report = {"calls": args.calls, "workers": args.workers, "us": result, "extra_us": extra, "cpu_us": cpu}
        print(json.dumps({**report, "load_average": os.getloadavg()}, indent=2))
        return
    print(f"{args.calls} decisions each, BeforeTool, {args.workers} Python workers (microseconds)")
    for name, cuts in result.items():
        print(f"  {name:12} p50 {cuts['p50']:8.0f}  p90 {cuts['p90']:8.0f}  p99 {cuts['p99']:8.0f}")
    print(f"  {'extra':12} p50 {extra['p50']:8.0f}  p90 {extra['p90']:8.0f}  p99 {extra['p99']:8.0f}")
    print("CPU per decision (microseconds)")
    for name, (daemon, workers) in cpu.items():
        print(f"  {name:12} daemon {daemon:6.0f}  workers {workers:6.0f}")
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
