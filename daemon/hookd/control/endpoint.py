"""The control plane as a component: control.sock and its gRPC backend (docs/control.md)."""

from __future__ import annotations

import socket
from collections.abc import Mapping
from typing import Any

from hookd.audit.writer import DecisionLog
from hookd.control.server import ControlServer
from hookd.transport.activation import listener


class ControlEndpoint:
    """Listens on control.sock (or the socket a service manager bound); at stop, live StreamDecisions calls
    end cleanly and Decide and Evaluate calls in flight finish within the grace period."""

    name = "control"

    def __init__(self, server: ControlServer, inherited: Mapping[str, socket.socket], log: DecisionLog) -> None:
        self.server = server
        self._inherited = inherited
        self._log = log

    async def start(self) -> None:
        await self.server.start(listener(self._inherited, "control", self.server.path))

    async def stop(self) -> None:
        self._log.end_subscriptions()
        await self.server.stop()

    def status(self) -> Mapping[str, Any]:
        return {
            "socket": str(self.server.path),
            "backend_running": self.server.backend_running,
            "backend_starts": self.server.backend_starts,
        }

    def counters(self) -> Mapping[str, float]:
        return {}  # calls are counted by the Decide path like hook requests (hookd.decide)
