"""Where a serving daemon's CPU goes, step by step: py-spy samples of a real `hookd serve` under the C load
generator, each sample charged to the hot-path step it was in, scaled by the daemon's measured CPU per decision.

bench/breakdown.py times each step alone, in process, warm; this measures the daemon as it serves (the decision
log written, uvloop, the steps' caches as cold as the load leaves them), at its maximum rate or at a fixed one:

  .cache/venv/bin/python bench/profile.py [--rate max|N|trace] [--seconds 10] [--py-spy PATH] [--json FILE]

py-spy (`pip install py-spy`; not a dependency of hookd) samples without stopping the daemon (`--nonblocking`).
Native frames are not unwound: time inside regorus is charged to the Python line that called it, which is
what splits `set_input` from the evaluation. A sample is charged to the innermost step it is in (the order of
STEPS); CPU per decision comes from /proc/PID/task/*/schedstat over the whole phase, the log's backlog included.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import LOAD, PAYLOADS, ROOT, TRACE, payload, settled, start_daemon, wait_for_log

from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.transport.hook_server import _HookConnection


def line_of(function: object, text: str) -> int:
    source, first = inspect.getsourcelines(function)  # type: ignore[arg-type]
    return first + next(i for i, line in enumerate(source) if text in line)


SET_INPUT = line_of(RegoEmbeddedEngine.evaluate_sync, ".set_input(")
REPLY_WRITE_LINE = line_of(_HookConnection._reply, "._transport.write(")
# py-spy samples threads that are runnable, not only those on a CPU. The reply's write() wakes the client, which
# the kernel often runs at once on the daemon's CPU: the daemon then waits, runnable, inside write(). Those
# samples are wall time (the daemon's system time is far smaller), so they are shown apart, not as CPU.
WAITING = "transport: reply write(), waiting on the woken client"

# (step, pattern over one frame "function (file:line)"), innermost first: the first step whose pattern matches
# any frame of a sample, searched from the leaf up, gets the sample.
STEPS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (WAITING, re.compile(rf"^_HookConnection\._reply \(.*:{REPLY_WRITE_LINE}\)$")),
    ("rego: set_input (dict → regorus value)", re.compile(rf"^RegoEmbeddedEngine\.evaluate_sync \(.*:{SET_INPUT}\)")),
    ("rego: evaluation (regorus)", re.compile(r"^RegoEmbeddedEngine\.evaluate_sync ")),
    ("rego: result → verdicts", re.compile(r"^verdicts_from_result ")),
    ("log: masking the input", re.compile(r"^Masker\.")),
    ("log: building the record", re.compile(r"^build_record ")),
    ("log: sealing (canonical JSON, sha256)", re.compile(r"^seal ")),
    ("log: writing, live streams", re.compile(r"^DecisionLog\.")),
    ("parse (dialect)", re.compile(r"^\w+Dialect\.parse |^parse \(.*dialects/")),
    ("enrich (shell parse, paths, limits)", re.compile(r"^Pipeline\._enrich ")),
    ("combine, ask, render, ids", re.compile(r"^Pipeline\.handle ")),
    ("metrics, records handed on", re.compile(r"^(Daemon|Decider)\.")),
    ("transport: framing, peer, reply, close", re.compile(r"^(_HookConnection|HookServer)\.")),
)
OTHER = "event loop, uvloop, GC, other threads"


def schedstat(pid: int) -> tuple[float, float, int]:
    """(seconds on a CPU, seconds runnable but waiting for one, times run) of all the threads of the daemon
    and its child processes (the lane decides the heavy requests; sandboxed Python policies run in workers)."""
    run = wait = slices = 0
    pids = [pid]
    with contextlib.suppress(OSError):
        pids += [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    tasks = [task for p in pids for task in Path(f"/proc/{p}/task").glob("*/schedstat")]
    for task in tasks:
        try:
            fields = [int(f) for f in task.read_text().split()]
        except (OSError, ValueError):
            continue
        run, wait, slices = run + fields[0], wait + fields[1], slices + fields[2]
    return run / 1e9, wait / 1e9, slices


def classify(stack: str) -> str:
    frames = stack.split(";")
    for step, pattern in STEPS:
        if any(pattern.match(frame) for frame in reversed(frames)):
            return step
    return OTHER


def sampled_steps(raw: Path) -> Counter[str]:
    counts: Counter[str] = Counter()
    for line in raw.read_text().splitlines():
        stack, _, n = line.rpartition(" ")
        if stack:
            counts[classify(stack)] += int(n)
    return counts


def profile(py_spy: str, rate: str, seconds: float, policies: Path, hz: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="hookd-profile-") as name:
        tmp = Path(name)
        project = tmp / "project"
        project.mkdir()
        payload_file = tmp / "payloads.json"
        payload_file.write_text(json.dumps([payload(i, project).decode() for i in range(len(PAYLOADS))]))
        runtime, raw = tmp / "daemon", Path(os.environ.get("HOOKD_PROFILE_RAW", tmp / "samples.txt"))
        daemon = start_daemon(runtime, policies, tmp / "daemon.log")
        try:
            settled(daemon.pid)
            record = ["record", "--nonblocking", "--subprocesses", "--rate", str(hz), "--format", "raw"]
            record += ["--output", str(raw)]
            spy = subprocess.Popen(
                [py_spy, *record, "--duration", str(int(seconds) + 1), "--pid", str(daemon.pid)],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            time.sleep(0.5)  # py-spy attached
            before = schedstat(daemon.pid)
            mode, param = {"max": ("max", "4"), "trace": ("trace", "1")}.get(rate, ("fixed", rate))
            frames = TRACE if rate == "trace" else payload_file
            done = subprocess.run(
                [sys.executable, str(LOAD), str(runtime / "hook.sock"), str(frames), mode, param, str(seconds)],
                capture_output=True,
                timeout=seconds + 60,
                check=True,
            )
            wait_for_log(runtime / "state" / "hookd" / "decisions.log")
            after = schedstat(daemon.pid)
            _, err = spy.communicate(timeout=seconds + 30)
            if spy.returncode != 0 or not raw.exists():
                raise SystemExit(f"py-spy failed: {err.decode(errors='replace').strip()}")
        finally:
            daemon.terminate()
            daemon.wait(timeout=10)
        load = json.loads(done.stdout)
        requests = max(1, load["requests"])
        return {
            "rate": rate,
            "seconds": seconds,
            "requests": load["requests"],
            "errors": load["errors"],
            "per_second": load["per_second"],
            "cpu_us_per_decision": (after[0] - before[0]) / requests * 1e6,
            "runqueue_wait_us_per_decision": (after[1] - before[1]) / requests * 1e6,
            "runs_per_decision": (after[2] - before[2]) / requests,
            "samples": dict(sampled_steps(raw)),
        }


def report(result: dict[str, Any]) -> None:
    samples: dict[str, int] = result["samples"]
    total = max(1, sum(samples.values()))
    on_cpu = max(1, total - samples.get(WAITING, 0))
    cpu = result["cpu_us_per_decision"]
    print(
        f"the daemon at {result['rate']} ({result['per_second']:.0f} decisions/s, {result['errors']} errors): "
        f"{cpu:.0f} µs of CPU a decision, {result['runqueue_wait_us_per_decision']:.0f} µs runnable but waiting "
        f"for a CPU, {result['runs_per_decision']:.1f} times on a CPU; {total} samples, {on_cpu} not in the reply's "
        "write()\n"
    )
    print(f"{'step':56} {'samples':>8} {'of CPU':>7} {'µs/decision':>12}")
    for step in [s for s, _ in STEPS] + [OTHER]:
        n = samples.get(step, 0)
        if step == WAITING:
            print(f"{step:56} {n / total:8.1%} {'-':>7} {'(not CPU)':>12}")
        else:
            print(f"{step:56} {n / total:8.1%} {n / on_cpu:7.1%} {n / on_cpu * cpu:12.0f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--rate",
        default="max",
        help="max (closed loop, 4 in flight), requests a second, or trace (the recorded e2e sessions at their pacing)",
    )
    parser.add_argument("--seconds", type=float, default=10.0)
    beside = Path(sys.executable).with_name("py-spy")  # `.cache/venv/bin/pip install py-spy` puts it here
    parser.add_argument(
        "--py-spy",
        default=shutil.which("py-spy") or (str(beside) if beside.exists() else None),
        help="the py-spy binary (default: on PATH, or beside this interpreter)",
    )
    parser.add_argument("--hz", type=int, default=250, help="samples a second (more for sparse rates)")
    parser.add_argument("--policies", default=str(ROOT / "policies"))
    parser.add_argument("--json", help="also write the result here")
    args = parser.parse_args()
    if not args.py_spy:
        parser.error("py-spy not found: `pip install py-spy` (into any environment) or pass --py-spy PATH")
    if args.rate not in ("max", "trace") and not args.rate.replace(".", "", 1).isdigit():
        parser.error("--rate is max, trace or a number of requests a second")
    if args.rate == "trace":
        args.seconds = json.loads(TRACE.read_text())["calls"][-1]["offset_ms"] / 1000 + 2
    result = profile(str(Path(args.py_spy).resolve()), args.rate, args.seconds, Path(args.policies).resolve(), args.hz)
    report(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
