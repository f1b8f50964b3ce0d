"""Atomic reload in-process: a request in flight finishes on the engine it started with, the replaced engine is
closed only after its last request, and a policy set that does not load leaves the serving one untouched."""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import uvloop

from hookd.app import Daemon
from hookd.config import Config, DaemonConfig, LogConfig
from hookd.policy.layers import policy_set_of
from hookd.testing import StaticEngine
from hookd.types import Caller, Deadline, HookRequest, Outcome, settled
from support import DEMO_POLICIES, eventually_async, gemini_payload, settle


def request(file_path: str) -> HookRequest:
    body = gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": file_path, "content": "x"})
    return HookRequest(
        client="gemini",
        event="BeforeTool",
        payload=json.dumps(body).encode(),
        env={"HOME": "/root"},
        cwd="/tmp",
        caller=Caller(0, 0, 1),
        deadline=Deadline.after(10),
    )


def run(tmp_path: Path, scenario: Callable[[Daemon, Path], Awaitable[Any]]) -> Any:
    policies = tmp_path / "policies"
    shutil.copytree(DEMO_POLICIES, policies)
    config = Config(
        daemon=DaemonConfig(runtime_dir=Path(tempfile.mkdtemp(prefix="hkd", dir="/tmp")) / "run", policies=policies),
        log=LogConfig(path=tmp_path / "decisions.log"),
    )

    async def main() -> Any:
        daemon = Daemon(config)
        daemon.decision_log.start()
        try:
            return await asyncio.wait_for(scenario(daemon, policies / "demo" / "policy.rego"), 30)
        finally:
            await daemon.decision_log.close()

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main())


def deny_other_txt(rego: Path) -> None:
    rego.write_text(
        rego.read_text() + '\ndeny contains {"id": "no-other", "reason": "no"} if {\n'
        '\tinput.tool.input.file_path == "other.txt"\n}\n'
    )


def test_a_request_in_flight_finishes_on_its_engine_which_is_closed_after_it(tmp_path: Path) -> None:
    async def scenario(daemon: Daemon, rego: Path) -> None:
        gated_engine = StaticEngine(serve=daemon.policy.holder.current.engine, gated=True)
        gated = policy_set_of(gated_engine)
        daemon.policy.holder.swap(gated)
        in_flight = asyncio.create_task(settled(daemon.decider.handle(request("other.txt"))))
        await gated_engine.entered.wait()
        deny_other_txt(rego)
        result = await daemon.policy.reload()
        assert result.ok, result.error
        assert daemon.policy.holder.current is not gated
        # the new policies serve the next request at once ...
        assert (await daemon.pipeline.handle(request("other.txt"))).decision.outcome is Outcome.DENY
        await settle()
        assert daemon.policy.holder.in_use(gated) == 1
        assert not gated_engine.closed  # ... while the old engine is still in use
        gated_engine.gate.set()
        handled = await daemon.pipeline.handle(request("fine.txt"))
        reply = await in_flight
        assert reply.stdout == b""  # decided by the old policies, which allow other.txt
        await eventually_async(lambda: gated_engine.closed, what="the old engine closed")
        assert daemon.policy.holder.in_use(gated) == 0
        assert handled.policy_set is daemon.policy.holder.current

    run(tmp_path, scenario)


def test_a_policy_set_that_does_not_load_is_refused_and_the_old_one_keeps_serving(tmp_path: Path) -> None:
    async def scenario(daemon: Daemon, rego: Path) -> None:
        serving = StaticEngine(serve=daemon.policy.holder.current.engine)
        served = policy_set_of(serving)
        daemon.policy.holder.swap(served)
        rego.write_text(rego.read_text() + "\nthis is not rego\n")
        result = await daemon.policy.reload()
        assert not result.ok
        assert "policy.rego" in result.error
        assert result.revision == result.previous == serving.status().revision
        assert daemon.policy.holder.current is served
        assert (await daemon.pipeline.handle(request("secret.txt"))).decision.outcome is Outcome.DENY
        await settle()
        assert not serving.closed
        assert (daemon.policy.reloads, daemon.policy.reload_failures) == (0, 1)

    run(tmp_path, scenario)


def test_shutdown_closes_the_serving_engine(tmp_path: Path) -> None:
    async def scenario(daemon: Daemon, rego: Path) -> bool:
        serving = StaticEngine(serve=daemon.policy.holder.current.engine)
        daemon.policy.holder.swap(policy_set_of(serving))
        await daemon.policy.stop()
        return serving.closed

    assert run(tmp_path, scenario)
