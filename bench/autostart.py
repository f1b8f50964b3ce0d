"""`hookd install --autostart`: what it costs a warm call, and what the first call costs (docs/service.md).

warm: one running daemon; each shim (Python, and the native one when built in .cache/bin) with and without
`--autostart`, call by call interleaved (the autostart code runs only when no daemon answers, so the two
should be the same). cold: the first call
with no daemon running, which starts it; each round then stops it. Medians, as JSON with --json. Run:
    .cache/venv/bin/python bench/autostart.py [--calls N] [--rounds N] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIM = ROOT / "client_shim" / "hookd_shim.py"
PAYLOAD = json.dumps({
    "session_id": "s", "transcript_path": "", "cwd": str(ROOT), "hook_event_name": "BeforeTool",
    "tool_name": "run_shell_command", "tool_input": {"command": "ls -la"},
}).encode()  # fmt: skip


NATIVE = ROOT / ".cache" / "bin" / "hookd-shim"


def shim(runtime: Path, autostart: bool, kind: str = "python") -> list[str]:
    program = [str(NATIVE)] if kind == "native" else [os.path.realpath(sys.executable), "-I", "-S", str(SHIM)]
    command = [*program, "gemini", "BeforeTool", "--socket", str(runtime / "hook.sock"), "--deadline-ms", "60000"]
    return command + (["--autostart", sys.executable] if autostart else [])


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, input=PAYLOAD, capture_output=True, timeout=120, env=env, check=False)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0 or done.stderr or done.stdout:  # an allowed call prints nothing
        raise SystemExit(f"the shim failed: {done.stdout!r} {done.stderr!r}")
    return elapsed


def stop(runtime: Path) -> None:
    lock = runtime / "hook.lock"
    pid = int(lock.read_text().strip() or 0) if lock.exists() else 0
    if pid and Path(f"/proc/{pid}").exists():
        os.kill(pid, signal.SIGTERM)
        end = time.monotonic() + 30
        while Path(f"/proc/{pid}").exists() and time.monotonic() < end:  # reaped by init: it is no child of ours
            time.sleep(0.01)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100, help="warm calls per contender")
    parser.add_argument("--rounds", type=int, default=5, help="cold starts")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="hkdbas", dir="/tmp"))
    runtime = root / "run"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(root), "XDG_STATE_HOME": str(root / "state")}
    try:
        cold = []
        for _ in range(args.rounds):
            cold.append(timed(shim(runtime, True), env))
            stop(runtime)
        timed(shim(runtime, True), env)  # a daemon for the warm calls
        kinds = ["python", "native"] if os.access(NATIVE, os.X_OK) else ["python"]
        warm: dict[str, list[float]] = {f"{kind}{suffix}": [] for kind in kinds for suffix in ("", "+autostart")}
        for _ in range(args.calls):
            for kind in kinds:
                warm[kind].append(timed(shim(runtime, False, kind), env))
                warm[f"{kind}+autostart"].append(timed(shim(runtime, True, kind), env))
    finally:
        stop(runtime)  # also when a call failed: the daemon the shim started is detached, no child of ours
        shutil.rmtree(root, ignore_errors=True)
    medians = {name: statistics.median(values) for name, values in warm.items()}
    result: dict[str, object] = {f"warm_{name}_ms_p50": round(value, 2) for name, value in medians.items()}
    ratios = {kind: medians[f"{kind}+autostart"] / medians[kind] for kind in kinds}
    result |= {f"warm_{kind}_ratio": round(ratio, 3) for kind, ratio in ratios.items()}
    result |= {"cold_autostart_ms_p50": round(statistics.median(cold), 1), "calls": args.calls, "rounds": args.rounds}
    if args.json:
        print(json.dumps(result))
        return 0
    for kind in kinds:
        plain, auto = medians[kind], medians[f"{kind}+autostart"]
        print(f"warm call, {kind} shim: p50 {plain:.2f} ms plain, {auto:.2f} ms with --autostart (x{ratios[kind]:.3f})")
    print(f"first call starting the daemon (Python shim): p50 {statistics.median(cold):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
