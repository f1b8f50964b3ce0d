"""One stream per response, whichever process reads a chunk (issue 25): with the defaults (`workers = 1`, the
lane on) a chunk over `lane_payload_bytes` went to the lane and a small one stayed in the daemon, each with
a text of its own, so an AWS key split across the two passed. A real daemon, the default policies'
model_secrets rule."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import grpc
from load_support import HEADER, STREAM_LANE, ask, lane_pid

from hookd import wire
from hookd.v1 import hookd_pb2 as pb
from hookd.v1 import hookd_pb2_grpc
from support import ROOT, RunningDaemon, eventually, free_port, gemini_payload, lanes_serving, scrape, start_daemon

TIMEOUT = 30.0

PAD = "x" * (40 * 1024)  # this chunk's payload is over the default lane_payload_bytes (32 KiB)


def chunk(session: str, text: str, request: object = None) -> bytes:
    response = {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]}
    payload = gemini_payload(
        "AfterModel", session_id=session, llm_request=request or {"messages": []}, llm_response=response
    )
    return wire.encode_request({**HEADER, "event": "AfterModel"}, json.dumps(payload).encode())


def serving(tmp_path: Path) -> RunningDaemon:
    """The default daemon once its lanes serve (every AfterModel chunk is decided in the stream lane)."""
    daemon = start_daemon(tmp_path, ROOT / "policies")
    try:
        eventually(lambda: lanes_serving(daemon.log()), timeout=30)
    except AssertionError:
        daemon.stop()
        raise
    return daemon


def test_a_key_split_across_a_small_and_a_large_chunk_stops_the_turn(tmp_path: Path) -> None:
    daemon = serving(tmp_path)
    try:
        small_then_large = [ask(daemon.socket, chunk("a", "the key is AKIAIOSF")),
                            ask(daemon.socket, chunk("a", "ODNN7EXAMPLE and more " + PAD))]  # fmt: skip
        large_then_small = [ask(daemon.socket, chunk("b", PAD + " the key is AKIAIOSF")),
                            ask(daemon.socket, chunk("b", "ODNN7EXAMPLE"))]  # fmt: skip
    finally:
        daemon.stop()
    for first, second in (small_then_large, large_then_small):
        assert b"AWS access key" not in first.stdout  # half a key is not a key
        assert b'"continue":false' in second.stdout and b"AWS access key" in second.stdout, second.stdout[:300]


def test_a_response_is_one_record_and_one_left_open_is_written_when_the_daemon_stops(tmp_path: Path) -> None:
    daemon = serving(tmp_path)
    try:
        for n in range(5):
            ask(daemon.socket, chunk("done", f"part {n} ", request={"messages": ["one"]}))
        ask(daemon.socket, finished_chunk("done", {"messages": ["one"]}))
        for n in range(3):  # the agent never finishes this one
            ask(daemon.socket, chunk("open", f"part {n} ", request={"messages": ["two"]}))
        ended = daemon.decisions(at_least=1)
    finally:
        daemon.stop()
    records = daemon.decisions(at_least=2)
    assert [(r["session"], r["stream"]["chunks"], r["stream"]["ended"]) for r in ended] == [("done", 6, "end")]
    assert [(r["session"], r["stream"]["chunks"], r["stream"]["ended"]) for r in records[1:]] == [
        ("open", 3, "stopped")
    ]
    assert all(r["decision"] == "allow" and "llm_request" not in json.dumps(r) for r in records)


def finished_chunk(session: str, request: object) -> bytes:
    response = {"candidates": [{"content": {"role": "model", "parts": [{"text": "the end"}]}, "finishReason": "STOP"}]}
    payload = gemini_payload("AfterModel", session_id=session, llm_request=request, llm_response=response)
    return wire.encode_request({**HEADER, "event": "AfterModel"}, json.dumps(payload).encode())


def chunk_payload(session: str, text: str) -> bytes:
    response = {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]}
    payload = gemini_payload("AfterModel", session_id=session, llm_request={"messages": []}, llm_response=response)
    return json.dumps(payload, separators=(",", ":")).encode()


def test_decide_of_a_chunk_goes_on_from_the_text_the_agents_chunks_streamed(tmp_path: Path) -> None:
    """The control plane's Decide of an AfterModel chunk is judged with the one text of its response (the
    lane's), not a text of the daemon's own: half a key by the hook socket, the other half by Decide."""
    daemon = serving(tmp_path)
    try:
        first = ask(daemon.socket, chunk("d", "the key is AKIAIOSF"))
        with grpc.insecure_channel(f"unix:{daemon.control_socket}") as channel:
            second = hookd_pb2_grpc.HookStub(channel).Decide(
                pb.DecideRequest(client="gemini", event="AfterModel", payload=chunk_payload("d", "ODNN7EXAMPLE")),
                timeout=TIMEOUT,
            )
        records = daemon.decisions(at_least=1)
    finally:
        daemon.stop()
    assert b"AWS access key" not in first.stdout
    assert b'"continue":false' in second.stdout and b"AWS access key" in second.stdout, second.stdout[:300]
    assert second.decision == "halt" and second.decision_id
    assert [(r["session"], r["decision"], r["stream"]["chunks"]) for r in records] == [("d", "halt", 2)]
    assert records[0]["id"] == second.decision_id


def test_a_lane_started_again_goes_on_from_the_text_streamed_before_it(tmp_path: Path) -> None:
    """A stream lane that dies between two chunks of a response takes its text with it; the daemon keeps a
    copy (sent by the lane before each reply) and the next one goes on from it: the key split across the
    crash is found whole."""
    daemon = serving(tmp_path)
    try:
        first = ask(daemon.socket, chunk("k", "the key is AKIAIOSF"))
        killed = lane_pid(daemon, STREAM_LANE)
        assert killed is not None
        os.kill(killed, signal.SIGKILL)
        eventually(lambda: '"stream_lane_exited"' in daemon.log(), timeout=TIMEOUT, what="the lane's exit noticed")
        eventually(lambda: daemon.log().count('"stream_lane_serving"') == 2, timeout=TIMEOUT, what="a new one serving")
        second = ask(daemon.socket, chunk("k", "ODNN7EXAMPLE"))
        now = lane_pid(daemon, STREAM_LANE)
    finally:
        daemon.stop()
    assert b"AWS access key" not in first.stdout
    assert now not in (None, killed)
    assert b'"continue":false' in second.stdout and b"AWS access key" in second.stdout, second.stdout[:300]


def test_a_key_split_between_a_chunk_sent_to_the_lane_and_one_relayed_stops_the_turn(tmp_path: Path) -> None:
    """issue 30: a shim sends a streamed chunk to the lane's socket directly, or (the lane absent or refusing)
    to the hook socket, which relays it: either way it lands in the one text of its response. A key split
    between the two ways is found whole, in either order, and the response stays one record."""
    daemon = serving(tmp_path)
    lane = daemon.runtime_dir / "stream.sock"
    try:
        direct_then_relayed = [ask(lane, chunk("a", "the key is AKIAIOSF")),
                               ask(daemon.socket, chunk("a", "ODNN7EXAMPLE and more"))]  # fmt: skip
        relayed_then_direct = [ask(daemon.socket, chunk("b", "the key is AKIAIOSF")),
                               ask(lane, chunk("b", "ODNN7EXAMPLE"))]  # fmt: skip
        records = daemon.decisions(at_least=2)
    finally:
        daemon.stop()
    for first, second in (direct_then_relayed, relayed_then_direct):
        assert b"AWS access key" not in first.stdout  # half a key is not a key
        assert b'"continue":false' in second.stdout and b"AWS access key" in second.stdout, second.stdout[:300]
    assert sorted((r["session"], r["decision"], r["stream"]["chunks"]) for r in records) == [
        ("a", "halt", 2),
        ("b", "halt", 2),
    ]
    assert {r["caller"]["uid"] for r in records} == {os.getuid()}  # a direct chunk's caller is the socket's peer


def test_the_lane_takes_no_other_event_directly(tmp_path: Path) -> None:
    """Only a streamed event is taken on the stream lane's socket from a process that is not its daemon: any
    other (a tool call) is refused unread, so it decides nothing but what the daemon would have sent it; the
    lane's socket takes none (heavy requests only come forwarded)."""
    daemon = serving(tmp_path)
    tool = gemini_payload("BeforeTool", tool_name="run_shell_command", tool_input={"command": "ls"})
    try:
        refused = ask(daemon.runtime_dir / "stream.sock", wire.encode_request(HEADER, json.dumps(tool).encode()))
        streamed = chunk("n", "hello")
        on_the_lane = ask(daemon.runtime_dir / "lane.sock", streamed)
        on_the_stream_lane = ask(daemon.runtime_dir / "stream.sock", streamed)
    finally:
        daemon.stop()
    assert refused.status is wire.Status.ERROR and refused.stderr == b"forbidden", refused
    assert on_the_lane.status is wire.Status.ERROR and on_the_lane.stderr == b"forbidden", on_the_lane
    assert on_the_stream_lane.status is wire.Status.OK, on_the_stream_lane


