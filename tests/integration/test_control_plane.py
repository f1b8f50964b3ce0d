"""The control plane against a real daemon: the CLI and a real gRPC client on control.sock, shims on the hook
socket, the decision log on disk, reloads of a changed policy dir, and permissions as another user."""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from hookd.audit.chain import seal
from hookd.control.server import MAX_PER_UID
from hookd.v1 import hookd_pb2 as pb
from hookd.v1 import hookd_pb2_grpc
from support import DEMO_POLICIES, ROOT, RunningDaemon, gemini_payload, require, run_shim, start_daemon

HOOKD = [sys.executable, "-m", "hookd"]
TIMEOUT = 30
VENV_SITE = next(Path(sys.prefix, "lib").glob("python3.*/site-packages"))
DEMO_REVISION_LINE = re.compile(r"^reloaded (\S+): revision ([0-9a-f]{12}) → ([0-9a-f]{12}), 1 packages$")


def hookd(*args: str, stdin: bytes = b"", timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*HOOKD, *args],
        input=stdin,
        capture_output=True,
        timeout=timeout,
        env={**os.environ, "HOOKD_CONFIG": ""},
        check=False,
    )
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def write(name: str, content: str = "quiet") -> dict[str, object]:
    return gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": name, "content": content})


def shim(daemon: RunningDaemon, name: str) -> bytes:
    result = run_shim(daemon.socket, "BeforeTool", write(name))
    assert result.returncode == 0, result.stderr
    return result.stdout


def channel(daemon: RunningDaemon) -> grpc.Channel:
    return grpc.insecure_channel(f"unix:{daemon.control_socket}")


