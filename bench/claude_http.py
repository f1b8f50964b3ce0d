"""Claude Code's two ways to reach hookd, timed against one warm daemon with the bundled policies:

  http-keepalive  POST to the HTTP hook endpoint over one kept-alive connection (what Claude Code's
                  http hook client can reuse; no process at all)
  http-connect    POST on a new TCP connection per call
  native          the C shim spawned per call (exec form, as `hookd install --client claude` writes it)
  python          the Python shim (`python -I -S`) spawned per call

Each call is a PreToolUse `Bash` payload (`ls -la`, allowed). Spawned contenders are timed from
spawn to exit; HTTP calls from request to the last byte of the response. Run:
    ./dev hookd shim build; .cache/venv/bin/python bench/claude_http.py [--calls N]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHIM = ROOT / "client_shim" / "hookd_shim.py"
PAYLOAD = json.dumps({
    "session_id": "s", "transcript_path": "", "cwd": str(ROOT), "permission_mode": "default",
    "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls -la"}, "tool_use_id": "t",
}).encode()  # fmt: skip


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def timed(call: Callable[[], None], calls: int) -> list[float]:
    for _ in range(min(20, calls)):  # warm-up
        call()
    out = []
    for _ in range(calls):
        start = time.perf_counter()
        call()
        out.append((time.perf_counter() - start) * 1000)
    return out


def summary(name: str, samples: list[float]) -> dict[str, float | str]:
    ordered = sorted(samples)
    p95 = ordered[int(len(ordered) * 0.95) - 1]
    return {"contender": name, "calls": len(samples), "p50_ms": round(statistics.median(ordered), 3),
            "p95_ms": round(p95, 3), "mean_ms": round(statistics.fmean(ordered), 3)}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hkdb", dir="/tmp"))
    port, token_file = free_port(), work / "token"
    config = work / "config.toml"
    config.write_text(f'[daemon]\nruntime_dir = "{work}/run"\n[http]\nenabled = true\nport = {port}\n'
                      f'token_file = "{token_file}"\n[log]\npath = "{work}/decisions.log"\n')  # fmt: skip
    daemon = subprocess.Popen([sys.executable, "-m", "hookd", "--config", str(config), "serve"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        sock = work / "run" / "hook.sock"
        deadline = time.monotonic() + 20
        while not (sock.exists() and token_file.exists()):
            if time.monotonic() > deadline or daemon.poll() is not None:
                raise SystemExit("the daemon did not start")
            time.sleep(0.05)
        time.sleep(0.3)
        headers = {"Authorization": f"Bearer {token_file.read_text().strip()}", "Content-Type": "application/json"}
        kept = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

        def post(conn: http.client.HTTPConnection) -> None:
            conn.request("POST", "/v1/hooks/claude", body=PAYLOAD, headers=headers)
            response = conn.getresponse()
            response.read()
            assert response.status == 200, response.status

        def fresh() -> None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            post(conn)
            conn.close()

        def spawn(argv: list[str]) -> Callable[[], None]:
            def call() -> None:
                subprocess.run(argv, input=PAYLOAD, capture_output=True, timeout=30, check=True)

            return call

        tail = ["claude", "PreToolUse", "--socket", str(sock), "--deadline-ms", "4000"]
        results = [
            summary("http-keepalive", timed(lambda: post(kept), args.calls * 4)),
            summary("http-connect", timed(fresh, args.calls * 4)),
        ]
        native = ROOT / ".cache" / "bin" / "hookd-shim"
        if os.access(native, os.X_OK):
            results.append(summary("native", timed(spawn([str(native), *tail]), args.calls)))
        python = os.path.realpath(sys.executable)
        results.append(summary("python", timed(spawn([python, "-I", "-S", str(SHIM), *tail]), args.calls)))
        for row in results:
            name, p50, p95 = row["contender"], row["p50_ms"], row["p95_ms"]
            print(f"{name:15} p50 {p50:7.3f} ms   p95 {p95:7.3f} ms   ({row['calls']} calls)")
        print(json.dumps(results))
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
