"""The control server in-process, on uvloop beside the hook server: every call through control.sock with
a real grpc.aio client, the peer check, health and reflection."""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
import uvloop
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from hookd.app import Daemon
from hookd.config import Config, DaemonConfig, LogConfig
from hookd.v1 import hookd_pb2 as pb
from hookd.v1 import hookd_pb2_grpc
from support import DEMO_POLICIES, gemini_payload


def payload(file_path: str) -> bytes:
    body = gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": file_path, "content": "x"})
    return json.dumps(body).encode()


def serve(tmp_path: Path, scenario: Callable[[Daemon, grpc.aio.Channel], Awaitable[Any]]) -> Any:
    runtime = Path(tempfile.mkdtemp(prefix="hkd", dir="/tmp")) / "run"
    config = Config(
        daemon=DaemonConfig(runtime_dir=runtime, policies=DEMO_POLICIES),
        log=LogConfig(path=tmp_path / "decisions.log"),
    )

    async def main() -> Any:
        daemon = Daemon(config)
        running = asyncio.create_task(daemon.run())
        for _ in range(500):
            if config.control_socket.exists():
                break
            assert not running.done(), running
            await asyncio.sleep(0.01)
        try:
            async with grpc.aio.insecure_channel(f"unix:{config.control_socket}") as channel:
                return await asyncio.wait_for(scenario(daemon, channel), 30)
        finally:
            daemon.stop()
            await asyncio.wait_for(running, 30)

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main())


