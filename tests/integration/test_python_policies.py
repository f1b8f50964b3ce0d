"""Python policies in a real daemon behind the real shim: decisions, a traceback that stays in the daemon's
log, reloads under load that fail no request, Status, `hookd doctor` and `hookd test` case files."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookd import wire
from support import (
    RunningDaemon,
    eventually,
    gemini_payload,
    require,
    run_shim,
    send_frame,
    start_daemon,
    wait_for_socket,
)

HOOKD = [sys.executable, "-m", "hookd"]
POLICY = """
from hookd.policy_api import policy, deny

@policy(events=["BeforeTool"], kinds=["shell"])
def guard(input):
    command = input["tool"]["input"]["command"]
    if command == "explode":
        raise RuntimeError("secret-sauce-42 went wrong")
    if command.startswith("git push"):
        return deny("no pushing, {version}", rule="push")
"""


def write_policies(directory: Path, version: str = "v1") -> Path:
    directory.mkdir(mode=0o755, exist_ok=True)
    path = directory / "guard.py"
    path.write_text(textwrap.dedent(POLICY.format(version=version)))
    path.chmod(0o644)
    return directory


def shell(command: str) -> dict[str, object]:
    return gemini_payload("BeforeTool", tool_name="run_shell_command", tool_input={"command": command})


GENEROUS = "[python]\ntimeout_ms = 25000\nstart_timeout_ms = 60000\n"  # no test here is about deadlines


def hookd(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOOKD_CONFIG": ""}
    if args[0] in ("test", "doctor", "eval"):
        config = Path(tempfile.mkdtemp(prefix="hookd-cfg-")) / "config.toml"
        config.write_text(GENEROUS)
        args = ("--config", str(config), *args)
    done = subprocess.run([*HOOKD, *args], capture_output=True, timeout=60, env=env, check=False)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def worker_pids(daemon: RunningDaemon) -> set[int]:
    pids = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == daemon.proc.pid and fields[0] != "Z" and b"hookd.sandbox.worker" in cmdline:
            pids.add(int(stat.parent.name))
    return pids


def wait_for_workers(daemon: RunningDaemon, count: int, timeout: float = 15) -> set[int]:
    end = time.monotonic() + timeout
    while ((pids := worker_pids(daemon)) and len(pids) != count) or not pids:
        assert time.monotonic() < end, f"the daemon has {len(pids)} Python workers, expected {count}"
        time.sleep(0.05)
    return pids


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[RunningDaemon]:
    require(os.geteuid() == 0, "root (the workers drop to nobody)")
    # Deadlines far above what a loaded machine needs: no test here is about them.
    config = "[daemon]\nrequest_timeout_ms = 30000\n[python]\ntimeout_ms = 25000\nstart_timeout_ms = 60000\n"
    running = start_daemon(tmp_path, write_policies(tmp_path / "policies"), config=config, wait=False)
    wait_for_socket(running, timeout=120)  # it starts its workers before it listens: slow on a loaded machine
    yield running
    running.stop()


def test_the_shim_gets_the_python_policys_deny(daemon: RunningDaemon) -> None:
    denied = run_shim(daemon.socket, "BeforeTool", shell("git push origin main"), deadline_ms=30_000, timeout=60)
    assert denied.returncode == 0
    assert json.loads(denied.stdout)["decision"] == "deny"
    assert "no pushing, v1 [hookd.guard:push]" in json.loads(denied.stdout)["reason"]
    assert run_shim(daemon.socket, "BeforeTool", shell("ls"), deadline_ms=30_000, timeout=60).stdout == b""


def test_an_exception_denies_and_its_traceback_is_only_in_the_daemon_log(daemon: RunningDaemon) -> None:
    result = run_shim(daemon.socket, "BeforeTool", shell("explode"), deadline_ms=30_000, timeout=60)
    reply = json.loads(result.stdout)
    assert reply["decision"] == "deny"
    assert "Python policy guard.py:guard failed (RuntimeError)" in reply["reason"]
    for stream in (result.stdout, result.stderr):
        assert b"secret-sauce-42" not in stream and b"Traceback" not in stream
    deadline = time.monotonic() + 10
    while "secret-sauce-42" not in daemon.log():
        assert time.monotonic() < deadline, daemon.log()
        time.sleep(0.05)
    (line,) = [json.loads(x) for x in daemon.log().splitlines() if "python_policy_error" in x]
    assert "Traceback" in line["traceback"] and line["policy"] == "hookd.guard"


def test_reloads_under_load_fail_no_request_and_retire_the_old_workers(daemon: RunningDaemon) -> None:
    policies = daemon.log_path.parent / "policies"
    first = wait_for_workers(daemon, 2)
    replies: list[str] = []
    stop = threading.Event()

    def load() -> None:
        header = {"client": "gemini", "event": "BeforeTool", "cwd": "/", "ppid": 1, "env": {}}
        frame = wire.encode_request(header, json.dumps(shell("git push")).encode())
        while not stop.is_set():
            out = wire.decode_reply(
                send_frame(daemon.socket, frame, timeout=60)
            ).stdout  # the shim's socket client, minus start-up
            replies.append(json.loads(out)["reason"] if out else "(allowed)")

    threads = [threading.Thread(target=load) for _ in range(2)]
    for thread in threads:
        thread.start()
    try:
        for version in ("v2", "v3"):
            seen = len(replies)
            eventually(lambda seen=seen: len(replies) >= seen + 5, timeout=30, what="requests on the serving set")
            write_policies(policies, version)
            daemon.proc.send_signal(signal.SIGHUP)  # the second may come while the first still starts workers
        end = time.monotonic() + 30
        while daemon.log().count('"event": "reloaded"') < 2:
            assert time.monotonic() < end, daemon.log()
            time.sleep(0.05)
        eventually(lambda: replies and replies[-1].startswith("no pushing, v3"), timeout=30, what="v3 serving")
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    assert len(replies) > 20
    assert all(r.startswith(("no pushing, v1", "no pushing, v2", "no pushing, v3")) for r in replies), set(replies)
    assert replies[-1].startswith("no pushing, v3"), daemon.log()
    last = wait_for_workers(daemon, 2)
    assert not last & first
    assert daemon.log().count('"event": "reloaded"') == 2


def test_status_and_policies_report_the_workers_layers_and_python_policies(daemon: RunningDaemon) -> None:
    result = hookd("status", "--json", "--runtime-dir", str(daemon.runtime_dir))
    assert result.returncode == 0, result.stderr
    layers = {layer["name"]: layer for layer in json.loads(result.stdout)["sandbox_layers"]}
    assert set(layers) == {
        "resource-limits", "network-namespace", "seccomp", "write-restriction", "unprivileged-uid", "clean-environment"
    }  # fmt: skip
    assert layers["unprivileged-uid"]["active"] is True and "uid 65534" in layers["unprivileged-uid"]["detail"]
    listing = hookd("policies", "--json", "--runtime-dir", str(daemon.runtime_dir))
    (package,) = json.loads(listing.stdout)["packages"]
    assert (package["name"], package["rules"]) == ("hookd.guard", [{"name": "guard", "kind": "python"}])
    assert package["routing"] == {"events": ["BeforeTool"], "kinds": ["shell"], "tools": []}


def test_doctor_prints_every_layer_and_the_trust_of_the_policy_dir(tmp_path: Path) -> None:
    policies = write_policies(tmp_path / "policies")
    result = hookd("doctor", "--policies", str(policies), "--json")
    findings = json.loads(result.stdout)["findings"]
    layers = [f for f in findings if f["check"] == "sandbox"]
    assert [f["detail"].split(":")[0] for f in layers] == [
        "resource-limits", "network-namespace", "seccomp", "write-restriction", "unprivileged-uid", "clean-environment"
    ]  # fmt: skip
    (trust,) = [f for f in findings if f["check"] == "policy trust"]
    assert trust == {"check": "policy trust", "ok": True, "fix": "",
                     "detail": f"{policies}: 1 Python policy file(s), owner and modes right"}  # fmt: skip
    policies.chmod(0o777)
    refused = json.loads(hookd("doctor", "--policies", str(policies), "--json", "--no-sandbox").stdout)["findings"]
    (trust,) = [f for f in refused if f["check"] == "policy trust"]
    assert not trust["ok"] and "is writable by group or others (mode 777)" in trust["detail"]


def test_hookd_test_runs_case_files_of_python_policies(tmp_path: Path) -> None:
    policies = write_policies(tmp_path / "policies")
    cases = policies / "cases"
    cases.mkdir()
    (cases / "guard.json").write_text(
        json.dumps(
            [
                {
                    "name": "push",
                    "payload": shell("git push"),
                    "expect": {"outcome": "deny", "rules": ["hookd.guard:push"]},
                },
                {"name": "ls", "payload": shell("ls"), "expect": {"outcome": "allow"}},
                {"name": "wrong on purpose", "payload": shell("ls"), "expect": {"outcome": "deny"}},
            ]
        )
    )
    result = hookd("test", "-v", str(policies))
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == [
        "PASS  guard.json#0 push",
        "PASS  guard.json#1 ls",
        "FAIL  guard.json#2 wrong on purpose: outcome allow, expected deny",
        "2 passed, 1 failed",
    ]


NOBODY_POLICY = """
import os, socket
from hookd.policy_api import policy, deny

