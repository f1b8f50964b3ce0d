"""Test doubles for hookd's seams, shipped with the package: `StaticEngine` is to the Engine protocol what
httpx's MockTransport is to its transports, a real engine whose answer the test chooses. `make_request`
builds a hook request as a shim would send it. Nothing on the serving path imports this module."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any

from hookd.dialects.registry import DEFAULT_AGENT
from hookd.errors import PolicyLoadError
from hookd.types import (
    Caller,
    Deadline,
    Engine,
    EngineRequest,
    EngineStatus,
    HookRequest,
    PackageInfo,
    Verdict,
    settled,
)

CALLER = Caller(uid=1000, gid=1000, pid=4242, ppid=4241)


class StaticEngine:
    """An engine that answers `verdicts`, raises `error`, or hands the request to `serve` (a real engine it
    wraps). It records every request and whether it was closed. `start_error` makes `ready()` fail as an
    engine that cannot start does; `gated=True` holds every evaluation until the test sets `gate` (and
    `entered` says one is waiting). It answers through an awaitable, as an engine whose answer is another
    process's does; `awaited=False` makes it answer in the call, as the embedded Rego engine does (the hook
    server then decides in the callback that read the request)."""

    def __init__(
        self,
        verdicts: Sequence[Verdict] = (),
        *,
        name: str = "static",
        error: Exception | None = None,
        start_error: str = "",
        gated: bool = False,
        awaited: bool = True,
        remote: bool = False,
        serve: Engine | None = None,
        revision: str = "static",
        packages: Sequence[PackageInfo] = (),
    ) -> None:
        if gated and not awaited:
            raise ValueError("an engine that answers in the call cannot hold its evaluations at a gate")
        self.name = name
        self.awaited = awaited
        self.remote = remote
        self.reads = serve.reads if serve is not None else None
        self.verdicts = list(verdicts)
        self.error = error
        self.start_error = start_error
        self.serve = serve
        self.revision = revision
        self._packages = tuple(packages)
        self.requests: list[EngineRequest] = []
        self.closed = False
        self.entered = asyncio.Event()
        self.gate = asyncio.Event()
        if not gated:
            self.gate.set()

    async def ready(self) -> None:
        if self.start_error:
            raise PolicyLoadError(self.start_error)

    def evaluate(self, request: EngineRequest) -> Sequence[Verdict] | Awaitable[Sequence[Verdict]]:
        if self.awaited:
            return self._at_gate(request)
        self.requests.append(request)
        return self._answer(request)

    async def _at_gate(self, request: EngineRequest) -> Sequence[Verdict]:
        self.requests.append(request)
        self.entered.set()
        await self.gate.wait()
        return await settled(self._answer(request))

    def _answer(self, request: EngineRequest) -> Sequence[Verdict] | Awaitable[Sequence[Verdict]]:
        if self.closed:
            raise RuntimeError("evaluated on a closed engine")
        if self.error is not None:
            raise self.error
        if self.serve is not None:
            return self.serve.evaluate(request)
        return self.verdicts

    async def aclose(self) -> None:
        self.closed = True
        if self.serve is not None:
            await self.serve.aclose()

    def status(self) -> EngineStatus:
        if self.serve is not None:
            return self.serve.status()
        return EngineStatus(self.name, self.revision, packages=tuple(p.name for p in self._packages))

    @property
    def packages(self) -> Sequence[PackageInfo]:
        return self.serve.packages if self.serve is not None else self._packages


def make_request(
    event: str,
    client: str = DEFAULT_AGENT,
    *,
    payload: bytes | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str = "/home/alice/proj",
    caller: Caller = CALLER,
    timeout_s: float = 10.0,
    **fields: Any,
) -> HookRequest:
    """A hook request as the shim sends it: `payload`, or a JSON body of session, cwd, event name and `fields`."""
    if payload is None:
        body = {"session_id": "s1", "cwd": cwd, "hook_event_name": event, **fields}
        payload = json.dumps(body).encode()
    return HookRequest(
        client=client,
        event=event,
        payload=payload,
        env=dict(env or {"HOME": "/home/alice"}),
        cwd=cwd,
        caller=caller,
        deadline=Deadline.after(timeout_s),
    )
