"""systemd's notification protocol (sd_notify(3)), spoken by the daemon when a service manager runs it.

`Notifier.from_env()` reads ``NOTIFY_SOCKET`` and the watchdog settings once and removes them from the
environment, so that no child (a Python policy worker, an `opa` process) can report for the daemon.
Without ``NOTIFY_SOCKET`` every call is a no-op. The daemon sends READY=1 once its sockets serve,
RELOADING=1 … READY=1 around a reload, STOPPING=1 when it begins to stop, and WATCHDOG=1 from its event
loop at half the watchdog interval, so a loop that stops turning is restarted by systemd.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time

import structlog

log = structlog.get_logger("hookd.runtime.sdnotify")


class Notifier:
    def __init__(self, address: str = "", watchdog_seconds: float = 0.0) -> None:
        self.address = address
        self.watchdog_seconds = watchdog_seconds
        self._watchdog: asyncio.Task[None] | None = None

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Notifier:
        env = os.environ if environ is None else environ
        address = env.pop("NOTIFY_SOCKET", "")
        usec, pid = env.pop("WATCHDOG_USEC", ""), env.pop("WATCHDOG_PID", "")
        watchdog = 0.0
        if usec.isdigit() and (not pid or pid == str(os.getpid())):
            watchdog = int(usec) / 1_000_000
        return cls(address, watchdog)

    @property
    def active(self) -> bool:
        return bool(self.address)

    def send(self, *fields: str) -> None:
        """One datagram of newline-separated fields; a failure is logged, never raised (the daemon serves on)."""
        if not self.address:
            return
        target = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.sendto("\n".join(fields).encode(), target)
        except OSError as exc:
            log.warning("sd_notify_failed", socket=self.address, error=str(exc))

    def ready(self, status: str) -> None:
        self.send("READY=1", f"STATUS={status}", f"MAINPID={os.getpid()}")

    def reloading(self) -> None:
        self.send("RELOADING=1", f"MONOTONIC_USEC={time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000}")

    def stopping(self) -> None:
        self.send("STOPPING=1")
        if self._watchdog is not None:
            self._watchdog.cancel()

    def start_watchdog(self) -> None:
        """Ping the watchdog from the running event loop (when systemd asked for it) until `stopping`."""
        if self.address and self.watchdog_seconds > 0:
            self._watchdog = asyncio.get_running_loop().create_task(self._keep_alive(), name="hookd-watchdog")

    async def _keep_alive(self) -> None:
        while True:
            self.send("WATCHDOG=1")
            await asyncio.sleep(self.watchdog_seconds / 2)
