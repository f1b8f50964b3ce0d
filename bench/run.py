"""hookd's performance suite: every contender side by side in one run, interleaved, as ratios.

Reported first, because it is what an agent sees:
1. Sparse arrivals: the daemon alone over its socket at 10 and 100 req/s, interleaved request by request
   with the transport floor (bench/floor_server.py: a minimal uvloop server that reads the same frames and
   answers a fixed reply), both driven by the same load generator (bench/loadgen.c) in the same run;
   p50/p99 and their ratios over the floor, and the daemon's CPU per decision.
Then:
2. The recorded workload (bench/trace/e2e-sessions.json, recorded by `bench/trace.py record` from the real
   Gemini CLI and Claude Code e2e sessions), replayed at its recorded pacing, interleaved with the floor.
3. End to end, each contender spawned through `bash -c` the way Gemini CLI spawns a hook, with a real
   BeforeTool payload on stdin, timed from spawn to exit, interleaved call by call (A B C ... A B C ...):
     native   the C shim → the warm daemon            (if built: `hookd shim build`)
     python   the Python shim (`python -I -S`) → the warm daemon
     percall  a per-call Python hook that loads the same Rego policies and decides itself
     opa      a per-call `opa eval` of the same policies with the real opa binary (given the input
              document already enriched, which favours it)
     true     `bash -c /bin/true` (dynamically linked, reads nothing: the floor of earlier runs)
     floor    `bash -c` of a static no-op that reads its stdin (bench/floor_noop.c): the physical floor
   Every call's exit code and output is checked: the shims and the per-call hook must print what the
   per-call hook printed for that payload before timing began, opa a JSON document, the floors nothing.
   A contender with a failing call is reported FAILED with the reason, and never timed.
4. The daemon at 1,000 req/s (with the floor), and its maximum sustained decisions/s (closed loop), each
   phase counted until the decision log has written its backlog; CPU per decision in every phase.
5. A 100-chunk AfterModel burst (Gemini runs one hook per streamed chunk, one after the other).
6. The daemon's RSS after all that; phases 1 and 4 again with `[daemon] workers = N` (--workers, default 2).
7. The remote engine (bench/remote_engine.py): engine = "opa" against engine = "embedded" in the daemon.

Every contender and phase also reports steal: the CPU time the hypervisor gave to other machines.
Results are printed and written as JSON to bench/results/; `--compare OLD.json` prints new/old ratios.
The exit code is 1 when a contender failed or a phase had errors. Run: ./dev bench [--calls N] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import compiled  # bench/ holds no package: its scripts import each other

ROOT = Path(__file__).resolve().parents[1]
SHIM = ROOT / "client_shim" / "hookd_shim.py"
PERCALL = ROOT / "bench" / "percall_hook.py"
LOAD = ROOT / "bench" / "load.py"
FLOOR_SERVER = ROOT / "bench" / "floor_server.py"
FLOOR_SOURCE = ROOT / "bench" / "floor_noop.c"
FLOOR_BINARY = ROOT / ".cache" / "bin" / "hookd-floor-noop"
TRACE = ROOT / "bench" / "trace" / "e2e-sessions.json"
BASE_PYTHON = os.path.realpath(sys.executable)

PAYLOADS = [
    {"tool_name": "run_shell_command", "tool_input": {"command": "git status && ls -la src"}},
    {"tool_name": "run_shell_command", "tool_input": {"command": "rm -rf ~/"}},
    {"tool_name": "write_file", "tool_input": {"file_path": "src/app.py", "content": "print('hi')\n"}},
    {"tool_name": "write_file", "tool_input": {"file_path": ".env", "content": "KEY=1\n"}},
    {"tool_name": "read_file", "tool_input": {"file_path": "README.md"}},
]
FIXED_PHASES = ("fixed_10", "fixed_100", "fixed_1000")
DECISION_ID = re.compile(rb"\(decision [0-9a-f]{16}\)")


def payload(i: int, project: Path, event: str = "BeforeTool") -> bytes:
    body: dict[str, Any] = {
        "session_id": "3f0c2a9e-8b7d-4c1e-9f5a-2d6b1e7c4a10",
        "transcript_path": "",
        "cwd": str(project),
        "hook_event_name": event,
        "timestamp": "2026-12-02T00:00:00.000Z",
    }
    if event == "BeforeTool":
        body.update(PAYLOADS[i % len(PAYLOADS)])
    else:
        text = f"chunk {i} of a streamed answer"
        body["llm_request"] = {"model": "gemini-3-flash-preview", "messages": [{"role": "user", "content": "hi"}]}
        body["llm_response"] = {"text": text, "candidates": [{"content": {"role": "model", "parts": [text]}}]}
    return json.dumps(body, separators=(",", ":")).encode()


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def stats(samples: list[float]) -> dict[str, float]:
    return {
        "p50_ms": percentile(samples, 50),
        "p90_ms": percentile(samples, 90),
        "p99_ms": percentile(samples, 99),
        "mean_ms": statistics.fmean(samples),
    }


# --- end to end: contenders interleaved call by call, every call checked ---------------------------------


@dataclass(frozen=True)
class Outcome:
    """What one call did: its exit code, its stdout and the end of its stderr."""

    exit_code: int
    stdout: bytes
    stderr: bytes


# A check returns None when the call did what it must, else a one-line reason.
Check = Callable[[int, Outcome], "str | None"]


@dataclass
class Contender:
    name: str
    command: Callable[[int], str]  # the bash -c command of call i
    check: Check
    samples: list[float] = field(default_factory=list)
    failure: str | None = None  # the first failed call: the contender is reported failed, not timed


def exits_zero_silently(_i: int, outcome: Outcome) -> str | None:
    if outcome.exit_code != 0:
        return f"exited {outcome.exit_code}: {outcome.stderr[-300:].decode(errors='replace').strip()}"
    return f"printed {outcome.stdout[:80]!r}, expected nothing" if outcome.stdout else None


def prints_json(_i: int, outcome: Outcome) -> str | None:
    if outcome.exit_code != 0:
        return f"exited {outcome.exit_code}: {outcome.stderr[-300:].decode(errors='replace').strip()}"
    try:
        json.loads(outcome.stdout)
    except ValueError:
        return f"printed no JSON document: {outcome.stdout[:80]!r}"
    return None


def same_decision_as(reference: list[Outcome]) -> Check:
    """The exit code and stdout the reference printed for the same payload (decision ids aside)."""

    def check(i: int, outcome: Outcome) -> str | None:
        want = reference[i % len(reference)]
        if outcome.exit_code != want.exit_code:
            detail = outcome.stderr[-300:].decode(errors="replace").strip()
            return f"call {i}: exit code {outcome.exit_code}, the per-call hook's was {want.exit_code}: {detail}"
        got, expected = (
            DECISION_ID.sub(b"(decision ID)", outcome.stdout),
            DECISION_ID.sub(b"(decision ID)", want.stdout),
        )
        if got != expected:
            at = next(
                (k for k, (a, b) in enumerate(zip(got, expected, strict=False)) if a != b), min(len(got), len(expected))
            )
            start, end = max(0, at - 60), at + 120
            return f"call {i}: from byte {at}, printed {got[start:end]!r}, the per-call hook {expected[start:end]!r}"
        return None

    return check


def run_call(command: str, data: bytes, project: Path, env: dict[str, str]) -> tuple[float, Outcome]:
    start = time.perf_counter()
    done = subprocess.run(
        ["/bin/bash", "-c", command], input=data, capture_output=True, env=env, cwd=project, timeout=60, check=False
    )
    elapsed = (time.perf_counter() - start) * 1000
    return elapsed, Outcome(done.returncode, done.stdout, done.stderr[-2000:])


def time_interleaved(
    contenders: list[Contender], calls: int, project: Path, env: dict[str, str], event: str = "BeforeTool"
) -> None:
    """Call i of every contender, in order, then call i + 1 of every contender (A B C ... A B C ...), so the
    machine's drift hits them alike. A contender whose call fails its check stops being run and timed."""
    for i in range(calls):
        data = payload(i, project, event)
        for contender in contenders:
            if contender.failure is not None:
                continue
            elapsed, outcome = run_call(contender.command(i), data, project, env)
            reason = contender.check(i, outcome)
            if reason is not None:
                contender.failure = f"call {i}: {reason}" if not reason.startswith("call ") else reason
                contender.samples.clear()
                continue
            contender.samples.append(elapsed)


