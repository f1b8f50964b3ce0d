"""One conformance suite for both shims, the Python one and the native (C) one.

Every test runs each shim the way Gemini CLI does (through `bash -c`) and holds it to the same bytes:
the daemon's stdout, stderr and exit code passed through exactly; the same fail-mode output, per event,
whatever went wrong; the same request frame on the wire. The `both` tests run the two side by side on
inputs where spelling out the expected bytes is impractical and compare them with each other.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from shims import Shim

from hookd import wire
from support import SHIM, FakeServer, RunningDaemon, gemini_payload, require, start_daemon

CLOSED_EVENTS = ("BeforeTool", "BeforeAgent", "BeforeModel", "AfterTool")
OPEN_EVENTS = ("AfterAgent", "SessionStart", "SessionEnd", "PreCompress", "Notification", "AfterModel",
               "BeforeToolSelection")  # fmt: skip
PAYLOAD = gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": "a.txt", "content": "x"})
MAX_PAYLOAD = 16 * 1024 * 1024
REPLY = struct.Struct("!4sBBBxII")
FORWARDED_ENV = ("GEMINI_PROJECT_DIR", "GEMINI_CWD", "GEMINI_SESSION_ID", "GEMINI_PLANS_DIR", "CLAUDE_PROJECT_DIR",
                 "CLAUDE_CODE_SESSION_ID", "HOME", "USER")  # fmt: skip
CLAUDE_PAYLOAD = {"session_id": "s", "cwd": "/tmp", "hook_event_name": "PreToolUse", "tool_name": "Bash",
                  "tool_input": {"command": "ls"}}  # fmt: skip


@pytest.fixture
def both(native_binary: Path) -> tuple[Shim, Shim]:
    return Shim.python(), Shim.native(native_binary)


@pytest.fixture
def sock_dir() -> Iterator[Path]:
    # A short path: a Unix socket path must fit in 107 bytes, and pytest's tmp_path can be long.
    with tempfile.TemporaryDirectory(prefix="hkd", dir="/tmp") as tmp:
        yield Path(tmp)


def json_string(text: str) -> bytes:
    """The shims' JSON string encoding (the spec, written out independently of either shim)."""
    out = ['"']
    for ch in text:
        if ord(ch) < 0x20:
            out.append(f"\\u{ord(ch):04x}")
        elif ch in '"\\':
            out.append("\\" + ch)
        elif ch in "\u2028\u2029":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return ("".join(out) + '"').encode("utf-8", "surrogateescape")


def deny(reason: str) -> bytes:
    return b'{"decision":"deny","reason":' + json_string(reason) + b"}"


def fail_reason(stdout: bytes) -> str:
    body = json.loads(stdout)
    assert set(body) == {"decision", "reason"}
    assert body["decision"] == "deny"
    reason = body["reason"]
    assert "\n" not in reason
    return str(reason)


def error_reply(message: bytes, code: bytes = b"bad-payload") -> bytes:
    return REPLY.pack(b"HKDR", 1, 1, 0, len(message), len(code)) + message + code


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


def split_request(frame: bytes) -> tuple[bytes, dict[str, object], bytes, bytes]:
    """(prefix, header, header bytes, payload) of a captured request frame."""
    magic, version, header_len, payload_len = struct.unpack("!4sBxII", frame[:14])
    assert (magic, version) == (b"HKDQ", 1)
    header = frame[14 : 14 + header_len]
    payload = frame[14 + header_len :]
    assert len(payload) == payload_len
    # Strings the shims got as invalid UTF-8 (argv, environment, cwd) are sent as those raw bytes.
    return frame[:14], json.loads(header.decode("utf-8", "surrogateescape")), header, payload


# ---- the daemon's reply, passed through exactly ----------------------------------------------------

REPLIES = {
    "deny-json": (b'{"decision":"deny","reason":"no [x:y]"}', b"", 0),
    "nothing": (b"", b"", 0),
    "non-ascii": ('{"reason":"é — 漢字 \u2028 😀"}'.encode(), "ошибка\n".encode(), 0),
    "binary": (bytes(range(256)) * 3, bytes(reversed(range(256))), 0),
    "one-mib": (b"0123456789abcde\n" * 65536, b"", 0),
    "stderr-only-exit-2": (b"", b"blocked by policy\n", 2),
    "exit-1": (b"partial", b"warning\n", 1),
    "exit-255": (b"x", b"y", 255),
    "at-the-limit": (b"o" * (MAX_PAYLOAD - 1), b"e", 0),
}


