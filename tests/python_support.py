"""Helpers for tests of Python policies: write a policy dir, build requests, watch the worker pool."""

from __future__ import annotations

import asyncio
import os
import textwrap
import time
from pathlib import Path

from hookd.config import Config
from hookd.engines.base import settle
from hookd.engines.composite import CompositeEngine
from hookd.engines.python.engine import PythonEngine
from hookd.errors import PartialAnswer
from hookd.policy.layers import LayeredEngine
from hookd.types import (
    Caller,
    Deadline,
    Engine,
    EngineRequest,
    Event,
    NormalisedEvent,
    ToolCall,
    ToolKind,
    Verdict,
    settled,
)


def write_policy(directory: Path, body: str, name: str = "hostile.py") -> Path:
    directory.mkdir(mode=0o755, exist_ok=True)
    path = directory / name
    path.write_text("from hookd.policy_api import policy, deny, context\n" + textwrap.dedent(body))
    path.chmod(0o644)
    return directory


def python_part(engine: object) -> PythonEngine:
    if isinstance(engine, LayeredEngine):  # load_engine serves layers: here just the one policy directory
        (layer,) = engine.layers
        engine = layer.engine
    assert isinstance(engine, CompositeEngine)
    part = engine.parts[1]
    assert isinstance(part, PythonEngine)
    return part


async def answer(engine: Engine, request: EngineRequest) -> list[Verdict]:
    """The engine's verdicts as the pipeline makes them: each policy that failed (a PartialAnswer's error)
    becomes its verdict in place, under the default fail modes."""
    try:
        return list(await settled(engine.evaluate(request)))
    except PartialAnswer as exc:
        return settle(request.event.event, exc.results, Config().shim.fail_modes)


def shell_request(
    command: str, event: Event = Event.BEFORE_TOOL, deadline: float = 60, session: str = "s"
) -> EngineRequest:
    normalised = NormalisedEvent(
        client="gemini",
        event=event,
        payload={"tool_input": {"command": command}},
        tool=ToolCall("run_shell_command", ToolKind.SHELL, {"command": command}),
        session_id=session,
        cwd="/tmp",
        project_dir="/tmp",
        caller=Caller(0, 0, os.getpid()),
    )
    return EngineRequest(normalised, normalised.input_document(), Deadline.after(deadline))


async def wait_for_full_pool(engine: PythonEngine, size: int, timeout: float = 90) -> list[int]:
    end = time.monotonic() + timeout
    while len(engine.worker_pids()) < size:
        assert time.monotonic() < end, f"the pool did not get back to {size} workers"
        await asyncio.sleep(0.02)
    return engine.worker_pids()


def wait_until_gone(pids: list[int], timeout: float = 60) -> bool:
    """True once none of the processes exists (a SIGKILLed process on a loaded machine takes a moment)."""
    end = time.monotonic() + timeout
    while any(process_exists(pid) for pid in pids):
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


def process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "Z" not in Path(f"/proc/{pid}/stat").read_text().split(")")[1][:3]