def reference_outcomes(percall: Callable[[int], str], project: Path, env: dict[str, str]) -> list[Outcome]:
    """What the per-call hook prints for each payload: the decisions every shim call must match."""
    return [run_call(percall(i), payload(i, project), project, env)[1] for i in range(len(PAYLOADS))]


def end_to_end(contenders: list[Contender], calls: int, project: Path, env: dict[str, str]) -> dict[str, Any]:
    time_interleaved(contenders, len(PAYLOADS), project, env)  # warm the page cache; checked too
    for contender in contenders:
        contender.samples.clear()
    before = cpu_ticks()
    time_interleaved(contenders, calls, project, env)
    steal = steal_percent(before, cpu_ticks())
    result: dict[str, Any] = {}
    for contender in contenders:
        if contender.failure is not None:
            result[contender.name] = {"failed": contender.failure}
        else:
            result[contender.name] = {**stats(contender.samples), "steal_pct": steal}
    return result


def floor_binary() -> Path | None:
    """The static no-op floor (bench/floor_noop.c), built on first use (dynamic if static linking fails)."""
    return compiled(FLOOR_SOURCE, FLOOR_BINARY, [["-static"], []])


# --- the daemon alone: hookd and the floor server, one load generator ------------------------------------


def start_daemon(runtime: Path, policies: Path, log: Path, workers: int = 1) -> subprocess.Popen[bytes]:
    """A `hookd serve` of its own: its decision log and state go under runtime/state, never the user's.
    Returns once it listens, each worker process serves and so does the lane (which loads its policies
    after the daemon listens: at 10 req/s that start-up would otherwise be charged to the first phase)."""
    runtime.mkdir(parents=True, exist_ok=True, mode=0o700)
    config = runtime / "bench.toml"
    config.write_text(f"[daemon]\nworkers = {workers}\n")
    cmd = [sys.executable, "-m", "hookd", "--config", str(config), "serve", "--policies", str(policies),
           "--runtime-dir", str(runtime)]  # fmt: skip
    env = {**os.environ, "XDG_STATE_HOME": str(runtime / "state")}
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with socket.socket(socket.AF_UNIX) as probe:
                probe.connect(str(runtime / "hook.sock"))
            text = log.read_text()
            if text.count('"worker_serving"') >= workers - 1 and lanes_serving(text):
                return proc
        except OSError:
            pass
        time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"daemon did not start:\n{log.read_text()}")


