"""The control plane's Decide is routed as the agents' hook requests are (issue 25): a heavy one (a 250-path
`rm -rf`, over `[limits] lane_command_tokens`) is decided and recorded by the lane, never on the daemon's
event loop, so one Decide client's flood of heavy requests does not hold up another session's hook requests.

Asserted, as conditions: every heavy Decide was decided by the lane (its record carries the lane's slot of the
decision ids), each answered its policies' deny or refused (`busy`, never an allow), and every one of the other
session's hook requests was answered with its own policies' decision. The other session's latency, alone and
beside the flood, is printed as a `RELIABILITY decide-fairness` line for docs/reliability.md, never asserted."""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from pathlib import Path

import grpc
from load_support import lane_pid, timed_ask

from hookd import wire
from hookd.config import MAX_WORKERS
from hookd.v1 import hookd_pb2 as pb
from hookd.v1 import hookd_pb2_grpc
from support import RunningDaemon, eventually, gemini_payload, start_daemon

TIMEOUT = 30
SECONDS = 4.0
DECIDERS = 4  # the flooding client's heavy Decides in flight at once
VICTIM_RATE = 50
LANE_SLOT = 1  # with one deciding process, the lane has slot 1 of the decision ids (hookd.audit.ids)
HEAVY = json.dumps(
    gemini_payload("BeforeTool", tool_name="run_shell_command", session_id="flood",
                   tool_input={"command": "rm -rf " + " ".join(f"/srv/d{i}" for i in range(250))})
).encode()  # fmt: skip


def light(i: int) -> bytes:
    payload = gemini_payload("BeforeTool", tool_name="run_shell_command", tool_input={"command": f"ls -la d{i}"},
                             session_id="other")  # fmt: skip
    header = {"client": "gemini", "event": "BeforeTool", "cwd": "/tmp", "ppid": 7, "env": {"HOME": "/root"}}
    return wire.encode_request(header, json.dumps(payload).encode())


async def run(daemon: RunningDaemon, deciders: int) -> tuple[list[tuple[float, wire.DecodedReply | None]], list[str]]:
    """The other session's hook requests at VICTIM_RATE for SECONDS, beside `deciders` heavy Decides in flight."""
    end = time.monotonic() + SECONDS
    other: list[tuple[float, wire.DecodedReply | None]] = []
    decided: list[str] = []  # each heavy Decide's decision id, or its refusal's status code

    async def decider(stub: hookd_pb2_grpc.HookStub) -> None:
        while time.monotonic() < end:
            request = pb.DecideRequest(client="gemini", event="BeforeTool", payload=HEAVY, env={"HOME": "/root"},
                                       ppid=4242)  # fmt: skip
            try:
                reply = await stub.Decide(request, timeout=TIMEOUT)
                assert reply.decision == "deny" and b"rm is not allowed" in reply.stdout, reply
                decided.append(reply.decision_id)
            except grpc.aio.AioRpcError as exc:
                decided.append(exc.code().name)

    async def victim() -> None:
        start, i = time.monotonic(), 0
        while time.monotonic() < end:
            await asyncio.sleep(max(0.0, start + i / VICTIM_RATE - time.monotonic()))
            other.append(await timed_ask(daemon.socket, light(i)))
            i += 1

    async with grpc.aio.insecure_channel(f"unix:{daemon.control_socket}") as channel:
        stub = hookd_pb2_grpc.HookStub(channel)
        await asyncio.gather(victim(), *(decider(stub) for _ in range(deciders)))
    return other, decided


def figures(other: list[tuple[float, wire.DecodedReply | None]]) -> str:
    times = sorted(ms for ms, _ in other)
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    return f"{len(times)} requests: p50 {statistics.median(times):.1f} ms, p99 {p99:.1f} ms, max {times[-1]:.1f} ms"


def test_one_clients_heavy_decides_are_the_lanes_and_hold_up_no_other_session(tmp_path: Path) -> None:
    daemon = start_daemon(tmp_path)
    try:
        eventually(lambda: lane_pid(daemon), timeout=TIMEOUT, what="the lane process")
        eventually(lambda: '"lane_serving"' in daemon.log(), timeout=TIMEOUT, what="the lane serving")
        alone, _ = asyncio.run(run(daemon, 0))
        other, decided = asyncio.run(run(daemon, DECIDERS))
        ids = [d for d in decided if not d.isupper()]
        records = {r["id"]: r for r in daemon.decisions(at_least=len(ids) + len(alone) + len(other))}
    finally:
        daemon.stop()
    refused = sorted(d for d in decided if d.isupper())
    print(
        f"RELIABILITY decide-fairness: the other session alone {figures(alone)}; beside {DECIDERS} heavy Decides "
        f"in flight {figures(other)}; heavy Decides {len(ids)} decided, refused {refused or 'none'}"
    )
    assert ids, "no heavy Decide was decided"
    assert set(refused) <= {"RESOURCE_EXHAUSTED"}, refused  # only `busy`: never a deadline, never an allow
    slots = {int(i, 16) % MAX_WORKERS for i in ids}
    assert slots == {LANE_SLOT}, f"heavy Decides decided by slots {slots}, not only the lane's ({LANE_SLOT})"
    assert all(records[i]["via"] == "grpc" for i in ids)
    unanswered = [(ms, r) for ms, r in other if r is None or r.status is not wire.Status.OK]
    assert not unanswered, f"{len(unanswered)} of the other session's requests not served: {unanswered[:3]}"
    assert {r.stdout for _, r in other if r is not None} <= {b"", b"{}"}
