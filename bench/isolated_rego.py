"""What the isolated Rego engine costs a decision against the embedded one (docs/policies.md, "Where a policy
runs"): the bundled policies evaluated in process, and a copy of them (so: not the bundled directory) in the
sandboxed workers, call by call interleaved, four shell commands of the bench mix, already enriched. Per call:
wall time, and the CPU time of the calling thread (the daemon's loop). The verdicts must be the same.

  .cache/venv/bin/python bench/isolated_rego.py [--calls 400]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from hookd.assembly import enrichers, rego_engine
from hookd.config import Config
from hookd.runtime.resources import policies_dir
from hookd.types import Caller, Deadline, EngineRequest, Event, NormalisedEvent, ToolCall, ToolKind, settled

COMMANDS = ("git status", "rm -rf ~/", "cat .env", "ls -la src")


def request(config: Config, command: str) -> EngineRequest:
    event = NormalisedEvent(
        client="gemini",
        event=Event.BEFORE_TOOL,
        payload={},
        tool=ToolCall("run_shell_command", ToolKind.SHELL, {"command": command}),
        session_id="bench",
        cwd="/tmp",
        project_dir="/tmp",
        caller=Caller(os.getuid(), os.getgid(), os.getpid()),
    )
    for enrich in enrichers():
        event = enrich(event)
    return EngineRequest(event, event.input_document(), Deadline.after(30))


async def run(calls: int) -> None:
    config = Config()
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "policies"
        shutil.copytree(policies_dir(), copy)
        engines = {"embedded": rego_engine(config, policies_dir()), "isolated": rego_engine(config, copy)}
        requests = [request(config, command) for command in COMMANDS]
        wall: dict[str, list[float]] = {name: [] for name in engines}
        cpu = dict.fromkeys(engines, 0.0)
        for i in range(calls):
            for name, engine in engines.items():
                started, thread = time.perf_counter(), time.thread_time()
                await settled(engine.evaluate(requests[i % len(requests)]))
                cpu[name] += time.thread_time() - thread
                wall[name].append((time.perf_counter() - started) * 1e6)
        same = True
        for each in requests:
            answers = [list(await settled(engine.evaluate(each))) for engine in engines.values()]
            if answers[0] != answers[1]:
                print(f"differs on {each.document['tool']}: {answers}")
                same = False
        for name, times in wall.items():
            times.sort()
            print(
                f"{name}: wall p50 {statistics.median(times):.0f} us, p99 {times[int(0.99 * len(times))]:.0f} us; "
                f"the calling thread's CPU {cpu[name] / calls * 1e6:.0f} us a call"
            )
        print(f"same verdicts: {same}; load average {os.getloadavg()[0]:.1f}")
        for engine in engines.values():
            await engine.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=400)
    asyncio.run(run(parser.parse_args().calls))


if __name__ == "__main__":
    main()
