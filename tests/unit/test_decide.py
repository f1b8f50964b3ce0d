"""The one Decider of every deciding process: decided and recorded in the call when the engine answers in the
call, one awaitable otherwise; the recorder admits the request first and may make the reply wait for room; a
heavy request goes to the lane before it is parsed."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from dataclasses import replace
from pathlib import Path

import pytest

from hookd.config import DEFAULT_FAIL_MODES, Config, LimitsConfig
from hookd.decide import Decider
from hookd.dialects.gemini import GeminiDialect
from hookd.errors import LaneRefused, Unavailable
from hookd.lane import Lane
from hookd.pipeline import AskPolicy, Pipeline
from hookd.policy.holder import PolicySetHolder
from hookd.testing import StaticEngine, make_request
from hookd.transport.hook_server import ServerStats
from hookd.types import Deadline, Handled, Reply, Verdict, VerdictKind, settled

DENY = Verdict(VerdictKind.DENY, "hookd.x", "r", "denied by the test")


class Recorded:
    """A recorder that keeps what it is given; `refuse` makes it refuse admission, `later` makes it take each
    record through an awaitable (a worker whose records the daemon has not acknowledged)."""

    def __init__(self, *, refuse: str = "", later: Exception | None = None) -> None:
        self.records: list[tuple[Handled, str]] = []
        self.refuse = refuse
        self.later = later

    def admit(self) -> None:
        if self.refuse:
            raise Unavailable(self.refuse)

    def open_records(self) -> None:
        return None  # every decision is recorded whole

    def record(self, handled: Handled, via: str, deadline: Deadline) -> Awaitable[None] | None:
        if self.later is None:
            self.records.append((handled, via))
            return None
        return self._when_room(handled, via, self.later)

    async def _when_room(self, handled: Handled, via: str, error: Exception) -> None:
        self.records.append((handled, via))
        raise error


def decider(engine: StaticEngine, recorder: Recorded, lane: Lane | None = None) -> Decider:
    pipeline = Pipeline(
        {"gemini": GeminiDialect()}, [], PolicySetHolder(engine), DEFAULT_FAIL_MODES, AskPolicy(), lambda _pid: True,
        lambda: "id",
    )  # fmt: skip
    return Decider(Config(), pipeline, recorder, ServerStats(), lane)


def shell(command: str = "ls") -> bytes:
    body = {"session_id": "s1", "cwd": "/home/alice/proj", "hook_event_name": "BeforeTool"}
    return json.dumps({**body, "tool_name": "run_shell_command", "tool_input": {"command": command}}).encode()


def test_an_engine_answering_in_the_call_is_decided_and_recorded_in_the_call() -> None:
    recorder = Recorded()
    reply = decider(StaticEngine([DENY], awaited=False), recorder).handle(make_request("BeforeTool", payload=shell()))
    assert isinstance(reply, Reply) and b"denied by the test" in reply.stdout
    assert [(handled.decision.outcome.name, via) for handled, via in recorder.records] == [("DENY", "socket")]


def test_an_awaited_engine_is_decided_and_recorded_when_awaited_alike() -> None:
    recorder = Recorded()
    now = decider(StaticEngine([DENY], awaited=False), Recorded()).handle(make_request("BeforeTool", payload=shell()))
    later = decider(StaticEngine([DENY]), recorder).handle(make_request("BeforeTool", payload=shell()))
    assert isinstance(later, Awaitable) and not recorder.records
    assert asyncio.run(settled(later)) == now and len(recorder.records) == 1


def test_a_request_the_recorder_does_not_admit_is_not_decided() -> None:
    engine = StaticEngine([], awaited=False)
    with pytest.raises(Unavailable, match="cannot log"):
        decider(engine, Recorded(refuse="cannot log")).handle(make_request("BeforeTool", payload=shell()))
    assert not engine.requests


def test_a_reply_waits_for_its_record_and_is_refused_with_it() -> None:
    recorder = Recorded(later=Unavailable("the daemon is not taking its records"))
    reply = decider(StaticEngine([], awaited=False), recorder).handle(make_request("BeforeTool", payload=shell()))
    assert isinstance(reply, Awaitable)
    with pytest.raises(Unavailable, match="not taking"):
        asyncio.run(settled(reply))
    assert len(recorder.records) == 1


def test_a_heavy_request_goes_to_the_lane_before_it_is_parsed(tmp_path: Path) -> None:
    """A payload over `lane_payload_bytes` is the lane's however it reads: not even parsed here (this one is
    not JSON). No lane listens, so it waits for one until its deadline and gets the fail mode's error."""
    engine = StaticEngine([], awaited=False)
    lane = Lane(tmp_path / "lane.sock", LimitsConfig(lane_payload_bytes=64), 1 << 16)
    request = replace(make_request("BeforeTool", payload=b"{" * 65), deadline=Deadline.after(0.2))
    forwarded = decider(engine, Recorded(), lane).handle(request)
    assert isinstance(forwarded, Awaitable)
    with pytest.raises(LaneRefused, match="did not decide"):
        asyncio.run(settled(forwarded))
    assert not engine.requests


def test_a_parsed_request_that_is_heavy_goes_to_the_lane(tmp_path: Path) -> None:
    engine = StaticEngine([], awaited=False)
    lane = Lane(tmp_path / "lane.sock", LimitsConfig(lane_command_tokens=4), 1 << 16)
    light = decider(engine, Recorded(), lane).handle(make_request("BeforeTool", payload=shell("ls -la")))
    assert isinstance(light, Reply) and len(engine.requests) == 1
    request = replace(make_request("BeforeTool", payload=shell("rm a b c d e f")), deadline=Deadline.after(0.2))
    heavy = decider(engine, Recorded(), lane).handle(request)
    assert isinstance(heavy, Awaitable)
    with pytest.raises(LaneRefused, match="did not decide"):
        asyncio.run(settled(heavy))
    assert len(engine.requests) == 1
