"""A worker process cut off from its daemon: it dies with it (the kernel's death signal) and, whichever comes
first, refuses every request once its records cannot reach the daemon's writer (hookd.procs.child)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from hookd.audit.chain import Encoded
from hookd.config import parse_config
from hookd.errors import Unavailable
from hookd.procs import journal as journal_files
from hookd.procs.child import UNACKED_LIMIT, WorkerProcess, die_with
from hookd.types import Caller, Deadline, HookRequest, settled

TIMEOUT = 10
# A parent that starts a child which asks to die with it, prints the child's pid and then waits to be killed.
PARENT = """
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", CHILD, str(os.getpid())])
print(child.pid, flush=True)
time.sleep(60)
"""
CHILD = """
import sys, time
from hookd.procs.child import die_with
assert die_with(int(sys.argv[1]))
time.sleep(60)
"""


def request(path: str = "a.txt") -> HookRequest:
    payload = {"hook_event_name": "BeforeTool", "session_id": "s", "cwd": "/tmp", "tool_name": "read_file"}
    payload["tool_input"] = {"file_path": path}
    now = time.monotonic()
    return HookRequest(
        client="gemini", event="BeforeTool", payload=json.dumps(payload).encode(), env={}, cwd="/tmp",
        caller=Caller(uid=0, gid=0, pid=1), deadline=Deadline(now + TIMEOUT), received_at=now,
    )  # fmt: skip


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def test_a_worker_dies_with_its_parent_even_when_nothing_else_tells_it() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT.replace("CHILD", repr(CHILD))], stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    assert alive(child)
    parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=TIMEOUT)
    end = time.monotonic() + TIMEOUT
    while alive(child):
        assert time.monotonic() < end, "the child outlived its killed parent"
        time.sleep(0.01)


def test_die_with_says_when_the_parent_is_already_gone() -> None:
    assert die_with(os.getppid())
    assert not die_with(os.getppid() + 1_000_000)


@pytest.fixture
def worker() -> WorkerProcess:
    return WorkerProcess(parse_config({}), 1)


async def serve(worker: WorkerProcess) -> tuple[asyncio.Task[None], socket.socket, socket.socket]:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind("\0hookd-test-worker-" + str(os.getpid()))
    listener.listen()
    daemon_end, worker_end = socket.socketpair()
    task = asyncio.get_running_loop().create_task(worker.run(listener, worker_end))
    await asyncio.sleep(0.1)
    return task, daemon_end, listener


def test_a_worker_whose_channel_ends_refuses_requests_and_stops(worker: WorkerProcess) -> None:
    asyncio.run(channel_ends(worker))


async def channel_ends(worker: WorkerProcess) -> None:
    task, daemon_end, _ = await serve(worker)
    await settled(worker.decider.handle(request()))  # answered while the channel is up
    daemon_end.close()  # the daemon is gone
    await asyncio.wait_for(task, TIMEOUT)
    with pytest.raises(Unavailable, match="cannot log decisions"):
        await settled(worker.decider.handle(request()))


def test_a_worker_holds_replies_while_its_records_are_not_acknowledged() -> None:
    """A daemon that reads the records but says nothing: the first UNACKED_LIMIT replies go out, the next waits
    and is refused at its deadline; once the daemon acknowledges them, replies go out again."""
    asyncio.run(unacknowledged(WorkerProcess(parse_config({}), 1)))


async def unacknowledged(worker: WorkerProcess) -> None:
    task, daemon_end, _ = await serve(worker)
    daemon = await asyncio.open_unix_connection(sock=daemon_end)
    try:
        for n in range(UNACKED_LIMIT):
            await settled(worker.decider.handle(request(f"f{n}")))
        late = replace(request(), deadline=Deadline.after(0.3))
        with pytest.raises(Unavailable, match="not taking its decision records"):
            await settled(worker.decider.handle(late))
        daemon[1].write(b'{"t": "ack", "n": 100}\n')
        await asyncio.wait_for(settled(worker.decider.handle(request())), TIMEOUT)
    finally:
        daemon[1].close()
        await asyncio.wait_for(task, TIMEOUT)


def test_a_reply_refused_for_want_of_an_acknowledgement_is_logged_as_the_fail_mode() -> None:
    """The refused request's record reaches the daemon once it reads again, and says what the agent got: the
    event's fail mode (a deny for BeforeTool), never the allow the policies gave."""
    asyncio.run(refused_record(WorkerProcess(parse_config({}), 1)))