@pytest.mark.parametrize("case", sorted(REPLIES))
def test_reply_bytes_and_exit_code_pass_through_exactly(shim: Shim, case: str, sock_dir: Path) -> None:
    out, err, code = REPLIES[case]
    server = FakeServer(sock_dir / "hook.sock", "reply", wire.encode_reply(out, err, code))
    try:
        result = shim.run(server.path, "BeforeTool", PAYLOAD)
    finally:
        server.close()
    assert (result.returncode, len(result.stdout), len(result.stderr)) == (code, len(out), len(err))
    assert (result.stdout, result.stderr) == (out, err)
    [frame] = server.requests
    _, header, _, payload = split_request(frame)
    assert (header["client"], header["event"]) == ("gemini", "BeforeTool")
    assert payload == json.dumps(PAYLOAD, separators=(",", ":")).encode()


# ---- fail modes: the same output whatever went wrong, per event ------------------------------------

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
def test_closed_events_print_a_deny_whatever_went_wrong(shim: Shim, kind: str, event: str, sock_dir: Path) -> None:
    path, server = failure(kind, sock_dir)
    try:
        result = shim.run(path, event, PAYLOAD, deadline_ms=300)
    finally:
        if server:
            server.close()
    assert (result.returncode, result.stderr) == (0, b"")
    assert fail_reason(result.stdout) == EXPECTED[kind].format(path=path)
    assert result.stdout == deny(EXPECTED[kind].format(path=path))


@pytest.mark.parametrize("kind", ["absent", "hang", "garbage"])
@pytest.mark.parametrize("event", OPEN_EVENTS)
def test_open_events_print_nothing(shim: Shim, kind: str, event: str, sock_dir: Path) -> None:
    path, server = failure(kind, sock_dir)
    try:
        result = shim.run(path, event, PAYLOAD, deadline_ms=300)
    finally:
        if server:
            server.close()
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


MALFORMED = "hookd sent a malformed reply"
TRUNCATED = "hookd closed the connection before a complete reply"
RAW_REPLIES = {
    "bad-magic": (b"HKDX" + bytes(12), MALFORMED),
    "bad-version": (REPLY.pack(b"HKDR", 2, 0, 0, 0, 0), MALFORMED),
    "bad-status": (REPLY.pack(b"HKDR", 1, 2, 0, 0, 0), MALFORMED),
    "over-the-limit": (REPLY.pack(b"HKDR", 1, 0, 0, MAX_PAYLOAD, 1), MALFORMED),
    "empty": (b"", TRUNCATED),
    "short-prefix": (b"HKDR\x01\x00\x00", TRUNCATED),
    "short-body": (REPLY.pack(b"HKDR", 1, 0, 0, 10, 0) + b"abc", TRUNCATED),
    "short-error-body": (REPLY.pack(b"HKDR", 1, 1, 0, 10, 5) + b"abc", TRUNCATED),
    "error-one-line": (
        error_reply(" line one\n\tline  two\u00a0\u2028three\x1f\x0b end \u3000".encode()),
        "hookd rejected the event: line one line two three end",
    ),
    "error-escapes": (
        error_reply(b'quote " backslash \\ nul \x00 bell \x07 del \x7f'),
        'hookd rejected the event: quote " backslash \\ nul \x00 bell \x07 del \x7f',
    ),
    "error-invalid-utf8": (
        error_reply(b"a\xffb \xe2\x80 c\xed\xa0\x80d \xf0\x9f\x98 \xc0\xaf \xf4\x90\x80\x80 e\xf0\x9f\x98\x80"),
        "hookd rejected the event: a\ufffdb \ufffd c\ufffd\ufffd\ufffdd \ufffd \ufffd\ufffd "
        "\ufffd\ufffd\ufffd\ufffd e😀",
    ),
    "error-cut-at-the-end": (error_reply(b"cut \xe2\x80"), "hookd rejected the event: cut \ufffd"),
    "error-empty": (error_reply(b""), "hookd rejected the event:"),
}


