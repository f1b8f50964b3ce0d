"""`input.stream` with `[daemon] workers = 2`: the kernel hands each chunk's connection to either process, and
each sends it to the stream lane (hookd.lane), where the response's text is (hookd.enrich.stream): the text streamed
so far is the whole response's. A real daemon, its real worker and lane, and the default policies'
model_secrets rule."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from load_support import HEADER, ask

from hookd import wire
from support import ROOT, eventually, gemini_payload, lanes_serving, start_daemon

SESSIONS = 48
FIRST, SECOND = "part-one: -----BEGIN OPENSSH PRIV", "ATE KEY----- part-two"


def chunk(session: str, text: str) -> bytes:
    response = {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]}
    payload = gemini_payload("AfterModel", session_id=session, llm_request={}, llm_response=response)
    return wire.encode_request({**HEADER, "event": "AfterModel"}, json.dumps(payload).encode())


def test_a_key_split_across_chunks_that_two_processes_decide_stops_the_turn(tmp_path: Path) -> None:
    daemon = start_daemon(tmp_path, ROOT / "policies", config="[daemon]\nworkers = 2\n")
    try:
        eventually(lambda: '"worker_serving"' in daemon.log() and lanes_serving(daemon.log()), timeout=30)

        def respond(session: str) -> tuple[wire.DecodedReply, wire.DecodedReply]:
            return ask(daemon.socket, chunk(session, FIRST)), ask(daemon.socket, chunk(session, SECOND))

        with ThreadPoolExecutor(6) as pool:  # both processes busy, so the chunks of a response spread
            replies = dict(zip(range(SESSIONS), pool.map(respond, [f"s{i}" for i in range(SESSIONS)]), strict=True))
        records = daemon.decisions(at_least=SESSIONS)  # one record a response (hookd.audit.streams)
        shared = daemon.runtime_dir / "streams"
    finally:
        daemon.stop()
    assert not shared.exists()  # no stream file, so no lock a policy's sandbox could hold against a loop
    assert len(records) == SESSIONS
    for record in records:
        assert int(record["id"], 16) % 64 == 3, "decided by the stream lane (slot `workers + 1`: docs/decision-log.md)"
        assert (record["decision"], record["stream"]["chunks"], record["stream"]["ended"]) == ("halt", 2, "halt")
        assert [change["decision"] for change in record["stream"]["changes"]] == ["allow", "halt"]
    assert all(b"private key" not in replies[i][0].stdout for i in range(SESSIONS))
    assert all(b"private key" in replies[i][1].stdout for i in range(SESSIONS))