@contextmanager
def floor_server(path: Path, command: list[str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """bench/floor_server.py (or `command`, another floor taking the same argument) listening on `path`, stopped
    on exit."""
    argv = [*(command or [sys.executable, str(FLOOR_SERVER)]), str(path)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        assert proc.stdout is not None
        if proc.stdout.readline() != b"listening\n":
            raise SystemExit("the floor server did not start")
        yield proc
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)


@dataclass(frozen=True)
class Target:
    """A server the load generator drives: its socket, its processes (for CPU time) and its decision log."""

    name: str
    socket: Path
    pids: Callable[[], list[int]]
    log: Path | None = None


def lanes_serving(log: str) -> bool:
    """The daemon's log says its lanes serve: the lane, and the stream lane when the tree has one (it is
    started first, so its start is logged before the lane serves)."""
    return '"lane_serving"' in log and ('"stream_lane_started"' not in log or '"stream_lane_serving"' in log)


def cpu_seconds(pids: list[int]) -> float:
    """CPU time the processes' threads have run, from /proc/PID/task/*/schedstat (ns, exact)."""
    total = 0
    for pid in pids:
        for task in Path(f"/proc/{pid}/task").glob("*/schedstat"):
            try:
                total += int(task.read_text().split()[0])
            except (OSError, ValueError, IndexError):
                continue
    return total / 1e9


def settled(pid: int, quiet: float = 0.5, limit: float = 60.0) -> None:
    """Wait until the daemon and its children are idle: the lane and the workers load their policies after the
    daemon listens, which at an agent's pace would otherwise be charged to the first decisions."""
    deadline = time.monotonic() + limit
    before = cpu_seconds(process_tree(pid))
    while time.monotonic() < deadline:
        time.sleep(quiet)
        now = cpu_seconds(process_tree(pid))
        if now - before < 0.02 * quiet:  # under 2% of a core
            return
        before = now


def load(targets: list[Target], payload_file: Path, mode: str, param: float, seconds: float) -> dict[str, Any]:
    """One load phase (bench/load.py) against every target at once (interleaved), then the wait until each
    daemon has written every record it queued: the daemon answers first and writes its decision log after,
    so a phase at the maximum rate leaves a backlog, and a rate counts as sustained only with that backlog's
    writing included. Each target's result has its CPU per answered request, the log's writing included."""
    before, cpu_before = cpu_ticks(), [cpu_seconds(t.pids()) for t in targets]
    done = subprocess.run(
        [sys.executable, str(LOAD), ",".join(str(t.socket) for t in targets), str(payload_file), mode, str(param),
         str(seconds)],
        capture_output=True,
        timeout=(seconds if mode != "trace" else 600) + 60,
        check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"load generator failed ({done.returncode}): {done.stderr.decode(errors='replace')}")
    output = json.loads(done.stdout)
    rows: list[dict[str, Any]] = output.get("targets", [output])
    drains = [wait_for_log(t.log) if t.log else 0.0 for t in targets]
    steal = steal_percent(before, cpu_ticks())
    result: dict[str, Any] = {}
    for target, row, drain, cpu0 in zip(targets, rows, drains, cpu_before, strict=True):
        answered = row["requests"] - row["errors"]  # per_second counts these only
        elapsed = answered / row["per_second"] if row["per_second"] else seconds
        cpu = cpu_seconds(target.pids()) - cpu0
        result[target.name] = {
            **row,
            "steal_pct": steal,
            "log_drain_s": round(drain, 3),
            "with_log_per_second": answered / (elapsed + drain) if elapsed + drain else 0.0,
            "cpu_ms_per_request": 1000 * cpu / answered if answered else float("nan"),
        }
    return result


def interleaved_phase(hookd: Target, floor: Target, payload_file: Path, mode: str, param: float,
                      seconds: float) -> dict[str, Any]:  # fmt: skip
    """hookd and the floor server driven alternately, request by request, and hookd's ratios over the floor."""
    both = load([hookd, floor], payload_file, mode, param, seconds)
    result = {**both["hookd"], "floor": both["floor"]}
    for q in ("p50", "p99"):
        result[f"{q}_over_floor"] = both["hookd"][f"{q}_ms"] / both["floor"][f"{q}_ms"]
    return result


def daemon_phases(hookd: Target, floor: Target, payload_file: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Sparse rates first (what an agent sees), then 1,000 req/s, then the maximum (the best concurrency)."""
    result = {
        "fixed_10": interleaved_phase(hookd, floor, payload_file, "fixed", 10, args.sparse_seconds),
        "fixed_100": interleaved_phase(hookd, floor, payload_file, "fixed", 100, args.sparse_seconds),
        "fixed_1000": interleaved_phase(hookd, floor, payload_file, "fixed", 1000, args.seconds),
    }
    tops = [load([hookd], payload_file, "max", c, args.seconds)["hookd"] for c in (2, 4, 16)]
    result["max"] = max(tops, key=lambda r: r["with_log_per_second"] if r["errors"] == 0 else 0)
    result["floor_max"] = load([floor], payload_file, "max", 4, args.seconds)["floor"]
    return result


def cpu_ticks() -> tuple[int, int]:
    """(all CPU ticks, the ticks the hypervisor gave to others: steal) from /proc/stat, over every CPU."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return sum(fields), fields[7]


def steal_percent(before: tuple[int, int], after: tuple[int, int]) -> float:
    """The share of the machine's CPU time the hypervisor took away meanwhile: a run with much of it is noise."""
    total = after[0] - before[0]
    return round(100 * (after[1] - before[1]) / total, 1) if total > 0 else 0.0


def wait_for_log(path: Path, quiet: float = 0.3, limit: float = 120.0) -> float:
    """Seconds until the decision log stops growing (no change for `quiet` seconds), not counting that quiet."""
    start = time.perf_counter()
    size, changed = -1, start
    while time.perf_counter() - start < limit:
        now_size = path.stat().st_size if path.exists() else 0
        now = time.perf_counter()
        if now_size != size:
            size, changed = now_size, now
        elif now - changed >= quiet:
            break
        time.sleep(0.02)
    return max(0.0, changed - start)


def daemon_target(daemon: subprocess.Popen[bytes], runtime: Path) -> Target:
    return Target(
        "hookd",
        runtime / "hook.sock",
        lambda: process_tree(daemon.pid),
        runtime / "state" / "hookd" / "decisions.log",
    )


def children(pid: int) -> list[int]:
    """The process's children, whichever of its threads started them (the kernel lists them per thread)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found += [int(c) for c in task.read_text().split()]
        except (OSError, ValueError):
            continue
    return found


def process_tree(pid: int) -> list[int]:
    """The process and every descendant (a worker's or the lane's own sandboxed evaluators included)."""
    tree, pending = [], [pid]
    while pending:
        current = pending.pop()
        tree.append(current)
        pending += children(current)
    return tree


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def quoted(*parts: str) -> str:
    return " ".join(shlex.quote(p) for p in parts)


# --- the run ----------------------------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=300, help="calls per end-to-end contender (default 300)")
    parser.add_argument("--policies", default=str(ROOT / "policies"))
    parser.add_argument("--native", help="path of the native shim (default: where `hookd shim build` puts it)")
    parser.add_argument("--opa", default=os.environ.get("HOOKD_OPA_BIN") or shutil.which("opa"))
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of the 1,000 req/s and maximum phases")
    parser.add_argument("--sparse-seconds", type=float, default=20.0, help="duration of the 10 and 100 req/s phases")
    parser.add_argument("--trace", default=str(TRACE), help="the recorded workload to replay (bench/trace.py)")
    parser.add_argument(
        "--trace-scale", type=float, default=1.0, help="times the recorded pacing (1: as recorded; 0.1: 10x faster)"
    )
    parser.add_argument("--quick", action="store_true", help="60 calls, 2 s load phases: a smoke run")
    parser.add_argument(
        "--workers", type=int, default=2, help="repeat the daemon-alone phases with [daemon] workers = N (1: skip)"
    )
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    parser.add_argument("--compare", help="an earlier results JSON to print new/old ratios against")
    parser.add_argument("--only", choices=("daemon",), help="daemon: the daemon-alone phases and the trace only")
    args = parser.parse_args()
    if args.quick:
        args.calls, args.seconds, args.sparse_seconds = 60, 2.0, 3.0
    # Every path is made absolute here: contenders run with the project directory as their cwd, where a
    # relative path would name another file (a relative --opa made every opa call fail in an earlier run).
    for name in ("policies", "native", "opa", "trace", "out", "compare"):
        value = getattr(args, name)
        if value:
            setattr(args, name, str(Path(value).expanduser().resolve()))
    return args


def build_contenders(
    args: argparse.Namespace, policies: Path, project: Path, tmp: Path, sock: str, record: dict[str, Any]
) -> tuple[list[Contender], Callable[[int], str]]:
    """The end-to-end contenders, in the order they run in each round; the per-call hook's command."""
    env = e2e_env(tmp, project)
    percall = lambda _i: quoted(sys.executable, str(PERCALL), str(policies))  # noqa: E731
    reference = reference_outcomes(percall, project, env)
    decided = same_decision_as(reference)
    contenders: list[Contender] = []
    native = find_native(args.native)
    if native:
        contenders.append(Contender("native", lambda _i: quoted(str(native), "gemini", "BeforeTool", "--socket", sock),
                                    decided))  # fmt: skip
    elif args.native:
        contenders.append(Contender("native", lambda _i: "", decided, failure=f"{args.native} is not executable"))
    else:
        record["notes"].append("native shim not built: run `hookd shim build` (contender skipped)")
    python_shim = quoted(BASE_PYTHON, "-I", "-S", str(SHIM), "gemini", "BeforeTool", "--socket", sock)
    contenders.append(Contender("python", lambda _i: python_shim, decided))
    contenders.append(Contender("percall", percall, decided))
    if args.opa:
        opa = args.opa
        if Path(opa).is_file() and os.access(opa, os.X_OK):
            docs = enriched_documents(policies, project, tmp, tmp, len(PAYLOADS))
            contenders.append(Contender("opa", lambda i: quoted(opa, "eval", "--format", "raw", "-d", str(policies),
                                                                "-i", str(docs[i % len(docs)]), "data.hookd"),
                                        prints_json))  # fmt: skip
        else:
            contenders.append(Contender("opa", lambda _i: "", prints_json, failure=f"{opa} is not an executable file"))
    else:
        record["notes"].append("opa binary not found: pass --opa or set HOOKD_OPA_BIN (contender skipped)")
    contenders.append(Contender("true", lambda _i: "/bin/true", exits_zero_silently))
    floor = floor_binary()
    if floor:
        contenders.append(Contender("floor", lambda _i: shlex.quote(str(floor)), exits_zero_silently))
    else:
        record["notes"].append("no C compiler: the static floor (bench/floor_noop.c) is missing; ratios over /bin/true")
    return contenders, percall


def e2e_env(tmp: Path, project: Path) -> dict[str, str]:
    """The shims' environment. HOME is a directory of its own, apart from the daemon's config, state and runtime
    dir (tmp/run): `rm -rf ~/` must be denied for the same reason by the daemon, which also protects its own
    files, and by the per-call hook, which has none."""
    home = tmp / "home"
    home.mkdir(mode=0o700, exist_ok=True)
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "GEMINI_PROJECT_DIR": str(project)}


def main() -> int:
    args = parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="hkdb", dir="/tmp"))
    project, runtime = tmp / "project", tmp / "run"
    project.mkdir()
    policies = Path(args.policies)
    sock = str(runtime / "hook.sock")
    record: dict[str, Any] = {"time": time.strftime("%Y-%m-%dT%H:%M:%S"), "calls": args.calls, "notes": [],
                              "load_before": os.getloadavg()}  # fmt: skip
    payload_file = tmp / "payloads.json"
    payload_file.write_text(json.dumps([payload(i, project).decode() for i in range(len(PAYLOADS))]))
    trace = Path(args.trace)
    daemon = start_daemon(runtime, policies, tmp / "daemon.log")
    try:
        with floor_server(tmp / "floor.sock") as floor_proc:
            hookd = daemon_target(daemon, runtime)
            floor = Target("floor", tmp / "floor.sock", lambda: [floor_proc.pid])
            record["daemon"] = daemon_phases(hookd, floor, payload_file, args)
            if trace.is_file():
                record["trace"] = {"file": str(trace.relative_to(ROOT) if trace.is_relative_to(ROOT) else trace),
                                   **interleaved_phase(hookd, floor, trace, "trace", args.trace_scale, 0)}  # fmt: skip
            else:
                record["notes"].append(f"no recorded trace at {trace}: run bench/trace.py record")
        if args.only != "daemon":
            contenders, _ = build_contenders(args, policies, project, tmp, sock, record)
            record["end_to_end"] = end_to_end(contenders, args.calls, project, e2e_env(tmp, project))
            record["after_model_burst"] = after_model_burst(contenders, project, e2e_env(tmp, project))
        record["daemon_rss_mb"] = rss_mb(daemon.pid)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=30)
    if args.workers > 1:
        record["daemon_workers"] = workers_phases(tmp / "run-workers", policies, payload_file, args)
    if args.opa and args.only != "daemon" and "failed" not in record["end_to_end"].get("opa", {"failed": 1}):
        import remote_engine  # bench/ is on sys.path when this file runs

        record["remote_engine"] = remote_engine.measure(policies, args.opa, args.calls)
    record["load_after"] = os.getloadavg()
    record["failed"] = failures(record)
    report(record)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"bench-{time.strftime('%Y%m%dT%H%M%S')}.json"
    path.write_text(json.dumps(record, indent=2) + "\n")
    print(f"\nresults: {path}")
    if args.compare:
        compare(record, json.loads(Path(args.compare).read_text()))
    shutil.rmtree(tmp, ignore_errors=True)
    return 1 if record["failed"] else 0