@pytest.mark.parametrize("case", sorted(RAW_REPLIES))
def test_bad_and_error_replies_give_the_same_deny(shim: Shim, case: str, sock_dir: Path) -> None:
    raw, reason = RAW_REPLIES[case]
    server = FakeServer(sock_dir / "hook.sock", "reply", raw)
    try:
        closed = shim.run(server.path, "BeforeTool", PAYLOAD, deadline_ms=2000)
        opened = shim.run(server.path, "AfterAgent", PAYLOAD, deadline_ms=2000)
    finally:
        server.close()
    assert (closed.returncode, closed.stdout, closed.stderr) == (0, deny(reason), b"")
    assert (opened.returncode, opened.stdout, opened.stderr) == (0, b"", b"")


def test_error_reply_texts_are_byte_identical(both: tuple[Shim, Shim], sock_dir: Path) -> None:
    # Every whitespace Python's str.split() knows, controls, U+2028/9, and invalid UTF-8 of every shape.
    spaces = "".join(chr(c) for c in range(0x3001) if chr(c).isspace())
    messages = [
        f"x{spaces}y{spaces}".encode(),
        bytes(range(256)),
        bytes(range(255, -1, -1)),
        b"\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaf\xe2\x81\x9f\xe1\x9a\x80\xc2\x85\xc2\xa0\xe3\x80\x80|",
        b"\xe0\x80\x80\xe0\xa0\x80\xed\x9f\xbf\xed\xa0\x80\xf0\x8f\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\xf4\x90",
        b"\xf0\x9f\x98\x80\xf0\x9f\x98\xf0\x9f\xe2\x80\xa8\xc2",
        "naïve ünïcödé 漢字 \U0001f600".encode(),
    ]
    outputs = []
    for shim in both:
        runs = []
        for message in messages:
            server = FakeServer(sock_dir / "hook.sock", "reply", error_reply(message))
            try:
                runs.append(shim.run(server.path, "BeforeTool", PAYLOAD).stdout)
            finally:
                server.close()
                (sock_dir / "hook.sock").unlink()
        outputs.append(runs)
    python, native = outputs
    for message, py_out, c_out in zip(messages, python, native, strict=True):
        assert py_out == c_out, message
        reason = "hookd rejected the event: " + message.decode("utf-8", "replace")
        assert fail_reason(py_out) == " ".join(reason.split())


def test_fail_open_can_be_chosen_for_a_blocking_event(shim: Shim, sock_dir: Path) -> None:
    result = shim.run(sock_dir / "hook.sock", "BeforeTool", PAYLOAD, fail="open")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_after_agent_never_fails_closed_even_when_asked(shim: Shim, sock_dir: Path) -> None:
    result = shim.run(sock_dir / "hook.sock", "AfterAgent", PAYLOAD, fail="closed")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_after_model_fails_closed_only_when_configured(shim: Shim, sock_dir: Path) -> None:
    path = sock_dir / "hook.sock"
    assert shim.run(path, "AfterModel", PAYLOAD).stdout == b""
    assert fail_reason(shim.run(path, "AfterModel", PAYLOAD, fail="closed").stdout).startswith("hookd is not running")
    assert shim.run(path, "BeforeToolSelection", PAYLOAD, fail="closed").stdout == b""


def test_another_client_never_fails_closed(shim: Shim, sock_dir: Path) -> None:
    result = shim.run(sock_dir / "hook.sock", "BeforeTool", PAYLOAD, client="codex", fail="closed")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def claude_pre_tool_deny(reason: str) -> bytes:
    return (b'{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny",'
            b'"permissionDecisionReason":' + json_string(reason) + b"}}")  # fmt: skip


@pytest.mark.parametrize("kind", ["absent", "hang", "garbage", "error"])
def test_claude_pre_tool_use_fails_closed_with_a_permission_deny(shim: Shim, kind: str, sock_dir: Path) -> None:
    # Never a bare exit 1, which Claude Code treats as an allow: a deny JSON on exit 0.
    path, server = failure(kind, sock_dir)
    try:
        result = shim.run(path, "PreToolUse", CLAUDE_PAYLOAD, client="claude", deadline_ms=300)
    finally:
        if server:
            server.close()
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout == claude_pre_tool_deny(EXPECTED[kind].format(path=path))


