"""The fault matrix: both shims, every blocking event of every agent, every way the daemon can fail.

Each cell must print the event's fail-closed answer, in the form that agent treats as a block (Gemini
CLI: `decision: deny`; Claude Code: a PreToolUse `permissionDecision: deny`, else `decision: block`;
docs/gemini.md, docs/claude.md), exit 0, and give the reason for that fault in one line. The blocking
events are read from the Python shim's own agent table, so an agent or event added there is in the
matrix at once; Gemini's and Claude's answers are spelled out here independently, another agent's are
taken from the table (its own tests hold that form to what the real agent does).
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

import pytest
from attacker import ATTACKER, as_attacker, require_privileges
from attacker import shared_tmp as make_shared_tmp
from shims import Shim

from support import SHIM, FakeServer, RunningDaemon, gemini_payload, start_daemon

DEADLINE_MS = 400
# Faults that are not a timeout get a deadline the box's load cannot reach, so the fault decides the reason.
UNHURRIED_MS = 15_000
DAEMON_DEADLINE_MS = 300


def agent_table() -> dict[str, dict[str, tuple[bool, str, str, bool, int]]]:
    spec = importlib.util.spec_from_file_location("hookd_shim", SHIM)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    table: dict[str, dict[str, tuple[bool, str, str, bool, int]]] = module.AGENT_EVENTS
    return table


TABLE = agent_table()
EVENTS = [(client, event) for client, events in TABLE.items() for event, entry in events.items() if entry[0]]


def expected_output(client: str, event: str, reason: str) -> dict[str, object]:
    if client == "gemini":
        return {"decision": "deny", "reason": reason}
    if client == "claude" and event == "PreToolUse":
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": reason}}  # fmt: skip
    if client == "claude":
        return {"decision": "block", "reason": reason}
    _, before, after, _, _ = TABLE[client][event]
    parsed: dict[str, object] = json.loads(before + json.dumps(reason) + after)
    return parsed


SAMPLES = Path(__file__).resolve().parents[1] / "fixtures" / "agent-samples"


def payload(client: str, event: str) -> dict[str, object]:
    sample = SAMPLES / f"{client}-{event}.json"  # captured from the real agent: its own field names
    if sample.exists():
        captured: dict[str, object] = json.loads(sample.read_text())
        return captured
    if client == "gemini":
        return gemini_payload(event, tool_name="run_shell_command", tool_input={"command": "ls"})
    return {"session_id": "s", "cwd": "/tmp", "hook_event_name": event, "tool_name": "Bash",
            "tool_input": {"command": "ls"}, "prompt": "hi"}  # fmt: skip


KILLED_DAEMON = """
import os, signal, socket, sys
server = socket.socket(socket.AF_UNIX)
server.bind(sys.argv[1])
server.listen(8)
print("ready", flush=True)
conn, _ = server.accept()
data = b""
while len(data) < 14 or len(data) < 14 + int.from_bytes(data[6:10], "big") + int.from_bytes(data[10:14], "big"):
    data += conn.recv(65536)