@policy(events=["BeforeTool"])
def scribble(input):
    with open(os.path.join({owned!r}, "pwned"), "w") as handle:  # nobody's own dir: only the sandbox says no
        handle.write("x")
    return deny("ESCAPED: wrote")

@policy(events=["BeforeTool"])
def phone_home(input):
    socket.create_connection(("127.0.0.1", 9), timeout=1)
    return deny("ESCAPED: connected")

@policy(events=["BeforeTool"])
def spawn(input):
    os.fork()
    return deny("ESCAPED: forked")
"""


def as_nobody(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    """`hookd ARGS` as a non-root daemon would run it: uid nobody, the system python3 with the venv's packages."""
    site = next(Path(sys.prefix, "lib").glob("python3.*/site-packages"))
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": "/nonexistent",
        "PYTHONPATH": f"{site}:{Path(__file__).parents[2] / 'daemon'}",
    }
    command = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", "-m", "hookd"]
    done = subprocess.run([*command, *args], input=stdin, capture_output=True, timeout=60, env=env, check=False)
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def test_a_non_root_daemon_still_confines_its_workers(tmp_path: Path) -> None:
    require(os.geteuid() == 0 and Path("/usr/bin/python3").exists(), "root (to become nobody) and /usr/bin/python3")
    owned = Path(tempfile.mkdtemp(prefix="hookd-nobody-"))
    policies = owned / "policies"
    policies.mkdir()
    (policies / "hostile.py").write_text(NOBODY_POLICY.format(owned=str(owned)))
    for path in (owned, policies, policies / "hostile.py"):
        os.chown(path, 65534, 65534)
    try:
        doctor = as_nobody("doctor", "--policies", str(policies), "--json")
        layers = [f for f in json.loads(doctor.stdout)["findings"] if f["check"] == "sandbox"]
        assert len(layers) == 6 and all(f["ok"] for f in layers), doctor.stdout  # a non-root daemon: no uid to drop
        assert "does not run as root" in next(f["detail"] for f in layers if f["detail"].startswith("unprivileged"))
        result = as_nobody("eval", "--json", "--policies", str(policies), stdin=json.dumps(shell("ls")).encode())
        assert result.returncode == 0, result.stderr
        verdicts = json.loads(result.stdout)["verdicts"]
        assert sorted((v["kind"], v["rule"], v["message"].split(" failed")[0]) for v in verdicts) == [
            ("deny", "python-error", "Python policy hostile.py:phone_home"),
            ("deny", "python-error", "Python policy hostile.py:scribble"),
            ("deny", "python-error", "Python policy hostile.py:spawn"),
        ]
        assert not (owned / "pwned").exists()
    finally:
        shutil.rmtree(owned)