@pytest.mark.parametrize("event", ["UserPromptSubmit", "PostToolUse", "PostToolUseFailure"])
def test_claude_other_blocking_events_fail_closed_with_a_block(shim: Shim, event: str, sock_dir: Path) -> None:
    path = sock_dir / "hook.sock"
    result = shim.run(path, event, CLAUDE_PAYLOAD, client="claude")
    reason = EXPECTED["absent"].format(path=path)
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout == b'{"decision":"block","reason":' + json_string(reason) + b"}"
    assert json.loads(result.stdout) == {"decision": "block", "reason": reason}
    # --fail open is honoured, as for Gemini
    assert shim.run(path, event, CLAUDE_PAYLOAD, client="claude", fail="open").stdout == b""


@pytest.mark.parametrize("event", ["Stop", "SubagentStop", "SessionStart", "SessionEnd", "Notification", "PreCompact",
                                   "PermissionRequest", "BeforeTool"])  # fmt: skip
def test_claude_events_that_must_not_block_fail_open_even_when_asked(shim: Shim, event: str, sock_dir: Path) -> None:
    result = shim.run(sock_dir / "hook.sock", event, CLAUDE_PAYLOAD, client="claude", fail="closed")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


def test_claude_fail_output_is_byte_identical(both: tuple[Shim, Shim], sock_dir: Path) -> None:
    odd = 'quote " back \\ tab\t nl\n é \u2028 漢字'
    path = sock_dir / f"{odd}.sock"
    outputs = [
        [shim.run(path, event, CLAUDE_PAYLOAD, client="claude").stdout for event in ("PreToolUse", "UserPromptSubmit")]
        for shim in both
    ]
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0][0])["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_claude_request_frame_carries_the_client_and_its_event(shim: Shim, sock_dir: Path) -> None:
    server = FakeServer(sock_dir / "hook.sock", "reply", wire.encode_reply(b"", b"", 0))
    try:
        env = {"CLAUDE_PROJECT_DIR": "/p", "CLAUDE_CODE_SESSION_ID": "abc"}
        result = shim.run(server.path, "PreToolUse", CLAUDE_PAYLOAD, client="claude", extra_env=env)
    finally:
        server.close()
    assert (result.returncode, result.stdout) == (0, b"")
    [frame] = server.requests
    _, header, _, payload = split_request(frame)
    assert (header["client"], header["event"]) == ("claude", "PreToolUse")
    assert {k: header["env"][k] for k in env} == env  # type: ignore[index]
    assert json.loads(payload) == CLAUDE_PAYLOAD


def test_daemon_killed_mid_request_fails_closed(shim: Shim, sock_dir: Path) -> None:
    # The fake daemon reads the request and dies without a reply, as a daemon killed mid-request does.
    path, server = failure("close", sock_dir)
    try:
        result = shim.run(path, "BeforeTool", PAYLOAD)
    finally:
        assert server is not None
        server.close()
    assert fail_reason(result.stdout) == "hookd closed the connection before a complete reply"


def test_a_full_backlog_is_waited_for_until_the_deadline(shim: Shim, sock_dir: Path) -> None:
    # A daemon too busy to accept: connect() waits for room in the backlog (within the deadline)
    # instead of failing at once with EAGAIN.
    path = sock_dir / "hook.sock"
    with socket.socket(socket.AF_UNIX) as listener, socket.socket(socket.AF_UNIX) as filler:
        listener.bind(str(path))
        listener.listen(0)
        filler.setblocking(False)
        filler.connect(str(path))  # the one pending connection a backlog of 0 holds
        result = shim.run(path, "BeforeTool", PAYLOAD, deadline_ms=300)
    assert result.stdout == deny("hookd did not answer within 300 ms")


def test_socket_path_too_long(shim: Shim, sock_dir: Path) -> None:
    fits = sock_dir / ("x" * (107 - len(str(sock_dir)) - 1))
    too_long = sock_dir / ("x" * (108 - len(str(sock_dir)) - 1))
    assert (len(str(fits)), len(str(too_long))) == (107, 108)
    assert shim.run(fits, "BeforeTool", PAYLOAD).stdout == deny(EXPECTED["absent"].format(path=fits))
    assert shim.run(too_long, "BeforeTool", PAYLOAD).stdout == deny(
        "hookd could not be reached: connection failed (AF_UNIX path too long)"
    )


def test_other_connect_errors_quote_strerror(shim: Shim) -> None:
    result = shim.run("/etc/hostname/hook.sock", "BeforeTool", PAYLOAD)
    assert result.stdout == deny("hookd could not be reached: connection failed (Not a directory)")


def test_a_path_with_odd_characters_is_quoted_on_one_line(shim: Shim, sock_dir: Path) -> None:
    path = str(sock_dir) + '/sp  ace\n"quote"\\back\u2028é\udcff/hook.sock'
    result = shim.run(path, "BeforeTool", PAYLOAD)
    reason = f"hookd is not running (no daemon on {' '.join(path.split())}): start it with `hookd serve`"
    assert result.stdout == deny(reason)


# ---- stdin -----------------------------------------------------------------------------------------


def test_oversize_stdin_fails_closed_without_sending(shim: Shim, sock_dir: Path) -> None:
    path, server = failure("garbage", sock_dir)
    try:
        result = shim.run(path, "BeforeTool", b" " * (MAX_PAYLOAD + 1))
    finally:
        assert server is not None
        server.close()
    assert fail_reason(result.stdout) == "the hook input is larger than hookd's limit of 16777216 bytes; not sent"


def test_stdin_at_the_limit_is_sent(shim: Shim, sock_dir: Path) -> None:
    server = FakeServer(sock_dir / "hook.sock", "reply", wire.encode_reply(b"ok"))
    try:
        result = shim.run(server.path, "BeforeTool", b" " * MAX_PAYLOAD)
    finally:
        server.close()
    assert result.stdout == b"ok"
    assert len(split_request(server.requests[0])[3]) == MAX_PAYLOAD


def test_stdin_left_open_fails_at_the_deadline(shim: Shim, sock_dir: Path) -> None:
    result = shim.run(sock_dir / "hook.sock", "BeforeTool", b'{"tool_name":', deadline_ms=300, stdin_open=True)
    assert result.stdout == deny("the hook input (stdin) was not complete within 300 ms")
    opened = shim.run(sock_dir / "hook.sock", "SessionStart", b"{", deadline_ms=300, stdin_open=True)
    assert (opened.returncode, opened.stdout, opened.stderr) == (0, b"", b"")


@pytest.mark.parametrize("redirect", ["<&-", "0>/dev/null"])  # closed; open for writing only
def test_unreadable_stdin_fails_closed(shim: Shim, sock_dir: Path, redirect: str) -> None:
    result = shim.run(sock_dir / "hook.sock", "BeforeTool", b"", redirect=redirect)
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout == deny("the hook input (stdin) could not be read (Bad file descriptor)")


def test_a_directory_on_stdin_fails_closed(native_binary: Path, sock_dir: Path) -> None:
    # Native only: the Python interpreter itself refuses to start with a directory on stdin
    # ("Fatal Python error: init_sys_streams", exit 1) before the Python shim can do anything.
    result = Shim.native(native_binary).run(sock_dir / "hook.sock", "BeforeTool", b"", redirect="</")
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout == deny("the hook input (stdin) could not be read (Is a directory)")


def test_stdin_closed_early_is_rejected_by_the_daemon(shim: Shim, daemon: RunningDaemon) -> None:
    # The writer closed stdin before sending all it meant to: an empty or partial payload, which the
    # daemon refuses; the shim turns that into its fail mode.
    not_json = "hookd rejected the event: hook payload is not valid JSON"
    for stdin, starts in ((b'{"tool_name": "write_file", ', not_json), (b"", not_json)):
        assert fail_reason(shim.run(daemon.socket, "BeforeTool", stdin).stdout).startswith(starts), stdin
    not_object = shim.run(daemon.socket, "BeforeTool", b'"just a string"')
    assert not_object.stdout == deny("hookd rejected the event: hook payload must be a JSON object, got a string")
    opened = shim.run(daemon.socket, "AfterAgent", b"[1, 2]")
    assert (opened.returncode, opened.stdout, opened.stderr) == (0, b"", b"")


# ---- the request: socket resolution, header, payload -----------------------------------------------


def test_request_frames_are_byte_identical(both: tuple[Shim, Shim], sock_dir: Path) -> None:
    odd = 'sp ace "q" \\ \t\n\x01\x1f \u2028\u2029 é 漢 😀'
    cwd = sock_dir / os.fsdecode(b"dir " + "é\n\u2028".encode() + b"\xff\xe2\x80")
    cwd.mkdir()
    env: dict[str, str | bytes] = {name: f"{name}={odd}" for name in FORWARDED_ENV}
    env |= {"GEMINI_SESSION_ID": b"raw \xff\xfe bytes \xed\xa0\x80", "USER": "", "SECRET_TOKEN": "never sent"}
    payload = bytes(range(256)) + b"\x00 not json"
    frames = []
    for shim in both:
        server = FakeServer(sock_dir / "hook.sock", "reply", wire.encode_reply(b""))
        try:
            result = shim.run(server.path, "BeforeTool", payload, extra_env=env, cwd=cwd)
        finally:
            server.close()
            (sock_dir / "hook.sock").unlink()
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
        frames.extend(server.requests)
    python, native = frames
    assert python == native
    _, header, raw_header, sent = split_request(python)
    assert sent == payload
    assert raw_header.startswith(b'{"client":"gemini","event":"BeforeTool","cwd":')
    assert header["cwd"] == str(cwd)
    assert header["ppid"] == os.getpid()  # `bash -c` execs the shim: its parent is this process
    forwarded = header["env"]
    assert isinstance(forwarded, dict)
    assert list(forwarded) == list(FORWARDED_ENV)  # the shim's order; never anything else
    assert forwarded["HOME"] == f"HOME={odd}"
    assert forwarded["USER"] == ""
    assert b"\\u2028\\u2029" in raw_header
    assert b"raw \xff\xfe bytes \xed\xa0\x80" in raw_header  # invalid UTF-8 passes through raw


def test_header_without_a_working_directory(both: tuple[Shim, Shim], sock_dir: Path) -> None:
    gone = sock_dir / "gone"
    gone.mkdir()
    headers = []
    for shim in both:
        server = FakeServer(sock_dir / "hook.sock", "reply", wire.encode_reply(b""))
        try:
            shim.run(server.path, "BeforeTool", PAYLOAD, shell_prefix=f"cd {gone} && rmdir {gone} && exec ")
        finally:
            server.close()
            (sock_dir / "hook.sock").unlink()
        gone.mkdir()
        headers.append(split_request(server.requests[0])[2])
    assert headers[0] == headers[1]
    assert b'"cwd":""' in headers[0]


def test_socket_resolution(shim: Shim, sock_dir: Path) -> None:
    runtime = sock_dir / "run"
    (runtime / "hookd").mkdir(parents=True, mode=0o700)  # the daemon makes it 0700; the shims check
    via_env = FakeServer(sock_dir / "env.sock", "reply", wire.encode_reply(b"HOOKD_SOCKET"))
    via_xdg = FakeServer(runtime / "hookd" / "hook.sock", "reply", wire.encode_reply(b"XDG_RUNTIME_DIR"))
    try:
        both_set = {"HOOKD_SOCKET": str(via_env.path), "XDG_RUNTIME_DIR": str(runtime)}
        assert shim.run(None, "BeforeTool", PAYLOAD, extra_env=both_set).stdout == b"HOOKD_SOCKET"
        assert shim.run("", "BeforeTool", PAYLOAD, extra_env=both_set).stdout == b"HOOKD_SOCKET"
        xdg = {"HOOKD_SOCKET": "", "XDG_RUNTIME_DIR": str(runtime)}
        assert shim.run(None, "BeforeTool", PAYLOAD, extra_env=xdg).stdout == b"XDG_RUNTIME_DIR"
        explicit = shim.run(via_xdg.path, "BeforeTool", PAYLOAD, extra_env={"HOOKD_SOCKET": str(via_env.path)})
        assert explicit.stdout == b"XDG_RUNTIME_DIR"
    finally:
        via_env.close()
        via_xdg.close()
    fallback = Path(f"/tmp/hookd-{os.getuid()}/hook.sock")
    if fallback.exists():
        return  # a daemon of this user is running: the fallback path is taken, but would be answered
    relative = shim.run(None, "BeforeTool", PAYLOAD, extra_env={"XDG_RUNTIME_DIR": "run/user"})
    assert relative.stdout == deny(EXPECTED["absent"].format(path=fallback))


def test_deadline_argument(both: tuple[Shim, Shim], sock_dir: Path) -> None:
    # Leading zeros count; anything but a positive ASCII number up to 2**31-1 ms means the default,
    # 4000 ms. The shims run side by side so the default's wait is paid once.
    path, server = failure("hang", sock_dir)
    assert server is not None
    cases = {"0300": 300, "2147483648": 4000, "-300": 4000, "\u00b2": 4000, "3e2": 4000, "": 4000}
    procs = []
    try:
        for shim in both:
            for text in cases:
                argv = shim.argv("BeforeTool", path, deadline_ms=text)
                procs.append((text, subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE)))
        for text, proc in procs:
            out, _ = proc.communicate(timeout=30)
            assert out == deny(f"hookd did not answer within {cases[text]} ms"), text
    finally:
        server.close()


