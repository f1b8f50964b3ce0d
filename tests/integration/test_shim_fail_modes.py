"""The Python shim's fail modes: the same output whatever went wrong, per event."""

from __future__ import annotations

import json
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from support import FakeServer, RunningDaemon, gemini_payload, run_shim

CLOSED_EVENTS = ("BeforeTool", "BeforeAgent", "BeforeModel", "AfterTool")
OPEN_EVENTS = ("AfterAgent", "SessionStart", "SessionEnd", "PreCompress", "Notification", "AfterModel",
               "BeforeToolSelection")  # fmt: skip
PAYLOAD = gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": "a.txt", "content": "x"})


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="hkd", dir="/tmp") as tmp:
        yield Path(tmp)


def fail_reason(stdout: bytes) -> str:
    body = json.loads(stdout)
    assert set(body) == {"decision", "reason"}
    assert body["decision"] == "deny"
    reason = body["reason"]
    assert "\n" not in reason
    return str(reason)


def failure(kind: str, sock_dir: Path) -> tuple[Path, FakeServer | None]:
    path = sock_dir / "hook.sock"
    if kind == "absent":
        return path, None
    if kind == "refused":  # a socket file with nobody listening: what a killed daemon leaves
        stale = socket.socket(socket.AF_UNIX)
        stale.bind(str(path))
        stale.close()
        return path, None
    return path, FakeServer(path, kind)


EXPECTED = {
    "absent": "hookd is not running (no daemon on {path}): start it with `hookd serve`",
    "refused": "hookd is not running (no daemon on {path}): start it with `hookd serve`",
    "hang": "hookd did not answer within 300 ms",
    "close": "hookd closed the connection before a complete reply",
    "truncated": "hookd closed the connection before a complete reply",
    "garbage": "hookd sent a malformed reply",
    "error": "hookd rejected the event: hook payload is not valid JSON",
}


@pytest.mark.parametrize("kind", sorted(EXPECTED))
@pytest.mark.parametrize("event", CLOSED_EVENTS)
def test_closed_events_print_a_deny_whatever_went_wrong(kind: str, event: str, sock_dir: Path) -> None:
    path, server = failure(kind, sock_dir)
    try:
        result = run_shim(path, event, PAYLOAD, deadline_ms=300)
    finally:
        if server:
            server.close()
    assert (result.returncode, result.stderr) == (0, b"")
    assert fail_reason(result.stdout) == EXPECTED[kind].format(path=path)


@pytest.mark.parametrize("kind", ["absent", "hang", "garbage"])
@pytest.mark.parametrize("event", OPEN_EVENTS)
def test_open_events_print_nothing(kind: str, event: str, sock_dir: Path) -> None:
    path, server = failure(kind, sock_dir)
    try:
        result = run_shim(path, event, PAYLOAD, deadline_ms=300)
    finally:
        if server:
            server.close()
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_fail_open_can_be_chosen_for_a_blocking_event(sock_dir: Path) -> None:
    result = run_shim(sock_dir / "hook.sock", "BeforeTool", PAYLOAD, fail="open")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_after_agent_never_fails_closed_even_when_asked(sock_dir: Path) -> None:
    result = run_shim(sock_dir / "hook.sock", "AfterAgent", PAYLOAD, fail="closed")
    assert result.stdout == b""


def test_malformed_payload_through_the_real_daemon_applies_the_fail_mode(daemon: RunningDaemon) -> None:
    closed = run_shim(daemon.socket, "BeforeTool", b'{"tool_name": "write_file", ')
    assert fail_reason(closed.stdout).startswith("hookd rejected the event: hook payload is not valid JSON")
    opened = run_shim(daemon.socket, "AfterAgent", b"[1, 2]")
    assert (opened.stdout, opened.stderr) == (b"", b"")
    not_object = run_shim(daemon.socket, "BeforeTool", b'"just a string"')
    assert (
        fail_reason(not_object.stdout) == "hookd rejected the event: hook payload must be a JSON object, got a string"
    )


def test_daemon_killed_mid_request_fails_closed(sock_dir: Path) -> None:
    # The fake daemon reads the request and dies without a reply, as a daemon killed mid-request does.
    path, server = failure("close", sock_dir)
    try:
        result = run_shim(path, "BeforeTool", PAYLOAD)
    finally:
        assert server is not None
        server.close()
    assert fail_reason(result.stdout) == "hookd closed the connection before a complete reply"


def test_oversize_stdin_fails_closed_without_sending(sock_dir: Path) -> None:
    path, server = failure("garbage", sock_dir)
    try:
        result = run_shim(path, "BeforeTool", b" " * (16 * 1024 * 1024 + 1))
    finally:
        assert server is not None
        server.close()
    assert fail_reason(result.stdout) == "the hook input is larger than hookd's limit of 16777216 bytes; not sent"


def test_after_model_fails_closed_only_when_configured(sock_dir: Path) -> None:
    path = sock_dir / "hook.sock"
    assert run_shim(path, "AfterModel", PAYLOAD).stdout == b""
    assert fail_reason(run_shim(path, "AfterModel", PAYLOAD, fail="closed").stdout).startswith("hookd is not running")
    assert run_shim(path, "BeforeToolSelection", PAYLOAD, fail="closed").stdout == b""
