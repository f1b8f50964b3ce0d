"""Both shims send a streamed chunk (hookd.dialects.registry.STREAMED) to the lane's socket first and fall back
to the hook socket, which relays it to the lane, when the lane does not take it (issue 30). A real daemon, the
default policies' model_secrets rule, each shim run as an agent runs it."""

from __future__ import annotations

import json
from pathlib import Path

from load_support import HEADER, ask
from shims import Shim

from hookd import wire
from support import ROOT, eventually, gemini_payload, start_daemon

KEY_HALVES = ("the key is AKIAIOSF", "ODNN7EXAMPLE")


def chunk(session: str, text: str) -> dict[str, object]:
    response = {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]}
    return gemini_payload("AfterModel", session_id=session, llm_request={"messages": []}, llm_response=response)


def test_a_streamed_chunk_reaches_the_lane_without_the_hook_socket(tmp_path: Path, shim: Shim) -> None:
    """With the hook socket moved away, a chunk still gets its decision (the lane's), while a tool call finds
    no daemon: the chunk went to the lane directly. Its other half relayed by the daemon completes the key."""
    daemon = start_daemon(tmp_path, ROOT / "policies")
    hook = daemon.socket
    away = hook.with_name("hook.away")
    try:
        eventually(lambda: '"lane_serving"' in daemon.log(), timeout=30)
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
    """`[daemon] lane = false`: no lane's socket; the shim sends the chunks to the hook socket and the daemon
    decides them, the key split across two chunks found whole."""
    daemon = start_daemon(tmp_path, ROOT / "policies", "[daemon]\nlane = false\n")
    try:
        first = shim.run(daemon.socket, "AfterModel", chunk("f", KEY_HALVES[0]))
        second = shim.run(daemon.socket, "AfterModel", chunk("f", KEY_HALVES[1]))
    finally:
        daemon.stop()
    assert first.returncode == 0 and b"AWS access key" not in first.stdout, first
    assert b'"continue":false' in second.stdout and b"AWS access key" in second.stdout, second
