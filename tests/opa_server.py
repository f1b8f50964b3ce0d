"""The real `opa` server for tests (hookd.opaserver.OpaProcess), which can also be paused with SIGSTOP.
$HOOKD_OPA_BIN is built by ./dev setup from the Go module proxy; without it a test skips locally and
fails in CI."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import time
from collections.abc import Iterator
from pathlib import Path

from hookd.opaserver import OpaProcess
from support import require


def opa_binary() -> str:
    found = os.environ.get("HOOKD_OPA_BIN") or shutil.which("opa") or ""
    require(bool(found) and os.access(found, os.X_OK), "the opa binary ($HOOKD_OPA_BIN, built by ./dev setup)")
    return found


class OpaServer(OpaProcess):
    def __init__(self, *, unix: bool = False) -> None:
        super().__init__(opa_binary(), unix=unix)

    def pause(self) -> None:
        """SIGSTOP: the kernel still accepts connections on the port, but OPA never answers. Returns once every
        thread is stopped: kill(2) returns before that, and a request sent at once could still be answered."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)
        deadline = time.monotonic() + 10
        while not _stopped(self.proc.pid):
            if time.monotonic() > deadline:
                raise TimeoutError(f"opa {self.proc.pid} did not stop within 10 s of SIGSTOP")
            time.sleep(0.005)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)


def _stopped(pid: int) -> bool:
    """Every thread of the process is in state T (stopped), as /proc/PID/task/*/stat says (proc(5))."""
    tasks = Path(f"/proc/{pid}/task")
    states = [(t / "stat").read_text().rpartition(")")[2].split()[0] for t in tasks.iterdir()]
    return bool(states) and all(state in ("T", "t") for state in states)


@contextlib.contextmanager
def running_opa(*, unix: bool = False) -> Iterator[OpaServer]:
    server = OpaServer(unix=unix)
    server.start()
    try:
        yield server
    finally:
        server.close()
