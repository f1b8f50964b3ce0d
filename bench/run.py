"""hookd's performance suite: every contender side by side in one run, as ratios.

1. End to end, each contender spawned through `bash -c` the way Gemini CLI spawns a hook, with a real
   BeforeTool payload on stdin, timed from spawn to exit:
     native   the C shim → the warm daemon            (if built: `hookd shim build`)
     python   the Python shim (`python -I -S`) → the warm daemon
     percall  a per-call Python hook that loads the same Rego policies and decides itself
              (hookd's own pipeline in-process: import, load, compile, parse, enrich, evaluate, render)
     opa      a per-call `opa eval` of the same policies with the real opa binary (given the input
              document already enriched, which favours it)
     floor    `bash -c /bin/true`
2. The daemon alone over its socket (bench/load.py, which runs the C load generator bench/loadgen.c):
   fixed rates of 100 and 1,000 req/s (p50/p99), and the maximum sustained decisions/s with p99 and
   errors, each phase counted until the decision log has written its backlog.
3. A 100-chunk AfterModel burst (Gemini runs one hook per streamed chunk, one after the other).
4. The daemon's RSS after all that.
5. Phase 2 again with `[daemon] workers = N` (--workers, default 2), and the RSS of every process.
6. The remote engine (bench/remote_engine.py): the in-daemon decision with engine = "opa" against a
   real `opa run --server` vs engine = "embedded", p50/p99 and their ratio (needs the opa binary).

Every contender and phase also reports steal: the CPU time the hypervisor gave to other machines.
Results are printed and written as JSON to bench/results/; `--compare OLD.json` prints new/old
ratios. Run: ./dev bench [--calls N] [--quick] [--workers N]
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHIM = ROOT / "client_shim" / "hookd_shim.py"
PERCALL = ROOT / "bench" / "percall_hook.py"
LOAD = ROOT / "bench" / "load.py"
BASE_PYTHON = os.path.realpath(sys.executable)

PAYLOADS = [
    {"tool_name": "run_shell_command", "tool_input": {"command": "git status && ls -la src"}},
    {"tool_name": "run_shell_command", "tool_input": {"command": "rm -rf ~/"}},
    {"tool_name": "write_file", "tool_input": {"file_path": "src/app.py", "content": "print('hi')\n"}},
    {"tool_name": "write_file", "tool_input": {"file_path": ".env", "content": "KEY=1\n"}},
    {"tool_name": "read_file", "tool_input": {"file_path": "README.md"}},
]


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


def time_calls(
    command: Callable[[int], str], calls: int, project: Path, env: dict[str, str], event: str = "BeforeTool"
) -> tuple[list[float], list[bytes]]:
    samples, outputs = [], []
    for i in range(calls):
        data = payload(i, project, event)
        start = time.perf_counter()
        done = subprocess.run(
            ["/bin/bash", "-c", command(i)],
            input=data,
            capture_output=True,
            env=env,
            cwd=project,
            timeout=60,
            check=False,
        )
        samples.append((time.perf_counter() - start) * 1000)
        outputs.append(done.stdout)
    return samples, outputs


def start_daemon(runtime: Path, policies: Path, log: Path, workers: int = 1) -> subprocess.Popen[bytes]:
    """A `hookd serve` of its own: its decision log and state go under runtime/state, never the user's.
    Returns once it listens and, with `workers` > 1, once each worker process serves too."""
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
            if log.read_text().count('"worker_serving"') >= workers - 1:
                return proc
        except OSError:
            pass
        time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"daemon did not start:\n{log.read_text()}")


def daemon_phases(socket_path: Path, payload_file: Path, seconds: float) -> dict[str, Any]:
    """The daemon alone: fixed rates of 100 and 1,000 req/s, then its maximum (the best concurrency)."""
    return {
        "fixed_100": load(socket_path, payload_file, "fixed", 100, seconds),
        "fixed_1000": load(socket_path, payload_file, "fixed", 1000, seconds),
        "max": max(
            (load(socket_path, payload_file, "max", c, seconds) for c in (2, 4, 16)),
            key=lambda r: r["with_log_per_second"] if r["errors"] == 0 else 0,
        ),
    }


def find_native(explicit: str | None) -> Path | None:
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    for candidate in (
        explicit,
        ROOT / ".cache" / "bin" / "hookd-shim",
        Path(data_home) / "hookd" / "bin" / "hookd-shim",
    ):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return Path(candidate)
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
        event = pipeline._enrich(dialect.parse(request))  # the bench needs the document itself
        path = out / f"input-{i}.json"
        path.write_text(json.dumps(event.input_document()))
        files.append(path)
    return files


def load(socket_path: Path, payload_file: Path, mode: str, param: float, seconds: float) -> dict[str, Any]:
    """One load phase (bench/load.py), then the wait until the daemon has written every record it queued:
    the daemon answers first and writes its decision log after, so a phase at the maximum rate leaves a
    backlog, and a rate counts as sustained only with that backlog's writing included."""
    before = cpu_ticks()
    done = subprocess.run(
        [sys.executable, str(LOAD), str(socket_path), str(payload_file), mode, str(param), str(seconds)],
        capture_output=True,
        timeout=seconds + 60,
        check=True,
    )
    result: dict[str, Any] = dict(json.loads(done.stdout))
    drain = wait_for_log(socket_path.parent / "state" / "hookd" / "decisions.log")
    result["steal_pct"] = steal_percent(before, cpu_ticks())
    answered = result["requests"] - result["errors"]  # per_second counts these only
    elapsed = answered / result["per_second"] if result["per_second"] else seconds
    result["log_drain_s"] = round(drain, 3)
    result["with_log_per_second"] = answered / (elapsed + drain)
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


