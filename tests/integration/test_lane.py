"""The lane: a real daemon sends heavy requests ([limits] lane_*) to its lane process, which decides and logs
them for the sender, while the daemon goes on answering the light ones; a stopped or killed lane costs
only the heavy requests (the event's fail mode), never the others, and never an allow."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from load_support import HEADER, STREAM_LANE, ask, is_lane, lane_pid, worker_pids
from load_support import write_request as write

from hookd import wire
from hookd.config import MAX_WORKERS
from hookd.lane import IN_FLIGHT, LANE_SLOTS
from support import (
    VENV_PYTHON,
    RunningDaemon,
    eventually,
    eventually_async,
    free_port,
    gemini_payload,
    require,
    scrape,
    start_daemon,
)

TIMEOUT = 30
LANE_SLOT = 1  # with one deciding process, the lane has slot 1 of the decision ids (hookd.audit.ids)


def shell(command: str) -> bytes:
    payload = gemini_payload("BeforeTool", tool_name="run_shell_command", tool_input={"command": command})
    return wire.encode_request(HEADER, json.dumps(payload).encode())


def write_file(path: str, content: str) -> bytes:
    payload = gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": path, "content": content})
    return wire.encode_request(HEADER, json.dumps(payload).encode())


HEAVY_RM = shell("rm -rf " + " ".join(f"/srv/d{i}" for i in range(250)))  # over lane_command_tokens


def slot(record: dict[str, object]) -> int:
    return int(str(record["id"]), 16) % MAX_WORKERS


def serving_lane(tmp_path: Path, config: str = "") -> tuple[RunningDaemon, int]:
    daemon = start_daemon(tmp_path, config=config)
    pid = eventually(lambda: lane_pid(daemon), timeout=TIMEOUT, what="the lane process")
    eventually(lambda: '"lane_serving"' in daemon.log(), timeout=TIMEOUT, what="the lane serving")
    return daemon, pid


def test_heavy_requests_are_the_lanes_and_logged_once_for_their_sender(tmp_path: Path) -> None:
    address = f"127.0.0.1:{free_port()}"
    daemon, lane = serving_lane(tmp_path, config=f'[metrics]\nlisten = "{address}"\n')
    try:
        light = ask(daemon.socket, write("secret.txt"))
        rm = ask(daemon.socket, HEAVY_RM)
        shout = ask(daemon.socket, write_file("shout.txt", "a" * 40_000))  # a payload over lane_payload_bytes
        nested = ask(daemon.socket, shell("echo $(a) $(b) $(c) $(d) $(e) ; rm x"))  # over lane_command_substitutions
        records = daemon.decisions(at_least=4)
        eventually(lambda: '"stream_lane_serving"' in daemon.log(), timeout=TIMEOUT, what="the stream lane serving")
        stream = lane_pid(daemon, STREAM_LANE)
        counted = eventually(
            lambda: (m := scrape(address)).get(("hookd_lane_requests_total", ())) == 3 and m,
            timeout=TIMEOUT,
            what="the lane's requests counted (it reports them each second)",
        )
        status = subprocess.run(
            [VENV_PYTHON, "-m", "hookd", "status", "--runtime-dir", str(daemon.runtime_dir)],
            capture_output=True, text=True, timeout=TIMEOUT, check=True,
        )  # fmt: skip
    finally:
        daemon.stop()
    assert counted[("hookd_requests_total", ())] == 4
    assert f"lane:      {lane} (3 heavy requests taken)" in status.stdout
    assert f"streams:   {stream} (the stream lane: every streamed chunk)" in status.stdout
    assert b"writing secret.txt is not allowed" in light.stdout
    assert rm.status is wire.Status.OK and b"rm is not allowed" in rm.stdout
    assert nested.status is wire.Status.OK and b"rm is not allowed" in nested.stdout
    rewritten = json.loads(shout.stdout)["hookSpecificOutput"]["tool_input"]
    assert rewritten["content"] == "A" * 40_000  # the lane's rewrite, passed through whole
    assert [r["decision"] for r in records] == ["deny", "deny", "rewrite", "deny"]
    assert [slot(r) for r in records] == [0, LANE_SLOT, LANE_SLOT, LANE_SLOT]
    for record in records:  # the sender as the daemon saw it, not the daemon that forwarded the request
        assert record["caller"]["pid"] == os.getpid() and record["caller"]["uid"] == os.getuid()
        assert record["via"] == "socket"


def test_a_stopped_lane_holds_up_no_light_request_and_its_own_get_the_fail_mode(tmp_path: Path) -> None:
    daemon, pid = serving_lane(tmp_path)
    heavy: list[wire.DecodedReply] = []
    try:
        os.kill(pid, signal.SIGSTOP)
        senders = [threading.Thread(target=lambda: heavy.append(ask(daemon.socket, HEAVY_RM))) for _ in range(20)]
        for sender in senders:
            sender.start()
        eventually(lambda: len(heavy) >= 20 - IN_FLIGHT, timeout=TIMEOUT, what="the heavy requests past the bound")
        light = [ask(daemon.socket, write("secret.txt")) for _ in range(20)]
        waiting = sum(sender.is_alive() for sender in senders)
        for sender in senders:
            sender.join(TIMEOUT)
    finally:
        os.kill(pid, signal.SIGCONT)
        daemon.stop()
    assert all(b"writing secret.txt is not allowed" in r.stdout for r in light)
    assert waiting == IN_FLIGHT  # the light requests were answered while the lane held these
    # Every heavy one got the shim's fail mode, never an allow: at once past the bound, at the deadline before it.
    assert sorted(r.stderr for r in heavy) == [b"busy"] * (20 - IN_FLIGHT) + [b"deadline"] * IN_FLIGHT
    assert all(r.status is wire.Status.ERROR for r in heavy)


def of_session(session: int, tool: str, tool_input: dict[str, str]) -> bytes:
    """A BeforeTool call of one agent session: its own session id and agent process (the shim's parent)."""
    payload = gemini_payload("BeforeTool", tool_name=tool, tool_input=tool_input, session_id=f"s{session}")
    return wire.encode_request({**HEADER, "ppid": 1000 + session}, json.dumps(payload).encode())


async def ask_async(sock: Path, frame: bytes) -> wire.DecodedReply | None:
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(str(sock)), TIMEOUT)
        try:
            writer.write(frame)
            return wire.decode_reply(await asyncio.wait_for(reader.read(), TIMEOUT))
        finally:
            writer.close()
    except (OSError, TimeoutError, ValueError):
        return None


