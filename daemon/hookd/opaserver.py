"""A private `opa run --server` on 127.0.0.1 and a free port (or a Unix socket), for `hookd test --engine
opa` and the tests: started from $HOOKD_OPA_BIN or `opa` on PATH, health-checked, stopped."""

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
from pathlib import Path

from hookd.errors import HookdError


def find_opa() -> str:
    found = os.environ.get("HOOKD_OPA_BIN") or shutil.which("opa") or ""
    if not found or not os.access(found, os.X_OK):
        raise HookdError(
            "no opa binary: set HOOKD_OPA_BIN or put opa on PATH (./dev setup builds one), or pass --opa-url"
        )
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


PORT_ATTEMPTS = 5


def _tcp_listener_inodes(port: int) -> set[str]:
    """Socket inodes listening on 127.0.0.1:port (or any address), from /proc/net/tcp."""
    inodes: set[str] = set()
    with contextlib.suppress(OSError):
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port and address in ("0100007F", "00000000"):
                inodes.add(inode)
    return inodes


def _owns_listener(pid: int, port: int) -> bool:
    wanted = {f"socket:[{inode}]" for inode in _tcp_listener_inodes(port)}
    fd_dir = Path(f"/proc/{pid}/fd")
    with contextlib.suppress(OSError):
        return any(os.readlink(fd_dir / fd) in wanted for fd in os.listdir(fd_dir))
    return False


class OpaProcess:
    """One `opa run --server` process. `url` is what hookd's [opa] url takes."""

    def __init__(self, binary: str | None = None, *, unix: bool = False, extra_args: tuple[str, ...] = ()) -> None:
        self.binary = binary or find_opa()
        self.dir = Path(tempfile.mkdtemp(prefix="hkdopa", dir="/tmp"))
        self.socket_path = self.dir / "opa.sock" if unix else None
        self.port = 0 if unix else free_port()
        self.log_path = self.dir / "opa.log"
        self.extra_args = list(extra_args)  # more `opa run` arguments: flags, then policy files
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}" if self.socket_path else f"http://127.0.0.1:{self.port}"

    @property
    def addr(self) -> str:
        return f"unix://{self.socket_path}" if self.socket_path else f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 20) -> OpaProcess:
        for _ in range(PORT_ATTEMPTS):
            if self._start_once(timeout):
                return self
            self.stop()  # another process took the free port before OPA bound it: pick another
            self.port = free_port()
        raise HookdError(
            f"opa could not bind a free port on 127.0.0.1 in {PORT_ATTEMPTS} tries (another process took each)"
        )

    def _start_once(self, timeout: float) -> bool:
        """True once this OPA answers; False when the port turns out to be another process's."""
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
                if not self.socket_path and _tcp_listener_inodes(self.port):
                    return False
                raise HookdError(f"opa exited with {self.proc.returncode}: {self.log_path.read_text()[-500:]}")
            if self.healthy():
                # A health answer alone may come from whoever holds the port: only ours will do.
                return self.socket_path is not None or _owns_listener(self.proc.pid, self.port)
            time.sleep(0.05)
        self.stop()
        raise HookdError(f"opa did not answer on {self.addr} within {timeout}s")

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
            self.proc.send_signal(signal.SIGCONT)  # a stopped process cannot act on SIGTERM
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.proc = None

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> OpaProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
