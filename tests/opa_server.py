"""The real `opa` server for tests: `opa run --server` on 127.0.0.1 and a free port (or a Unix socket),
started from $HOOKD_OPA_BIN (./dev builds it from the Go module proxy), stopped, paused and restarted."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from support import require


def opa_binary() -> str:
    found = os.environ.get("HOOKD_OPA_BIN") or shutil.which("opa") or ""
    require(bool(found) and os.access(found, os.X_OK), "the opa binary ($HOOKD_OPA_BIN, built by ./dev setup)")
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class OpaServer:
    """One `opa run --server` process. `url` is what hookd's [opa] url takes."""

    def __init__(self, *, unix: bool = False) -> None:
        self.binary = opa_binary()
        self._dir = Path(tempfile.mkdtemp(prefix="hkdopa", dir="/tmp"))
        self.socket_path = self._dir / "opa.sock" if unix else None
        self.port = 0 if unix else free_port()
        self.log_path = self._dir / "opa.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.extra_args: list[str] = []  # more `opa run` arguments: flags, then policy files

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}" if self.socket_path else f"http://127.0.0.1:{self.port}"

    @property
    def addr(self) -> str:
        return f"unix://{self.socket_path}" if self.socket_path else f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 20) -> OpaServer:
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [self.binary, "run", "--server", "--addr", self.addr, "--log-level", "error", *self.extra_args],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise AssertionError(f"opa exited with {self.proc.returncode}: {self.log_path.read_text()}")
            if self.healthy():
                return self
            time.sleep(0.05)
        self.stop()
        raise AssertionError(f"opa did not answer on {self.addr} within {timeout}s")

    def healthy(self) -> bool:
        if self.socket_path:
            with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as probe:
                probe.settimeout(1)
                probe.connect(str(self.socket_path))
                probe.sendall(b"GET /health HTTP/1.0\r\nHost: opa\r\n\r\n")
                return b" 200 " in probe.recv(64)
            return False
        try:
            with urllib.request.urlopen(f"{self.url}/health", timeout=1) as response:
                return bool(response.status == 200)
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)  # a paused process cannot act on SIGTERM
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.proc = None

    def pause(self) -> None:
        """SIGSTOP: the port still accepts connections (the kernel does), but OPA never answers."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self._dir, ignore_errors=True)


@contextlib.contextmanager
def running_opa(*, unix: bool = False) -> Iterator[OpaServer]:
    server = OpaServer(unix=unix).start()
    try:
        yield server
    finally:
        server.close()
