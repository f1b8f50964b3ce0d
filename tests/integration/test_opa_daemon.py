"""The daemon with engine = "opa" against the real OPA server, through the real shim: the same decisions
as the embedded engine, the fail mode within the deadline when OPA is down or stalled, and recovery by
itself when OPA comes back (same process, or a restarted one that lost the pushed policies)."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from opa_server import OpaServer, running_opa

from support import RunningDaemon, gemini_payload, run_shim, start_daemon

SHIM_DEADLINE_MS = 3000
OPA_TIMEOUT_MS = 400


def opa_config(opa: OpaServer) -> str:
    return f'[daemon]\nengine = "opa"\n\n[opa]\nurl = "{opa.url}"\ntimeout_ms = {OPA_TIMEOUT_MS}\n'


def write(path: str, content: str = "hi") -> dict[str, object]:
    return gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": path, "content": content})


@pytest.fixture
def opa() -> Iterator[OpaServer]:
    with running_opa() as server:
        yield server


@pytest.fixture
def opa_daemon(tmp_path: Path, opa: OpaServer) -> Iterator[RunningDaemon]:
    running = start_daemon(tmp_path, config=opa_config(opa))
    try:
        yield running
    finally:
        running.stop()


def timed_shim(daemon: RunningDaemon, payload: dict[str, object]) -> tuple[dict[str, object], float]:
    started = time.monotonic()
    result = run_shim(daemon.socket, "BeforeTool", payload, deadline_ms=SHIM_DEADLINE_MS)
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    return (json.loads(result.stdout) if result.stdout else {}), elapsed


def assert_fails_closed(answer: dict[str, object], elapsed: float) -> None:
    assert answer["decision"] == "deny"
    assert "hookd could not evaluate its policies: OPA at" in str(answer["reason"])
    # Answered by the daemon (its fail mode), not by the shim giving up at its own deadline.
    assert "[hookd:engine-error]" in str(answer["reason"])
    assert elapsed < SHIM_DEADLINE_MS / 1000


class TestDecisionsFromOpa:
    def test_deny_rewrite_and_allow_come_from_opa(self, opa_daemon: RunningDaemon) -> None:
        denied, _ = timed_shim(opa_daemon, write("secret.txt"))
        assert "writing secret.txt is not allowed [hookd.demo:no-secret]" in str(denied["reason"])
        rewritten, _ = timed_shim(opa_daemon, write("shout.txt", "quiet"))
        assert rewritten["hookSpecificOutput"] == {
            "hookEventName": "BeforeTool",
            "tool_input": {"file_path": "shout.txt", "content": "QUIET"},
        }
        allowed, _ = timed_shim(opa_daemon, write("fine.txt"))
        assert allowed == {}
        records = opa_daemon.decisions(at_least=3)
        assert [r["decision"] for r in records] == ["deny", "rewrite", "allow"]

    def test_the_policies_are_on_the_opa_server(self, opa_daemon: RunningDaemon, opa: OpaServer) -> None:
        import urllib.request

        with urllib.request.urlopen(f"{opa.url}/v1/policies", timeout=5) as response:
            ids = sorted(p["id"] for p in json.load(response)["result"])
        assert ids == ["hookd/_router.rego", "hookd/demo/policy.rego"]


class TestFailModeAndRecovery:
    def test_opa_stopped_fails_closed_then_recovers_when_it_restarts(
        self, opa_daemon: RunningDaemon, opa: OpaServer
    ) -> None:
        opa.stop()
        answer, elapsed = timed_shim(opa_daemon, write("fine.txt"))
        assert_fails_closed(answer, elapsed)
        assert "unreachable" in str(answer["reason"])
        # A new OPA on the same port knows nothing of hookd: the engine pushes its set again by itself.
        opa.start()
        denied, _ = timed_shim(opa_daemon, write("secret.txt"))
        assert "[hookd.demo:no-secret]" in str(denied["reason"])
        assert timed_shim(opa_daemon, write("fine.txt"))[0] == {}
        assert opa_daemon.proc.poll() is None

    def test_opa_stalled_answers_within_the_deadline_then_recovers(
        self, opa_daemon: RunningDaemon, opa: OpaServer
    ) -> None:
        opa.pause()
        try:
            answer, elapsed = timed_shim(opa_daemon, write("fine.txt"))
            assert_fails_closed(answer, elapsed)
            assert f"did not answer within {OPA_TIMEOUT_MS} ms" in str(answer["reason"])
        finally:
            opa.resume()
        assert timed_shim(opa_daemon, write("fine.txt"))[0] == {}
        denied, _ = timed_shim(opa_daemon, write("secret.txt"))
        assert "[hookd.demo:no-secret]" in str(denied["reason"])

    def test_a_fail_open_event_stays_open_when_opa_is_down(self, opa_daemon: RunningDaemon, opa: OpaServer) -> None:
        opa.stop()
        payload = gemini_payload("AfterAgent", prompt="hi", prompt_response="done", stop_hook_active=False)
        result = run_shim(opa_daemon.socket, "AfterAgent", payload, deadline_ms=SHIM_DEADLINE_MS)
        assert result.returncode == 0
        assert b'"decision"' not in result.stdout  # a warning at most, never a deny that makes Gemini retry
        (record,) = opa_daemon.decisions(at_least=1)
        assert record["decision"] == "allow"

    def test_the_daemon_starts_while_opa_is_down_and_serves_once_it_is_up(self, tmp_path: Path) -> None:
        server = OpaServer()
        try:
            daemon = start_daemon(tmp_path, config=opa_config(server))  # nothing listens on the port yet
            try:
                answer, elapsed = timed_shim(daemon, write("fine.txt"))
                assert_fails_closed(answer, elapsed)
                server.start()
                denied, _ = timed_shim(daemon, write("secret.txt"))
                assert "[hookd.demo:no-secret]" in str(denied["reason"])
            finally:
                daemon.stop()
        finally:
            server.close()


class TestReload:
    def test_reload_pushes_the_new_set_and_a_refused_set_keeps_the_old(self, tmp_path: Path, opa: OpaServer) -> None:
        policies = tmp_path / "policies"
        policies.mkdir()
        rule = 'package hookd.t\n\ndeny contains "{msg}" if input.tool.input.file_path == "x.txt"\n'
        (policies / "t.rego").write_text(rule.format(msg="first"))
        daemon = start_daemon(tmp_path, policies=policies, config=opa_config(opa))
        try:
            assert "first" in str(timed_shim(daemon, write("x.txt"))[0]["reason"])
            (policies / "t.rego").write_text(rule.format(msg="second"))
            daemon.proc.send_signal(signal.SIGHUP)
            _wait_for(lambda: "second" in str(timed_shim(daemon, write("x.txt"))[0].get("reason")))
            # OPA refuses what regorus accepts here (a rule that OPA's type checker rejects): the load fails
            # and OPA still holds, and hookd still serves, the second set.
            (policies / "t.rego").write_text(rule.format(msg="third") + 'bad contains x if x := 1 + "a"\n')
            daemon.proc.send_signal(signal.SIGHUP)
            _wait_for(lambda: "reload_failed" in daemon.log())
            assert "refused the policies" in daemon.log()
            assert "second" in str(timed_shim(daemon, write("x.txt"))[0]["reason"])
        finally:
            daemon.stop()


def _wait_for(condition: object, timeout: float = 10) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if callable(condition) and condition():
            return
        time.sleep(0.1)
    raise AssertionError("condition not met in time")
