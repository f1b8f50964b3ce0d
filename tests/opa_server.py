"""The real `opa` server for tests (hookd.opaserver.OpaProcess), which can also be paused with SIGSTOP.
$HOOKD_OPA_BIN is built by ./dev setup from the Go module proxy; without it a test skips locally and
fails in CI."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
from collections.abc import Iterator

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
        """SIGSTOP: the kernel still accepts connections on the port, but OPA never answers."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)


@contextlib.contextmanager
def running_opa(*, unix: bool = False) -> Iterator[OpaServer]:
    server = OpaServer(unix=unix)
    server.start()
    try:
        yield server
    finally:
        server.close()
