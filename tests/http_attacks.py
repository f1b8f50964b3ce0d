"""Two attacks on the HTTP hook endpoint by another local user (nobody), with figures:

* 24 unauthenticated POSTs of 16 MiB each at once: the daemon's RSS (they are refused from the head);
* 1,100 idle connections held open: how many it gets, and whether the owner is still answered.

Run as root (to drop to nobody): .cache/venv/bin/python tests/http_attacks.py
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from support import free_port, start_daemon

DROP = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3.11", "-c"]
BIG_POST = """
import socket, sys
from concurrent.futures import ThreadPoolExecutor
port = int(sys.argv[1])
body = b"x" * (16 * 1024 * 1024)
head = b"POST /v1/hooks/claude HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Length: %d\\r\\n\\r\\n" % len(body)
def one(_):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        try:
            conn.sendall(head + body)
        except OSError:
            pass
        try:
            return conn.recv(12).decode()
        except OSError as exc:
            return str(exc)
with ThreadPoolExecutor(24) as pool:
    print(sorted(set(pool.map(one, range(24)))), flush=True)
"""
HOLD = """
import socket, sys, time
port, count = int(sys.argv[1]), int(sys.argv[2])
held, refused = [], 0
for _ in range(count):
    conn = socket.create_connection(("127.0.0.1", port), timeout=10)
    conn.settimeout(0.2)
    try:
        refused += conn.recv(100).startswith(b"HTTP/1.1 503 ")
        conn.close()
    except TimeoutError:
        held.append(conn)
print(len(held), refused, flush=True)
time.sleep(120)
"""
PAYLOAD = {"session_id": "s", "cwd": "/tmp", "hook_event_name": "PreToolUse", "tool_name": "Write",
           "tool_input": {"file_path": "/tmp/ok.txt", "content": "x"}}  # fmt: skip


def rss_mb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return 0


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="hkdhttp") as tmp:
        port = free_port()
        daemon = start_daemon(Path(tmp), config=f'[http]\nenabled = true\nport = {port}\ntoken_file = "{tmp}/t"\n')
        try:
            token = Path(tmp, "t").read_text().strip()
            before, peak = rss_mb(daemon.proc.pid), 0
            with ThreadPoolExecutor(1) as pool:
                attack = pool.submit(subprocess.run, [*DROP, BIG_POST, str(port)], capture_output=True, text=True)
                while not attack.done():
                    peak = max(peak, rss_mb(daemon.proc.pid))
                    time.sleep(0.02)
            print(f"24 x 16 MiB unauthenticated POSTs: answers {attack.result().stdout.strip()}; daemon RSS "
                  f"{before} MB before, {max(peak, before)} MB peak, {rss_mb(daemon.proc.pid)} MB after")  # fmt: skip
            with subprocess.Popen([*DROP, HOLD, str(port), "1100"], stdout=subprocess.PIPE, text=True) as hog:
                assert hog.stdout is not None
                held, refused = hog.stdout.readline().split()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                started = time.monotonic()
                conn.request("POST", "/v1/hooks/claude", body=json.dumps(PAYLOAD),
                             headers={"Authorization": f"Bearer {token}"})  # fmt: skip
                response = conn.getresponse()
                response.read()
                took = (time.monotonic() - started) * 1000
                hog.kill()
            logged = sum('"http_connection_refused"' in line for line in daemon.log().splitlines())
            print(f"1,100 idle connections from nobody: {held} held, {refused} refused with 503 ({logged} log lines); "
                  f"the owner's request meanwhile: {response.status} in {took:.0f} ms")  # fmt: skip
        finally:
            daemon.stop()


if __name__ == "__main__":
    main()
