"""The control server in-process, on uvloop beside the hook server: every call through control.sock with
a real grpc.aio client, the peer check, health and reflection, and the gRPC backend that runs only while
control.sock has connections."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import stat
import subprocess
import sys
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
from hookd.control import server as control_server
from hookd.v1 import hookd_pb2 as pb
from hookd.v1 import hookd_pb2_grpc
from support import DEMO_POLICIES, gemini_payload


def payload(file_path: str) -> bytes:
    body = gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": file_path, "content": "x"})
    return json.dumps(body).encode()


def serve(tmp_path: Path, scenario: Callable[[Daemon, grpc.aio.Channel], Awaitable[Any]]) -> Any:
    async def with_channel(daemon: Daemon) -> Any:
        async with grpc.aio.insecure_channel(f"unix:{daemon.config.control_socket}") as channel:
            return await scenario(daemon, channel)

    return run_daemon(tmp_path, with_channel)


def run_daemon(tmp_path: Path, scenario: Callable[[Daemon], Awaitable[Any]], *, quiet: bool = False) -> Any:
    """`scenario` against a daemon on this process's loop. `quiet`: first wait until the process runs no gRPC
    thread (a channel of an earlier test may hold some until it is collected)."""
    runtime = Path(tempfile.mkdtemp(prefix="hkd", dir="/tmp")) / "run"
    config = Config(
        daemon=DaemonConfig(runtime_dir=runtime, policies=DEMO_POLICIES),
        log=LogConfig(path=tmp_path / "decisions.log"),
    )

    async def main() -> Any:
        if quiet:
            await until(lambda: gc.collect() >= 0 and not grpc_threads(), "the gRPC threads of earlier tests to end")
        daemon = Daemon(config)
        running = asyncio.create_task(daemon.run())
        for _ in range(500):
            if config.control_socket.exists():
                break
            assert not running.done(), running
            await asyncio.sleep(0.01)
        try:
            return await asyncio.wait_for(scenario(daemon), 60)
        finally:
            daemon.stop()
            await asyncio.wait_for(running, 30)

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main())


# A channel of its own connection: gRPC shares one between channels to the same address (and one that
# failed stays in backoff for the next channel).
OWN_CONNECTION = [("grpc.use_local_subchannel_pool", 1)]
GRPC_THREADS = ("event_engine", "grpc_global_tim", "lifeguard")  # gRPC core's (C++: not in threading)


def grpc_threads() -> list[str]:
    names = []
    for comm in Path("/proc/self/task").glob("*/comm"):
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            name = comm.read_text().strip()
            if name.startswith(GRPC_THREADS):
                names.append(name)
    return sorted(names)


async def until(condition: Callable[[], bool], what: str, timeout: float = 15) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.02)


async def hookd_status(daemon: Daemon) -> str:
    """`hookd status` in a process of its own (whose gRPC client threads are not this process's)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "hookd", "status", "--runtime-dir", str(daemon.config.daemon.runtime_dir),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "HOOKD_CONFIG": ""},
    )  # fmt: skip
    try:
        out, err = await asyncio.wait_for(proc.communicate(), 30)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 0, err.decode()
    return out.decode()


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
            (grpc.StatusCode.INVALID_ARGUMENT,
             "unknown client 'cursor' (known: claude, codex, copilot, droid, gemini, kilo, opencode, qwen)"),
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
            await hookd_pb2_grpc.ControlStub(channel).Status(pb.StatusRequest())  # the backend is up now
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


