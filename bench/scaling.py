"""How a decision's CPU grows with its input: command length, argument count, nesting depth, payload size.

Each point is one Gemini BeforeTool payload decided by hookd's own pipeline in-process with the default
policies (parse → enrich → evaluate → combine → render), plus the decision log's record of it (built,
masked, sealed), as the daemon does it: CPU µs per decision (time.process_time, the mean of repeated
calls), the µs per input unit that shows whether the cost stays linear, and the decision it got (a cap
that refuses an input shows there as the fail-closed answer). A point that takes longer than --budget
seconds ends its series.

  .cache/venv/bin/python bench/scaling.py [--budget 20] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hookd.assembly import build_pipeline, load_engine
from hookd.audit.chain import GENESIS, seal
from hookd.audit.mask import Masker
from hookd.audit.record import Pending, build_record
from hookd.config import Config, LogConfig
from hookd.pipeline import Pipeline
from hookd.types import Caller, Deadline, HookRequest

ROOT = Path(__file__).resolve().parents[1]
SIZES = [10, 100, 1_000, 10_000, 100_000, 1_000_000]


def shell(command: str) -> dict[str, Any]:
    return {"tool_name": "run_shell_command", "tool_input": {"command": command}}


# Each call's input is new (`salt` differs), so no parse cache or masking memo answers from an earlier call.


def long_command(size: int, salt: int) -> dict[str, Any]:
    """`echo aaaa…`: one word, `size` bytes of command in all."""
    tail = str(salt)
    return shell("echo " + "a" * max(0, size - 5 - len(tail)) + tail)


def many_arguments(count: int, salt: int) -> dict[str, Any]:
    return shell("ls " + " ".join(f"f{i}" for i in range(count - 1)) + f" s{salt}")


def nested(depth: int, salt: int) -> dict[str, Any]:
    """`echo $(echo $(… echo x …))`, `depth` command substitutions deep."""
    return shell("echo $(" * depth + f"echo x{salt}" + ")" * depth)


def big_write(size: int, salt: int) -> dict[str, Any]:
    """A write_file whose content makes the payload about `size` bytes."""
    content = f"# {salt}\n" + "x = 1\n" * (size // 6)
    return {"tool_name": "write_file", "tool_input": {"file_path": "src/app.py", "content": content}}


def big_write_with_keys(size: int, salt: int) -> dict[str, Any]:
    """The same, of code that says `key` on every line: every string is searched with the secret patterns."""
    content = f"# {salt}\n" + "key = 1\n" * (size // 8)
    return {"tool_name": "write_file", "tool_input": {"file_path": "src/app.py", "content": content}}


SERIES: list[tuple[str, str, list[int], Callable[[int, int], dict[str, Any]]]] = [
    ("command length", "bytes", SIZES, long_command),
    ("argument count", "arguments", [1, 10, 100, 1_000, 10_000, 100_000], many_arguments),
    ("nesting depth", "levels", [1, 4, 16, 64, 256, 1_024], nested),
    ("payload size", "bytes", [1_000, 10_000, 100_000, 1_000_000, 10_000_000], big_write),
    ("payload size, code that says key", "bytes", [1_000, 10_000, 100_000, 1_000_000, 10_000_000], big_write_with_keys),
]


def request(body: dict[str, Any], project: Path) -> HookRequest:
    payload = {"session_id": "s", "cwd": str(project), "hook_event_name": "BeforeTool", **body}
    return HookRequest(
        client="gemini",
        event="BeforeTool",
        payload=json.dumps(payload).encode(),
        env={"GEMINI_PROJECT_DIR": str(project)},
        cwd=str(project),
        caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid()),
        deadline=Deadline.after(600),
    )


def decide(pipeline: Pipeline, mask: Masker, req: HookRequest, loop: asyncio.AbstractEventLoop) -> str:
    handled = loop.run_until_complete(pipeline.handle(req))
    record = build_record(Pending(handled, time.time(), "socket"), mask)
    record["seq"] = 1
    seal(record, GENESIS)
    decision = handled.decision
    why = "; ".join((*decision.reasons, *decision.notes))
    answer = f"{decision.outcome.name.lower()}{' (engine error: fail mode)' if handled.engine_error else ''}"
    return f"{answer}: {why}"[:100] if why else answer


def point(
    pipeline: Pipeline, mask: Masker, requests: Callable[[int], HookRequest], loop: asyncio.AbstractEventLoop
) -> tuple[float, str]:
    """(CPU µs per decision, the decision): calls repeated until 0.5 s of CPU or 200 calls, each on a new input
    (its request is made before the clock runs)."""
    first_request = requests(0)
    start = time.process_time()
    outcome = decide(pipeline, mask, first_request, loop)
    first = time.process_time() - start
    calls, spent = 0, 0.0
    while calls < 200 and (calls < 3 or spent < 0.5) and first < 5:
        req = requests(calls + 1)
        start = time.process_time()
        decide(pipeline, mask, req, loop)
        spent += time.process_time() - start
        calls += 1
    return (spent / calls if calls else first) * 1e6, outcome


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--budget", type=float, default=20.0, help="seconds one call may take before a series ends")
    parser.add_argument("--policies", default=str(ROOT / "policies"))
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    sys.setrecursionlimit(10_000)
    config = Config()
    pipeline, _ = build_pipeline(config, load_engine(config, Path(args.policies).resolve()), probe=lambda _pid: False)
    mask = Masker.from_config(LogConfig())
    loop = asyncio.new_event_loop()
    results: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="hookd-scaling-") as name:
        project = Path(name)
        for title, unit, sizes, make in SERIES:
            print(f"\n{title} ({unit})   CPU µs/decision   µs per {unit[:-1] if unit != 'bytes' else 'KB'}   decision")
            rows = results[title] = []
            for size in sizes:
                req = request(make(size, 0), project)
                wall = time.perf_counter()
                factory = lambda salt, m=make, n=size: request(m(n, salt), project)  # noqa: E731
                us, outcome = point(pipeline, mask, factory, loop)
                per = us / (size / 1000 if unit == "bytes" else size)
                rows.append({"size": size, "payload_bytes": len(req.payload), "cpu_us": us, "per_unit": per,
                             "decision": outcome})  # fmt: skip
                print(f"{size:>12,}   {us:15,.0f}   {per:12,.2f}   {outcome}")
                if time.perf_counter() - wall > args.budget:
                    print(f"  (this point took over {args.budget:.0f} s: the series stops here)")
                    break
    loop.close()
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