def as_nobody(*args: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
    """`hookd ARGS` as the user nobody: the system python3 with the venv's packages (nobody cannot run the venv's
    interpreter, which lives under /root)."""
    env = {"PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "PYTHONPATH": f"{VENV_SITE}:{ROOT / 'daemon'}"}
    done = subprocess.run(
        ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", "-m", "hookd", *args],
        capture_output=True, timeout=timeout, env=env, check=False,
    )  # fmt: skip
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


@pytest.fixture
def policies(tmp_path: Path) -> Path:
    """A copy of the demo policies that a test may change."""
    target = tmp_path / "policies"
    shutil.copytree(DEMO_POLICIES, target)
    return target


@pytest.fixture
def own_daemon(tmp_path: Path, policies: Path) -> Iterator[RunningDaemon]:
    # Hot reload off: these tests edit the policies and reload by hand (tests/integration/test_bundles.py
    # covers the watcher).
    running = start_daemon(tmp_path, policies, config="[layers]\nwatch = false\n")
    try:
        yield running
    finally:
        running.stop()


class TestCommands:
    def test_status_reports_what_serves_and_what_was_counted(self, daemon: RunningDaemon) -> None:
        shim(daemon, "secret.txt")
        shim(daemon, "fine.txt")
        daemon.decisions(at_least=2)
        result = hookd("status", "--json", "--runtime-dir", str(daemon.runtime_dir))
        assert result.returncode == 0, result.stderr
        status = json.loads(result.stdout)
        assert status["pid"] == str(daemon.proc.pid)  # int64 is a string in proto JSON
        assert status["counters"]["requests"] == "2"
        assert status["counters"]["decisions"] == {"allow": "1", "deny": "1"}
        assert status["policy_sets"][0]["packages"] == ["hookd.demo"]
        assert status["sandbox_layers"] == []
        assert status["decision_log"]["path"] == str(daemon.decision_log)
        assert status["decision_log"]["seq"] == "2"
        assert status["control_socket"] == str(daemon.control_socket)
        text = hookd("status", "--runtime-dir", str(daemon.runtime_dir))
        assert text.returncode == 0, text.stderr
        lines = text.stdout.splitlines()
        assert lines[0].startswith(f"hookd 0.1.0, pid {daemon.proc.pid}, up ")
        assert "decisions: allow 1, deny 1" in lines

    def test_policies_lists_packages_rules_and_routing(self, daemon: RunningDaemon) -> None:
        result = hookd("policies", "--runtime-dir", str(daemon.runtime_dir))
        assert result.returncode == 0, result.stderr
        header, package = result.stdout.splitlines()
        assert header.startswith(f"default: {DEMO_POLICIES.resolve()} (revision ")
        assert package.split()[:2] == ["hookd.demo", "rules:"]
        listing = json.loads(hookd("policies", "--json", "--runtime-dir", str(daemon.runtime_dir)).stdout)
        (demo,) = listing["packages"]
        assert {r["name"] for r in demo["rules"]} >= {"deny", "rewrite", "ask", "context"}
        assert "BeforeTool" in demo["routing"]["events"]

    @pytest.mark.parametrize(
        "args", [("status",), ("reload",), ("policies",), ("tail",), ("eval", "--daemon", "--event", "BeforeTool")]
    )
    def test_each_says_in_one_line_when_the_daemon_is_not_running(self, args: tuple[str, ...]) -> None:
        runtime = Path(tempfile.mkdtemp(prefix="hkd", dir="/tmp")) / "run"
        result = hookd(*args, "--runtime-dir", str(runtime), stdin=b"{}")
        assert result.returncode == 1
        assert result.stdout == ""
        assert result.stderr == (
            f"hookd: the daemon is not running (no control socket at {runtime}/control.sock): "
            "start it with `hookd serve`\n"
        )

    def test_a_killed_daemon_leaves_a_stale_socket_that_reads_as_not_running(self, tmp_path: Path) -> None:
        running = start_daemon(tmp_path)
        running.stop(signal.SIGKILL)
        result = hookd("status", "--runtime-dir", str(running.runtime_dir))
        assert result.returncode == 1
        assert result.stderr == (
            f"hookd: the daemon is not running (nothing listens on the stale socket {running.control_socket}): "
            "start it with `hookd serve`\n"
        )
        # and a new daemon replaces it
        second = start_daemon(tmp_path, runtime_dir=running.runtime_dir)
        try:
            assert hookd("status", "--runtime-dir", str(second.runtime_dir)).returncode == 0
        finally:
            second.stop()

    def test_sigterm_removes_both_sockets(self, tmp_path: Path) -> None:
        running = start_daemon(tmp_path)
        assert running.stop(signal.SIGTERM) == 0
        assert sorted(p.name for p in running.runtime_dir.iterdir()) == ["hook.lock"]


class TestEvaluate:
    @pytest.mark.parametrize("name", ["secret.txt", "fine.txt", "shout.txt", "ask-me.txt"])
    def test_the_same_bytes_as_the_hook_path(self, daemon: RunningDaemon, name: str) -> None:
        payload = json.dumps(write(name), separators=(",", ":")).encode()
        hooked = run_shim(daemon.socket, "BeforeTool", payload)
        (record,) = daemon.decisions(at_least=1)
        with channel(daemon) as chan:
            evaluated = hookd_pb2_grpc.ControlStub(chan).Evaluate(
                pb.EvaluateRequest(
                    client="gemini", event="BeforeTool", payload=payload, env={"HOME": os.environ["HOME"]}
                ),
                timeout=TIMEOUT,
            )
        assert evaluated.decision == record["decision"]
        assert evaluated.decision_id != record["id"]
        # Each decision has its own id; apart from it the answer is the hook path's, byte for byte.
        expected = hooked.stdout.replace(record["id"].encode(), evaluated.decision_id.encode())
        assert evaluated.stdout == expected
        assert (evaluated.stderr, evaluated.exit_code) == (hooked.stderr, hooked.returncode)
        if record["decision"] in ("allow", "rewrite"):
            assert evaluated.stdout == hooked.stdout
        assert daemon.decisions() == [record]  # a dry run is not logged

    def test_hookd_eval_daemon_prints_what_local_eval_prints(self, daemon: RunningDaemon) -> None:
        payload = json.dumps(write("secret.txt")).encode()
        remote = hookd("eval", "--daemon", "--json", "--runtime-dir", str(daemon.runtime_dir), stdin=payload)
        local = hookd("eval", "--json", "--policies", str(DEMO_POLICIES), stdin=payload)
        assert remote.returncode == local.returncode == 0, remote.stderr + local.stderr
        remote_out, local_out = json.loads(remote.stdout), json.loads(local.stdout)
        assert remote_out.pop("revision")
        remote_id, local_id = remote_out.pop("decision_id"), local_out.pop("decision_id")
        remote_out["stdout"] = remote_out["stdout"].replace(remote_id, local_id)
        assert remote_out == local_out

    def test_eval_daemon_refuses_policies(self, daemon: RunningDaemon) -> None:
        result = hookd("eval", "--daemon", "--policies", "/x", "--runtime-dir", str(daemon.runtime_dir), stdin=b"{}")
        assert result.returncode == 2
        assert result.stderr == (
            "hookd: --policies and --daemon do not go together: the daemon serves its own policies\n"
        )


class TestTail:
    def test_tail_follows_the_decisions_of_shims_as_they_happen(self, daemon: RunningDaemon) -> None:
        tail = subprocess.Popen(
            [*HOOKD, "tail", "-n", "3", "--runtime-dir", str(daemon.runtime_dir)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "HOOKD_CONFIG": ""},
        )  # fmt: skip
        try:
            assert tail.stderr is not None
            ready = tail.stderr.readline()  # printed once the daemon has subscribed the stream
            assert ready == f"hookd: following decisions on {daemon.control_socket} (Ctrl-C to stop)\n"
            for name in ("secret.txt", "fine.txt", "shout.txt"):
                shim(daemon, name)
            out, err = tail.communicate(timeout=TIMEOUT)
        finally:
            tail.kill()
        assert tail.returncode == 0, err
        records = daemon.decisions(at_least=3)
        lines = out.splitlines()
        assert len(lines) == 3, out
        pattern = re.compile(
            r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}  BeforeTool {10}write_file {9}(\w+) +(\S+)  (\d+\.\d\d)ms  "
            r"([0-9a-f]{16})$"
        )
        parsed = [pattern.match(line) for line in lines]
        assert all(parsed), lines
        assert [(m[1], m[2], m[4]) for m in parsed if m] == [
            ("deny", "hookd.demo:no-secret", records[0]["id"]),
            ("allow", "-", records[1]["id"]),
            ("rewrite", "hookd.demo:shout", records[2]["id"]),
        ]

    def test_tail_json_with_filters_prints_the_log_lines(self, daemon: RunningDaemon) -> None:
        tail = subprocess.Popen(
            [*HOOKD, "tail", "--json", "--decision", "deny", "--event", "BeforeTool", "-n", "2",
             "--runtime-dir", str(daemon.runtime_dir)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "HOOKD_CONFIG": ""},
        )  # fmt: skip
        try:
            assert tail.stderr is not None
            assert tail.stderr.readline().startswith("hookd: following decisions")
            for name in ("secret.txt", "fine.txt", "secret.txt"):
                shim(daemon, name)
            out, err = tail.communicate(timeout=TIMEOUT)
        finally:
            tail.kill()
        assert tail.returncode == 0, err
        log_lines = daemon.decision_log.read_text().splitlines()
        assert out.splitlines() == [log_lines[0], log_lines[2]]

    def test_a_grpc_stream_with_a_session_filter_and_the_end_when_the_daemon_stops(self, tmp_path: Path) -> None:
        running = start_daemon(tmp_path)
        try:
            with channel(running) as chan:
                call = hookd_pb2_grpc.ControlStub(chan).StreamDecisions(
                    pb.StreamDecisionsRequest(session_id="mine"), timeout=TIMEOUT
                )
                call.initial_metadata()
                run_shim(running.socket, "BeforeTool", {**write("secret.txt"), "session_id": "other"})
                run_shim(running.socket, "BeforeTool", {**write("secret.txt"), "session_id": "mine"})
                first = next(call)
                running.stop(signal.SIGTERM)
                rest = list(call)  # the stream ends cleanly when the daemon shuts down
        finally:
            running.stop()
        (other, mine) = running.decisions(at_least=2)
        assert (first.id, first.session_id, first.decision, first.via) == (mine["id"], "mine", "deny", "socket")
        assert first.json == running.decision_log.read_text().splitlines()[1]
        assert [(v.policy, v.rule) for v in first.verdicts] == [("hookd.demo", "no-secret")]
        assert rest == []
        assert other["session"] == "other"


class TestReload:
    def test_reload_picks_up_a_changed_policy_dir_and_refuses_a_broken_one(
        self, own_daemon: RunningDaemon, policies: Path
    ) -> None:
        runtime = str(own_daemon.runtime_dir)
        assert shim(own_daemon, "other.txt") == b""
        rego = policies / "demo" / "policy.rego"
        rego.write_text(
            rego.read_text()
            + '\ndeny contains {"id": "no-other", "reason": "other.txt is not allowed"} if {\n'
            + '\tinput.tool.input.file_path == "other.txt"\n}\n'
        )
        result = hookd("reload", "--runtime-dir", runtime)
        assert result.returncode == 0, result.stderr
        match = DEMO_REVISION_LINE.match(result.stdout.strip())
        assert match, result.stdout
        before, after = match[2], match[3]
        assert before != after
        denied = json.loads(shim(own_daemon, "other.txt"))
        records = own_daemon.decisions(at_least=2)
        assert denied == {
            "decision": "deny",
            "reason": f"other.txt is not allowed [hookd.demo:no-other] (decision {records[1]['id']})",
        }
        assert [r["revisions"] for r in records] == [{"default": before}, {"default": after}]

        rego.write_text(rego.read_text() + "\nthis is not rego\n")
        refused = hookd("reload", "--runtime-dir", runtime)
        assert refused.returncode == 1
        assert refused.stdout == ""
        assert refused.stderr.startswith(f"hookd: reload refused, still serving revision {after}: ")
        assert len(refused.stderr.splitlines()) == 1
        assert json.loads(shim(own_daemon, "other.txt"))["decision"] == "deny"  # the old policies still serve
        status = json.loads(hookd("status", "--json", "--runtime-dir", runtime).stdout)
        assert (status["counters"]["reloads"], status["counters"]["reload_failures"]) == ("1", "1")
        assert status["policy_sets"][0]["revision"] == after


class TestPermissions:
    def test_owner_only_sockets(self, daemon: RunningDaemon) -> None:
        assert stat.S_IMODE(daemon.runtime_dir.stat().st_mode) == 0o700
        status = hookd("status", "--runtime-dir", str(daemon.runtime_dir))  # grpc.sock exists while a call needs it
        assert status.returncode == 0, status.stderr
        for name in ("control.sock", "grpc.sock"):
            info = (daemon.runtime_dir / name).stat()
            assert stat.S_ISSOCK(info.st_mode)
            assert stat.S_IMODE(info.st_mode) == 0o600
            assert info.st_uid == os.getuid()

    def test_another_user_cannot_reach_the_control_socket(self, daemon: RunningDaemon) -> None:
        require(os.getuid() == 0 and shutil.which("setpriv") is not None, "root and setpriv (to become nobody)")
        result = as_nobody("status", "--runtime-dir", str(daemon.runtime_dir))
        assert result.returncode == 1
        assert result.stderr == (
            f"hookd: cannot reach the daemon at {daemon.control_socket}: permission denied "
            "(it belongs to another user)\n"
        )

    def test_with_the_socket_opened_up_another_user_may_read_but_not_reload_or_tail(
        self, daemon: RunningDaemon
    ) -> None:
        # What an admin might do to let a monitoring user see the status; the per-call uid check still holds.
        require(os.getuid() == 0 and shutil.which("setpriv") is not None, "root and setpriv (to become nobody)")
        os.chmod(daemon.runtime_dir.parent, 0o711)  # the test's own temporary dir (mkdtemp makes it 0700)
        os.chmod(daemon.runtime_dir, 0o711)
        os.chmod(daemon.control_socket, 0o666)
        nobody = pwd.getpwnam("nobody").pw_uid
        status = as_nobody("status", "--json", "--runtime-dir", str(daemon.runtime_dir))
        assert status.returncode == 0, status.stderr
        assert json.loads(status.stdout)["pid"] == str(daemon.proc.pid)
        refusal = f"only the daemon's own uid ({os.getuid()}) or root may"
        reload = as_nobody("reload", "--runtime-dir", str(daemon.runtime_dir))
        assert (reload.returncode, reload.stderr) == (
            1,
            f"hookd: permission denied: uid {nobody} may not call Reload: {refusal}\n",
        )
        tail = as_nobody("tail", "--runtime-dir", str(daemon.runtime_dir))
        assert (tail.returncode, tail.stderr) == (
            1,
            f"hookd: permission denied: uid {nobody} may not call StreamDecisions: {refusal}\n",
        )
        assert '"control_call_refused"' in daemon.log()
        assert json.loads(hookd("status", "--json", "--runtime-dir", str(daemon.runtime_dir)).stdout)["counters"][
            "reloads"
        ] in ("0", 0)

    def test_no_abstract_names_to_squat_and_no_tracebacks_from_the_proxy(self, daemon: RunningDaemon) -> None:
        require(shutil.which("setpriv") is not None and os.getuid() == 0, "root and setpriv")
        with socket.socket(socket.AF_UNIX) as held:  # a connection in progress: the proxy has bound its name
            held.settimeout(TIMEOUT)
            held.connect(str(daemon.control_socket))
            status = hookd("status", "--runtime-dir", str(daemon.runtime_dir))
            assert status.returncode == 0, status.stderr
            abstract = [line.split()[-1] for line in Path("/proc/net/unix").read_text().splitlines()[1:]
                        if line.split()[-1].startswith("@hookd")]  # fmt: skip
            # What another user would do with them: bind the next names first (once failed status/reload).
            attack = (
                "import socket, sys, time\nheld = []\n"
                "for name in sys.argv[1:]:\n"
                "    stem, n = name[1:].rsplit('-', 1)\n"
                "    for k in range(int(n) + 1, int(n) + 50):\n"
                "        s = socket.socket(socket.AF_UNIX); s.bind(f'\\0{stem}-{k}'.encode()); held.append(s)\n"
                "print('bound', flush=True)\ntime.sleep(30)\n"
            )
            with subprocess.Popen(
                [
                    "setpriv",
                    "--reuid=65534",
                    "--regid=65534",
                    "--clear-groups",
                    "/usr/bin/python3.11",
                    "-c",
                    attack,
                    *abstract,
                ],
                stdout=subprocess.PIPE,
                text=True,
            ) as attacker:
                try:
                    assert attacker.stdout is not None and attacker.stdout.readline() == "bound\n"
                    for _ in range(3):
                        again = hookd("status", "--runtime-dir", str(daemon.runtime_dir))
                        assert again.returncode == 0, again.stderr
                finally:
                    attacker.kill()
        for _ in range(20):  # clients that hang up mid-call
            with socket.socket(socket.AF_UNIX) as rude:
                rude.connect(str(daemon.control_socket))
                rude.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\0" * 64)
        assert hookd("status", "--runtime-dir", str(daemon.runtime_dir)).returncode == 0
        assert "Traceback" not in daemon.log() and "RuntimeError" not in daemon.log()
        assert abstract == []  # nothing of hookd's is listed for other users to see


class TestDecisionLog:
    def run_calls(self, daemon: RunningDaemon, count: int) -> list[dict[str, object]]:
        names = ["secret.txt", "fine.txt", "shout.txt"]
        before = len(daemon.decisions())
        for i in range(count):
            shim(daemon, names[i % 3])
        return daemon.decisions(at_least=before + count)

    def tampered(
        self, daemon: RunningDaemon, tmp_path: Path, name: str, lines: list[str]
    ) -> subprocess.CompletedProcess[str]:
        copy = tmp_path / name / "decisions.log"
        copy.parent.mkdir()
        copy.write_text("\n".join(lines) + "\n")
        return hookd("log", "verify", str(copy))

    def test_verify_finds_each_kind_of_tampering_by_position(self, daemon: RunningDaemon, tmp_path: Path) -> None:
        self.run_calls(daemon, 8)
        assert daemon.stop() == 0
        intact = hookd("log", "verify", str(daemon.decision_log))
        assert intact.returncode == 0, intact.stdout + intact.stderr
        head = json.loads(daemon.decision_log.read_text().splitlines()[-1])["hash"]
        kept = daemon.decision_log.with_name("decisions.kept.log")
        assert intact.stdout.splitlines() == [
            f"{daemon.decision_log}: 8 records in 1 files (seq 1-8), chain intact",
            f"head: {head}",
            f"{kept}: 5 records kept (all but allows) in 1 files, every record matches its hash",
        ]
        lines = daemon.decision_log.read_text().splitlines()

        edited = list(lines)
        edited[2] = edited[2].replace('"decision":"rewrite"', '"decision":"allow"')
        assert edited[2] != lines[2]
        result = self.tampered(daemon, tmp_path, "edited", edited)
        assert result.returncode == 1
        assert result.stdout.splitlines()[1:] == [
            "decisions.log:3 (seq 3): edited: its content does not match its hash"
        ]

        removed = lines[:3] + lines[4:]
        result = self.tampered(daemon, tmp_path, "removed", removed)
        assert result.returncode == 1
        assert result.stdout.splitlines()[1:] == [
            "decisions.log:4 (seq 5): removed: 1 record (seq 4) missing just before it"
        ]

        record = json.loads(lines[4])
        forged_fields = {k: v for k, v in record.items() if k not in ("prev", "hash")}
        forged_fields["decision"] = "allow"
        forged, _ = seal(forged_fields, "0" * 63 + "1")
        inserted = [*lines[:5], forged, *lines[5:]]
        result = self.tampered(daemon, tmp_path, "inserted", inserted)
        assert result.returncode == 1
        assert result.stdout.splitlines()[1:] == [
            "decisions.log:6 (seq 5): inserted: it is not part of the chain "
            "(the next record links to the one before it)"
        ]

        reordered = list(lines)
        reordered[5], reordered[6] = reordered[6], reordered[5]
        result = self.tampered(daemon, tmp_path, "reordered", reordered)
        assert result.returncode == 1
        assert result.stdout.splitlines()[1:] == [
            "decisions.log:6 (seq 7): reordered: swapped with decisions.log:7 (seq 6), "
            "which comes before it in the chain"
        ]

    def test_the_chain_continues_across_restarts_and_rotation(self, tmp_path: Path) -> None:
        state = Path(tempfile.mkdtemp(prefix="hkdstate", dir="/tmp"))
        config = "[log]\nmax_bytes = 6000\nkeep = 3\n"
        first = start_daemon(tmp_path, config=config, env={"XDG_STATE_HOME": str(state)})
        try:
            self.run_calls(first, 6)
        finally:
            assert first.stop() == 0
        second = start_daemon(tmp_path, config=config, env={"XDG_STATE_HOME": str(state)})
        try:
            self.run_calls(second, 6)
        finally:
            assert second.stop() == 0
        log_dir = state / "hookd"
        rotated = sorted(p.name for p in log_dir.iterdir() if p.name.startswith("decisions.log."))
        assert "decisions.log.1" in rotated
        result = hookd("log", "verify", str(log_dir / "decisions.log"))
        assert result.returncode == 0, result.stdout
        assert "chain intact" in result.stdout.splitlines()[0]
        newest = [json.loads(line) for line in (log_dir / "decisions.log").read_text().splitlines()]
        assert newest[-1]["seq"] == 12

    def test_records_mask_the_input(self, daemon: RunningDaemon) -> None:
        secret = "ghp_" + "a" * 36
        run_shim(daemon.socket, "BeforeTool", write("notes.txt", f"token {secret}\n" + "x" * 5000))
        (record,) = daemon.decisions(at_least=1)
        content = record["input"]["raw"]["tool_input"]["content"]
        assert content.startswith("token [REDACTED:github_token]\nxxx")
        assert content.endswith("…[+4774 chars]")  # 30 + 5000 characters after redaction, cut to 256
        assert secret not in daemon.decision_log.read_text()


def test_decide_over_grpc_answers_like_the_shim(daemon: RunningDaemon) -> None:
    payload = json.dumps(write("secret.txt")).encode()
    with channel(daemon) as chan:
        reply = hookd_pb2_grpc.HookStub(chan).Decide(
            pb.DecideRequest(client="gemini", event="BeforeTool", payload=payload, env={"HOME": "/root"}, ppid=1),
            timeout=TIMEOUT,
        )
    (record,) = daemon.decisions(at_least=1)
    assert record["via"] == "grpc"
    assert (reply.decision, reply.decision_id, reply.exit_code) == ("deny", record["id"], 0)
    shimmed = run_shim(daemon.socket, "BeforeTool", payload)
    second = daemon.decisions(at_least=2)[1]
    assert reply.stdout == shimmed.stdout.replace(second["id"].encode(), record["id"].encode())


@pytest.mark.parametrize("payload", [b'{"tool_name": "write_file", "x": NaN}', b'{"a":' * 200 + b"1" + b"}" * 200])
def test_decide_over_grpc_refuses_what_the_hook_socket_refuses(daemon: RunningDaemon, payload: bytes) -> None:
    with channel(daemon) as chan, pytest.raises(grpc.RpcError) as refused:
        hookd_pb2_grpc.HookStub(chan).Decide(
            pb.DecideRequest(client="gemini", event="BeforeTool", payload=payload, ppid=1), timeout=TIMEOUT
        )
    assert refused.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert "hook payload is not valid JSON" in str(refused.value.details())


def test_a_second_daemon_on_the_same_decision_log_is_refused(tmp_path: Path) -> None:
    state = Path(tempfile.mkdtemp(prefix="hkdstate", dir="/tmp"))
    first = start_daemon(tmp_path, env={"XDG_STATE_HOME": str(state)})
    try:
        second = start_daemon(tmp_path, env={"XDG_STATE_HOME": str(state)}, wait=False)
        assert second.proc.wait(timeout=TIMEOUT) == 1
        assert (
            f"hookd: another hookd daemon writes the decision log {state}/hookd/decisions.log: "
            "give this one its own ([log] path)" in second.log()
        )
        assert not second.socket.exists()  # it let go of its hook socket again
        assert json.loads(shim(first, "secret.txt"))["decision"] == "deny"
    finally:
        first.stop()


def test_health_reflection_and_list_policies_over_the_daemons_socket(daemon: RunningDaemon) -> None:
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

    with channel(daemon) as chan:
        health = health_pb2_grpc.HealthStub(chan)
        statuses = {
            name: health.Check(health_pb2.HealthCheckRequest(service=name), timeout=TIMEOUT).status
            for name in ("", "hookd.v1.Control", "hookd.v1.Hook")
        }
        answers = list(
            reflection_pb2_grpc.ServerReflectionStub(chan).ServerReflectionInfo(
                iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=TIMEOUT
            )
        )
        listing = hookd_pb2_grpc.ControlStub(chan).ListPolicies(pb.ListPoliciesRequest(), timeout=TIMEOUT)
    assert set(statuses.values()) == {health_pb2.HealthCheckResponse.SERVING}
    names = {service.name for service in answers[0].list_services_response.service}
    assert names >= {"hookd.v1.Control", "hookd.v1.Hook", "grpc.health.v1.Health"}
    assert [p.name for p in listing.packages] == ["hookd.demo"]
    assert listing.policy_sets[0].path == str(DEMO_POLICIES.resolve())


HOLDER = """
import select, socket, sys, time
held = []
for _ in range(200):
    sock = socket.socket(socket.AF_UNIX)
    sock.connect(sys.argv[1])
    held.append(sock)
time.sleep(1.0)  # the daemon closes those it refuses
readable, _, _ = select.select(held, [], [], 0)
closed = sum(1 for sock in readable if sock.recv(1) == b"")
print(len(held) - closed, flush=True)
sys.stdin.read()
"""


def test_with_the_socket_opened_up_another_uid_cannot_hold_every_connection(daemon: RunningDaemon) -> None:
    """Issue 25: in the opened-up layout another uid held all 128 control connections, and the owner's
    `hookd status` failed. Each other uid may hold MAX_PER_UID now; the owner gets in."""
    require(os.getuid() == 0 and shutil.which("setpriv") is not None, "root and setpriv (to become nobody)")
    os.chmod(daemon.runtime_dir.parent, 0o711)
    os.chmod(daemon.runtime_dir, 0o711)
    os.chmod(daemon.control_socket, 0o666)
    with subprocess.Popen(
        ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", "-c", HOLDER,
         str(daemon.control_socket)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    ) as holder:  # fmt: skip
        try:
            assert holder.stdout is not None
            kept = int(holder.stdout.readline())
            status = hookd("status", "--json", "--runtime-dir", str(daemon.runtime_dir))
        finally:
            holder.kill()
    print(f"RELIABILITY control: another uid opened 200 control connections, {kept} kept; the owner's status served")
    assert kept == MAX_PER_UID
    assert json.loads(status.stdout)["pid"] == str(daemon.proc.pid)
    assert '"control_connection_refused"' in daemon.log()