def test_a_chunk_sent_to_the_stream_lane_counts_as_a_hook_request_and_a_relayed_one_as_the_lanes_too(
    tmp_path: Path,
) -> None:
    """The stream lane reports the chunks a shim sent it as hook requests (no other process saw them); a relayed
    chunk was counted by the daemon that read it, and as a request the lanes took."""
    address = f"127.0.0.1:{free_port()}"
    daemon = start_daemon(tmp_path, ROOT / "policies", f'[metrics]\nlisten = "{address}"\n', lane=True)
    try:
        direct = [ask(daemon.runtime_dir / "stream.sock", chunk("c", f"word {n}")) for n in range(2)]
        relayed = ask(daemon.socket, chunk("c", "and the last"))
        counted = eventually(
            lambda: (m := scrape(address)).get(("hookd_requests_total", ())) == 3 and m,
            timeout=TIMEOUT,
            what="the stream lane's requests counted (it reports them each second)",
        )
    finally:
        daemon.stop()
    assert [r.status for r in [*direct, relayed]] == [wire.Status.OK] * 3
    assert counted[("hookd_lane_requests_total", ())] == 1


def test_an_error_answered_to_a_chunk_sent_to_the_stream_lane_is_counted(tmp_path: Path) -> None:
    """A chunk a shim sent the stream lane itself reaches no other process: the stream lane counts the error it
    answered (the relayed ones are counted by the process that relayed them)."""
    address = f"127.0.0.1:{free_port()}"
    daemon = start_daemon(tmp_path, ROOT / "policies", config=f'[metrics]\nlisten = "{address}"\n')
    lane = daemon.runtime_dir / "stream.sock"
    try:
        eventually(lambda: lanes_serving(daemon.log()), timeout=TIMEOUT)
        bad = ask(lane, wire.encode_request({**HEADER, "event": "AfterModel"}, b'{"session_id": "e", "llm_resp'))
        good = ask(lane, chunk("e", "fine"))
        counted = eventually(
            lambda: (m := scrape(address)).get(("hookd_request_errors_total", (("code", "bad-payload"),))) == 1 and m,
            timeout=TIMEOUT,
            what="the stream lane's error counted (it reports each second)",
        )
    finally:
        daemon.stop()
    assert bad.status is wire.Status.ERROR and bad.stderr == b"bad-payload", bad
    assert good.status is wire.Status.OK
    assert counted[("hookd_requests_total", ())] == 2