def after_model_burst(contenders: list[Contender], project: Path, env: dict[str, str]) -> dict[str, Any]:
    """100 AfterModel chunks one after another through a shim, as Gemini streams an answer."""
    shims = [c for c in contenders if c.name in ("native", "python") and c.failure is None]
    if not shims:
        return {"failed": "no shim contender succeeded"}
    shim = shims[0]
    burst = Contender(shim.name, lambda i: shim.command(i).replace("BeforeTool", "AfterModel"), prints_json_or_empty)
    start = time.perf_counter()
    time_interleaved([burst], 100, project, env, "AfterModel")
    total = (time.perf_counter() - start) * 1000
    if burst.failure is not None:
        return {"shim": shim.name, "failed": burst.failure}
    return {"shim": shim.name, "chunks": 100, "total_ms": total, **stats(burst.samples)}


def prints_json_or_empty(i: int, outcome: Outcome) -> str | None:
    return exits_zero_silently(i, outcome) if not outcome.stdout else prints_json(i, outcome)


def workers_phases(runtime: Path, policies: Path, payload_file: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The daemon-alone phases again with `[daemon] workers = N`, and the RSS of every process."""
    daemon = start_daemon(runtime, policies, runtime.parent / "daemon-workers.log", args.workers)
    try:
        with floor_server(runtime.parent / "floor-workers.sock") as floor_proc:
            floor = Target("floor", runtime.parent / "floor-workers.sock", lambda: [floor_proc.pid])
            result: dict[str, Any] = {
                "workers": args.workers,
                **daemon_phases(daemon_target(daemon, runtime), floor, payload_file, args),
            }
        pids = [daemon.pid, *children(daemon.pid)]
        result["rss_mb"] = {str(pid): rss_mb(pid) for pid in pids}
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=30)
    return result


def failures(record: dict[str, Any]) -> list[str]:
    """Every contender that failed and every phase with errors: a run with any of them is not a result."""
    found = [f"{name}: {row['failed']}" for name, row in record.get("end_to_end", {}).items() if "failed" in row]
    if "failed" in record.get("after_model_burst", {}):
        found.append(f"AfterModel burst: {record['after_model_burst']['failed']}")
    for section in ("daemon", "daemon_workers"):
        for phase, row in record.get(section, {}).items():
            if isinstance(row, dict) and row.get("errors"):
                found.append(f"{section} {phase}: {row['errors']} errors of {row['requests']}")
    if record.get("trace", {}).get("errors"):
        found.append(f"trace: {record['trace']['errors']} errors of {record['trace']['requests']}")
    return found


def find_native(explicit: str | None) -> Path | None:
    if explicit:
        # absolute: the agents run it from their own directory (a relative path there ran no hook at all)
        return Path(explicit).resolve() if Path(explicit).is_file() and os.access(explicit, os.X_OK) else None
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    for candidate in (ROOT / ".cache" / "bin" / "hookd-shim", Path(data_home) / "hookd" / "bin" / "hookd-shim"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


def enriched_documents(policies: Path, project: Path, home: Path, out: Path, count: int) -> list[Path]:
    """The input documents hookd's policies see, for the opa contender (which cannot parse shell)."""

    from hookd.assembly import build_pipeline
    from hookd.config import Config
    from hookd.engines.rego.embedded import RegoEmbeddedEngine
    from hookd.types import Caller, Deadline, HookRequest

    pipeline, _ = build_pipeline(Config(), RegoEmbeddedEngine.load(policies), probe=lambda _pid: False)
    files = []
    for i in range(count):
        request = HookRequest(
            client="gemini",
            event="BeforeTool",
            payload=payload(i, project),
            env={"GEMINI_PROJECT_DIR": str(project), "HOME": str(home)},
            cwd=str(project),
            caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid()),
            deadline=Deadline.after(5),
        )
        dialect = pipeline.dialect("gemini")
        event = pipeline._enrich(dialect.parse(request), None)  # the whole document: every contender reads it
        path = out / f"input-{i}.json"
        path.write_text(json.dumps(event.input_document()))
        files.append(path)
    return files


