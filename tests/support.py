"""Test support: a real daemon in a subprocess, and the real shim run the way an agent runs it."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
DEMO_POLICIES = FIXTURES / "policies"
SHIM = ROOT / "client_shim" / "hookd_shim.py"
VENV_PYTHON = sys.executable
# The shim runs under the absolute base interpreter, as `hookd install` writes it.
SHIM_PYTHON = os.path.realpath(sys.executable)
IN_CI = os.environ.get("CI") == "true"


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
    log_path: Path
    config_path: Path

    @property
    def socket(self) -> Path:
        return self.runtime_dir / "hook.sock"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def decisions(self) -> list[dict[str, object]]:
        lines = [json.loads(line) for line in self.log().splitlines() if line.startswith("{")]
        return [entry for entry in lines if entry.get("event") == "decision"]

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 10) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout=timeout)


def start_daemon(
    tmp_path: Path,
    policies: Path = DEMO_POLICIES,
    config: str = "",
    runtime_dir: Path | None = None,
    wait: bool = True,
    env: Mapping[str, str] | None = None,
) -> RunningDaemon:
    # A short path: a Unix socket path must fit in 107 bytes, and pytest's tmp_path can be long.
    runtime_dir = runtime_dir or Path(tempfile.mkdtemp(prefix="hkd", dir="/tmp")) / "run"
    config_path = tmp_path / f"config-{time.monotonic_ns()}.toml"
    config_path.write_text(config)
    log_path = tmp_path / f"daemon-{time.monotonic_ns()}.log"
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
            env={**os.environ, **(env or {})},
        )
    daemon = RunningDaemon(proc, runtime_dir, log_path, config_path)
    if wait:
        wait_for_socket(daemon)
    return daemon


def wait_for_socket(daemon: RunningDaemon, timeout: float = 20) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if daemon.proc.poll() is not None:
            raise AssertionError(f"daemon exited with {daemon.proc.returncode}:\n{daemon.log()}")
        with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as probe:
            probe.connect(str(daemon.socket))
            return
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
    """A misbehaving daemon on a Unix socket: `behaviour` is hang, close, truncated, garbage or error."""

    def __init__(self, path: Path, behaviour: str) -> None:
        import threading

        self.path = path
        self.behaviour = behaviour
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
                return
            conn.settimeout(5)
            with contextlib.suppress(OSError):
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
        self._thread.join(timeout=5)
        self.sock.close()


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