def test_one_sessions_flood_of_heavy_requests_never_makes_anothers_fail(tmp_path: Path) -> None:
    """Issue 25: a flood of heavy requests made 20-24 of another session's 32 ordinary 40 KiB writes `busy`
    (a deny). Now the flooding session is the one that gets `busy`; the other's are all decided, each taking
    the lane's next free slot rather than queueing behind the flood. Fairness is judged by who is refused and
    by the order of the answers, not by the clock: the request deadline is generous here, so that a loaded
    box's slow lane is not mistaken for an unfair one."""
    daemon, _ = serving_lane(tmp_path, config=f"[daemon]\nrequest_timeout_ms = {(TIMEOUT - 5) * 1000}\n")
    took: list[float] = []
    answered: list[str] = []  # "flood" or "other", in the order their answers came
    queued: list[int] = []  # the flood's requests held or queued when the other session starts
    rm = "rm -rf " + " ".join(f"/srv/d{i}" for i in range(250))  # the lane's, 64 at once
    flood_frame = of_session(1, "run_shell_command", {"command": rm})
    ordinary = [  # 42 KB each: the lane's too
        of_session(2, "write_file", {"file_path": f"notes-{i}.txt", "content": "y = 2\n" * 7_000}) for i in range(32)
    ]

    async def flooding() -> wire.DecodedReply | None:
        reply = await ask_async(daemon.socket, flood_frame)
        if reply is not None and reply.status is wire.Status.OK:
            answered.append("flood")
        return reply

    async def both() -> tuple[list[wire.DecodedReply | None], list[wire.DecodedReply | None]]:
        flood = [asyncio.ensure_future(flooding()) for _ in range(64)]
        # The flood holds the lane: all but its last IN_FLIGHT answered (refused), those held or queued.
        await eventually_async(lambda: sum(f.done() for f in flood) >= 64 - IN_FLIGHT, timeout=TIMEOUT,
                               what="the flood past its bound refused")  # fmt: skip
        queued.append(64 - sum(f.done() for f in flood))
        answered.append("others-start")
        pending = iter(ordinary)
        answers: list[wire.DecodedReply | None] = []

        async def client() -> None:
            for frame in pending:
                started = time.monotonic()
                answers.append(await ask_async(daemon.socket, frame))
                answered.append("other")
                took.append((time.monotonic() - started) * 1000)

        await asyncio.gather(*(client() for _ in range(4)))
        return answers, list(await asyncio.gather(*flood))

    try:
        answers, flood = asyncio.run(both())
    finally:
        daemon.stop()
    codes = sorted(r.stderr.decode() if r is not None and r.status is wire.Status.ERROR else "ok" for r in flood)
    took.sort()
    flood_ahead = answered[answered.index("others-start") : answered.index("other")].count("flood")
    print(
        f"RELIABILITY fairness: flooding session {len(flood)} heavy requests: {dict(Counter(codes))}; the other "
        f"session's {len(answers)}: p50 {took[len(took) // 2]:.0f} ms, max {took[-1]:.0f} ms; "
        f"{flood_ahead} of the {queued[0]} flood requests still at the lane answered before the other's first"
    )
    # Each decided by its policies (the demo set lets these writes through), none the fail mode.
    assert all(r is not None and r.status is wire.Status.OK and r.stdout in (b"", b"{}") for r in answers), [
        (r.stderr, r.stdout[:200]) if r is not None else None
        for r in answers
        if r is None or r.stdout not in (b"", b"{}")
    ]
    assert codes.count("busy") >= 64 - IN_FLIGHT  # the flooding session is the one refused
    assert all(r is not None and (r.status is wire.Status.ERROR or b"rm is not allowed" in r.stdout) for r in flood)
    # The other session's first request took the first slot freed: only the flood's requests that held a slot
    # then were answered before it, never most of the ones queued behind them (first come, first served: all
    # of them: 16 at most). Its way to the lane takes a few ms, in which a slot or so may free on a loaded
    # box (5 ahead at load 5-6, against 2-3 on a quiet one): the bound allows one more round of the slots.
    assert flood_ahead <= 2 * LANE_SLOTS, answered