def workers_phases(runtime: Path, policies: Path, payload_file: Path, args: argparse.Namespace) -> dict[str, Any]:
    """The daemon-alone phases again with `[daemon] workers = N`, and the RSS of every process."""
    daemon = start_daemon(runtime, policies, runtime.parent / "daemon-workers.log", args.workers)
    try:
        result: dict[str, Any] = {
            "workers": args.workers,
            **daemon_phases(runtime / "hook.sock", payload_file, args.seconds),
        }
        pids = [daemon.pid, *children(daemon.pid)]
        result["rss_mb"] = {str(pid): rss_mb(pid) for pid in pids}
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=30)
    return result


def children(pid: int) -> list[int]:
    return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def quoted(*parts: str) -> str:
    return " ".join(shlex.quote(p) for p in parts)


def main() -> int:  # noqa: PLR0915 - one run, phase after phase, reads best top to bottom
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=300, help="calls per end-to-end contender (default 300)")
    parser.add_argument("--policies", default=str(ROOT / "policies"))
    parser.add_argument("--native", help="path of the native shim (default: where `hookd shim build` puts it)")
    parser.add_argument("--opa", default=os.environ.get("HOOKD_OPA_BIN") or shutil.which("opa"))
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of each daemon load phase")
    parser.add_argument("--quick", action="store_true", help="60 calls, 2 s load phases: a smoke run")
    parser.add_argument(
        "--workers", type=int, default=2, help="repeat the daemon-alone phases with [daemon] workers = N (1: skip)"
    )
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    parser.add_argument("--compare", help="an earlier results JSON to print new/old ratios against")
    args = parser.parse_args()
    if args.quick:
        args.calls, args.seconds = 60, 2.0

    tmp = Path(tempfile.mkdtemp(prefix="hkdb", dir="/tmp"))
    project, runtime = tmp / "project", tmp / "run"
    project.mkdir()
    policies = Path(args.policies).resolve()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp), "GEMINI_PROJECT_DIR": str(project)}
    sock = str(runtime / "hook.sock")
    native = find_native(args.native)
    contenders: dict[str, Callable[[int], str]] = {}
    if native:
        contenders["native"] = lambda _i: quoted(str(native), "gemini", "BeforeTool", "--socket", sock)
    contenders["python"] = lambda _i: quoted(
        BASE_PYTHON, "-I", "-S", str(SHIM), "gemini", "BeforeTool", "--socket", sock
    )
    contenders["percall"] = lambda _i: quoted(sys.executable, str(PERCALL), str(policies))
    if args.opa and Path(args.opa).is_file():
        documents = enriched_documents(policies, project, tmp, tmp, len(PAYLOADS))
        opa = args.opa
        contenders["opa"] = lambda i: quoted(
            opa, "eval", "--format", "raw", "-d", str(policies), "-i", str(documents[i % len(documents)]), "data.hookd"
        )
    contenders["floor"] = lambda _i: "/bin/true"

    record: dict[str, Any] = {"time": time.strftime("%Y-%m-%dT%H:%M:%S"), "calls": args.calls, "notes": []}
    if not native:
        record["notes"].append("native shim not built: run `hookd shim build` (contender skipped)")
    if "opa" not in contenders:
        record["notes"].append("opa binary not found: pass --opa or set HOOKD_OPA_BIN (contender skipped)")
    daemon = start_daemon(runtime, policies, tmp / "daemon.log")
    outputs: dict[str, list[bytes]] = {}
    try:
        end_to_end: dict[str, dict[str, float]] = {}
        for name, command in contenders.items():
            time_calls(command, 5, project, env)  # warm the page cache
            before = cpu_ticks()
            samples, outputs[name] = time_calls(command, args.calls, project, env)
            end_to_end[name] = {**stats(samples), "steal_pct": steal_percent(before, cpu_ticks())}
        record["end_to_end"] = end_to_end
        payload_file = tmp / "payloads.json"
        payload_file.write_text(json.dumps([payload(i, project).decode() for i in range(len(PAYLOADS))]))
        socket_path = runtime / "hook.sock"
        record["daemon"] = daemon_phases(socket_path, payload_file, args.seconds)
        burst_shim = contenders.get("native", contenders["python"])
        burst_name = "native" if native else "python"
        start = time.perf_counter()
        samples, _ = time_calls(
            lambda _i: burst_shim(0).replace("BeforeTool", "AfterModel"), 100, project, env, "AfterModel"
        )
        record["after_model_burst"] = {
            "shim": burst_name,
            "chunks": 100,
            "total_ms": (time.perf_counter() - start) * 1000,
            **stats(samples),
        }
        record["daemon_rss_mb"] = rss_mb(daemon.pid)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=10)
    if args.workers > 1:
        record["daemon_workers"] = workers_phases(tmp / "run-workers", policies, payload_file, args)
    if "opa" in contenders:
        import remote_engine  # bench/ is on sys.path when this file runs

        record["remote_engine"] = remote_engine.measure(policies, args.opa, args.calls)
    shims = [n for n in ("native", "python") if n in outputs]
    record["identical_output"] = all(same_decisions(outputs[n], outputs["percall"]) for n in shims)
    report(record)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"bench-{time.strftime('%Y%m%dT%H%M%S')}.json"
    path.write_text(json.dumps(record, indent=2) + "\n")
    print(f"\nresults: {path}")
    if args.compare:
        compare(record, json.loads(Path(args.compare).read_text()))
    return 0 if record["identical_output"] else 1