# --- the report -------------------------------------------------------------------------------------------


def report(record: dict[str, Any]) -> None:
    load_before, load_after = record["load_before"], record["load_after"]
    print(f"load average before {load_before[0]:.2f} {load_before[1]:.2f}, after {load_after[0]:.2f} "
          f"{load_after[1]:.2f} (2 cores); steal per phase below")  # fmt: skip
    daemon = record["daemon"]
    print("\nsparse arrivals: the daemon alone and the uvloop floor server, interleaved request by request (ms)")
    for name in ("fixed_10", "fixed_100"):
        print(interleaved_row(daemon[name]))
    if "trace" in record:
        trace = record["trace"]
        print(f"\nthe recorded workload ({trace['file']}, {trace['trace']:.0f} calls at their recorded pacing), "
              "interleaved with the floor server")  # fmt: skip
        print(interleaved_row(trace))
    if "end_to_end" in record:
        report_end_to_end(record)
    print("\nthe daemon alone, over its socket, one connection per request (ms)")
    print(interleaved_row(daemon["fixed_1000"]))
    print(max_row(daemon["max"]))
    print(f"floor server at its maximum: {daemon['floor_max']['per_second']:.0f} requests/s, "
          f"{daemon['floor_max']['cpu_ms_per_request']:.3f} ms CPU a request")  # fmt: skip
    if "daemon_workers" in record:
        report_workers(record["daemon_workers"])
    burst = record.get("after_model_burst")
    if burst and "failed" not in burst:
        print(
            f"\nAfterModel burst, 100 chunks one after another ({burst['shim']} shim): "
            f"{burst['total_ms']:.0f} ms in all, p50 {burst['p50_ms']:.2f} ms per chunk"
        )
    print(f"daemon RSS after the run: {record['daemon_rss_mb']:.1f} MB")
    if "remote_engine" in record:
        import remote_engine

        remote_engine.report(record["remote_engine"])
    for note in record["notes"]:
        print(f"note: {note}")
    for failure in record["failed"]:
        print(f"FAILED: {failure}")


