"""`[daemon] workers = 2`: a real daemon and a real worker process share the hook socket. Both decide, one
hash chain logs every decision, a reload and a kill reach the worker, and stopping the daemon stops it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
from bundle_support import events
from load_support import (
    HEADER,
    Load,
    ask,
    is_worker,
    logged_files,
    verify_chain,
    wait_for_lines,
    wait_until_gone,
    worker_pids,
)
from load_support import write_request as write

from hookd import wire
from hookd.procs.child import UNACKED_LIMIT
from hookd.v1 import hookd_pb2 as pb
from hookd.v1 import hookd_pb2_grpc
from support import DEMO_POLICIES, VENV_PYTHON, RunningDaemon, eventually, gemini_payload, start_daemon

TIMEOUT = 30
WORKERS = "[daemon]\nworkers = 2\n"
DENY_OTHER = '\ndeny contains {"id": "no-other", "reason": "no"} if {\n\tinput.tool.input.file_path == "other.txt"\n}\n'


def many(daemon: RunningDaemon, frame: bytes, count: int) -> list[wire.DecodedReply]:
    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(lambda _: ask(daemon.socket, frame), range(count)))


def wait_for_log(daemon: RunningDaemon, text: str, after: int = 0) -> None:
    """Until the daemon's stderr (which its workers share) holds `text` past character `after`."""
    end = time.monotonic() + TIMEOUT
    while text not in daemon.log()[after:]:
        if time.monotonic() > end:
            raise AssertionError(f"{text!r} never appeared in the daemon's log:\n{daemon.log()[-3000:]}")
        time.sleep(0.05)


def reloaded(daemon: RunningDaemon, after: int, worker: int) -> bool:
    """Whether the child of index `worker` logged its reload past character `after` of the daemon's log."""
    for line in daemon.log()[after:].splitlines():
        if '"worker_reloaded"' in line:
            try:
                if json.loads(line).get("worker") == worker:
                    return True
            except ValueError:
                continue
    return False


def status(daemon: RunningDaemon, requests: int = 0) -> pb.StatusResponse:
    """The daemon's Status once its counters hold `requests` (a worker reports its counts every second)."""
    end = time.monotonic() + TIMEOUT
    with grpc.insecure_channel(f"unix:{daemon.control_socket}") as channel:
        control = hookd_pb2_grpc.ControlStub(channel)
        while True:
            response: pb.StatusResponse = control.Status(pb.StatusRequest(), timeout=TIMEOUT)
            if response.counters.requests >= requests or time.monotonic() > end:
                return response
            time.sleep(0.1)


def started(tmp_path: Path, policies: Path = DEMO_POLICIES, config: str = "") -> RunningDaemon:
    daemon = start_daemon(tmp_path, policies, config=WORKERS + config)
    wait_for_log(daemon, '"worker_serving"')
    wait_for_log(daemon, '"lane_serving"')  # its policy workers start before it serves: heavy requests wait
    return daemon