DECISION_ID = re.compile(rb"\(decision [0-9a-f]{16}\)")


def same_decisions(left: list[bytes], right: list[bytes]) -> bool:
    """The same bytes call for call, but for each deny's decision id (new for every decision)."""
    return [DECISION_ID.sub(b"(decision ID)", o) for o in left] == [DECISION_ID.sub(b"(decision ID)", o) for o in right]


def report(record: dict[str, Any]) -> None:
    e2e = record["end_to_end"]
    base = e2e.get("native", e2e["python"])
    base_name = "native" if "native" in e2e else "python"
    floor = e2e["floor"]["p50_ms"]
    print(f"end to end, BeforeTool, {record['calls']} calls each, spawned through bash -c (ms)")
    print(f"{'contender':10} {'p50':>8} {'p90':>8} {'p99':>8}  {'p50 / ' + base_name:>14}  {'p50 / floor':>12}  steal")
    for name, row in e2e.items():
        print(
            f"{name:10} {row['p50_ms']:8.2f} {row['p90_ms']:8.2f} {row['p99_ms']:8.2f}  "
            f"{row['p50_ms'] / base['p50_ms']:13.2f}x  {row['p50_ms'] / floor:11.2f}x  {row.get('steal_pct', 0):4.1f}%"
        )
    print("(steal: the share of CPU time the hypervisor gave to other machines meanwhile; high steal is noise)")
    print(f"the shims and percall printed identical bytes for every call: {record['identical_output']}")
    daemon = record["daemon"]
    print("\nthe daemon alone, over its socket, one connection per request (ms)")
    print(
        f"(load generator: {daemon['max'].get('generator', 'python')}; fixed rates from when each request was due, "
        "in brackets from its connect)"
    )
    for name in ("fixed_100", "fixed_1000"):
        print(fixed_row(daemon[name]))
    print(max_row(daemon["max"]))
    if "daemon_workers" in record:
        report_workers(record["daemon_workers"])
    burst = record["after_model_burst"]
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