# ---- the command line and the output side ----------------------------------------------------------

USAGE = "usage: NAME CLIENT EVENT [--socket PATH] [--deadline-ms N] [--fail closed|open]"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], USAGE),
        (["gemini"], USAGE),
        (["gemini", "BeforeTool", "--sock", "x"], "NAME: bad argument '--sock'"),
        (["gemini", "BeforeTool", "--socket"], "NAME: bad argument '--socket'"),
        (["gemini", "BeforeTool", "--client", "claude"], "NAME: bad argument '--client'"),
        (["gemini", "BeforeTool", "socket", "x"], "NAME: bad argument 'socket'"),
        (["gemini", "BeforeTool", "--it's", "x"], 'NAME: bad argument "--it\'s"'),
        (["gemini", "BeforeTool", "--'\"\\\t\n\x01\x7f", "x"], "NAME: bad argument '--\\'\"\\\\\\t\\n\\x01\\x7f'"),
        (["gemini", "BeforeTool", "--é\u00a0", "x"], "NAME: bad argument '--é\\xa0'"),
        (["gemini", "BeforeTool", "--fail", "maybe"], "NAME: bad value 'maybe' for --fail: use closed or open"),
        (["gemini", "BeforeTool", "--fail", ""], "NAME: bad value '' for --fail: use closed or open"),
    ],
)
def test_usage_errors(shim: Shim, args: list[str], message: str) -> None:
    result = shim.run(None, "", args=args)
    assert (result.returncode, result.stdout) == (1, b"")
    assert result.stderr == (message.replace("NAME", shim.name) + "\n").encode()


