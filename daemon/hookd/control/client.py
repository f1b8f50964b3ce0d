"""A thin client of the control socket for the CLI: reach the daemon, call it, and say in one line why not.

Importing this module imports grpc (~100 ms), so only the commands that talk to the daemon import it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import grpc

from hookd.control.reach import check_reachable, not_running
from hookd.errors import ControlError
from hookd.v1 import hookd_pb2_grpc

__all__ = ["ControlClient", "ControlError", "check_reachable", "describe_rpc_error"]

T = TypeVar("T")


def describe_rpc_error(exc: grpc.RpcError, path: Path) -> ControlError:
    code = exc.code() if callable(getattr(exc, "code", None)) else None
    details = (exc.details() if callable(getattr(exc, "details", None)) else "") or ""
    if code == grpc.StatusCode.UNAVAILABLE:
        return not_running(path, "no answer on")
    if code == grpc.StatusCode.PERMISSION_DENIED:
        return ControlError(f"permission denied: {details}")
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return ControlError(f"the daemon did not answer in time ({path})")
    name = code.name.lower() if code is not None else "error"
    return ControlError(f"{name}: {details}" if details else name)


class ControlClient:
    def __init__(self, path: Path, timeout: float = 10.0) -> None:
        check_reachable(path)
        self.path = path
        self.timeout = timeout
        self.channel = grpc.insecure_channel(f"unix:{path}", options=[("grpc.enable_http_proxy", 0)])
        self.control = hookd_pb2_grpc.ControlStub(self.channel)
        self.hook = hookd_pb2_grpc.HookStub(self.channel)

    def call(self, method: Callable[..., T], request: Any) -> T:
        try:
            return method(request, timeout=self.timeout)
        except grpc.RpcError as exc:
            raise describe_rpc_error(exc, self.path) from None

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> ControlClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
