"""The first hook call under socket activation, next to a warm call (docs/service.md).

Each round: `systemd-socket-activate` (the real activation protocol) binds the hook and control sockets
and waits; the native shim (the Python one when it is not built) makes one BeforeTool call, which
starts `hookd serve` and waits in the socket's backlog until the daemon answers (cold); then the same
call against the now-running daemon (warm); then the daemon is stopped. Rounds interleave cold and
warm, so the machine's drift hits both; medians and the ratio are printed, as JSON with --json. Run:
    .cache/venv/bin/python bench/first_call.py [--rounds N] [--json]
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
PAYLOAD = json.dumps({
    "session_id": "s", "transcript_path": "", "cwd": str(ROOT), "hook_event_name": "BeforeTool",
    "tool_name": "run_shell_command", "tool_input": {"command": "ls -la"},
}).encode()  # fmt: skip


def shim_command(socket_path: Path) -> list[str]:
    native = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "hookd" / "bin" / "hookd-shim"
    for candidate in (ROOT / ".cache" / "bin" / "hookd-shim", native):
        if os.access(candidate, os.X_OK):
            program = [str(candidate)]
            break
    else:
        program = [os.path.realpath(sys.executable), "-I", "-S", str(ROOT / "client_shim" / "hookd_shim.py")]
    return [*program, "gemini", "BeforeTool", "--socket", str(socket_path), "--deadline-ms", "30000"]


def timed_call(command: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, input=PAYLOAD, capture_output=True, timeout=60, check=False)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"the shim failed: {done.stderr.decode(errors='replace')}")
    return elapsed


def one_round(activate: str) -> tuple[float, float]:
    runtime = Path(tempfile.mkdtemp(prefix="hkdfc", dir="/tmp")) / "run"
    runtime.mkdir(mode=0o700)
    env = os.environ | {"XDG_STATE_HOME": str(runtime.parent / "state")}
    command = [activate, "-l", str(runtime / "hook.sock"), "-l", str(runtime / "control.sock"),
               "--fdname=hook:control", "-E", f"XDG_STATE_HOME={env['XDG_STATE_HOME']}",
               sys.executable, "-m", "hookd", "serve", "--runtime-dir", str(runtime)]  # fmt: skip
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 30
        while not (runtime / "control.sock").exists():
            if time.monotonic() > end or proc.poll() is not None:
                raise SystemExit("systemd-socket-activate did not bind the sockets")
            time.sleep(0.01)
        shim = shim_command(runtime / "hook.sock")
        cold = timed_call(shim)
        warm = timed_call(shim)
        return cold, warm
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        shutil.rmtree(runtime.parent, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    activate = shutil.which("systemd-socket-activate")
    if activate is None:
        print("bench/first_call.py needs systemd-socket-activate (Debian package systemd)", file=sys.stderr)
        return 1
    rounds = [one_round(activate) for _ in range(args.rounds)]
    cold = statistics.median(r[0] for r in rounds)
    warm = statistics.median(r[1] for r in rounds)
    result = {"rounds": args.rounds, "first_call_ms_p50": round(cold, 1), "warm_call_ms_p50": round(warm, 2),
              "ratio": round(cold / warm, 1), "shim": shim_command(Path("x"))[0]}  # fmt: skip
    if args.json:
        print(json.dumps(result))
    else:
        print(f"first call (starts the daemon): p50 {cold:.1f} ms; warm call: p50 {warm:.2f} ms; "
              f"{cold / warm:.0f}x over {args.rounds} rounds ({result['shim']})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