def fixed_row(row: dict[str, Any]) -> str:
    """One open-loop phase: latency from when each request was due and, in brackets, from its connect."""
    connect = row.get("from_connect_p50_ms", row["p50_ms"]), row.get("from_connect_p99_ms", row["p99_ms"])
    return (
        f"{row['rate']:6.0f} req/s  p50 {row['p50_ms']:7.3f} ({connect[0]:.3f})  p99 {row['p99_ms']:7.3f} "
        f"({connect[1]:.3f})  errors {row['errors']}  achieved {row['per_second']:.0f}/s  "
        f"steal {row.get('steal_pct', 0):.1f}%"
    )


def max_row(top: dict[str, Any]) -> str:
    """The closed-loop maximum, and the rate once the decision log's backlog from it was written too."""
    return (
        f"max sustained: {top['per_second']:.0f} decisions/s (concurrency {top['concurrency']}), "
        f"p99 {top['p99_ms']:.2f} ms, errors {top['errors']}; the log's backlog took "
        f"{top.get('log_drain_s', 0):.2f} s more: {top.get('with_log_per_second', top['per_second']):.0f}/s "
        f"with the log written; steal {top.get('steal_pct', 0):.1f}%"
    )


def report_workers(run: dict[str, Any]) -> None:
    print(f"\nthe same with [daemon] workers = {run['workers']} (the daemon and {run['workers'] - 1} worker process)")
    for name in ("fixed_100", "fixed_1000"):
        print(fixed_row(run[name]))
    print(max_row(run["max"]))
    rss = ", ".join(f"{mb:.1f}" for mb in run["rss_mb"].values())
    print(f"RSS of the processes (MB): {rss}")


def compare(new: dict[str, Any], old: dict[str, Any]) -> None:
    print("\nnew / old (below 1.00 is faster; in brackets, each run's p50 over its own floor, which takes out")
    print("most of the machine's own drift between the runs)")
    floors = new["end_to_end"]["floor"]["p50_ms"], old.get("end_to_end", {}).get("floor", {}).get("p50_ms")
    for name, row in new["end_to_end"].items():
        if name in old.get("end_to_end", {}):
            was = old["end_to_end"][name]["p50_ms"]
            line = f"  end to end {name:8} p50 {row['p50_ms'] / was:.2f}"
            if floors[1]:
                line += f"  ({(row['p50_ms'] / floors[0]) / (was / floors[1]):.2f})"
            print(line)
    for name in ("fixed_100", "fixed_1000"):
        if name in old.get("daemon", {}):
            print(f"  daemon {name:12} p50 {new['daemon'][name]['p50_ms'] / old['daemon'][name]['p50_ms']:.2f}")
    if "max" in old.get("daemon", {}):
        print(f"  max decisions/s   {new['daemon']['max']['per_second'] / old['daemon']['max']['per_second']:.2f}")
    if "daemon_workers" in new and "daemon_workers" in old:
        ratio = new["daemon_workers"]["max"]["per_second"] / old["daemon_workers"]["max"]["per_second"]
        print(f"  max decisions/s with workers   {ratio:.2f}")


if __name__ == "__main__":
    sys.exit(main())