def report_end_to_end(record: dict[str, Any]) -> None:
    e2e = record["end_to_end"]
    timed = {name: row for name, row in e2e.items() if "failed" not in row}
    floor_name = "floor" if "floor" in timed else "true"
    floor = timed.get(floor_name, {}).get("p50_ms")
    print(f"\nend to end, BeforeTool, {record['calls']} calls each, spawned through bash -c, interleaved call by "
          f"call (ms; floor: {floor_name})")  # fmt: skip
    print(f"{'contender':10} {'p50':>8} {'p90':>8} {'p99':>8}  {'p50 / floor':>12}  steal")
    for name, row in e2e.items():
        if "failed" in row:
            print(f"{name:10} FAILED, not timed: {row['failed']}")
            continue
        ratio = f"{row['p50_ms'] / floor:11.2f}x" if floor else f"{'-':>12}"
        print(f"{name:10} {row['p50_ms']:8.2f} {row['p90_ms']:8.2f} {row['p99_ms']:8.2f}  {ratio}  "
              f"{row['steal_pct']:4.1f}%")  # fmt: skip
    print("(every call's exit code and output checked: the shims printed the per-call hook's decisions)")


def interleaved_row(row: dict[str, Any]) -> str:
    """One open-loop phase, hookd beside the floor server: latency from when each request was due."""
    floor = row["floor"]
    what = f"{row['rate']:6.0f} req/s" if "rate" in row else "     trace"
    return (
        f"{what}  hookd p50 {row['p50_ms']:6.3f} p99 {row['p99_ms']:7.3f} | floor p50 {floor['p50_ms']:6.3f} "
        f"p99 {floor['p99_ms']:7.3f} | ratio p50 {row['p50_over_floor']:.2f}x p99 {row['p99_over_floor']:.2f}x | "
        f"CPU {row['cpu_ms_per_request']:.3f} ms/decision (floor {floor['cpu_ms_per_request']:.3f}) | "
        f"errors {row['errors']} | steal {row['steal_pct']:.1f}%"
    )


