"""No input crashes a process (issue 25, item 3): strings native code cannot take never reach it.

A JSON string may hold a lone surrogate (`"caf\\ud83d"`, an emoji cut in half): valid JSON, no Unicode text.
Handed to regorus (`set_input`, `add_data`) such a str segfaulted the daemon, and, over 32 KiB, the lane
again and again. Each way one could come in is tried here on a real daemon with the shipped policies, in
every process that decides (the daemon, a worker, the lane) and over every transport (the hook socket,
HTTP hooks, gRPC Decide): each request is answered, and decided (not failed closed by an engine error),
and no process died. A path read from the file system (a symlink whose target is not UTF-8, which the
agent can plant) reads as a str with surrogates too; a data.json of a policy set can hold one.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from hookd import wire
from hookd.v1 import hookd_pb2 as pb
from hookd.v1 import hookd_pb2_grpc
from support import ROOT, RunningDaemon, eventually, free_port, gemini_payload, send_frame, start_daemon

POLICIES = ROOT / "policies"
LANE_BYTES = 40 * 1024  # over [limits] lane_payload_bytes (32 KiB): decided in the lane


@dataclass
class Served:
    daemon: RunningDaemon
    project: Path
    port: int
    token: str

    def ask(self, payload: bytes, *, header: dict[str, object] | None = None, event: str = "BeforeTool") -> dict:
        head = header or {"client": "gemini", "event": event, "cwd": str(self.project), "ppid": 1,
                          "env": {"HOME": str(self.project.parent)}}  # fmt: skip
        reply = wire.decode_reply(send_frame(self.daemon.socket, wire.encode_request(head, payload), timeout=20))
        assert reply.status == wire.Status.OK, reply
        return json.loads(reply.stdout) if reply.stdout else {}

    def processes_started(self) -> int:
        """How many times the daemon started a child process (a worker or the lane): a crash shows as one more."""
        return sum('"lane_started"' in line or '"worker_started"' in line for line in self.daemon.log().splitlines())


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("native")
    project = Path(tempfile.mkdtemp(prefix="hkdnat", dir="/tmp")) / "project"
    project.mkdir()
    port, token_file = free_port(), root / "http-token"
    config = (f"[daemon]\nworkers = 2\n[http]\nenabled = true\nport = {port}\n"
              f'token_file = "{token_file}"\n')  # fmt: skip
    daemon = start_daemon(root, POLICIES, config)
    try:
        serving = ('"worker_serving"', '"lane_serving"')
        eventually(lambda: all(s in daemon.log() for s in serving), timeout=30, what="the worker and the lane serving")
        yield Served(daemon, project, port, token_file.read_text().strip())
    finally:
        daemon.stop()
        shutil.rmtree(project.parent, ignore_errors=True)


def write_file(project: Path, content_json: str) -> bytes:
    """A Gemini write_file into the project whose content is `content_json` (JSON text, escapes kept)."""
    body = json.dumps(gemini_payload("BeforeTool", cwd=str(project), tool_name="write_file",
                                     tool_input={"file_path": str(project / "notes.txt"), "content": "@"}))  # fmt: skip
    return body.replace('"@"', content_json).encode()


def alive(served: Served, started: int) -> None:
    assert served.daemon.proc.poll() is None, served.daemon.log()[-2000:]
    assert served.processes_started() == started, "a worker or the lane was started again: it had died"
    assert "Traceback" not in served.daemon.log()


@pytest.mark.parametrize("size", [0, LANE_BYTES], ids=["in-the-daemon", "in-the-lane"])
@pytest.mark.parametrize("content", ['"caf\\ud83d"', '"\\udc00 x \\ud83d"', '"\\ude00\\ud83d"', '"ok \\ud83d\\ude00"'])
def test_a_write_with_a_lone_surrogate_is_decided_and_no_process_dies(served: Served, size: int, content: str) -> None:
    started = served.processes_started()
    padded = content[:-1] + "x" * size + '"'
    for _ in range(3):  # every process that takes hook-socket connections gets its turn
        answer = served.ask(write_file(served.project, padded))
        assert answer.get("decision", "allow") == "allow", answer  # decided by the policies: no engine error
    alive(served, started)


def test_a_lone_surrogate_does_not_make_a_model_chunk_pass_unchecked(served: Served) -> None:
    # AfterModel fails open: a chunk refused as bad input would reach the user unchecked. The surrogate is
    # replaced, and the chunk is still decided: the key in it stops the turn.
    response = {"candidates": [{"content": {"role": "model", "parts": ["@"]}, "index": 0}]}
    chunk = gemini_payload("AfterModel", session_id="surrogate-stream", llm_request={"model": "m", "messages": []},
                           llm_response=response)  # fmt: skip
    body = json.dumps(chunk).replace('"@"', '"key \\ud83d AKIAABCDEFGHIJKLMNOP"').encode()
    answer = served.ask(body, event="AfterModel")
    assert answer.get("continue") is False, answer


def test_a_header_with_surrogates_is_answered(served: Served) -> None:
    started = served.processes_started()
    body = write_file(served.project, '"x"')
    for cwd in ["\ud83d", "/tmp/\udcff"]:  # json.dumps writes them as escapes
        head = {"client": "gemini", "event": "BeforeTool", "cwd": cwd, "ppid": 1, "env": {"HOME": "\udc80"}}
        served.ask(body, header=head)
    # and a surrogate encoded as UTF-8 bytes (json.loads would decode it with surrogatepass): not UTF-8
    raw = b'{"client":"gemini","event":"BeforeTool","cwd":"/tmp/\xed\xa0\xbd","ppid":1,"env":{}}'
    frame = wire.REQUEST_MAGIC + bytes([1, 0]) + len(raw).to_bytes(4, "big") + len(body).to_bytes(4, "big") + raw + body
    reply = wire.decode_reply(send_frame(served.daemon.socket, frame, timeout=20))
    assert (reply.status, reply.stderr) == (wire.Status.ERROR, b"bad-header")
    alive(served, started)


def test_a_path_whose_bytes_are_not_utf8_is_decided(served: Served) -> None:
    # The agent can plant this with one allowed command (`ln -s $'\xff' link`); os.path.realpath then
    # gives the write's path as a str holding \udcff.
    link = os.fsencode(served.project / "link")
    os.symlink(os.fsencode(served.project) + b"/\xff", link)
    started = served.processes_started()
    write = {"file_path": str(served.project / "link" / "a"), "content": "x"}
    body = json.dumps(gemini_payload("BeforeTool", cwd=str(served.project), tool_name="write_file", tool_input=write))
    for _ in range(3):
        assert served.ask(body.encode()).get("decision", "allow") == "allow"
    shell = gemini_payload("BeforeTool", cwd=str(served.project), tool_name="run_shell_command",
                           tool_input={"command": f"cat {served.project}/link/a"})  # fmt: skip
    served.ask(json.dumps(shell).encode())
    alive(served, started)


def test_http_hooks_and_grpc_decide_take_a_lone_surrogate(served: Served) -> None:
    started = served.processes_started()
    claude = {"session_id": "s", "transcript_path": "", "cwd": str(served.project), "hook_event_name": "PreToolUse",
              "tool_name": "Write", "tool_input": {"file_path": str(served.project / "a"), "content": "@"}}  # fmt: skip
    body = json.dumps(claude).replace('"@"', '"caf\\ud83d"').encode()
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=20)
    try:
        conn.request("POST", "/v1/hooks/claude", body=body, headers={"Authorization": f"Bearer {served.token}",
                                                                     "Content-Type": "application/json"})  # fmt: skip
        response = conn.getresponse()
        answer = response.read()
        assert response.status == 200, answer
        assert "deny" not in (json.loads(answer) if answer else {}).get("hookSpecificOutput", {}).values()
    finally:
        conn.close()
    with grpc.insecure_channel(f"unix:{served.daemon.control_socket}") as channel:
        reply = hookd_pb2_grpc.HookStub(channel).Decide(
            pb.DecideRequest(client="gemini", event="BeforeTool", payload=write_file(served.project, '"caf\\ud83d"'),
                             env={"HOME": "/root"}, ppid=1),
            timeout=20,
        )  # fmt: skip
    assert reply.decision == "allow"
    alive(served, started)


def test_a_policy_sets_data_with_a_lone_surrogate_loads_and_matches_the_same_text(tmp_path: Path) -> None:
    policies = tmp_path / "policies" / "word"
    policies.mkdir(parents=True)
    (policies / "data.json").write_text('{"word": "caf\\ud83d"}')
    (policies / "policy.rego").write_text(
        'package hookd.word\n\nrouting := {"events": ["BeforeTool"]}\n\n'
        'deny contains {"id": "word", "reason": "that word"} if input.tool.input.content == data.word.word\n'
    )
    daemon = start_daemon(tmp_path, tmp_path / "policies")
    try:
        project = tmp_path / "p"
        served = Served(daemon, project, 0, "")
        assert served.ask(write_file(project, '"caf\\ud83d"'))["decision"] == "deny"
        assert served.ask(write_file(project, '"cafe"')).get("decision", "allow") == "allow"
        assert daemon.proc.poll() is None
    finally:
        daemon.stop()


def test_an_integer_no_double_holds_is_a_bad_payload(served: Served) -> None:
    reply = wire.decode_reply(
        send_frame(served.daemon.socket, wire.encode_request(
            {"client": "gemini", "event": "BeforeTool", "cwd": "/tmp", "ppid": 1, "env": {}},
            write_file(served.project, "1" + "0" * 400)), timeout=20)
    )  # fmt: skip
    assert (reply.status, reply.stderr) == (wire.Status.ERROR, b"bad-payload"), reply
    with socket.socket(socket.AF_UNIX) as probe:
        probe.connect(str(served.daemon.socket))
