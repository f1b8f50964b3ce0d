"""Where a served decision's CPU goes, phase by phase, measured exactly rather than sampled.

A real `hookd serve` (the default policies, the decision log written, the lane) runs with the hot path's
methods wrapped in thread-CPU clocks (`time.thread_time_ns`): the transport's callbacks, the request's
decision (parse, enrich, Rego, combine and render), the hand-over to the log and the log's writer. The C load
generator drives it at a fixed rate or replays the recorded trace; afterwards the daemon's main thread's CPU
(`/proc/PID/task/PID/schedstat`) is split over the phases, and what no wrapper saw is uvloop's own work
(epoll, accept, read, close) and the writer task's wake-up. Nested phases are included in their parents'
figures (Rego is inside "the decision").

Why not bench/profile.py: py-spy samples a thread that is runnable as well as one that runs, so at sparse
rates (most of the time asleep, the rest cold) its shares are a few hundred samples and the wake-ups blur
them. A wrapper costs about 0.2 µs a call, a few µs a decision: read the figures as µs, not as ±1 µs.

  .cache/venv/bin/python bench/phases.py [--rate 10 | --rate trace] [--seconds 20] [--payload N] [--policies DIR]

`--payload N` sends only the N-th of the bench's five payloads (bench/run.py PAYLOADS, from 0), to see one
decision's cost apart from the mix's. Another revision's daemon is measured with its snapshot first on the path
and the policies its snapshot ships (a daemon evaluates in process only those): `git archive REV daemon policies
client_shim | tar -x -C SNAP`, then `PYTHONPATH=SNAP/daemon … bench/phases.py --policies SNAP/policies`; the
phases its code lacks are left out, and fc2bbfc's names for the decision and Rego are wrapped too.
"""

from __future__ import annotations

import argparse
import atexit
import collections
import functools
import inspect
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import c_generator, frames, trace_frames  # bench/ holds no package: its scripts import each other
from run import PAYLOADS, ROOT, TRACE, payload, settled, wait_for_log

# (label, module, class or "" for a module's function, method): the phases, outermost first; the enrich
# steps are wrapped where the pipeline's assembly (hookd.assembly.enrichers) takes them from
PHASES = (
    ("transport: accepted (peer credentials, deadline)", "hookd.transport.hook_server", "_HookConnection",
     "connection_made"),
    ("transport: frame read, decided and answered", "hookd.transport.hook_server", "_HookConnection", "data_received"),
    ("  the decision (HookServer._answer)", "hookd.transport.hook_server", "HookServer", "_answer"),
    ("  the decision (fc2bbfc's name: HookServer._answer_now)", "hookd.transport.hook_server", "HookServer",
     "_answer_now"),
    ("    parse (dialect)", "hookd.pipeline", "Pipeline", "parse"),
    ("    enrich (shell parse, facts, caps)", "hookd.pipeline", "Pipeline", "_enrich"),
    ("    Rego (regorus: set_input, evaluation, verdicts)", "hookd.engines.rego.embedded", "RegoEmbeddedEngine",
     "evaluate"),
    ("    Rego (fc2bbfc's name: evaluate_now)", "hookd.engines.rego.embedded", "RegoEmbeddedEngine", "evaluate_now"),
    ("      the shell's facts and effects (enrich_shell)", "hookd.assembly", "", "enrich_shell"),
    ("        the builder made (the project's path resolved)", "hookd.enrich.shell.build", "_Builder", "__init__"),
    ("        the effect model (EffectModel.command)", "hookd.enrich.effects.model", "EffectModel", "command"),
    ("      a file tool's paths (enrich_paths)", "hookd.assembly", "", "enrich_paths"),
    ("      a file tool's effects (enrich_tool_effects)", "hookd.assembly", "", "enrich_tool_effects"),
    ("      the protected places (ProtectedSet)", "hookd.selfprotect", "ProtectedSet", "__call__"),
    ("      the protected places, first tested (ProtectedPlaces)", "hookd.selfprotect_first", "ProtectedPlaces",
     "__call__"),
    ("        the places near a named path (_Index.near)", "hookd.selfprotect", "_Index", "near"),
    ("        the agents a line starts (unguarded_starts)", "hookd.selfprotect", "", "unguarded_starts"),
    ("    combine, ask, id, render", "hookd.pipeline", "Pipeline", "_decided"),
    ("    handed to the log and metrics", "hookd.decide", "DaemonRecorder", "record"),
    ("  reply written, closed", "hookd.transport.hook_server", "_HookConnection", "_reply"),
    ("transport: awaited in a task (the lane, a remote engine)", "hookd.transport.hook_server", "HookServer",
     "_reply_when_decided"),
    ("log writer: a batch", "hookd.audit.writer", "DecisionLog", "_write_batch"),
    ("  building the record (masking)", "hookd.audit.writer", "DecisionLog", "_build"),
    ("  sealing and writing", "hookd.audit.writer", "DecisionLog", "_emit"),
    ("  flushing", "hookd.audit.writer", "DecisionLog", "_flush"),
)  # fmt: skip