os.kill(os.getpid(), signal.SIGKILL)  # mid-request: the frame is read, no reply is written
"""


@contextmanager
def killed_mid_request(path: Path) -> Iterator[None]:
    with subprocess.Popen([sys.executable, "-c", KILLED_DAEMON, str(path)], stdout=subprocess.PIPE, text=True) as fake:
        try:
            assert fake.stdout is not None and fake.stdout.readline() == "ready\n"
            yield
            assert fake.wait(timeout=10) == -signal.SIGKILL  # it really died with the request in hand
        finally:
            fake.kill()


@pytest.fixture(scope="module")
def slow_daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    """A real daemon whose Python policy takes 2 s, with a 300 ms request deadline."""
    root = tmp_path_factory.mktemp("slow")
    policies = root / "policies"
    policies.mkdir(mode=0o755)
    (policies / "slow.py").write_text(
        "import time\nfrom hookd.policy_api import policy\n\n@policy()\ndef slow(input):\n    time.sleep(2)\n"
    )
    (policies / "slow.py").chmod(0o644)
    config = f"[daemon]\nrequest_timeout_ms = {DAEMON_DEADLINE_MS}\n[python]\nworkers = 4\ntimeout_ms = 5000\n"
    daemon = start_daemon(root, policies, config)
    try:
        yield daemon
    finally:
        daemon.stop()


Setup = Callable[[Path], AbstractContextManager[object]]


def fake(behaviour: str) -> Setup:
    @contextmanager
    def serve(path: Path) -> Iterator[None]:
        server = FakeServer(path, behaviour)
        try:
            yield
        finally:
            server.close()

    return serve


def stale(path: Path) -> AbstractContextManager[object]:
    left = socket.socket(socket.AF_UNIX)
    left.bind(str(path))
    left.close()  # the file stays, nobody listens: what a killed daemon leaves
    return nullcontext()


NOT_RUNNING = "hookd is not running (no daemon on {path}): start it with `hookd serve`"
CUT_SHORT = "hookd closed the connection before a complete reply"
FAULTS: dict[str, tuple[Setup, str]] = {
    "daemon absent": (lambda _path: nullcontext(), NOT_RUNNING),
    "stale socket": (stale, NOT_RUNNING),
    "hung": (fake("hang"), f"hookd did not answer within {DEADLINE_MS} ms"),
    "killed mid-request": (killed_mid_request, CUT_SHORT),
    "garbage reply": (fake("garbage"), "hookd sent a malformed reply"),
    "truncated reply": (fake("truncated"), CUT_SHORT),
    "closed without a reply": (fake("close"), CUT_SHORT),
}


def check(result: subprocess.CompletedProcess[bytes], client: str, event: str, reason: str) -> None:
    _, before, after, _, code = TABLE[client][event]
    if code:  # the deny is the exit code, the reason on stderr as it is (Droid)
        assert (result.returncode, result.stdout, result.stderr) == (code, b"", f"{before}{reason}{after}".encode())
        return
    assert (result.returncode, result.stderr) == (0, b""), result
    assert b"\n" not in result.stdout
    assert json.loads(result.stdout) == expected_output(client, event, reason), (client, event)


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_each_fault_fails_closed_on_every_blocking_event(shim: Shim, fault: str, tmp_path: Path) -> None:
    setup, reason = FAULTS[fault]

    def cell(index: int, client: str, event: str) -> None:
        directory = tmp_path / f"e{index}"  # tmp_path is 0700 and ours: the shims' checks pass
        directory.mkdir(mode=0o700)
        path = directory / "hook.sock"
        with setup(path):
            deadline = DEADLINE_MS if fault == "hung" else UNHURRIED_MS
            result = shim.run(path, event, payload(client, event), client=client, deadline_ms=deadline)
        check(result, client, event, reason.format(path=path))

    with ThreadPoolExecutor(len(EVENTS)) as pool:
        for future in [pool.submit(cell, i, client, event) for i, (client, event) in enumerate(EVENTS)]:
            future.result()


def test_stdin_never_closed_fails_closed_on_every_blocking_event(shim: Shim, slow_daemon: RunningDaemon) -> None:
    reason = f"the hook input (stdin) was not complete within {DEADLINE_MS} ms"

    def cell(client: str, event: str) -> None:
        result = shim.run(slow_daemon.socket, event, payload(client, event), client=client, deadline_ms=DEADLINE_MS,
                          stdin_open=True)  # fmt: skip
        check(result, client, event, reason)

    with ThreadPoolExecutor(len(EVENTS)) as pool:
        for future in [pool.submit(cell, client, event) for client, event in EVENTS]:
            future.result()


def test_a_slow_policy_fails_closed_on_every_blocking_event(shim: Shim, slow_daemon: RunningDaemon) -> None:
    reason = f"hookd rejected the event: hookd did not decide within its {DAEMON_DEADLINE_MS} ms deadline"
    for client, event in EVENTS:  # one at a time: the daemon's deadline, not the box's load, decides
        result = shim.run(slow_daemon.socket, event, payload(client, event), client=client, deadline_ms=3000)
        check(result, client, event, reason)


def test_a_squatted_dir_fails_closed_on_every_blocking_event(shim: Shim) -> None:
    require_privileges()
    with make_shared_tmp() as shared:
        runtime = shared / f"hookd-{os.getuid()}"
        as_attacker("mkdir", "-m", "755", str(runtime))
        reason = (f"refusing hookd's socket directory {runtime}: a directory owned by uid {ATTACKER} with mode 0755 "
                  "(it must be yours or root's with mode 0700); remove it and restart hookd")  # fmt: skip
        for client, event in EVENTS:
            result = shim.run(runtime / "hook.sock", event, payload(client, event), client=client)
            check(result, client, event, reason)


TOLD = [(client, event) for client, events in TABLE.items() for event, entry in events.items() if entry[3]]
NOT_TOLD = [("gemini", "BeforeTool")]  # the control: the agent shows this block's reason itself


@pytest.mark.parametrize(("client", "event"), TOLD + NOT_TOLD)
def test_the_reason_is_also_written_to_the_agents_stderr_where_it_shows_nothing(
    shim: Shim, client: str, event: str, tmp_path: Path
) -> None:
    """For an event whose block the agent shows nobody (AgentEvent.tell_user), the shim also writes the
    reason to the stderr of its first ancestor whose stderr is not its own: here a stand-in agent whose
    stderr is a file, which runs the shim with its stderr captured (as the agents do)."""
    agent_stderr = tmp_path / "agent-stderr"
    socket = tmp_path / "hook.sock"
    stand_in = (
        "import subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], input=sys.stdin.buffer.read(), capture_output=True, timeout=30)\n"
        "sys.stdout.buffer.write(done.stdout)\n"
    )
    with agent_stderr.open("wb") as err:
        result = subprocess.run(
            [sys.executable, "-c", stand_in, *shim.argv(event, socket, client=client)],
            input=json.dumps(payload(client, event)).encode(), stdout=subprocess.PIPE, stderr=err, timeout=60,
            check=False,
        )  # fmt: skip
    reason = NOT_RUNNING.format(path=socket)
    assert json.loads(result.stdout) == expected_output(client, event, reason)
    assert agent_stderr.read_text() == (f"hookd: {reason}\n" if (client, event) in TOLD else "")