def test_both_processes_decide_and_one_chain_logs_every_decision(tmp_path: Path) -> None:
    daemon = started(tmp_path)
    try:
        replies = many(daemon, write("secret.txt"), 400)
        records = daemon.decisions(at_least=400)
        served = status(daemon, requests=400)
        pids = worker_pids(daemon)
    finally:
        daemon.stop()
    assert {r.status for r in replies} == {wire.Status.OK}
    assert all(b"writing secret.txt is not allowed" in r.stdout for r in replies)
    assert len(records) == 400 and {r["decision"] for r in records} == {"deny"}
    ids = [r["id"] for r in records]
    assert len(set(ids)) == 400
    assert {int(i, 16) % 64 for i in ids} == {0, 1}  # the daemon (slot 0) and its worker (slot 1) both decided
    counters = served.counters
    assert counters.requests == 400 and dict(counters.decisions) == {"deny": 400}  # the worker's too
    assert list(served.worker_pids) == pids and len(pids) == 1 and served.worker_restarts == 0
    verify = subprocess.run(
        [VENV_PYTHON, "-m", "hookd", "log", "verify", str(daemon.decision_log)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert verify.returncode == 0 and "chain intact" in verify.stdout, verify.stdout + verify.stderr


def test_a_reload_reaches_the_worker(tmp_path: Path) -> None:
    policies = tmp_path / "policies"
    shutil.copytree(DEMO_POLICIES, policies)
    rego = policies / "demo" / "policy.rego"
    daemon = started(tmp_path, policies)
    try:
        assert {r.exit_code for r in many(daemon, write("other.txt"), 40)} == {0}
        mark = len(daemon.log())
        rego.write_text(rego.read_text() + DENY_OTHER)
        daemon.proc.send_signal(signal.SIGHUP)
        # the worker's own (slot 1): the lanes reload too, each in its own time (a busy box: seconds apart)
        eventually(lambda: reloaded(daemon, mark, 1), timeout=TIMEOUT, what="the worker reloaded")
        replies = many(daemon, write("other.txt"), 200)
        records = daemon.decisions(at_least=240)
    finally:
        daemon.stop()
    not_denied = [
        (r.status.name, r.stdout[:120], r.stderr[:120]) for r in replies if b'"decision":"deny"' not in r.stdout
    ]
    old = [r["id"] for r in records[40:] if r["decision"] != "deny"]
    assert not not_denied, (
        f"{len(not_denied)} replies not denied (decided on the old policies: {old}): {not_denied[:3]}"
    )
    assert {int(r["id"], 16) % 64 for r in records[40:]} == {0, 1}


def test_a_worker_that_dies_is_started_again(tmp_path: Path) -> None:
    daemon = started(tmp_path)
    try:
        (first,) = worker_pids(daemon)
        mark = len(daemon.log())
        os.kill(first, signal.SIGKILL)
        during = many(daemon, write("secret.txt"), 50)  # the daemon answers meanwhile
        wait_for_log(daemon, '"worker_serving"', mark)
        (second,) = worker_pids(daemon)
        after = many(daemon, write("secret.txt"), 200)
        records = daemon.decisions(at_least=250)
        served = status(daemon)
    finally:
        daemon.stop()
    assert second != first
    assert list(served.worker_pids) == [second] and served.worker_restarts == 1
    assert {r.status for r in during + after} == {wire.Status.OK}
    assert '"worker_exited"' in daemon.log()
    assert {int(r["id"], 16) % 64 for r in records[50:]} == {0, 1}


def test_stopping_the_daemon_stops_its_worker_and_keeps_every_record(tmp_path: Path) -> None:
    daemon = started(tmp_path)
    (worker,) = worker_pids(daemon)
    many(daemon, write("secret.txt"), 300)
    assert daemon.stop() == 0
    assert not is_worker(worker)
    records = daemon.decisions(at_least=300)
    assert len(records) == 300


def test_a_worker_outlives_no_killed_daemon(tmp_path: Path) -> None:
    """SIGKILL gives the daemon no chance to stop its worker: the worker sees its channel close and exits."""
    daemon = started(tmp_path)
    (worker,) = worker_pids(daemon)
    many(daemon, write("secret.txt"), 20)
    daemon.stop(signal.SIGKILL)
    end = time.monotonic() + TIMEOUT
    while is_worker(worker):
        assert time.monotonic() < end, "the worker kept running after its daemon was killed"
        time.sleep(0.05)


def test_a_record_far_larger_than_a_line_buffer_crosses_the_channel(tmp_path: Path) -> None:
    """A decision whose record is ~200 KB (forty 4,000-character strings: each is cut at 4,096, none is
    masked away) comes back from the worker whole; asyncio's default line limit is 64 KiB. The lane decides
    them one at a time: a generous deadline, so that on a loaded box none is cut short before its record."""
    daemon = started(tmp_path, config=f"request_timeout_ms = {(TIMEOUT - 5) * 1000}\n")
    big = {f"field_{i}": "y" * 4000 for i in range(50)}
    payload = gemini_payload("BeforeTool", tool_name="custom_tool", tool_input=big)
    frame = wire.encode_request(HEADER, json.dumps(payload).encode())
    try:
        replies = many(daemon, frame, 60)
        records = daemon.decisions(at_least=60, timeout=TIMEOUT)  # 12 MB of records on a busy box
        served = status(daemon, requests=60)
    finally:
        daemon.stop()
    assert {r.status for r in replies} == {wire.Status.OK}
    assert len(records) == 60 and all(len(r["input"]["tool"]["input"]) == 50 for r in records)
    assert {int(r["id"], 16) % 64 for r in records} == {2}  # a 200 KB payload is the lane's (slot 2) to decide
    assert served.worker_restarts == 0 and '"worker_channel_failed"' not in daemon.log()


def test_with_a_tiny_queue_every_decision_is_written_or_counted_in_a_gap(tmp_path: Path) -> None:
    """[log] queue_size = 1 in both processes: a burst overflows the queues; each decision is then either in
    the chain or counted by a gap record, and the chain stays intact."""
    daemon = start_daemon(tmp_path, DEMO_POLICIES, config="[daemon]\nworkers = 2\n[log]\nqueue_size = 1\n")
    wait_for_log(daemon, '"worker_serving"')
    try:
        many(daemon, write("secret.txt"), 300)

        def accounted() -> list[dict[str, Any]]:  # the worker reports its drops with its counts, each second
            lines = [json.loads(x) for x in daemon.decision_log.read_text().splitlines()]
            decided = sum(1 for r in lines if r["type"] == "decision")
            return lines if decided + sum(r["dropped"] for r in lines if r["type"] == "gap") >= 300 else []

        lines = eventually(accounted, timeout=30, what="every decision written or counted in a gap")
    finally:
        daemon.stop()
    decided = sum(1 for r in lines if r["type"] == "decision")
    dropped = sum(r["dropped"] for r in lines if r["type"] == "gap")
    assert decided + dropped == 300, (decided, dropped)


def test_a_worker_that_cannot_start_is_retried_with_backoff_while_the_daemon_serves(tmp_path: Path) -> None:
    """The policy files break after the daemon loaded them; a worker started now fails at once, again and again,
    each time after a longer pause, and comes back once the files are fixed. The daemon decides meanwhile."""
    policies = tmp_path / "policies"
    shutil.copytree(DEMO_POLICIES, policies)
    rego = policies / "demo" / "policy.rego"
    good = rego.read_text()
    daemon = started(tmp_path, policies)
    try:
        (first,) = worker_pids(daemon)
        rego.write_text(good + "\nthis is not rego\n")
        os.kill(first, signal.SIGKILL)
        end = time.monotonic() + TIMEOUT
        while len(exits := [e for e in events(daemon) if e.get("event") == "worker_exited"]) < 3:
            assert time.monotonic() < end, daemon.log()[-3000:]
            time.sleep(0.1)
        assert '"worker_start_failed"' in daemon.log()
        answered = many(daemon, write("secret.txt"), 20)
        rego.write_text(good)
        mark = len(daemon.log())
        wait_for_log(daemon, '"worker_serving"', mark)
    finally:
        daemon.stop()
    delays = [e["restart_in_s"] for e in exits[:3]]
    assert delays == sorted(delays) and delays[-1] > delays[0], delays  # 1 s, then longer each failed start
    assert all(b"writing secret.txt is not allowed" in r.stdout for r in answered)


def test_a_daemon_killed_under_load_leaves_nothing_answering_unaudited_and_restarts(tmp_path: Path) -> None:
    """SIGKILL mid-load: from then on no request gets an answer (the worker dies with its daemon, whichever of
    its death signal and the channel's end comes first), a new daemon starts on the same socket at once, the
    chain is intact, and at most the requests in flight at the kill lost their record (docs/decision-log.md)."""
    daemon = started(tmp_path)
    workers = worker_pids(daemon)
    load = Load(daemon)
    try:
        wait_for_lines(daemon, 300)
        daemon.stop(signal.SIGKILL)
        killed = time.monotonic()
        wait_until_gone(workers)
        time.sleep(0.3)  # the clients keep asking the dead daemon's socket meanwhile
    finally:
        load.stop()
    env = {"XDG_STATE_HOME": str(daemon.state_dir)}
    restarted = start_daemon(tmp_path, DEMO_POLICIES, config=WORKERS, runtime_dir=daemon.runtime_dir, env=env)
    try:
        wait_for_log(restarted, '"worker_serving"')
        after = many(restarted, write("after.txt"), 40)
        served = status(restarted)
    finally:
        restarted.stop()
    answered = load.answered()
    assert not [name for sent, name in answered if sent > killed], "answers after the daemon was killed"
    logged = logged_files(restarted)
    lost = [name for _, name in answered if name not in logged]
    # the daemon's own in flight (8 clients), and the worker's: in flight, or not yet in the daemon's queue
    assert len(lost) <= 8 + 8 + UNACKED_LIMIT, lost
    assert {r.status for r in after} == {wire.Status.OK} and "after.txt" in logged
    assert len(served.worker_pids) == 1 and served.worker_pids[0] not in workers
    verify_chain(restarted)