def test_a_killed_lane_is_started_again_and_its_requests_wait_for_it(tmp_path: Path) -> None:
    # A generous deadline: on a loaded box the new lane's start, and the requests it still decides for
    # senders that gave up, can outlast the default one (the deadline's fail mode is the stopped lane's test).
    daemon, first = serving_lane(tmp_path, config=f"[daemon]\nrequest_timeout_ms = {(TIMEOUT - 5) * 1000}\n")
    try:
        os.kill(first, signal.SIGKILL)
        eventually(lambda: '"lane_exited"' in daemon.log(), timeout=TIMEOUT, what="the lane's exit noticed")
        replies = [ask(daemon.socket, HEAVY_RM) for _ in range(3)]  # while it is started again, then by it
        second = eventually(lambda: lane_pid(daemon), timeout=TIMEOUT, what="a new lane")
        eventually(lambda: daemon.log().count('"lane_serving"') == 2, timeout=TIMEOUT, what="the new lane serving")
        after = ask(daemon.socket, HEAVY_RM)
        records = daemon.decisions(at_least=1)
    finally:
        daemon.stop()
    assert second != first
    for reply in replies:  # within the deadline the new lane answered; past it, the fail mode: never an allow
        assert (reply.status is wire.Status.OK and b"rm is not allowed" in reply.stdout) or reply.stderr == b"deadline"
    assert after.status is wire.Status.OK and b"rm is not allowed" in after.stdout, (after, daemon.log()[-3000:])
    assert {slot(r) for r in records} == {LANE_SLOT}