class TestBackendOnDemand:
    """The grpc.aio server (and gRPC core's threads, which cost CPU every second) runs only while it is used."""

    def test_nothing_of_grpc_runs_until_the_first_control_connection(self, tmp_path: Path) -> None:
        async def scenario(daemon: Daemon) -> None:
            control = daemon.control
            assert grpc_threads() == []
            assert not control.backend_path.exists()
            assert not control.backend_running
            assert "hookd 0.1.0" in await hookd_status(daemon)
            assert control.backend_running and control.backend_starts == 1
            info = control.backend_path.stat()
            assert stat.S_ISSOCK(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o600
            assert grpc_threads() != []

        run_daemon(tmp_path, scenario, quiet=True)

    def test_it_stops_when_idle_and_a_later_call_starts_it_again(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
    ) -> None:
        monkeypatch.setattr(control_server, "IDLE_STOP_S", 0.2)

        # `hookd status` connects twice (a plain probe, then gRPC's after its import), which on a loaded box
        # can be further apart than the idle stop: a plain connection held meanwhile keeps the first call on
        # one backend, whatever the box's speed.
        async def scenario(daemon: Daemon) -> None:
            control = daemon.control
            _, held = await asyncio.open_unix_connection(str(daemon.config.control_socket))
            await until(lambda: control.backend_running, "the held connection to start the backend")
            assert "hookd 0.1.0" in await hookd_status(daemon)
            assert control.backend_running and control.backend_starts == 1
            held.close()
            await until(lambda: not control.backend_running and not control.backend_path.exists(), "an idle stop")
            await until(lambda: grpc_threads() == [], "gRPC's threads to end")
            assert "hookd 0.1.0" in await hookd_status(daemon)  # served: a backend was started again
            assert control.backend_starts >= 2

        run_daemon(tmp_path, scenario, quiet=True)
        out = capfd.readouterr().out
        started = out.count("control_backend_started")
        assert started >= 2
        assert out.count("control_backend_stopped") == started  # each idle, the last one's or the daemon's

    def test_a_live_stream_keeps_it_up(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(control_server, "IDLE_STOP_S", 0.05)

        async def scenario(daemon: Daemon, channel: grpc.aio.Channel) -> pb.DecisionRecord:
            loop = asyncio.get_running_loop()
            call = hookd_pb2_grpc.ControlStub(channel).StreamDecisions(pb.StreamDecisionsRequest())
            await call.initial_metadata()
            begun = loop.time()
            for _ in range(3):  # other connections come and go meanwhile
                await hookd_status(daemon)
            assert loop.time() - begun > 4 * control_server.IDLE_STOP_S
            assert daemon.control.backend_running and daemon.control.backend_starts == 1
            await hookd_pb2_grpc.HookStub(channel).Decide(
                pb.DecideRequest(client="gemini", event="BeforeTool", payload=payload("secret.txt"))
            )
            record: pb.DecisionRecord = await asyncio.wait_for(call.read(), 10)
            assert daemon.control.backend_starts == 1
            call.cancel()
            return record

        assert serve(tmp_path, scenario).decision == "deny"

    def test_concurrent_first_connections_start_one_backend(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        callers = 8
        started: list[int] = []
        start = control_server.ControlServer._start_backend

        async def slow_start(self: control_server.ControlServer) -> None:
            started.append(len(self._tasks))
            await until(lambda: len(self._tasks) >= callers, "every caller's connection")  # all of them wait
            await start(self)

        monkeypatch.setattr(control_server.ControlServer, "_start_backend", slow_start)

        async def scenario(daemon: Daemon) -> list[int]:
            address = f"unix:{daemon.config.control_socket}"
            channels = [grpc.aio.insecure_channel(address, options=OWN_CONNECTION) for _ in range(callers)]
            try:
                answers = await asyncio.gather(
                    *(hookd_pb2_grpc.ControlStub(c).Status(pb.StatusRequest(), timeout=20) for c in channels)
                )
            finally:
                await asyncio.gather(*(c.close() for c in channels))
            assert daemon.control.backend_starts == 1
            return [answer.pid for answer in answers]

        assert run_daemon(tmp_path, scenario) == [os.getpid()] * callers
        assert len(started) == 1

    def test_a_connection_during_an_idle_stop_gets_a_new_backend(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(control_server, "IDLE_STOP_S", 0.05)
        stop = control_server.ControlServer._stop_backend
        stopping = asyncio.Event()

        async def held_stop(self: control_server.ControlServer, grace: float | None) -> None:
            if self._grpc is not None and not self._closing:
                stopping.set()
                await until(lambda: self._users == 1, "a connection waiting for the backend")
            await stop(self, grace)

        monkeypatch.setattr(control_server.ControlServer, "_stop_backend", held_stop)

        async def scenario(daemon: Daemon) -> int:
            socket_path = f"unix:{daemon.config.control_socket}"
            async with grpc.aio.insecure_channel(socket_path) as first:
                await hookd_pb2_grpc.ControlStub(first).Status(pb.StatusRequest(), timeout=20)
            await asyncio.wait_for(stopping.wait(), 15)  # the idle stop has begun, and waits for the next caller
            async with grpc.aio.insecure_channel(socket_path, options=OWN_CONNECTION) as second:
                answer = await hookd_pb2_grpc.ControlStub(second).Status(pb.StatusRequest(), timeout=20)
            assert daemon.control.backend_starts == 2
            return int(answer.pid)

        assert run_daemon(tmp_path, scenario) == os.getpid()

    def test_a_backend_that_fails_to_start_refuses_that_connection_only(
        self, tmp_path: Path, capfd: pytest.CaptureFixture[str]
    ) -> None:
        async def scenario(daemon: Daemon) -> int:
            daemon.control.backend_path.mkdir()  # what grpc.sock cannot replace
            socket_path = f"unix:{daemon.config.control_socket}"
            async with grpc.aio.insecure_channel(socket_path) as first:
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    await hookd_pb2_grpc.ControlStub(first).Status(pb.StatusRequest(), timeout=20)
            assert info.value.code() == grpc.StatusCode.UNAVAILABLE
            assert not daemon.control.backend_running
            daemon.control.backend_path.rmdir()
            async with grpc.aio.insecure_channel(socket_path, options=OWN_CONNECTION) as second:
                answer = await hookd_pb2_grpc.ControlStub(second).Status(pb.StatusRequest(), timeout=20)
            return int(answer.pid)

        assert run_daemon(tmp_path, scenario) == os.getpid()
        assert "control_backend_unreachable" in capfd.readouterr().out
