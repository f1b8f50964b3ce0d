"""The daemon through its real socket: frames, limits, deadline, concurrency, permissions, lifecycle."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import stat
import struct
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from hookd import wire
from support import RunningDaemon, gemini_payload, run_shim, send_frame, start_daemon


def write_payload(path: str, content: str = "hi") -> dict[str, object]:
    return gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": path, "content": content})


def decode(frame: bytes) -> wire.DecodedReply:
    return wire.decode_reply(frame)


class TestRoundTrip:
    def test_deny_reaches_the_agent_as_one_json_object(self, daemon: RunningDaemon) -> None:
        result = run_shim(daemon.socket, "BeforeTool", write_payload("secret.txt"))
        assert result.returncode == 0
        assert result.stderr == b""
        (record,) = daemon.decisions(at_least=1)
        assert json.loads(result.stdout) == {
            "decision": "deny",
            "reason": f"writing secret.txt is not allowed [hookd.demo:no-secret] (decision {record['id']})",
        }

    def test_allow_prints_nothing(self, daemon: RunningDaemon) -> None:
        result = run_shim(daemon.socket, "BeforeTool", write_payload("fine.txt"))
        assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")

    def test_rewrite_sends_the_full_tool_input(self, daemon: RunningDaemon) -> None:
        result = run_shim(daemon.socket, "BeforeTool", write_payload("shout.txt", "quiet"))
        assert json.loads(result.stdout) == {
            "hookSpecificOutput": {
                "hookEventName": "BeforeTool",
                "tool_input": {"file_path": "shout.txt", "content": "QUIET"},
            }
        }

    def test_shell_command_is_parsed_before_policies_see_it(self, daemon: RunningDaemon) -> None:
        payload = gemini_payload(
            "BeforeTool",
            tool_name="run_shell_command",
            tool_input={"command": "echo hi && sudo -u root rm -rf build"},
        )
        result = run_shim(daemon.socket, "BeforeTool", payload)
        (record,) = daemon.decisions(at_least=1)
        assert json.loads(result.stdout)["reason"] == f"rm is not allowed [hookd.demo:no-rm] (decision {record['id']})"

    def test_peer_credentials_are_recorded(self, daemon: RunningDaemon) -> None:
        frame = wire.encode_request(
            {"client": "gemini", "event": "BeforeTool", "cwd": "/", "ppid": 1, "env": {}},
            json.dumps(write_payload("fine.txt")).encode(),
        )
        assert decode(send_frame(daemon.socket, frame)).status is wire.Status.OK
        entry = daemon.decisions(at_least=1)[-1]
        assert (entry["caller"]["uid"], entry["caller"]["pid"]) == (os.getuid(), os.getpid())


class TestConcurrency:
    def test_sixty_shims_at_once_each_get_their_own_answer(self, daemon: RunningDaemon) -> None:
        names = [("secret.txt" if i % 2 else f"ok-{i}.txt") for i in range(60)]
        with ThreadPoolExecutor(max_workers=60) as pool:
            results = list(pool.map(lambda n: run_shim(daemon.socket, "BeforeTool", write_payload(n)), names))
        for name, result in zip(names, results, strict=True):
            assert result.returncode == 0
            if name == "secret.txt":
                assert json.loads(result.stdout)["decision"] == "deny"
            else:
                assert result.stdout == b""
        assert len(daemon.decisions(at_least=60)) == 60

    def test_three_hundred_simultaneous_connections(self, daemon: RunningDaemon) -> None:
        header = {"client": "gemini", "event": "BeforeTool", "cwd": "/", "ppid": 1, "env": {}}

        async def one(i: int) -> wire.DecodedReply:
            reader, writer = await asyncio.open_unix_connection(str(daemon.socket))
            name = "secret.txt" if i % 3 == 0 else "ok.txt"
            writer.write(wire.encode_request(header, json.dumps(write_payload(name)).encode()))
            await writer.drain()
            data = await asyncio.wait_for(reader.read(), timeout=20)
            writer.close()
            return decode(data)

        async def many() -> list[wire.DecodedReply]:
            return await asyncio.gather(*(one(i) for i in range(300)))

        replies = asyncio.run(many())
        assert all(r.status is wire.Status.OK for r in replies)
        assert [bool(r.stdout) for r in replies] == [i % 3 == 0 for i in range(300)]


class TestFramesAndLimits:
    def small_limits(self, tmp_path: Path) -> RunningDaemon:
        return start_daemon(
            tmp_path,
            config="[daemon]\nmax_header_bytes = 512\nmax_payload_bytes = 1024\nrequest_timeout_ms = 400\n",
        )

    def test_oversize_payload_gets_an_error_reply(self, tmp_path: Path) -> None:
        running = self.small_limits(tmp_path)
        try:
            prefix = struct.pack("!4sBxII", b"HKDQ", 1, 10, 5000)
            reply = decode(send_frame(running.socket, prefix))
            assert reply.status is wire.Status.ERROR
            assert reply.stderr == b"payload-too-large"
            assert reply.stdout == b"payload of 5000 bytes exceeds the limit of 1024"
            header = struct.pack("!4sBxII", b"HKDQ", 1, 100_000, 10)
            assert decode(send_frame(running.socket, header)).stderr == b"header-too-large"
            # and the daemon still answers
            ok = run_shim(running.socket, "BeforeTool", write_payload("secret.txt"))
            assert json.loads(ok.stdout)["decision"] == "deny"
        finally:
            running.stop()

    def test_malformed_frames_get_clear_errors(self, daemon: RunningDaemon) -> None:
        cases = {
            b"GET / HTTP/1.1\r\nHost: x\r\n\r\n": b"bad-magic",
            struct.pack("!4sBxII", b"HKDQ", 9, 2, 2) + b"{}{}": b"bad-version",
            struct.pack("!4sBxII", b"HKDQ", 1, 3, 0) + b"{x}": b"bad-header",
            struct.pack("!4sBxII", b"HKDQ", 1, 2, 0) + b"[]": b"bad-header",
        }
        for frame, code in cases.items():
            reply = decode(send_frame(daemon.socket, frame))
            assert (reply.status, reply.stderr) == (wire.Status.ERROR, code), frame
            assert b"\n" not in reply.stdout

    def test_a_deeply_nested_header_gets_an_error_frame(self, daemon: RunningDaemon) -> None:
        deep = b"[" * 30_000 + b"]" * 30_000  # under the 64 KiB header limit
        reply = decode(send_frame(daemon.socket, struct.pack("!4sBxII", b"HKDQ", 1, len(deep), 0) + deep))
        assert (reply.status, reply.stderr) == (wire.Status.ERROR, b"bad-header")
        assert reply.stdout == b"frame header is not valid JSON: nested too deeply"

    def test_a_deeply_nested_payload_is_refused_and_every_decision_is_logged(self, daemon: RunningDaemon) -> None:
        # 500 levels parse, but the decision log's masking walk then failed: a decision with no record.
        header = {"client": "gemini", "event": "BeforeTool", "cwd": "/", "ppid": 1, "env": {}}
        deep = json.dumps(write_payload("a.txt")).encode()[:-1] + b',"x":' + b"[" * 500 + b"]" * 500 + b"}"
        reply = decode(send_frame(daemon.socket, wire.encode_request(header, deep)))
        assert (reply.status, reply.stderr) == (wire.Status.ERROR, b"bad-payload")
        assert reply.stdout == b"hook payload is not valid JSON: nested more than 100 levels deep"
        assert decode(send_frame(daemon.socket, wire.encode_request(header, json.dumps(write_payload("b")).encode())))
        assert len(daemon.decisions(at_least=1)) == 1
        assert "decision_log_record_failed" not in daemon.log()

    def test_nan_and_infinity_in_a_payload_are_refused_and_never_logged(self, daemon: RunningDaemon) -> None:
        header = {"client": "gemini", "event": "BeforeTool", "cwd": "/", "ppid": 1, "env": {}}
        for number in (b"NaN", b"Infinity", b"-Infinity"):
            payload = json.dumps(write_payload("a.txt")).encode()[:-1] + b',"n":' + number + b"}"
            reply = decode(send_frame(daemon.socket, wire.encode_request(header, payload)))
            assert (reply.status, reply.stderr) == (wire.Status.ERROR, b"bad-payload"), number
            assert reply.stdout == b"hook payload is not valid JSON: " + number + b" is not a JSON number"
        too_large = json.dumps(write_payload("a.txt")).encode()[:-1] + b',"n":1e999}'  # read as infinity before
        reply = decode(send_frame(daemon.socket, wire.encode_request(header, too_large)))
        assert (reply.status, reply.stderr) == (wire.Status.ERROR, b"bad-payload")
        assert reply.stdout == b"hook payload is not valid JSON: 1e999 is out of range for a JSON number"
        words = json.dumps(write_payload("NaN Infinity.txt")).encode()  # the words inside strings are fine
        assert decode(send_frame(daemon.socket, wire.encode_request(header, words))).status == wire.Status.OK
        shim = run_shim(daemon.socket, "BeforeTool", json.dumps(write_payload("x")).encode()[:-1] + b',"n":NaN}')
        assert json.loads(shim.stdout)["decision"] == "deny"  # the fail mode, with the reason
        assert "NaN is not a JSON number" in json.loads(shim.stdout)["reason"]
        (record,) = daemon.decisions(at_least=1)
        assert record["input"]["tool"]["input"]["file_path"] == "NaN Infinity.txt"

    def test_frame_cut_short_is_reported_as_truncated(self, daemon: RunningDaemon) -> None:
        frame = struct.pack("!4sBxII", b"HKDQ", 1, 50, 0) + b'{"client":'
        reply = decode(send_frame(daemon.socket, frame, shut_write=True))
        assert reply.stderr == b"truncated"

    def test_unknown_client_and_bad_payload_are_rejected(self, daemon: RunningDaemon) -> None:
        header = {"client": "vim", "event": "BeforeTool", "cwd": "/", "ppid": 1, "env": {}}
        reply = decode(send_frame(daemon.socket, wire.encode_request(header, b"{}")))
        assert (
            reply.stdout == b"unknown client 'vim' (known: claude, codex, copilot, droid, gemini, kilo, opencode, qwen)"
        )
        header["client"] = "gemini"
        reply = decode(send_frame(daemon.socket, wire.encode_request(header, b"{not json")))
        assert reply.stderr == b"bad-payload"
        assert reply.stdout.startswith(b"hook payload is not valid JSON")

    def test_a_stalled_client_gets_a_deadline_reply(self, tmp_path: Path) -> None:
        running = self.small_limits(tmp_path)
        try:
            with socket.socket(socket.AF_UNIX) as sock:
                sock.settimeout(10)
                sock.connect(str(running.socket))
                sock.sendall(struct.pack("!4sBxII", b"HKDQ", 1, 20, 0))  # header never comes
                reply = decode(sock.recv(4096))
            assert reply.stderr == b"deadline"
            assert reply.stdout == b"hookd did not decide within its 400 ms deadline"
        finally:
            running.stop()


class TestPermissions:
    def test_runtime_dir_and_socket_are_owner_only(self, daemon: RunningDaemon) -> None:
        assert stat.S_IMODE(daemon.runtime_dir.stat().st_mode) == 0o700
        assert stat.S_IMODE(daemon.socket.stat().st_mode) == 0o600

    def test_another_user_cannot_reach_the_socket(self, daemon: RunningDaemon) -> None:
        # As root every permission check passes, so drop to `nobody` to mean anything.
        shim_dir = Path(tempfile.mkdtemp(prefix="hkdshim", dir="/tmp"))
        shim = shim_dir / "hookd_shim.py"
        shutil.copy(Path(__file__).resolve().parents[2] / "client_shim" / "hookd_shim.py", shim)
        os.chmod(shim_dir, 0o755)
        os.chmod(shim, 0o644)
        payload = json.dumps(write_payload("fine.txt")).encode()
        result = subprocess.run(
            ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", "-I", "-S",
             str(shim), "gemini", "BeforeTool", "--socket", str(daemon.socket)],
            input=payload, capture_output=True, timeout=15, check=False,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        out = json.loads(result.stdout)
        assert out["decision"] == "deny"
        assert out["reason"] == "hookd could not be reached: connection failed (Permission denied)"
        assert daemon.decisions() == []


class TestLifecycle:
    def test_refuses_to_start_over_a_live_daemon(self, daemon: RunningDaemon, tmp_path: Path) -> None:
        second = start_daemon(tmp_path, runtime_dir=daemon.runtime_dir, wait=False)
        assert second.proc.wait(timeout=20) == 1
        assert "already running" in second.log()
        assert run_shim(daemon.socket, "BeforeTool", write_payload("fine.txt")).stdout == b""

    def test_replaces_a_stale_socket_and_removes_it_on_sigterm(self, tmp_path: Path) -> None:
        first = start_daemon(tmp_path)
        first.stop(signal.SIGKILL)
        assert first.socket.exists()  # a killed daemon leaves its socket behind
        refused = run_shim(first.socket, "BeforeTool", write_payload("fine.txt"))
        assert json.loads(refused.stdout)["reason"].startswith("hookd is not running")
        second = start_daemon(tmp_path, runtime_dir=first.runtime_dir)
        assert "stale_socket_removed" in second.log()
        assert (
            json.loads(run_shim(second.socket, "BeforeTool", write_payload("secret.txt")).stdout)["decision"] == "deny"
        )
        assert second.stop(signal.SIGTERM) == 0
        assert not second.socket.exists()

    def test_sigint_also_shuts_down_cleanly(self, tmp_path: Path) -> None:
        running = start_daemon(tmp_path)
        assert running.stop(signal.SIGINT) == 0
        assert not running.socket.exists()
        assert '"stopped"' in running.log()

    def test_a_wrong_config_is_refused_naming_the_key(self, tmp_path: Path) -> None:
        running = start_daemon(tmp_path, config="[daemon]\nrequest_timeout = 5\n", wait=False)
        assert running.proc.wait(timeout=20) == 2
        assert "unknown key 'daemon.request_timeout'" in running.log()
        assert len(running.log().strip().splitlines()) == 1
