"""Reload under load: clients keep the hook socket busy while the policies are reloaded over gRPC again and
again (and once refused); no request fails, and each decision matches the policy revision that made it."""

from __future__ import annotations

import json
import re
import shutil
import socket
import threading
from pathlib import Path

import grpc

from hookd import wire
from hookd.v1 import hookd_pb2 as pb
from hookd.v1 import hookd_pb2_grpc
from support import DEMO_POLICIES, eventually, gemini_payload, start_daemon

TIMEOUT = 30
CLIENTS = 4
DENY_OTHER = '\ndeny contains {"id": "no-other", "reason": "no"} if {\n\tinput.tool.input.file_path == "other.txt"\n}\n'
HEADER = {"client": "gemini", "event": "BeforeTool", "cwd": "/tmp", "ppid": 0, "env": {"HOME": "/root"}}
PAYLOAD = json.dumps(
    gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": "other.txt", "content": "x"})
).encode()


def ask(path: Path) -> wire.DecodedReply:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(TIMEOUT)
        sock.connect(str(path))
        sock.sendall(wire.encode_request(HEADER, PAYLOAD))
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return wire.decode_reply(b"".join(chunks))


def test_reloads_under_load_fail_no_decision(tmp_path: Path) -> None:
    policies = tmp_path / "policies"
    shutil.copytree(DEMO_POLICIES, policies)
    rego = policies / "demo" / "policy.rego"
    allowing = rego.read_text()
    daemon = start_daemon(tmp_path, policies)
    replies: list[wire.DecodedReply] = []
    failures: list[str] = []
    stop = threading.Event()

    def client() -> None:
        while not stop.is_set():
            try:
                replies.append(ask(daemon.socket))
            except Exception as exc:  # a failed decision is what this test looks for
                failures.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    results: list[pb.ReloadResponse] = []
    try:
        for thread in threads:
            thread.start()
        with grpc.insecure_channel(f"unix:{daemon.control_socket}") as chan:
            control = hookd_pb2_grpc.ControlStub(chan)
            for i in range(10):
                seen = len(replies)
                eventually(lambda seen=seen: len(replies) > seen, timeout=TIMEOUT, what="decisions between reloads")
                rego.write_text(allowing + ("\nthis is not rego\n" if i == 5 else DENY_OTHER if i % 2 == 0 else ""))
                results.append(control.Reload(pb.ReloadRequest(), timeout=TIMEOUT))
            seen = len(replies)
            eventually(lambda: len(replies) > seen, timeout=TIMEOUT, what="decisions after the last reload")
            stop.set()
            for thread in threads:
                thread.join(timeout=TIMEOUT)
            status = control.Status(pb.StatusRequest(), timeout=TIMEOUT)
        records = daemon.decisions(at_least=len(replies))
    finally:
        stop.set()
        daemon.stop()

    assert failures == []
    assert [r.ok for r in results] == [True] * 5 + [False] + [True] * 4
    assert results[5].policy_set.revision == results[4].policy_set.revision  # refused: the old set kept serving
    denying = {r.policy_set.revision for i, r in enumerate(results) if i % 2 == 0 and r.ok}
    allowing_revisions = {r.policy_set.revision for i, r in enumerate(results) if i % 2 == 1 and r.ok}
    allowing_revisions.add(results[0].previous_revision)
    assert len(denying) == 1 and len(allowing_revisions) == 1 and denying != allowing_revisions

    assert all(reply.status is wire.Status.OK for reply in replies)
    assert (status.counters.requests, dict(status.counters.errors)) == (len(replies), {})
    assert (status.counters.reloads, status.counters.reload_failures) == (9, 1)
    assert len(records) == len(replies) > 100
    for record in records:  # each decision is the one its own revision makes
        denied = record["revisions"]["default"] in denying
        assert record["decision"] == ("deny" if denied else "allow"), record
    assert {r["revisions"]["default"] for r in records} == denying | allowing_revisions
    deny_ids = sorted(re.findall(rb"\(decision ([0-9a-f]{16})\)", b"".join(r.stdout for r in replies)))
    assert deny_ids == sorted(r["id"].encode() for r in records if r["decision"] == "deny")