def test_only_the_lanes_socket_takes_a_forwarded_request_and_only_from_its_own_daemon(tmp_path: Path) -> None:
    daemon, _ = serving_lane(tmp_path)
    lane_socket, stream_socket = daemon.runtime_dir / "lane.sock", daemon.runtime_dir / "stream.sock"
    forwarded = {**HEADER, "forwarded": {"uid": 0, "gid": 0, "pid": 1, "received_at": 1.0, "deadline": 9e9, "via": "x"}}
    payload = json.dumps(gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": "a"})).encode()
    try:
        on_hook = ask(daemon.socket, wire.encode_request(forwarded, payload))
        plain_on_lane = answer_at_connect(lane_socket, wire.encode_request(HEADER, payload))
        require(os.getuid() == 0 and shutil.which("setpriv") is not None, "root and setpriv (to become nobody)")
        eventually(stream_socket.exists, timeout=TIMEOUT, what="the stream lane's socket")
        as_nobody = [other_uid_connects(path) for path in (lane_socket, stream_socket)]
        os.chmod(daemon.runtime_dir.parent, 0o711)  # opened up as an admin might: the lanes still check the uid
        os.chmod(daemon.runtime_dir, 0o711)
        for path in (lane_socket, stream_socket):
            os.chmod(path, 0o666)
        opened_up = [other_uid_connects(path) for path in (lane_socket, stream_socket)]
    finally:
        daemon.stop()
    assert on_hook.status is wire.Status.ERROR and on_hook.stderr == b"bad-header"
    assert b"'forwarded' is taken only on the lane's socket" in on_hook.stdout
    # this test's process is of the daemon's uid but is neither the daemon nor one of its workers (issue 25):
    # the lane takes nothing of it (its streamed chunks go to the stream lane's socket, issue 30)
    assert plain_on_lane.status is wire.Status.ERROR and plain_on_lane.stderr == b"forbidden"
    assert all("Permission denied" in answer for answer in as_nobody), as_nobody
    for answer in opened_up:
        assert answer.startswith("ERROR forbidden the lane takes forwarded requests from its own daemon"), answer


def other_uid_connects(path: Path) -> str:
    """What `nobody` reads on connecting to `path` (the lane refuses before reading a frame): 'ERROR code
    message', 'OK', or the error raised."""
    nobody = pwd.getpwnam("nobody")
    script = (
        "import socket, sys\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        "s.settimeout(10)\n"
        "try:\n"
        f"    s.connect({str(path)!r})\n"
        "except OSError as exc:\n"
        "    print(exc.strerror); sys.exit()\n"
        "data = b''\n"
        "while chunk := s.recv(65536):\n"
        "    data += chunk\n"
        "status, out_len = data[5], int.from_bytes(data[8:12], 'big')\n"
        "body = data[16:]\n"
        "print(('ERROR ' + body[out_len:].decode() + ' ' + body[:out_len].decode()) if status else 'OK')\n"
    )
    done = subprocess.run(
        ["setpriv", f"--reuid={nobody.pw_uid}", f"--regid={nobody.pw_gid}", "--clear-groups",
         "/usr/bin/python3.11", "-c", script],
        capture_output=True, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    return done.stdout.decode().strip() or done.stderr.decode()[-500:]


def test_with_the_lane_off_the_daemon_decides_heavy_requests_itself(tmp_path: Path) -> None:
    daemon = start_daemon(tmp_path, config="[daemon]\nlane = false\n")
    try:
        reply = ask(daemon.socket, HEAVY_RM)
        records = daemon.decisions(at_least=1)
        lane = lane_pid(daemon)
    finally:
        daemon.stop()
    assert b"rm is not allowed" in reply.stdout
    assert lane is None and [slot(r) for r in records] == [0]
    assert not (daemon.runtime_dir / "lane.sock").exists()


@pytest.mark.parametrize("workers", [2])
def test_a_worker_sends_its_heavy_requests_to_the_lane_too(tmp_path: Path, workers: int) -> None:
    daemon, _ = serving_lane(tmp_path, config=f"[daemon]\nworkers = {workers}\n")
    try:
        eventually(lambda: worker_pids(daemon), timeout=TIMEOUT, what="the worker")
        eventually(lambda: '"worker_serving"' in daemon.log(), timeout=TIMEOUT, what="the worker serving")
        replies = [ask(daemon.socket, HEAVY_RM) for _ in range(30)]
        lights = [ask(daemon.socket, write("secret.txt")) for _ in range(30)]
        records = daemon.decisions(at_least=60)
    finally:
        daemon.stop()
    assert all(b"rm is not allowed" in r.stdout for r in replies)
    assert all(b"writing secret.txt is not allowed" in r.stdout for r in lights)
    heavy = [r for r in records if "rm -rf" in json.dumps(r["input"])]
    assert len(heavy) == 30 and {slot(r) for r in heavy} == {workers}  # the lane's slot follows the workers'
    assert {slot(r) for r in records if r not in heavy} <= set(range(workers))


def test_the_lane_is_not_left_behind(tmp_path: Path) -> None:
    daemon, pid = serving_lane(tmp_path)
    daemon.stop()
    eventually(lambda: not is_lane(pid), timeout=TIMEOUT, what="the lane gone with its daemon")
    with socket.socket(socket.AF_UNIX) as probe:
        probe.settimeout(5)
        with pytest.raises(OSError):
            probe.connect(str(daemon.runtime_dir / "lane.sock"))


def times_run(pid: int) -> int:
    """How many times the threads of `pid` have been put on a CPU (schedstat's third field)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").glob("*/schedstat"):
        total += int(task.read_text().split()[2])
    return total


def asleep(pid: int, window: float) -> bool:
    """`pid` stayed off the CPU for `window` seconds."""
    before = times_run(pid)
    threading.Event().wait(window)
    return times_run(pid) == before


def test_an_idle_lane_never_wakes_and_still_reports_what_it_counted(tmp_path: Path) -> None:
    from hookd.procs.child import STATS_EVERY_S

    address = f"127.0.0.1:{free_port()}"
    daemon, lane = serving_lane(tmp_path, config=f'[metrics]\nlisten = "{address}"\n')
    window = STATS_EVERY_S * 1.5  # a lane reporting every STATS_EVERY_S wakes at least once in it
    try:
        eventually(lambda: asleep(lane, window), timeout=TIMEOUT, what="the idle lane asleep")
        assert ask(daemon.socket, HEAVY_RM).status is wire.Status.OK
        eventually(
            lambda: scrape(address).get(("hookd_lane_requests_total", ())) == 1,
            timeout=TIMEOUT,
            what="the lane's request reported",
        )
        eventually(lambda: asleep(lane, window), timeout=TIMEOUT, what="the lane asleep again after its report")
    finally:
        daemon.stop()


def test_the_daemon_forks_its_lane_with_grpcs_fork_handlers_off(tmp_path: Path) -> None:
    """uvloop starts the lane with fork() then exec; gRPC's fork handlers, run in that child while the control
    plane's server is up, crashed it now and then. hookd turns them off before grpc is imported, and the lane
    inherits the setting from its daemon."""
    daemon, lane = serving_lane(tmp_path)
    try:
        environ = Path(f"/proc/{lane}/environ").read_bytes().split(b"\0")
    finally:
        daemon.stop()
    assert b"GRPC_ENABLE_FORK_SUPPORT=false" in environ


def test_a_process_of_the_same_uid_cannot_forge_a_forwarded_caller(tmp_path: Path) -> None:
    """issue 25: any process of the daemon's user could connect to lane.sock and send a forwarded frame naming
    any caller (uid, pid) and deadline, decided and written into the chained decision log as that caller. The
    lane now takes connections only from its daemon and that daemon's workers: the forged frame is refused
    before it is read, and nothing is recorded."""
    daemon, _ = serving_lane(tmp_path)
    forged = {**HEADER, "forwarded": {"uid": 4242, "gid": 4242, "pid": 4242, "received_at": time.monotonic(),
                                      "deadline": time.monotonic() + 30, "via": "socket"}}  # fmt: skip
    payload = json.dumps(gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": "f"})).encode()
    try:
        reply = answer_at_connect(daemon.runtime_dir / "lane.sock", wire.encode_request(forged, payload))
        real = ask(daemon.socket, HEAVY_RM)  # forwarded to the lane by the daemon: still taken
        records = daemon.decisions(at_least=1)
    finally:
        daemon.stop()
    assert reply.status is wire.Status.ERROR and reply.stderr == b"forbidden", reply
    assert real.status is wire.Status.OK
    assert [r["caller"]["uid"] for r in records] == [os.getuid()], records


def answer_at_connect(path: Path, frame: bytes = b"") -> wire.DecodedReply:
    """What the lane answers a connection it refuses before reading (`frame`, if any, is sent as the refusal
    allows: the lane closes with it unread)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(TIMEOUT)
        sock.connect(str(path))
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(frame)
        chunks = []
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                chunks.append(chunk)
    return wire.decode_reply(b"".join(chunks))


def test_the_lane_runs_at_nice_10_and_the_stream_lane_at_the_daemons_priority(tmp_path: Path) -> None:
    """Heavy requests wait for the CPU behind everyone (the lane); a streamed chunk, which its agent awaits
    before it goes on, does not (the stream lane: issue 30, docs/reliability.md)."""
    daemon, lane = serving_lane(tmp_path)
    try:
        stream = eventually(lambda: lane_pid(daemon, STREAM_LANE), timeout=TIMEOUT, what="the stream lane process")
        niceness = {pid: os.getpriority(os.PRIO_PROCESS, pid) for pid in (daemon.proc.pid, lane, stream)}
    finally:
        daemon.stop()
    assert niceness == {daemon.proc.pid: niceness[daemon.proc.pid], lane: niceness[daemon.proc.pid] + 10,
                        stream: niceness[daemon.proc.pid]}, niceness  # fmt: skip
