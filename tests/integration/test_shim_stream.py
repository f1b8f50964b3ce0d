"""Both shims send a streamed chunk (hookd.dialects.registry.STREAMED) to the stream lane's socket first and fall
back to the hook socket, which relays it to the stream lane, when that lane did not read it (issue 30). A real
daemon, the default policies' model_secrets rule, each shim run as an agent runs it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from load_support import HEADER, STREAM_LANE, ask, lane_pid
from shims import Shim

from hookd import wire
from support import ROOT, eventually, gemini_payload, lanes_serving, require, start_daemon

KEY_HALVES = ("the key is AKIAIOSF", "ODNN7EXAMPLE")


def chunk(session: str, text: str) -> dict[str, object]:
    response = {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]}
    return gemini_payload("AfterModel", session_id=session, llm_request={"messages": []}, llm_response=response)


def test_a_streamed_chunk_reaches_the_lane_without_the_hook_socket(tmp_path: Path, shim: Shim) -> None:
    """With the hook socket moved away, a chunk still gets its decision (the stream lane's), while a tool call
    finds no daemon: the chunk went to the stream lane directly. Its other half relayed by the daemon completes
    the key."""
    daemon = start_daemon(tmp_path, ROOT / "policies")
    hook = daemon.socket
    away = hook.with_name("hook.away")
    try:
        eventually(lambda: lanes_serving(daemon.log()), timeout=30)
        hook.rename(away)
        first = shim.run(hook, "AfterModel", chunk("s", KEY_HALVES[0]))
        tool = shim.run(hook, "BeforeTool", gemini_payload("BeforeTool", tool_name="read_file",
                                                           tool_input={"file_path": "a"}))  # fmt: skip
        relayed = ask(away, wire.encode_request({**HEADER, "event": "AfterModel"},
                                                json.dumps(chunk("s", KEY_HALVES[1])).encode()))  # fmt: skip
        records = daemon.decisions(at_least=1)
    finally:
        away.rename(hook)
        daemon.stop()
    assert first.returncode == 0 and b"AWS access key" not in first.stdout, first
    assert b"not running" in tool.stdout + tool.stderr, tool  # BeforeTool fails closed, saying why
    assert b'"continue":false' in relayed.stdout and b"AWS access key" in relayed.stdout, relayed.stdout[:300]
    assert [(r["session"], r["decision"], r["stream"]["chunks"]) for r in records] == [("s", "halt", 2)]


def test_without_a_lane_a_streamed_chunk_falls_back_to_the_hook_socket(tmp_path: Path, shim: Shim) -> None:
    """`[daemon] lane = false`: no lanes' sockets; the shim sends the chunks to the hook socket and the daemon
    decides them, the key split across two chunks found whole."""
    daemon = start_daemon(tmp_path, ROOT / "policies", "[daemon]\nlane = false\n")
    try:
        first = shim.run(daemon.socket, "AfterModel", chunk("f", KEY_HALVES[0]))
        second = shim.run(daemon.socket, "AfterModel", chunk("f", KEY_HALVES[1]))
    finally:
        daemon.stop()
    assert first.returncode == 0 and b"AWS access key" not in first.stdout, first
    assert b'"continue":false' in second.stdout and b"AWS access key" in second.stdout, second


FLOODER = """
import socket, struct, sys
held, refused = [], []
for n in range(int(sys.argv[2])):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(30)
    sock.connect(sys.argv[1])
    try:
        sock.sendall(struct.pack("!4sBxII", b"HKDQ", 1, 100, 1000))  # a chunk begun, never finished
    except (BrokenPipeError, ConnectionResetError):
        pass  # refused already: its answer is read below
    held.append(sock)
for sock in held[int(sys.argv[3]):]:  # the lane answers in the order it accepted
    reply = sock.recv(4096)  # one error frame (a read after it may say reset: the lane left the chunk unread)
    refused.append(reply[16 + struct.unpack("!I", reply[8:12])[0]:].decode())
for sock in held[:int(sys.argv[3])]:
    sock.setblocking(False)
    try:
        refused.append("answered: " + sock.recv(4096).decode(errors="replace"))
    except BlockingIOError:
        pass
print(",".join(refused), flush=True)
sys.stdin.readline()
"""


def test_one_sessions_flood_of_the_lanes_socket_leaves_the_others_served(tmp_path: Path, shim: Shim) -> None:
    """A process flooding the lane's socket with chunks it never finishes holds DIRECT_PER_SESSION places of its
    session (its parent's) and is refused (`busy`) unread beyond them: it cannot hold the lane's descriptors
    and loop ahead of everyone. Meanwhile a chunk of another session (a shim whose parent is its own shell)
    reaches the lane directly, one of the flooder's session (a shim run by the same parent) is refused and
    relayed by the hook socket, both land in the one text of their response, and a tool call and a heavy
    request are served."""
    from hookd.transport.peers import DIRECT_PER_SESSION

    daemon = start_daemon(tmp_path, ROOT / "policies", "[daemon]\nrequest_timeout_ms = 60000\n")
    hook, lane = daemon.socket, daemon.runtime_dir / "stream.sock"
    away = hook.with_name("hook.away")
    extra = 40
    try:
        eventually(lambda: lanes_serving(daemon.log()), timeout=30)
    except AssertionError:
        daemon.stop()
        raise
    flooder = subprocess.Popen(
        [sys.executable, "-c", FLOODER, str(lane), str(DIRECT_PER_SESSION + extra), str(DIRECT_PER_SESSION)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert flooder.stdin is not None and flooder.stdout is not None
    try:
        refused = flooder.stdout.readline().strip().split(",")  # the flooder's session is this process
        relayed = shim.run(hook, "AfterModel", chunk("s", KEY_HALVES[0]))  # run by this process: busy, relayed
        hook.rename(away)
        try:  # another session (the shell that runs the shim stays its parent): the lane's socket only
            direct = shim.run(hook, "AfterModel", chunk("s", KEY_HALVES[1]), redirect="; exit $?")
        finally:
            away.rename(hook)
        tool = shim.run(hook, "BeforeTool", gemini_payload("BeforeTool", tool_name="read_file",
                                                          tool_input={"file_path": "a"}))  # fmt: skip
        heavy = ask(hook, wire.encode_request(HEADER, json.dumps(gemini_payload(
            "BeforeTool", tool_name="read_file", tool_input={"file_path": "b" * (40 * 1024)})).encode()))  # fmt: skip
        records = daemon.decisions(at_least=3)
    finally:
        flooder.stdin.close()
        flooder.wait(timeout=30)
        daemon.stop()
    assert refused == ["busy"] * extra, refused  # and the places held were not answered
    assert relayed.returncode == 0 and b"AWS access key" not in relayed.stdout, relayed
    assert direct.returncode == 0 and b'"continue":false' in direct.stdout, direct
    assert b"AWS access key" in direct.stdout, direct.stdout[:300]
    assert tool.returncode == 0 and b"deny" not in tool.stdout, tool
    assert heavy.status is wire.Status.OK, heavy
    streams = [(r["session"], r["decision"], r["stream"]["chunks"]) for r in records if r.get("stream")]
    assert streams == [("s", "halt", 2)], records


def sent_unread(pid: int) -> bool:
    """Process `pid` has a Unix socket whose bytes sent its peer has not read yet (`ss`'s Send-Q)."""
    listing = subprocess.run(["ss", "-xpn"], capture_output=True, text=True, timeout=30, check=True).stdout
    return any(f"pid={pid}," in row and int(row.split()[3]) > 0 for row in listing.splitlines()[1:])


def test_a_chunk_held_by_a_lane_that_dies_is_not_sent_again(tmp_path: Path, shim: Shim) -> None:
    """A lane may die between deciding a chunk (its text grown, its decision counted) and answering: the shim
    cannot tell that from a lane that never read it, so it does not send the chunk again (the relay would
    have it decided twice, its text doubled); it applies the event's fail mode. Here the lane is stopped with
    the chunk in its socket and killed: the chunk is decided nowhere, and the next lane's text of the response
    begins with the chunk after it."""
    if not shutil.which("ss"):
        require(False, "ss (iproute2), to see that the shim's chunk waits in the lane's socket")
    daemon = start_daemon(tmp_path, ROOT / "policies")
    try:
        eventually(lambda: lanes_serving(daemon.log()), timeout=30)
        stopped = lane_pid(daemon, STREAM_LANE)
        assert stopped is not None
        os.kill(stopped, signal.SIGSTOP)
        with subprocess.Popen(shim.argv("AfterModel", daemon.socket, deadline_ms=20000), stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) as held:  # fmt: skip
            try:
                assert held.stdin is not None
                held.stdin.write(json.dumps(chunk("k", KEY_HALVES[0])).encode())
                held.stdin.close()
                eventually(lambda: sent_unread(held.pid), timeout=30, what="the chunk in the stopped lane's socket")
            finally:
                os.kill(stopped, signal.SIGKILL)
                held.wait(timeout=30)
            assert held.stdout is not None and held.stderr is not None
            out, err = held.stdout.read(), held.stderr.read()
        eventually(lambda: daemon.log().count('"stream_lane_serving"') == 2, timeout=30, what="a new one serving")
        frame = wire.encode_request({**HEADER, "event": "AfterModel"}, json.dumps(chunk("k", KEY_HALVES[1])).encode())
        second = ask(daemon.runtime_dir / "stream.sock", frame)
    finally:
        daemon.stop()
    records = daemon.decisions(at_least=1)
    assert held.returncode == 0 and b"AWS access key" not in out, (out, err)  # AfterModel fails open
    assert second.status is wire.Status.OK and b"AWS access key" not in second.stdout, second.stdout[:300]
    assert [(r["session"], r["stream"]["chunks"]) for r in records] == [("k", 1)], records
