"""End-to-end hook latency, side by side in one run.

Every contender is spawned through `bash -c`, the way Gemini CLI spawns a hook, with a real hook
payload on stdin; the clock runs from spawn to exit. Contenders:

  shim     the Python shim (`python -I -S client_shim/hookd_shim.py`) → the warm hookd daemon
  percall  a per-call Python hook that loads the same Rego policies and evaluates them itself
           (hookd's own pipeline in-process: parse, enrich, regorus, combine, render)
  floor    `bash -c /bin/true`

Prints p50/p90/p99 per contender and the ratios, checks that shim and percall print the same bytes,
and writes the results as JSON to bench/results/. Run: ./dev bench [--calls N]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIM = ROOT / "client_shim" / "hookd_shim.py"
PERCALL = ROOT / "bench" / "percall_hook.py"
BASE_PYTHON = os.path.realpath(sys.executable)

PAYLOADS = [
    {"tool_name": "run_shell_command", "tool_input": {"command": "git status && ls -la src"}},
    {"tool_name": "run_shell_command", "tool_input": {"command": "rm -rf ~/"}},
    {"tool_name": "write_file", "tool_input": {"file_path": "src/app.py", "content": "print('hi')\n"}},
    {"tool_name": "write_file", "tool_input": {"file_path": ".env", "content": "KEY=1\n"}},
    {"tool_name": "read_file", "tool_input": {"file_path": "README.md"}},
]


def payload_bytes(i: int, project: str) -> bytes:
    body = {
        "session_id": "3f0c2a9e-8b7d-4c1e-9f5a-2d6b1e7c4a10",
        "transcript_path": "",
        "cwd": project,
        "hook_event_name": "BeforeTool",
        "timestamp": "2026-12-02T00:00:00.000Z",
        **PAYLOADS[i % len(PAYLOADS)],
    }
    return json.dumps(body, separators=(",", ":")).encode()


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def time_calls(command: str, calls: int, project: str, env: dict[str, str]) -> tuple[list[float], list[bytes]]:
    samples, outputs = [], []
    for i in range(calls):
        data = payload_bytes(i, project)
        start = time.perf_counter()
        done = subprocess.run(
            ["/bin/bash", "-c", command],
            input=data,
            capture_output=True,
            env=env,
            cwd=project,
            timeout=30,
            check=False,
        )
        samples.append((time.perf_counter() - start) * 1000)
        outputs.append(done.stdout)
    return samples, outputs


def start_daemon(runtime: Path, policies: Path, log: Path) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "hookd", "serve", "--policies", str(policies), "--runtime-dir", str(runtime)]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            with socket.socket(socket.AF_UNIX) as probe:
                probe.connect(str(runtime / "hook.sock"))
                return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"daemon did not start:\n{log.read_text()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--policies", default=str(ROOT / "policies"))
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="hkdb", dir="/tmp"))
    project = tmp / "project"
    project.mkdir()
    runtime = tmp / "run"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp), "GEMINI_PROJECT_DIR": str(project)}
    daemon = start_daemon(runtime, Path(args.policies), tmp / "daemon.log")
    shim = " ".join(
        shlex.quote(a)
        for a in (
            BASE_PYTHON,
            "-I",
            "-S",
            str(SHIM),
            "gemini",
            "BeforeTool",
            "--socket",
            str(runtime / "hook.sock"),
        )
    )
    percall = " ".join(shlex.quote(a) for a in (sys.executable, str(PERCALL), args.policies))
    contenders = {"shim": shim, "percall": percall, "floor": "/bin/true"}
    results: dict[str, dict[str, float]] = {}
    outputs: dict[str, list[bytes]] = {}
    try:
        for name, command in contenders.items():
            time_calls(command, 10, str(project), env)  # warm the page cache
            samples, outputs[name] = time_calls(command, args.calls, str(project), env)
            results[name] = {
                "p50_ms": percentile(samples, 50),
                "p90_ms": percentile(samples, 90),
                "p99_ms": percentile(samples, 99),
                "mean_ms": statistics.fmean(samples),
            }
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=10)
    same = outputs["shim"] == outputs["percall"]
    print(f"end-to-end BeforeTool latency, {args.calls} calls each, spawned through bash -c (ms)")
    print(f"{'contender':10} {'p50':>8} {'p90':>8} {'p99':>8}   p50 vs shim   p50 vs floor")
    for name, row in results.items():
        print(
            f"{name:10} {row['p50_ms']:8.2f} {row['p90_ms']:8.2f} {row['p99_ms']:8.2f}   "
            f"{row['p50_ms'] / results['shim']['p50_ms']:10.2f}x   {row['p50_ms'] / results['floor']['p50_ms']:11.2f}x"
        )
    print(f"shim and percall printed identical bytes for every call: {same}")
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    record = {"calls": args.calls, "results": results, "identical_output": same, "time": stamp}
    (out_dir / f"bench-{stamp}.json").write_text(json.dumps(record, indent=2) + "\n")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
