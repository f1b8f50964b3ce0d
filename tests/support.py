"""Test support: a real daemon in a subprocess, and the real shim run the way an agent runs it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
DEMO_POLICIES = FIXTURES / "policies"
SHIM = ROOT / "client_shim" / "hookd_shim.py"
VENV_PYTHON = sys.executable
# The shim runs under the absolute base interpreter, as `hookd install` writes it.
SHIM_PYTHON = os.path.realpath(sys.executable)
IN_CI = os.environ.get("CI") == "true"
T = TypeVar("T")


def require(condition: bool, what: str) -> None:
    """Skip locally when a tool is missing, but fail loudly in CI, where everything must run."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"{what} is required in CI but missing")
    pytest.skip(f"{what} is not available")


@dataclass
class RunningDaemon:
    proc: subprocess.Popen[bytes]
    runtime_dir: Path
    log_path: Path  # the daemon's stdout and stderr
    config_path: Path
    state_dir: Path | None = None  # $XDG_STATE_HOME of the daemon: its decision log is in hookd/ below

    @property
    def socket(self) -> Path:
        return self.runtime_dir / "hook.sock"

    @property
    def control_socket(self) -> Path:
        return self.runtime_dir / "control.sock"

    @property
    def decision_log(self) -> Path:
        assert self.state_dir is not None, "this daemon's decision log is where its config says"
        return self.state_dir / "hookd" / "decisions.log"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def decisions(self, at_least: int = 0, timeout: float = 10) -> list[dict[str, Any]]:
        """The decision records in the decision log, oldest first. The log is written just after each
        reply, so this waits until it holds `at_least` records and has stopped growing (20 ms)."""
        end = time.monotonic() + timeout
        last: list[dict[str, Any]] | None = None
        from hookd.audit.chain import log_files

        while True:
            try:
                text = "".join(path.read_text() for path in log_files(self.decision_log))  # rotated files first
            except FileNotFoundError:  # rotated on between the listing and the read: read the files again
                assert time.monotonic() < end, f"the decision log kept rotating under the read: {self.decision_log}"
                time.sleep(0.02)
                continue
            text = text[: text.rfind("\n") + 1]  # a line still being written is read next time
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
            current = [r for r in records if r.get("type") == "decision"]
            if last is not None and len(current) == len(last) and len(current) >= at_least:
                return current
            if time.monotonic() > end:
                raise AssertionError(f"the decision log holds {len(current)} records, expected {at_least}")
            last = current
            time.sleep(0.02)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=timeout)


def eventually(condition: Callable[[], T], *, timeout: float = 10.0, what: str = "the condition") -> T:
    """Poll `condition` until it returns something truthy, and return that; fail after `timeout` seconds.
    Tests wait on a condition like this, never on a fixed sleep."""
    end = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > end:
            raise AssertionError(f"{what} did not hold within {timeout:g} s")
        time.sleep(0.01)
    return value


async def eventually_async(condition: Callable[[], T], *, timeout: float = 10.0, what: str = "the condition") -> T:
    """`eventually` inside an event loop: polls without blocking it."""
    end = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > end:
            raise AssertionError(f"{what} did not hold within {timeout:g} s")
        await asyncio.sleep(0.01)
    return value


async def settle(rounds: int = 5) -> None:
    """Let every task the test started run until it blocks (a few turns of the event loop, no wall time):
    what a negative assertion needs before it can mean anything."""
    for _ in range(rounds):
        await asyncio.sleep(0)


def start_daemon(
    tmp_path: Path,
    policies: Path = DEMO_POLICIES,
    config: str = "",
    runtime_dir: Path | None = None,
    wait: bool = True,
    env: Mapping[str, str] | None = None,
    lane: bool = False,
) -> RunningDaemon:
    """`wait`: until it listens; `lane`: also until its lane serves (a heavy request sent before then waits
    for the lane's start, which on a loaded box can outlast the request's deadline)."""
    # A short path: a Unix socket path must fit in 107 bytes, and pytest's tmp_path can be long.
    runtime_dir = runtime_dir or Path(tempfile.mkdtemp(prefix="hkd", dir="/tmp")) / "run"
    config_path = tmp_path / f"config-{time.monotonic_ns()}.toml"
    config_path.write_text(config)
    log_path = tmp_path / f"daemon-{time.monotonic_ns()}.log"
    # Every daemon its own decision log (the default is in $XDG_STATE_HOME/hookd), unless env says otherwise.
    state_dir = Path((env or {}).get("XDG_STATE_HOME") or tempfile.mkdtemp(prefix="hkdstate", dir="/tmp"))
    cmd = [
        VENV_PYTHON, "-m", "hookd", "--config", str(config_path), "serve",
        "--policies", str(policies), "--runtime-dir", str(runtime_dir),
    ]  # fmt: skip
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            cmd,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "XDG_STATE_HOME": str(state_dir), **(env or {})},
        )
    daemon = RunningDaemon(proc, runtime_dir, log_path, config_path, state_dir)
    if wait or lane:
        wait_for_socket(daemon)
    if lane:
        wait_for_lane(daemon)
    return daemon


def lanes_serving(log: str) -> bool:
    """The daemon's log says its lane and its stream lane serve."""
    return '"lane_serving"' in log and '"stream_lane_serving"' in log


def wait_for_lane(daemon: RunningDaemon, timeout: float = 60) -> None:
    """Until the daemon logs its lanes serving (bench/run.py's start_daemon waits the same way)."""
    eventually(lambda: lanes_serving(daemon.log()) or daemon.proc.poll() is not None, timeout=timeout,
               what="the lanes serving")  # fmt: skip
    assert daemon.proc.poll() is None, f"daemon exited with {daemon.proc.returncode}:\n{daemon.log()}"


