"""Policy cost is isolated: a policy that takes seconds an evaluation (Rego iterating N by N on a 9-byte
command, Python looping) delays only the session whose request makes it slow, whether it is enforced, a
monitor layer, a shadow candidate, or a Python policy. That session gets the event's fail mode (a deny,
never an allow); another session beside it keeps being served before its deadline.

The correctness property asserted is "served vs not served before the deadline": every one of the other
session's requests is answered with its policies' own decision. Its latency (p50/p99) is printed as a
`RELIABILITY policy-cost` line for docs/reliability.md, never asserted (speed is measured, not tested).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from load_support import timed_ask

from hookd import wire
from hookd.runtime.resources import policies_dir
from support import RunningDaemon, gemini_payload, logged, start_daemon

TIMEOUT = 30
SECONDS = 4.0  # how long the other session asks while the slow one floods
ATTACKERS = 3  # the slow session's requests in flight at once
ATTACKER_PAUSE = 0.1  # seconds between one slow request's answer and the next
VICTIM_RATE = 50  # the other session's requests a second, one connection each as a shim makes

SLOW_REGO = """package hookd.slow

import rego.v1

n := 30000  # far past any deadline on any box (the worker is replaced at the deadline: no CPU left running)

deny contains "slow policy" if {
	input.tool.input.command == "sleep 1"
	count([1 | some i in numbers.range(1, n); some j in numbers.range(1, n); i == j]) > 0
}

deny contains "fast policy" if input.tool.input.command == "rm -rf /"
"""

SLOW_PYTHON = """from hookd.policy_api import policy

@policy(events=["BeforeTool"])
def slow(input):
    if input["tool"]["input"].get("command") == "sleep 1":
        while True:
            pass
    return None
"""


def shell(command: str, session: str, cwd: str) -> bytes:
    payload = gemini_payload(
        "BeforeTool", tool_name="run_shell_command", tool_input={"command": command}, session_id=session, cwd=cwd
    )
    header = {"client": "gemini", "event": "BeforeTool", "cwd": cwd, "ppid": 0, "env": {"HOME": "/root"}}
    return wire.encode_request(header, json.dumps(payload).encode())


ask = timed_ask


@dataclass
class Run:
    victim: list[tuple[float, wire.DecodedReply | None]] = field(default_factory=list)
    slow: list[tuple[float, wire.DecodedReply | None]] = field(default_factory=list)
    in_daemon: str = ""

    def percentile(self, share: float) -> float:
        times = sorted(ms for ms, _ in self.victim)
        return times[min(len(times) - 1, int(share * len(times)))]

    def figures(self, *, slow: bool = True) -> str:
        times = [ms for ms, _ in self.victim]
        other = (
            f"other session {len(times)} requests: p50 {statistics.median(times):.1f} ms, "
            f"p99 {self.percentile(0.99):.1f} ms, max {max(times):.1f} ms"
        )
        if not slow:
            return other
        slowest = statistics.median(ms for ms, _ in self.slow)
        return f"{other}; slow session {len(self.slow)} requests, median {slowest:.0f} ms; {self.in_daemon}"


async def flood(daemon: RunningDaemon, cwd: str, attackers: int = ATTACKERS) -> Run:
    """The other session asking at VICTIM_RATE beside `attackers` requests of the slow one in flight."""
    run = Run()
    end = time.monotonic() + SECONDS

    async def attacker() -> None:
        while time.monotonic() < end:
            run.slow.append(await ask(daemon.socket, shell("sleep 1", "slow-session", cwd)))
            await asyncio.sleep(ATTACKER_PAUSE)  # its cost is the policy's, not a flood's (that is test_fairness)

    async def victim() -> None:
        start, i = time.monotonic(), 0
        while time.monotonic() < end:
            await asyncio.sleep(max(0.0, start + i / VICTIM_RATE - time.monotonic()))
            run.victim.append(await ask(daemon.socket, shell(f"ls -la d{i}", "other-session", cwd)))
            i += 1

    await asyncio.gather(victim(), *(attacker() for _ in range(attackers)))
    return run


def alone_then_beside(daemon: RunningDaemon, cwd: str) -> Run:
    """The other session alone first (its figures printed, for comparison), then beside the slow one. Each
    phase's line also gives the daemon's own share: its records' `latency_ms` (from the request read to the
    reply rendered); the rest of what the client measured is getting the processes onto a busy CPU."""
    alone = asyncio.run(flood(daemon, cwd, attackers=0))
    seen = daemon.decisions(at_least=len(alone.victim))
    print(f"RELIABILITY policy-cost alone: {alone.figures(slow=False)}; {in_daemon(seen)}")
    beside = asyncio.run(flood(daemon, cwd))
    beside.in_daemon = in_daemon(daemon.decisions(at_least=len(seen) + len(beside.victim))[len(seen) :])
    return beside


def in_daemon(records: list[dict[str, object]]) -> str:
    took = sorted(float(str(r["latency_ms"])) for r in records if r.get("session") == "other-session")
    if not took:
        return "in the daemon: no records"
    p99 = took[min(len(took) - 1, int(0.99 * len(took)))]
    return f"in the daemon p50 {statistics.median(took):.1f} ms, p99 {p99:.1f} ms"


def denied(reply: wire.DecodedReply | None) -> bool:
    """The slow session's answer: the fail mode, a deny (an error frame is one too: the shim denies)."""
    if reply is None:
        return False
    if reply.status is wire.Status.ERROR:
        return True
    return json.loads(reply.stdout).get("decision") == "deny"


