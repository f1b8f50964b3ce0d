"""Claude Code's two ways to reach hookd, timed against one warm daemon with the bundled policies:

  http-raw        POST over one kept-alive connection from a minimal client (prebuilt request bytes,
                  the reply read by its Content-Length): the endpoint's own cost, next to nothing on
                  the client side
  socket-raw      the same payload as one frame over the hook socket (a new connection per call, as
                  the shims do), from the same minimal client: the socket path's own cost
  http-keepalive  the same with Python's http.client (what a real client adds: header parsing)
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


class Clients:
    """One way per contender to send the payload to the daemon."""

    def __init__(self, port: int, token: str) -> None:
        self.port = port
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        self.kept = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.raw = socket.create_connection(("127.0.0.1", port))
        head = "".join(f"{k}: {v}\r\n" for k, v in self.headers.items())
        self.frame = (
            f"POST /v1/hooks/claude HTTP/1.1\r\n{head}Content-Length: {len(PAYLOAD)}\r\n\r\n".encode() + PAYLOAD
        )

    def post(self, conn: http.client.HTTPConnection | None = None) -> None:
        conn = conn or self.kept
        conn.request("POST", "/v1/hooks/claude", body=PAYLOAD, headers=self.headers)
        response = conn.getresponse()
        response.read()
        assert response.status == 200, response.status

    def post_raw(self) -> None:
        self.raw.sendall(self.frame)
        data = b""
        while b"\r\n\r\n" not in data:
            data += self.raw.recv(65536)
        top, _, body = data.partition(b"\r\n\r\n")
        length = int(top.split(b"Content-Length: ", 1)[1].split(b"\r\n", 1)[0])
        while len(body) < length:
            body += self.raw.recv(65536)
        assert top.startswith(b"HTTP/1.1 200"), top

    def fresh(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        self.post(conn)
        conn.close()

    def socket_raw(self, path: Path) -> Callable[[], None]:
        from hookd import wire

        header = {"client": "claude", "event": "PreToolUse", "cwd": str(ROOT), "ppid": os.getpid(), "env": {}}
        frame = wire.encode_request(header, PAYLOAD)

        def call() -> None:
            with socket.socket(socket.AF_UNIX) as conn:
                conn.connect(str(path))
                conn.sendall(frame)
                while conn.recv(65536):
                    pass

        return call

    @staticmethod
    def spawn(argv: list[str]) -> Callable[[], None]:
        def call() -> None:
            subprocess.run(argv, input=PAYLOAD, capture_output=True, timeout=30, check=True)

        return call


def start_daemon(work: Path) -> tuple[subprocess.Popen[bytes], int, Path]:
    port, token_file = free_port(), work / "token"
    config = work / "config.toml"
    config.write_text(f'[daemon]\nruntime_dir = "{work}/run"\n[http]\nenabled = true\nport = {port}\n'
                      f'token_file = "{token_file}"\n[log]\npath = "{work}/decisions.log"\n')  # fmt: skip
    daemon = subprocess.Popen([sys.executable, "-m", "hookd", "--config", str(config), "serve"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    deadline = time.monotonic() + 20
    while not ((work / "run" / "hook.sock").exists() and token_file.exists()):
        if time.monotonic() > deadline or daemon.poll() is not None:
            raise SystemExit("the daemon did not start")
        time.sleep(0.05)
    time.sleep(0.3)
    return daemon, port, token_file


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="hkdb", dir="/tmp"))
    daemon, port, token_file = start_daemon(work)
    try:
        clients = Clients(port, token_file.read_text().strip())
        tail = ["claude", "PreToolUse", "--socket", str(work / "run" / "hook.sock"), "--deadline-ms", "4000"]
        results = [
            summary("http-raw", timed(clients.post_raw, args.calls * 4)),
            summary("socket-raw", timed(clients.socket_raw(work / "run" / "hook.sock"), args.calls * 4)),
            summary("http-keepalive", timed(clients.post, args.calls * 4)),
            summary("http-connect", timed(clients.fresh, args.calls * 4)),
        ]
        native = ROOT / ".cache" / "bin" / "hookd-shim"
        if os.access(native, os.X_OK):
            results.append(summary("native", timed(clients.spawn([str(native), *tail]), args.calls)))
        python = os.path.realpath(sys.executable)
        results.append(summary("python", timed(clients.spawn([python, "-I", "-S", str(SHIM), *tail]), args.calls)))
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