def test_invalid_utf8_in_a_bad_argument(both: tuple[Shim, Shim]) -> None:
    bad = os.fsdecode(b"--\xff\xe2\x80")
    results = [shim.run(None, "", args=["gemini", "BeforeTool", bad, "x"]) for shim in both]
    assert results[0].stderr == b"hookd_shim.py: bad argument '--\\udcff\\udce2\\udc80'\n"
    assert results[1].stderr == results[0].stderr.replace(b"hookd_shim.py", b"hookd-shim")


@pytest.mark.parametrize("server_kind", ["reply", "absent"])
def test_a_closed_stdout_exits_1(shim: Shim, sock_dir: Path, server_kind: str) -> None:
    path = sock_dir / "hook.sock"
    server = FakeServer(path, "reply", wire.encode_reply(b"out")) if server_kind == "reply" else None
    try:
        result = shim.run(path, "BeforeTool", PAYLOAD, redirect=">&-")
    finally:
        if server:
            server.close()
    assert result.returncode == 1
    assert result.stderr == f"{shim.name}: cannot write the reply (Bad file descriptor)\n".encode()


# ---- the real daemon -------------------------------------------------------------------------------


def write_payload(name: str, content: str = "x") -> bytes:
    payload = gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": name, "content": content})
    return json.dumps(payload).encode()