# --- in the daemon: `phases.py --serve ...` runs `hookd ...` with the phases wrapped -------------------


def serve_wrapped(argv: list[str]) -> int:
    import importlib

    spent: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    clock = time.thread_time_ns

    def wrap(label: str, owner: Any, name: str) -> None:
        inner = getattr(owner, name)

        if inspect.iscoroutinefunction(inner):

            @functools.wraps(inner)
            async def timed_async(*args: Any, **kwargs: Any) -> Any:
                start = clock()
                try:
                    return await inner(*args, **kwargs)
                finally:
                    entry = spent[label]
                    entry[0] += clock() - start
                    entry[1] += 1

            setattr(owner, name, timed_async)
            return

        @functools.wraps(inner)
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = clock()
            try:
                return inner(*args, **kwargs)
            finally:
                entry = spent[label]
                entry[0] += clock() - start
                entry[1] += 1

        setattr(owner, name, timed)

    for label, module, cls, method in PHASES:
        try:
            imported = importlib.import_module(module)
            owner = getattr(imported, cls) if cls else imported  # no class: a module's function
            getattr(owner, method)
        except (ImportError, AttributeError):
            continue  # a phase of another revision (an older daemon run with PYTHONPATH): left out
        wrap(label, owner, method)
        spent[label] = [0, 0]
    out = Path(os.environ["HOOKD_PHASES_OUT"])

    def dump(*_: object) -> None:
        out.write_text(json.dumps(spent))

    def reset(*_: object) -> None:
        for entry in spent.values():
            entry[:] = [0, 0]

    signal.signal(signal.SIGUSR1, reset)
    signal.signal(signal.SIGUSR2, dump)
    atexit.register(dump)
    from hookd.cli import main

    sys.argv = ["hookd", *argv]
    return main()


# --- the driver --------------------------------------------------------------------------------------------


def main_thread(pid: int) -> tuple[int, int]:
    """(ns on a CPU, times run) of the daemon's main thread."""
    fields = Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()
    return int(fields[0]), int(fields[2])


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise SystemExit(f"{what} did not happen within {timeout:g} s")
        time.sleep(0.05)