class TestControlServer:
    def test_runs_on_uvloop_and_reports_status(self, tmp_path: Path) -> None:
        async def scenario(daemon: Daemon, channel: grpc.aio.Channel) -> pb.StatusResponse:
            assert type(asyncio.get_running_loop()).__module__.startswith("uvloop")
            return await hookd_pb2_grpc.ControlStub(channel).Status(pb.StatusRequest())

        status = serve(tmp_path, scenario)
        assert status.version == "0.1.0"
        assert status.pid == os.getpid()
        assert status.engine.startswith("rego (embedded regorus")
        (policy_set,) = status.policy_sets
        assert (policy_set.name, policy_set.path, list(policy_set.packages)) == (
            "default",
            str(DEMO_POLICIES.resolve()),
            ["hookd.demo"],
        )
        assert list(status.sandbox_layers) == []
        assert "no Python policies" in status.sandbox_note
        assert status.decision_log.path == str(tmp_path / "decisions.log")

    def test_decide_is_counted_and_logged_and_evaluate_is_not(self, tmp_path: Path) -> None:
        async def scenario(daemon: Daemon, channel: grpc.aio.Channel) -> tuple[Any, ...]:
            control, hook = hookd_pb2_grpc.ControlStub(channel), hookd_pb2_grpc.HookStub(channel)
            decided = await hook.Decide(
                pb.DecideRequest(client="gemini", event="BeforeTool", payload=payload("secret.txt"), ppid=77)
            )
            evaluated = await control.Evaluate(pb.EvaluateRequest(payload=payload("secret.txt")))
            while daemon.decision_log.written < 1:
                await asyncio.sleep(0.01)
            status = await control.Status(pb.StatusRequest())
            return decided, evaluated, status

        decided, evaluated, status = serve(tmp_path, scenario)
        assert decided.decision == "deny"
        assert json.loads(decided.stdout) == {
            "decision": "deny",
            "reason": f"writing secret.txt is not allowed [hookd.demo:no-secret] (decision {decided.decision_id})",
        }
        assert evaluated.decision == "deny"
        assert evaluated.decision_id != decided.decision_id
        assert status.counters.requests == 1
        assert dict(status.counters.decisions) == {"deny": 1}
        (record,) = [json.loads(line) for line in (tmp_path / "decisions.log").read_text().splitlines()]
        assert record["id"] == decided.decision_id
        assert record["via"] == "grpc"
        assert record["caller"] == {"uid": os.getuid(), "gid": os.getgid(), "pid": os.getpid(), "ppid": 77}

    def test_bad_requests_are_invalid_arguments(self, tmp_path: Path) -> None:
        async def scenario(daemon: Daemon, channel: grpc.aio.Channel) -> list[tuple[Any, str]]:
            control, hook = hookd_pb2_grpc.ControlStub(channel), hookd_pb2_grpc.HookStub(channel)
            out = []
            for call in (
                hook.Decide(pb.DecideRequest(client="gemini", event="BeforeTool", payload=b"{oops")),
                hook.Decide(pb.DecideRequest(client="cursor", event="BeforeTool", payload=payload("a"))),
                control.Evaluate(pb.EvaluateRequest(payload=b"{}")),
            ):
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    await call
                out.append((info.value.code(), info.value.details()))
            status = await control.Status(pb.StatusRequest())
            assert dict(status.counters.errors) == {"bad-payload": 2}
            return out

        assert serve(tmp_path, scenario) == [
            (grpc.StatusCode.INVALID_ARGUMENT, "hook payload is not valid JSON: Expecting property name enclosed in "
             "double quotes: line 1 column 2 (char 1)"),
            (grpc.StatusCode.INVALID_ARGUMENT, "unknown client 'cursor' (known: claude, codex, copilot, gemini, qwen)"),
            (grpc.StatusCode.INVALID_ARGUMENT, "the payload has no hook_event_name: set event"),
        ]  # fmt: skip

    def test_health_and_reflection(self, tmp_path: Path) -> None:
        async def scenario(daemon: Daemon, channel: grpc.aio.Channel) -> tuple[Any, ...]:
            health = health_pb2_grpc.HealthStub(channel)
            overall = await health.Check(health_pb2.HealthCheckRequest(service=""))
            control = await health.Check(health_pb2.HealthCheckRequest(service="hookd.v1.Control"))
            stub = reflection_pb2_grpc.ServerReflectionStub(channel)
            call = stub.ServerReflectionInfo()
            await call.write(reflection_pb2.ServerReflectionRequest(list_services=""))
            await call.done_writing()
            answers = [answer async for answer in call]
            names = {s.name for s in answers[0].list_services_response.service}
            return overall.status, control.status, names

        overall, control, names = serve(tmp_path, scenario)
        assert overall == control == health_pb2.HealthCheckResponse.SERVING
        assert {"hookd.v1.Control", "hookd.v1.Hook", "grpc.health.v1.Health"} <= names

    def test_a_connection_that_skips_control_sock_is_refused(self, tmp_path: Path) -> None:
        async def scenario(daemon: Daemon, channel: grpc.aio.Channel) -> tuple[Any, ...]:
            backend = daemon.control.backend_path
            async with grpc.aio.insecure_channel(f"unix:{backend}") as direct:
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    await hookd_pb2_grpc.ControlStub(direct).Status(pb.StatusRequest())
                with pytest.raises(grpc.aio.AioRpcError) as health_info:
                    await health_pb2_grpc.HealthStub(direct).Check(health_pb2.HealthCheckRequest())
            return info.value.code(), info.value.details(), health_info.value.code()

        assert serve(tmp_path, scenario) == (
            grpc.StatusCode.UNAUTHENTICATED,
            "no verified peer: connect through hookd's control.sock",
            grpc.StatusCode.UNAUTHENTICATED,
        )

    def test_shutdown_ends_a_live_stream_and_removes_the_sockets(self, tmp_path: Path) -> None:
        ended: list[Any] = []

        async def scenario(daemon: Daemon, channel: grpc.aio.Channel) -> None:
            call = hookd_pb2_grpc.ControlStub(channel).StreamDecisions(pb.StreamDecisionsRequest())
            await call.initial_metadata()
            assert daemon.decision_log.subscribers == 1

            async def drain() -> None:
                ended.extend([record async for record in call])
                ended.append(await call.code())

            reader = asyncio.create_task(drain())
            daemon.stop()
            await asyncio.wait_for(reader, 10)

        serve(tmp_path, scenario)
        assert ended == [grpc.StatusCode.OK]
