"""What the decision log costs the hook path, in-process, on uvloop.

Three runs over the same BeforeTool payloads with the default policies (N decisions each):

  pipeline   `Pipeline.handle` alone: the decision, no logging at all
  hot path   `Decider.handle` (decide, count, `put_nowait` into the log's sink), in the call,
             with the writer task running between requests, as it does in the daemon
  per record the writer's own time per record (mask, canonical JSON, sha256, write), from one batch of 2000

Prints p50/p90/p99 in microseconds. Usage: .cache/venv/bin/python bench/log_overhead.py [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

import uvloop

from hookd.app import Daemon
from hookd.audit.record import Pending
from hookd.config import Config, DaemonConfig, LogConfig
from hookd.types import Caller, Deadline, HookRequest, settled

ROOT = Path(__file__).resolve().parents[1]
PAYLOADS = [
    {"tool_name": "run_shell_command", "tool_input": {"command": "git status && ls -la src"}},
    {"tool_name": "run_shell_command", "tool_input": {"command": "rm -rf ~/"}},
    {"tool_name": "write_file", "tool_input": {"file_path": "src/app.py", "content": "print('hi')\n" * 40}},
    {"tool_name": "write_file", "tool_input": {"file_path": ".env", "content": "KEY=1\n"}},
    {"tool_name": "read_file", "tool_input": {"file_path": "README.md"}},
]


def request(i: int, project: str) -> HookRequest:
    body = {"session_id": "s", "cwd": project, "hook_event_name": "BeforeTool", **PAYLOADS[i % len(PAYLOADS)]}
    return HookRequest(
        client="gemini",
        event="BeforeTool",
        payload=json.dumps(body).encode(),
        env={"HOME": "/root", "GEMINI_PROJECT_DIR": project},
        cwd=project,
        caller=Caller(0, 0, 1),
        deadline=Deadline.after(5),
    )


def summary(name: str, samples: list[float]) -> str:
    ordered = sorted(samples)

    def pick(q: float) -> float:
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1e6

    mean = statistics.fmean(samples) * 1e6
    return f"{name:11} p50 {pick(0.5):8.1f}  p90 {pick(0.9):8.1f}  p99 {pick(0.99):8.1f}  mean {mean:8.1f} µs"


async def main(calls: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="hkdbench"))
    config = Config(
        daemon=DaemonConfig(runtime_dir=tmp / "run", policies=ROOT / "policies"),
        log=LogConfig(path=tmp / "decisions.log"),
    )
    daemon = Daemon(config)
    daemon.decision_log.start()
    requests = [request(i, str(tmp)) for i in range(calls)]
    for r in requests[:200]:  # warm up
        await daemon.pipeline.handle(r)

    plain: list[float] = []
    logged: list[float] = []
    block = 500
    for first in range(0, calls, block):  # alternate blocks, so that drift and noise hit both alike
        for r in requests[first : first + block]:
            start = time.perf_counter()
            await daemon.pipeline.handle(r)
            plain.append(time.perf_counter() - start)
            await asyncio.sleep(0)
        for r in requests[first : first + block]:
            start = time.perf_counter()
            await settled(daemon.decider.handle(r))
            logged.append(time.perf_counter() - start)
            await asyncio.sleep(0)  # the writer runs here, off the timed path, as between requests in the daemon
    while daemon.decision_log.written < calls:
        await asyncio.sleep(0.001)

    handled = [await daemon.pipeline.handle(r) for r in requests[:2000]]
    batch = [Pending(done, time.time(), "socket") for done in handled]
    start = time.perf_counter()
    await daemon.decision_log._write_batch(batch)  # the writer's own work, timed as one batch
    per_record = [(time.perf_counter() - start) / len(batch)]
    daemon.decision_log.end_subscriptions()
    done = handled[0]
    record_calls = []
    for _ in range(20):  # DaemonRecorder.record alone: the only code the log adds to a request
        start = time.perf_counter()
        for _ in range(1000):
            daemon.recorder.record(done, "socket")
        record_calls.append((time.perf_counter() - start) / 1000)
        daemon.sink.take()
    observe_calls = []
    for _ in range(20):  # the metrics part of DaemonRecorder.record
        start = time.perf_counter()
        for _ in range(1000):
            daemon.metrics.observe(done)
        observe_calls.append((time.perf_counter() - start) / 1000)
    await daemon.decision_log.close()
    print(f"{calls} BeforeTool decisions, default policies, uvloop, in-process")
    print(summary("pipeline", plain))
    print(summary("hot path", logged))
    print(
        f"per record  {per_record[0] * 1e6:8.1f} µs of writer time (mask, canonical JSON, sha256, write), "
        "off the hot path"
    )
    p50 = sorted(logged)[len(logged) // 2] - sorted(plain)[len(plain) // 2]
    print(f"p50 difference (hot path - pipeline): {p50 * 1e6:+.1f} µs")
    record_us = statistics.median(record_calls) * 1e6
    print(f"DaemonRecorder.record (metrics + Pending + put_nowait): {record_us:.2f} µs per call")
    print(f"  of which DecisionMetrics.observe: {statistics.median(observe_calls) * 1e6:.2f} µs per call")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(main(args.calls))