def drive(rate: str, seconds: float, only: int | None = None, policies: Path = ROOT / "policies") -> dict[str, Any]:
    generator = c_generator()
    if generator is None:
        raise SystemExit("bench/phases.py needs a C compiler for the load generator (bench/loadgen.c)")
    with tempfile.TemporaryDirectory(prefix="hookd-phases-") as name:
        tmp = Path(name)
        runtime, project, out = tmp / "d", tmp / "project", tmp / "phases.json"
        runtime.mkdir(mode=0o700)
        project.mkdir()
        log = tmp / "daemon.log"
        env = {**os.environ, "XDG_STATE_HOME": str(tmp / "state"), "HOOKD_PHASES_OUT": str(out)}
        cmd = [sys.executable, __file__, "--serve", "serve", "--policies", str(policies),
               "--runtime-dir", str(runtime)]  # fmt: skip
        with log.open("wb") as sink:
            daemon = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        try:
            wait_for(lambda: '"lane_serving"' in log.read_text() or daemon.poll() is not None, "the lane serving")
            if daemon.poll() is not None:
                raise SystemExit(f"the daemon exited:\n{log.read_text()}")
            settled(daemon.pid)  # the lane loads its policies after the daemon listens
            if rate == "trace":
                calls = json.loads(TRACE.read_text())["calls"]
                sent, schedule = trace_frames(calls), "".join(f"{call['offset_ms']}\n" for call in calls)
            else:
                chosen = range(len(PAYLOADS)) if only is None else [only]
                sent, schedule = frames([payload(i, project) for i in chosen]), ""
            frame_file, schedule_file = tmp / "frames.bin", tmp / "schedule.txt"
            frame_file.write_bytes(b"".join(struct.pack("!I", len(f)) + f for f in sent))
            schedule_file.write_text(schedule)
            # warm-up, as bench/ab.py does: a caller's first call derives its protected places (~30 ms, once per
            # home and project), first decisions compile regexes and fill memos; none of it is a decision's cost
            warm = frame_file if rate != "trace" else tmp / "warm.bin"
            if rate == "trace":
                warm.write_bytes(b"".join(struct.pack("!I", len(f)) + f for f in sent[:20]))
            subprocess.run([str(generator), str(runtime / "hook.sock"), str(warm), "fixed", "50", "0.5"],
                           capture_output=True, timeout=60, check=True)  # fmt: skip
            os.kill(daemon.pid, signal.SIGUSR1)
            time.sleep(0.2)
            before = main_thread(daemon.pid)
            args = ["trace", str(schedule_file), "1"] if rate == "trace" else ["fixed", rate, str(seconds)]
            done = subprocess.run(
                [str(generator), str(runtime / "hook.sock"), str(frame_file), *args],
                capture_output=True,
                timeout=seconds + 180,
                check=True,
            )
            wait_for_log(tmp / "state" / "hookd" / "decisions.log")  # the writer done with the last records
            after = main_thread(daemon.pid)
            out.unlink(missing_ok=True)
            os.kill(daemon.pid, signal.SIGUSR2)
            wait_for(out.exists, "the phases written")
            load = json.loads(done.stdout)
            spent = json.loads(out.read_text())
        finally:
            daemon.terminate()
            daemon.wait(timeout=30)
    requests = max(1, int(load["requests"]))
    return {
        "rate": rate if only is None else f"{rate} (payload {only}: {PAYLOADS[only]['tool_input']})",
        "requests": load["requests"],
        "errors": load["errors"],
        "p50_ms": load["p50_ms"],
        "p99_ms": load["p99_ms"],
        "main_thread_us": (after[0] - before[0]) / 1e3 / requests,
        "runs_per_decision": (after[1] - before[1]) / requests,
        "phases_us": {label: spent[label][0] / 1e3 / requests for label, *_ in PHASES if label in spent},
    }


def report(result: dict[str, Any]) -> None:
    print(
        f"{result['rate']}: {result['requests']} requests, {result['errors']} errors, p50 {result['p50_ms']:.3f} ms, "
        f"p99 {result['p99_ms']:.3f} ms; the daemon's main thread: {result['main_thread_us']:.0f} µs of CPU a "
        f"decision, on a CPU {result['runs_per_decision']:.2f} times a decision"
    )
    phases = result["phases_us"]
    outer = sum(us for label, us in phases.items() if not label.startswith(" "))
    for label, us in phases.items():
        print(f"  {label:58s} {us:8.1f} µs")
    rest = result["main_thread_us"] - outer
    print(f"  {'uvloop (epoll, accept, read, close), task wake-ups, GC':58s} {rest:8.1f} µs")


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        return serve_wrapped(sys.argv[2:])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", default="10", help="requests a second, or `trace` (the recorded sessions)")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--payload", type=int, choices=range(len(PAYLOADS)), help="only this bench payload")
    parser.add_argument("--json", help="also write the result here")
    parser.add_argument(
        "--policies",
        type=Path,
        default=ROOT / "policies",
        help="the policy directory served (default this tree's); a daemon evaluates in process only the one its "
        "own tree ships, so for another revision's daemon (PYTHONPATH=<its snapshot>/daemon) give its snapshot's",
    )
    args = parser.parse_args()
    if shutil.which("cc") is None and c_generator() is None:
        raise SystemExit("no C compiler: bench/phases.py drives the daemon with bench/loadgen.c")
    result = drive(args.rate, args.seconds, args.payload, args.policies.resolve())
    report(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