def check(run: Run, what: str) -> None:
    print(f"RELIABILITY policy-cost {what}: {run.figures()}")
    unanswered = [(ms, r) for ms, r in run.victim if r is None or r.status is not wire.Status.OK]
    assert not unanswered, f"{len(unanswered)} of the other session's requests not served: {unanswered[:3]}"
    answers = {r.stdout for _, r in run.victim if r is not None}
    assert answers <= {b"", b"{}"}, f"the other session got something else than its policies' allow: {answers}"
    assert run.slow and all(denied(r) for _, r in run.slow), [r for _, r in run.slow if not denied(r)][:3]


def hostile_dir(root: Path, *, rego: str = SLOW_REGO, python: str = "") -> Path:
    directory = root / "hostile"
    (directory / "slow").mkdir(parents=True)
    (directory / "slow" / "policy.rego").write_text(rego)
    if python:
        (directory / "slow.py").write_text(python)
    return directory


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def test_a_slow_enforced_rego_policy_delays_only_its_own_session(tmp_path: Path, project: Path) -> None:
    daemon = start_daemon(tmp_path, policies=hostile_dir(tmp_path))
    try:
        run = alone_then_beside(daemon, str(project))
    finally:
        daemon.stop()
    check(run, "enforced Rego")


def test_a_slow_python_policy_delays_only_its_own_session(tmp_path: Path, project: Path) -> None:
    policies = hostile_dir(tmp_path, rego="package hookd.none\n", python=SLOW_PYTHON)
    daemon = start_daemon(tmp_path, policies=policies)
    try:
        run = alone_then_beside(daemon, str(project))
    finally:
        daemon.stop()
    check(run, "Python")


def test_a_slow_monitor_layer_never_holds_the_others(tmp_path: Path, project: Path) -> None:
    shutil.copytree(hostile_dir(tmp_path), project / ".hookd" / "policies")
    config = f'[layers]\nprojects = ["{project}"]\nmonitor_projects = ["{project}"]\n'
    daemon = start_daemon(tmp_path, policies=policies_dir(), config=config)
    try:
        run = alone_then_beside(daemon, str(project))
        log = logged(daemon, '"rego_policy_timeout"')  # the monitor's evaluation, after the replies
    finally:
        daemon.stop()
    # A monitor layer never decides: the slow session's requests are allowed, like the other's, and the
    # monitor's evaluation, after the reply, holds nobody.
    print(f"RELIABILITY policy-cost monitor layer: {run.figures()}")
    assert all(
        r is not None and r.status is wire.Status.OK and r.stdout in (b"", b"{}") for _, r in run.victim + run.slow
    )
    assert '"rego_policy_timeout"' in log


def test_a_slow_shadow_candidate_never_holds_the_others(tmp_path: Path, project: Path) -> None:
    config = f'[rollout]\nshadow_policies = "{hostile_dir(tmp_path)}"\n'
    daemon = start_daemon(tmp_path, policies=policies_dir(), config=config)
    try:
        run = alone_then_beside(daemon, str(project))
        log = logged(daemon, '"rego_policy_timeout"')  # the candidate's evaluation, after the replies
    finally:
        daemon.stop()
    print(f"RELIABILITY policy-cost shadow candidate: {run.figures()}")
    assert all(
        r is not None and r.status is wire.Status.OK and r.stdout in (b"", b"{}") for _, r in run.victim + run.slow
    )
    assert '"rego_policy_timeout"' in log