def without_decision_id(stdout: bytes) -> bytes:
    """The daemon tags a deny reason with its decision's id, which differs from one call to the next."""
    return re.sub(rb" ?\(decision [0-9a-f]+\)", b"", stdout)


def test_real_daemon_deny_allow_rewrite(both: tuple[Shim, Shim], daemon: RunningDaemon) -> None:
    outputs = {}
    for name in ("secret.txt", "fine.txt", "shout.txt"):
        results = [shim.run(daemon.socket, "BeforeTool", write_payload(name, "quiet")) for shim in both]
        for result in results:
            assert (result.returncode, result.stderr) == (0, b""), name
        assert without_decision_id(results[0].stdout) == without_decision_id(results[1].stdout), name
        outputs[name] = without_decision_id(results[0].stdout)
    assert outputs["secret.txt"] == (
        b'{"decision":"deny","reason":"writing secret.txt is not allowed [hookd.demo:no-secret]"}'
    )
    assert outputs["fine.txt"] == b""
    rewritten = json.loads(outputs["shout.txt"])["hookSpecificOutput"]["tool_input"]
    assert rewritten == {"file_path": "shout.txt", "content": "QUIET"}
    assert len(daemon.decisions()) == 6


def test_a_frame_the_daemon_refuses_is_reported_with_its_reason(shim: Shim, tmp_path: Path) -> None:
    # The daemon answers a too-large frame from its prefix and closes without reading the rest: the
    # shim's send breaks off (EPIPE), and the reason is the daemon's answer, not "Broken pipe".
    running = start_daemon(tmp_path, config="[daemon]\nmax_payload_bytes = 1024\n")
    try:
        result = shim.run(running.socket, "BeforeTool", b" " * (4 << 20))
    finally:
        running.stop()
    assert result.stdout == deny(
        f"hookd rejected the event: payload of {4 << 20} bytes exceeds the limit of 1024",
    )


