"""Helpers for the tests that load a real daemon and crash it (tests/integration/test_workers.py,
tests/reliability/): clients asking continuously, the daemon's processes, the decision log's lines."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from hookd import wire
from hookd.errors import FrameError
from support import VENV_PYTHON, RunningDaemon, gemini_payload

TIMEOUT = 30
HEADER = {"client": "gemini", "event": "BeforeTool", "cwd": "/tmp", "ppid": 0, "env": {"HOME": "/root"}}


def write_request(path: str) -> bytes:
    """A BeforeTool write_file of `path`: its record names the path, so each request can be found in the log."""
    payload = gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": path, "content": "x"})
    return wire.encode_request(HEADER, json.dumps(payload).encode())


def ask(sock_path: Path, frame: bytes) -> wire.DecodedReply:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(TIMEOUT)
        sock.connect(str(sock_path))
        sock.sendall(frame)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return wire.decode_reply(b"".join(chunks))


class Load:
    """Clients asking continuously, each request naming its own file, until `stop()`: what each got back,
    and when it was sent."""

    def __init__(self, daemon: RunningDaemon, clients: int = 8, prefix: str = "c") -> None:
        self.daemon = daemon
        self.answers: list[tuple[float, str, wire.Status | None]] = []  # (sent at, file, status or None)
        self._prefix = prefix
        self._running = True
        self._pool = ThreadPoolExecutor(clients)
        self._clients = [self._pool.submit(self._client, n) for n in range(clients)]

    def _client(self, n: int) -> None:
        i = 0
        while self._running:
            name, i = f"{self._prefix}{n}-{i}.txt", i + 1
            sent = time.monotonic()
            try:
                status: wire.Status | None = ask(self.daemon.socket, write_request(name)).status
            except (OSError, ValueError, FrameError):  # refused, reset, or cut short: no answer
                status = None
            self.answers.append((sent, name, status))

    def stop(self) -> None:
        self._running = False
        for client in self._clients:
            client.result(timeout=TIMEOUT)
        self._pool.shutdown()

    def answered(self) -> list[tuple[float, str]]:
        """(sent at, file) of every request that got a decision."""
        return [(sent, name) for sent, name, status in self.answers if status is wire.Status.OK]


def log_lines(daemon: RunningDaemon) -> int:
    log = daemon.decision_log
    return log.read_bytes().count(b"\n") if log.exists() else 0


def wait_for_lines(daemon: RunningDaemon, lines: int) -> None:
    """Until the decision log holds `lines` lines (while it grows)."""
    end = time.monotonic() + TIMEOUT
    while log_lines(daemon) < lines:
        assert time.monotonic() < end, f"the decision log never reached {lines} lines"
        time.sleep(0.05)


def worker_pids(daemon: RunningDaemon) -> list[int]:
    """The daemon's worker processes (not its lanes)."""
    children = Path(f"/proc/{daemon.proc.pid}/task/{daemon.proc.pid}/children").read_text().split()
    lanes = (LANE, STREAM_LANE)
    return [int(pid) for pid in children if is_worker(int(pid)) and not any(is_lane(int(pid), k) for k in lanes)]


def lane_pid(daemon: RunningDaemon, kind: bytes = b"-1") -> int | None:
    """The lane's pid, or the stream lane's with `kind` STREAM_LANE."""
    children = Path(f"/proc/{daemon.proc.pid}/task/{daemon.proc.pid}/children").read_text().split()
    return next((int(pid) for pid in children if is_lane(int(pid), kind)), None)


def is_worker(pid: int) -> bool:
    """A live hookd worker process, the lane included (a zombie has no command line any more)."""
    try:
        return b"hookd.procs.child" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


LANE, STREAM_LANE = b"-1", b"-2"  # the listening fd each lane is started with (hookd.procs.channel)


def is_lane(pid: int, kind: bytes = LANE) -> bool:
    """The lane: a worker started with no listening socket (`hookd.procs.child INDEX -1 ...`); the stream lane
    with `kind` STREAM_LANE (-2)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"hookd.procs.child" in argv and argv[argv.index(b"hookd.procs.child") + 2] == kind


def wait_until_gone(pids: list[int]) -> None:
    end = time.monotonic() + TIMEOUT
    while alive := [pid for pid in pids if is_worker(pid)]:
        assert time.monotonic() < end, f"workers {alive} kept running after their daemon was killed"
        time.sleep(0.01)


def logged_files(daemon: RunningDaemon) -> set[str]:
    """The file of every write_file decision in the decision log (and its rotated files)."""
    from hookd.audit.chain import log_files

    found = set()
    for path in log_files(daemon.decision_log):
        for line in path.read_text().splitlines():
            try:
                record = json.loads(line)
            except ValueError:  # a torn last line: `hookd log verify` reports it
                continue
            if record.get("type") == "decision":
                found.add(record["input"]["tool"]["input"].get("file_path"))
    return found


def verify_chain(daemon: RunningDaemon) -> str:
    """`hookd log verify`'s report; raises unless the chain is intact."""
    verify = subprocess.run(
        [VENV_PYTHON, "-m", "hookd", "log", "verify", str(daemon.decision_log)],
        capture_output=True, text=True, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    assert verify.returncode == 0 and "chain intact" in verify.stdout, verify.stdout + verify.stderr
    return verify.stdout


async def ask_async(sock_path: Path, frame: bytes) -> wire.Status | None:
    """One request as a shim sends it; None when it got no well-formed reply."""
    _, reply = await timed_ask(sock_path, frame)
    return None if reply is None else reply.status


async def requests(
    sock_path: Path, names: list[str], concurrency: int, rate: float = 0
) -> dict[str, wire.Status | None]:
    """Each name asked once (a write_file of it), `concurrency` at a time, at most `rate` per second if set."""
    answers: dict[str, wire.Status | None] = {}
    pending = iter(names)
    start = time.monotonic()

    async def client() -> None:
        for name in pending:
            if rate:
                due = start + len(answers) / rate
                await asyncio.sleep(max(0.0, due - time.monotonic()))
            answers[name] = await ask_async(sock_path, write_request(name))

    await asyncio.gather(*(client() for _ in range(concurrency)))
    return answers


def process_usage(pids: list[int]) -> tuple[int, int]:
    """(RSS in KiB, open descriptors) summed over `pids`."""
    rss = fds = 0
    for pid in pids:
        status = Path(f"/proc/{pid}/status").read_text()
        rss += int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))
        fds += len(os.listdir(f"/proc/{pid}/fd"))
    return rss, fds


async def timed_ask(sock: Path, frame: bytes, timeout: float = TIMEOUT) -> tuple[float, wire.DecodedReply | None]:
    """One request as a shim sends it (a connection each): its time in ms and its reply (None: no well-formed one)."""
    started = time.monotonic()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(str(sock)), timeout)
        try:
            writer.write(frame)
            data = await asyncio.wait_for(reader.read(), timeout)
        finally:
            writer.close()
        reply: wire.DecodedReply | None = wire.decode_reply(data)
    except (OSError, TimeoutError, FrameError):
        reply = None
    return (time.monotonic() - started) * 1000, reply
