"""The remote engine's cost per decision: the daemon's in-process decision (pipeline.handle: parse,
enrich, evaluate, combine, render) with engine = "embedded" (regorus) and with engine = "opa" (a real
`opa run --server` on 127.0.0.1, one keep-alive data API query per decision), the same BeforeTool
payloads interleaved, on one uvloop event loop as in the daemon. Used by bench/run.py; also runs alone:
  .cache/venv/bin/python bench/remote_engine.py [--calls N] [--policies DIR] [--opa BIN]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import uvloop

from hookd.assembly import build_pipeline, load_engine
from hookd.config import Config
from hookd.opaserver import OpaProcess
from hookd.pipeline import Pipeline
from hookd.types import Caller, Deadline, HookRequest

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = [
    {"tool_name": "run_shell_command", "tool_input": {"command": "git status && ls -la src"}},
    {"tool_name": "run_shell_command", "tool_input": {"command": "rm -rf ~/"}},
    {"tool_name": "write_file", "tool_input": {"file_path": "src/app.py", "content": "print('hi')\n"}},
    {"tool_name": "write_file", "tool_input": {"file_path": ".env", "content": "KEY=1\n"}},
    {"tool_name": "read_file", "tool_input": {"file_path": "README.md"}},
]


def requests(project: Path, home: Path) -> list[HookRequest]:
    out = []
    for body in COMMANDS:
        payload = {
            "session_id": "bench", "transcript_path": "", "cwd": str(project), "hook_event_name": "BeforeTool",
            "timestamp": "2026-12-02T00:00:00.000Z", **body,
        }  # fmt: skip
        out.append(
            HookRequest(
                client="gemini",
                event="BeforeTool",
                payload=json.dumps(payload).encode(),
                env={"GEMINI_PROJECT_DIR": str(project), "HOME": str(home)},
                cwd=str(project),
                caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid()),
                deadline=Deadline.after(3600),
            )
        )
    return out


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def time_decisions(
    pipelines: dict[str, Pipeline], batch: list[HookRequest], calls: int
) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {name: [] for name in pipelines}
    for i in range(calls + 20):  # the first 20 warm up (OPA's first queries, regorus' caches)
        for name, pipeline in pipelines.items():  # interleaved: both see the same machine load
            request = replace(batch[i % len(batch)], received_at=time.monotonic())
            started = time.perf_counter()
            await pipeline.handle(request, probe=lambda _pid: False)
            if i >= 20:
                samples[name].append((time.perf_counter() - started) * 1000)
    return samples


def measure(policies: Path, opa_binary: str, calls: int) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="hkdre", dir="/tmp"))
    (tmp / "project").mkdir()
    batch = requests(tmp / "project", tmp)
    with OpaProcess(opa_binary) as server:
        embedded = Config()
        remote = replace(embedded, daemon=replace(embedded.daemon, engine="opa"))
        remote = replace(remote, opa=replace(remote.opa, url=server.url, timeout_ms=5000))
        engines = {"embedded": load_engine(embedded, policies), "opa": load_engine(remote, policies)}
        configs = {"embedded": embedded, "opa": remote}
        pipelines = {name: build_pipeline(configs[name], engine)[0] for name, engine in engines.items()}
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            samples = runner.run(time_decisions(pipelines, batch, calls))
            for engine in engines.values():
                runner.run(engine.aclose())
    shutil.rmtree(tmp, ignore_errors=True)
    result: dict[str, Any] = {"calls": calls}
    for name, values in samples.items():
        result[name] = {
            "p50_ms": statistics.median(values),
            "p99_ms": percentile(values, 0.99),
            "mean_ms": statistics.fmean(values),
        }
    result["p50_ratio"] = result["opa"]["p50_ms"] / result["embedded"]["p50_ms"]
    result["p99_ratio"] = result["opa"]["p99_ms"] / result["embedded"]["p99_ms"]
    return result


def report(result: dict[str, Any]) -> None:
    print(f"\nin-daemon decision, embedded vs remote OPA engine, {result['calls']} BeforeTool decisions each (ms)")
    for name in ("embedded", "opa"):
        row = result[name]
        print(f"{name:10} p50 {row['p50_ms']:7.3f}  p99 {row['p99_ms']:7.3f}  mean {row['mean_ms']:7.3f}")
    print(f"opa / embedded: p50 {result['p50_ratio']:.2f}x, p99 {result['p99_ratio']:.2f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--policies", default=str(ROOT / "policies"))
    parser.add_argument("--opa", default=os.environ.get("HOOKD_OPA_BIN") or shutil.which("opa"))
    args = parser.parse_args()
    if not args.opa:
        print("no opa binary: pass --opa or set HOOKD_OPA_BIN", file=sys.stderr)
        return 2
    result = measure(Path(args.policies).resolve(), args.opa, args.calls)
    report(result)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