def test_another_user_gets_permission_denied(shim: Shim, daemon: RunningDaemon) -> None:
    # As root every permission check passes, so drop to `nobody` to mean anything: the shim must then
    # be readable by nobody (a 0755 directory), the Python one run by the system interpreter.
    require(os.geteuid() == 0 and shutil.which("setpriv") is not None, "root and setpriv")
    shim_dir = Path(tempfile.mkdtemp(prefix="hkdshim", dir="/tmp"))
    try:
        os.chmod(shim_dir, 0o755)
        source = Path(shim.program[-1]) if shim.kind == "native" else SHIM
        copy = shim_dir / source.name
        shutil.copy(source, copy)
        os.chmod(copy, 0o755)
        as_nobody = Shim.python("/usr/bin/python3", copy) if shim.kind == "python" else Shim.native(copy)
        wrapper = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
        result = as_nobody.run(daemon.socket, "BeforeTool", write_payload("fine.txt"), wrapper=wrapper)
    finally:
        shutil.rmtree(shim_dir)
    assert (result.returncode, result.stderr) == (0, b"")
    assert result.stdout == deny("hookd could not be reached: connection failed (Permission denied)")
    assert daemon.decisions() == []


# ---- the build -------------------------------------------------------------------------------------


@pytest.mark.parametrize("static", [True, False])
def test_c_shim_compiles_warning_free(tmp_path: Path, static: bool) -> None:
    cc = shutil.which("cc")
    require(cc is not None, "a C compiler (cc)")
    assert cc is not None
    source = Path(SHIM).with_name("hookd_shim.c")
    flags = ["-O2", "-Wall", "-Wextra", "-Werror", "-std=c11", "-D_GNU_SOURCE", *(["-static"] if static else [])]
    done = subprocess.run([cc, *flags, "-o", str(tmp_path / "shim"), str(source)], capture_output=True, text=True,
                          check=False)  # fmt: skip
    if static and done.returncode != 0 and re.search(r"cannot find -lc\b", done.stderr):
        pytest.skip("no static C library here; `hookd shim build` links dynamically then")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