def trace_shim_config() -> str:
    """`[shim] python` set to bench/trace.py's recording wrapper while `bench/trace.py record` runs the e2e
    tests (HOOKD_TRACE_WRAPPER), so every hook call is saved for the bench's recorded workload; else nothing."""
    wrapper = os.environ.get("HOOKD_TRACE_WRAPPER")
    return f'[shim]\npython = "{wrapper}"\n' if wrapper else ""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def scrape(address: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """GET http://ADDRESS/metrics: every sample, keyed by name and sorted labels."""
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(f"http://{address}/metrics", timeout=30) as response:
        text = response.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def logged(daemon: RunningDaemon, text: str, timeout: float = 20) -> str:
    """The daemon's log once it holds `text`: a line written after the sockets listen (`serving`), or after a
    reply (a monitor layer's evaluation), is not in it when the test's last step returns."""
    end = time.monotonic() + timeout
    while text not in (found := daemon.log()):
        if time.monotonic() > end:
            raise AssertionError(f"{text!r} not logged within {timeout}s:\n{found[-4000:]}")
        time.sleep(0.02)
    return found


def wait_for_socket(daemon: RunningDaemon, timeout: float = 20) -> None:
    """Until the daemon listens on its hook socket and on its control socket (it opens that one second)."""
    end = time.monotonic() + timeout
    waiting = [daemon.socket, daemon.control_socket]
    while time.monotonic() < end:
        if daemon.proc.poll() is not None:
            raise AssertionError(f"daemon exited with {daemon.proc.returncode}:\n{daemon.log()}")
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as probe:
            probe.connect(str(waiting[0]))
            waiting.pop(0)
            if not waiting:
                return
            continue
        time.sleep(0.02)
    daemon.stop(signal.SIGKILL)
    raise AssertionError(f"daemon did not listen within {timeout}s:\n{daemon.log()}")


def run_shim(
    socket_path: Path | str,
    event: str,
    payload: bytes | Mapping[str, object],
    *,
    client: str = "gemini",
    deadline_ms: int = 3000,
    fail: str | None = None,
    extra_env: Mapping[str, str] | None = None,
    timeout: float = 15,
) -> subprocess.CompletedProcess[bytes]:
    """Run the shim through `bash -c`, the way Gemini CLI spawns a hook command."""
    data = payload if isinstance(payload, bytes) else json.dumps(payload, separators=(",", ":")).encode()
    args = [SHIM_PYTHON, "-I", "-S", str(SHIM), client, event, "--socket", str(socket_path),
            "--deadline-ms", str(deadline_ms)]  # fmt: skip
    if fail:
        args += ["--fail", fail]
    command = " ".join(f"'{a}'" for a in args)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/root"),
        **(extra_env or {}),
    }
    return subprocess.run(
        ["bash", "-c", command], input=data, capture_output=True, timeout=timeout, env=env, check=False
    )


def gemini_payload(event: str, **fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "session_id": "3f0c2a9e-8b7d-4c1e-9f5a-2d6b1e7c4a10",
        "transcript_path": "",
        "cwd": "/tmp",
        "hook_event_name": event,
        "timestamp": "2026-12-02T00:00:00.000Z",
    }
    base.update(fields)
    return base


class FakeServer:
    """A fake daemon on a Unix socket. `behaviour` is hang, close, truncated, garbage or error (a
    misbehaving daemon), or reply: read each whole request frame, keep it in `requests`, answer the
    bytes `reply` verbatim (a well-formed reply from wire.encode_reply, or any bytes at all)."""

    def __init__(self, path: Path, behaviour: str, reply: bytes = b"") -> None:
        import threading

        self.path = path
        self.behaviour = behaviour
        self.reply = reply
        self.requests: list[bytes] = []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(path))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        held = []
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                break
            if self._stop.is_set():  # close() woke us up
                conn.close()
                break
            conn.settimeout(5)
            with contextlib.suppress(OSError):
                if self.behaviour == "reply":
                    self.requests.append(read_request(conn))
                    conn.sendall(self.reply)
                else:
                    conn.recv(1 << 20)
                if self.behaviour == "hang":
                    held.append(conn)
                    continue
                if self.behaviour == "truncated":
                    conn.sendall(b"HKDR\x01\x00\x00\x00\x00\x00")
                elif self.behaviour == "garbage":
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
                elif self.behaviour == "error":
                    from hookd import wire

                    conn.sendall(wire.encode_error("bad-payload", "hook payload is not valid JSON"))
            conn.close()
        for conn in held:
            conn.close()

    def close(self) -> None:
        self._stop.set()
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as wake:
            wake.connect(str(self.path))  # the accept() returns at once instead of at its next timeout
        self._thread.join(timeout=5)
        self.sock.close()


def read_request(conn: socket.socket) -> bytes:
    """Read one whole request frame (prefix, header, payload), or what came before the connection closed."""
    data = bytearray()
    want = 14
    while len(data) < want:
        chunk = conn.recv(min(want - len(data), 1 << 20))
        if not chunk:
            break
        data += chunk
        if len(data) == 14 and want == 14:
            want += int.from_bytes(data[6:10], "big") + int.from_bytes(data[10:14], "big")
    return bytes(data)


def send_frame(path: Path, frame: bytes, *, timeout: float = 10, shut_write: bool = False) -> bytes:
    """Send raw bytes to a daemon socket and read its whole reply."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(str(path))
        sock.sendall(frame)
        if shut_write:
            sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)