async def refused_record(worker: WorkerProcess) -> None:
    task, daemon_end, _ = await serve(worker)
    reader, writer = await asyncio.open_unix_connection(sock=daemon_end)
    try:
        for n in range(UNACKED_LIMIT):
            await settled(worker.decider.handle(request(f"f{n}")))
        with pytest.raises(Unavailable):
            await settled(worker.decider.handle(replace(request("refused.txt"), deadline=Deadline.after(0.3))))
        writer.write(b'{"t": "ack", "n": 100}\n')
        records = {}
        while "refused.txt" not in records:
            message = json.loads(await asyncio.wait_for(reader.readline(), TIMEOUT))
            if message["t"] == "d":  # the record follows, encoded, in two lines
                halves = [(await asyncio.wait_for(reader.readline(), TIMEOUT)).decode().strip() for _ in "ab"]
                message["r"] = Encoded(*halves).record(1)
                records[message["r"]["input"]["tool"]["input"]["file_path"]] = message
        refused = records["refused.txt"]
        assert (refused["r"]["decision"], refused["c"][1], refused["c"][3]) == ("deny", "DENY", True)
        assert "not taking its decision records" in refused["r"]["reason"]
        assert records["f0"]["r"]["decision"] == "allow"
    finally:
        writer.close()
        await asyncio.wait_for(task, TIMEOUT)


class Channel:
    """The daemon's end of a channel, as the record sender writes to it (asyncio.StreamWriter's write calls)."""

    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data

    def writelines(self, lines: list[bytes]) -> None:
        self.data += b"".join(lines)

    def records(self) -> list[dict[str, object]]:
        lines, found = self.data.decode().splitlines(), []
        for n, text in enumerate(lines):
            if json.loads(text).get("t") == "d":  # the record follows, encoded, in two lines
                found.append(Encoded(lines[n + 1], lines[n + 2]).record(1))
        return found


def chunk_request(n: int, *, final: bool) -> HookRequest:
    candidate: dict[str, object] = {"content": {"role": "model", "parts": [{"text": f"word{n} "}]}}
    if final:
        candidate["finishReason"] = "STOP"
    payload = {"hook_event_name": "AfterModel", "session_id": "s", "cwd": "/tmp", "llm_request": {"model": "m"},
               "llm_response": {"candidates": [candidate]}}  # fmt: skip
    return replace(request(), event="AfterModel", payload=json.dumps(payload).encode())


def test_the_stream_lane_folds_a_chunk_of_an_open_response_as_it_is_decided() -> None:
    """Only a response's first and last chunks are queued for the record sender (its task woken); the others are
    folded into the response's record as they are decided. The daemon gets that one record, every chunk in it."""
    journal = journal_files.create([])
    try:
        asyncio.run(folded_chunks(WorkerProcess(parse_config({}), 2, lane=True, journal=journal)))
    finally:
        journal_files.close(journal)


async def folded_chunks(worker: WorkerProcess) -> None:
    channel, queued = Channel(), []
    for n in range(5):
        await settled(worker.decider.handle(chunk_request(n, final=n == 4)))
        queued.append(len(worker._sink))
        worker._flush(channel)  # type: ignore[arg-type]  # what the sender does once woken
    assert queued == [1, 0, 0, 0, 1]
    (record,) = channel.records()
    assert record["event"] == "AfterModel" and record["decision"] == "allow"
    assert isinstance(record["stream"], dict) and (record["stream"]["chunks"], record["stream"]["ended"]) == (5, "end")