def max_row(top: dict[str, Any]) -> str:
    """The closed-loop maximum, and the rate once the decision log's backlog from it was written too."""
    return (
        f"max sustained: {top['per_second']:.0f} decisions/s (concurrency {top['concurrency']}), "
        f"p99 {top['p99_ms']:.2f} ms, errors {top['errors']}; the log's backlog took "
        f"{top['log_drain_s']:.2f} s more: {top['with_log_per_second']:.0f}/s with the log written; "
        f"CPU {top['cpu_ms_per_request']:.3f} ms/decision; steal {top['steal_pct']:.1f}%"
    )


def report_workers(run: dict[str, Any]) -> None:
    print(f"\nthe same with [daemon] workers = {run['workers']} (the daemon and {run['workers'] - 1} worker process)")
    for name in FIXED_PHASES:
        print(interleaved_row(run[name]))
    print(max_row(run["max"]))
    rss = ", ".join(f"{mb:.1f}" for mb in run["rss_mb"].values())
    print(f"RSS of the processes (MB): {rss}")


def compare(new: dict[str, Any], old: dict[str, Any]) -> None:
    print("\nnew / old (below 1.00 is faster; in brackets, each run's figure over its own floor, which takes out")
    print("most of the machine's own drift between the runs)")
    phases = [(name, new["daemon"].get(name), old.get("daemon", {}).get(name)) for name in FIXED_PHASES]
    for name, row, was in [*phases, ("trace", new.get("trace"), old.get("trace"))]:
        if row and was:
            print(f"  {name:12} {ratio_line(row, was)}")
    if "max" in old.get("daemon", {}):
        line = f"  max decisions/s   {new['daemon']['max']['per_second'] / old['daemon']['max']['per_second']:.2f}"
        if "cpu_ms_per_request" in old["daemon"]["max"]:
            ratio = new["daemon"]["max"]["cpu_ms_per_request"] / old["daemon"]["max"]["cpu_ms_per_request"]
            line += f"  CPU/decision {ratio:.2f}"
        print(line)
    compare_end_to_end(new, old)
    if "daemon_workers" in new and "daemon_workers" in old:
        ratio = new["daemon_workers"]["max"]["per_second"] / old["daemon_workers"]["max"]["per_second"]
        print(f"  max decisions/s with workers   {ratio:.2f}")