def test_with_workers_python_policies_decide_in_every_process(tmp_path: Path) -> None:
    """[daemon] workers = 2: the worker process starts sandboxed Python workers of its own and decides
    with them as the daemon does."""
    require(os.geteuid() == 0, "root (the workers drop to nobody)")
    config = "[daemon]\nrequest_timeout_ms = 30000\nworkers = 2\n" + GENEROUS
    daemon = start_daemon(tmp_path, write_policies(tmp_path / "policies"), config=config, wait=False)
    try:
        wait_for_socket(daemon, timeout=120)
        end = time.monotonic() + 120
        while '"worker_serving"' not in daemon.log():
            assert time.monotonic() < end, daemon.log()
            time.sleep(0.05)
        header = {"client": "gemini", "event": "BeforeTool", "cwd": "/tmp", "ppid": 0, "env": {}}
        frame = wire.encode_request(header, json.dumps(shell("git push origin main")).encode())
        replies: list[wire.DecodedReply] = []

        def client() -> None:
            for _ in range(25):
                replies.append(wire.decode_reply(send_frame(daemon.socket, frame, timeout=60)))

        threads = [threading.Thread(target=client) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        records = daemon.decisions(at_least=100)
    finally:
        daemon.stop()
    assert len(replies) == 100
    assert all(b"no pushing, v1 [hookd.guard:push]" in r.stdout for r in replies)
    assert {int(r["id"], 16) % 64 for r in records} == {0, 1}


DAEMON_TOUCHING_POLICY = """
import ctypes, os, resource, signal
from hookd.policy_api import policy, deny

def refused(rc):
    if rc != 0:
        raise OSError(ctypes.get_errno(), "refused")

@policy(events=["BeforeTool"])
def cpu_limit(input):
    resource.prlimit(os.getppid(), resource.RLIMIT_CPU, (1, 1))
    return deny("ESCAPED: lowered the daemon's CPU limit")

@policy(events=["BeforeTool"])
def affinity(input):
    os.sched_setaffinity(os.getppid(), {0})
    return deny("ESCAPED: pinned the daemon")

@policy(events=["BeforeTool"])
def nice(input):
    os.setpriority(os.PRIO_PROCESS, os.getppid(), 19)
    return deny("ESCAPED: reniced the daemon")

@policy(events=["BeforeTool"])
def nice_group(input):
    os.setpriority(os.PRIO_PGRP, 0, 19)
    return deny("ESCAPED: reniced the daemon's process group")

@policy(events=["BeforeTool"])
def scheduler(input):
    os.sched_setscheduler(os.getppid(), os.SCHED_IDLE, os.sched_param(0))
    return deny("ESCAPED: made the daemon idle-class")

@policy(events=["BeforeTool"])
def io_priority(input):
    libc = ctypes.CDLL(None, use_errno=True)
    refused(libc.syscall(251, 1, os.getppid(), 3 << 13))
    return deny("ESCAPED: gave the daemon idle I/O priority")

@policy(events=["BeforeTool"])
def kill(input):
    os.kill(os.getppid(), signal.SIGKILL)
    return deny("ESCAPED: killed the daemon")
"""


def test_a_python_policy_under_a_non_root_daemon_cannot_touch_the_daemon() -> None:
    """The workers share a non-root daemon's uid: each call on the daemon (the workers' parent) is refused, so
    each policy fails (python-error) and the daemon answers, its limits, affinity, priorities unchanged."""
    require(os.geteuid() == 0 and Path("/usr/bin/python3").exists(), "root (to become nobody) and /usr/bin/python3")
    owned = Path(tempfile.mkdtemp(prefix="hookd-nobody-"))
    policies = owned / "policies"
    policies.mkdir()
    (policies / "hostile.py").write_text(DAEMON_TOUCHING_POLICY)
    for path in (owned, policies, policies / "hostile.py"):
        os.chown(path, 65534, 65534)
    try:
        result = as_nobody("eval", "--json", "--policies", str(policies), stdin=json.dumps(shell("ls")).encode())
    finally:
        shutil.rmtree(owned)
    assert result.returncode == 0, result.stderr
    verdicts = json.loads(result.stdout)["verdicts"]
    assert "ESCAPED" not in result.stdout, verdicts
    names = ("affinity", "cpu_limit", "io_priority", "kill", "nice", "nice_group", "scheduler")
    assert sorted((v["kind"], v["rule"], v["message"].split(" failed")[0]) for v in verdicts) == [
        ("deny", "python-error", f"Python policy hostile.py:{name}") for name in names
    ]