def ratio_line(row: dict[str, Any], was: dict[str, Any]) -> str:
    """p50 and p99 new/old; over each run's own floor server; CPU per decision new/old."""
    line = f"p50 {row['p50_ms'] / was['p50_ms']:.2f}  p99 {row['p99_ms'] / was['p99_ms']:.2f}"
    if "p50_over_floor" in was:
        over = row["p50_over_floor"] / was["p50_over_floor"], row["p99_over_floor"] / was["p99_over_floor"]
        line += f"  ({over[0]:.2f}, {over[1]:.2f})"
    if "cpu_ms_per_request" in was:
        line += f"  CPU/decision {row['cpu_ms_per_request'] / was['cpu_ms_per_request']:.2f}"
    return line


def compare_end_to_end(new: dict[str, Any], old: dict[str, Any]) -> None:
    def floor_of(run: dict[str, Any]) -> float | None:
        e2e = run.get("end_to_end", {})
        for name in ("floor", "true"):
            if "p50_ms" in e2e.get(name, {}):
                return float(e2e[name]["p50_ms"])
        return None

    floors = floor_of(new), floor_of(old)
    for name, row in new.get("end_to_end", {}).items():
        was = old.get("end_to_end", {}).get(name, {})
        if "p50_ms" in row and "p50_ms" in was:
            line = f"  end to end {name:8} p50 {row['p50_ms'] / was['p50_ms']:.2f}"
            if floors[0] and floors[1]:
                line += f"  ({(row['p50_ms'] / floors[0]) / (was['p50_ms'] / floors[1]):.2f})"
            print(line)


if __name__ == "__main__":
    sys.exit(main())
