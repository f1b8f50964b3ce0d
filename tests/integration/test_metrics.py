"""The opt-in Prometheus endpoint of a real daemon, scraped over HTTP after decisions made through the shim."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

from support import DEMO_POLICIES, free_port, gemini_payload, logged, run_shim, scrape, start_daemon

TIMEOUT = 30
BROKEN_RULE = """
deny contains {"id": "boom", "reason": "unreachable"} if {
\tinput.tool.input.file_path == "boom.txt"
\tx := 1 / 0
}
"""


def write(name: str) -> dict[str, object]:
    return gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": name, "content": "x"})


def test_decisions_latency_engine_errors_and_fail_mode_answers(tmp_path: Path) -> None:
    policies = tmp_path / "policies"
    shutil.copytree(DEMO_POLICIES, policies)
    rego = policies / "demo" / "policy.rego"
    rego.write_text(rego.read_text() + BROKEN_RULE)  # loads fine, fails when evaluated for boom.txt
    port = free_port()
    daemon = start_daemon(tmp_path, policies, config=f'[metrics]\nlisten = "127.0.0.1:{port}"\n')
    try:
        for name in ("secret.txt", "fine.txt", "fine.txt", "boom.txt"):
            assert run_shim(daemon.socket, "BeforeTool", write(name)).returncode == 0
        assert run_shim(daemon.socket, "AfterAgent", b"not json").returncode == 0  # bad payload: fails open
        daemon.decisions(at_least=4)
        status = subprocess.run(
            [sys.executable, "-m", "hookd", "status", "--runtime-dir", str(daemon.runtime_dir)],
            capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ, "HOOKD_CONFIG": ""}, check=True,
        )  # fmt: skip
        assert f"metrics:   http://127.0.0.1:{port}/metrics" in status.stdout.splitlines()
        metrics = scrape(f"127.0.0.1:{port}")
    finally:
        assert daemon.stop() == 0

    def value(name: str, **labels: str) -> float:
        return metrics[(name, tuple(sorted(labels.items())))]

    # the failed evaluation is a deny: BeforeTool fails closed
    assert value("hookd_decisions_total", event="BeforeTool", decision="deny") == 2
    assert value("hookd_decisions_total", event="BeforeTool", decision="allow") == 2
    assert value("hookd_decision_latency_seconds_count", event="BeforeTool") == 4
    assert value("hookd_decision_latency_seconds_bucket", event="BeforeTool", le="+Inf") == 4
    assert 0 < value("hookd_decision_latency_seconds_sum", event="BeforeTool") < 4 * 2.5
    assert value("hookd_engine_errors_total", event="BeforeTool") == 1
    assert value("hookd_fail_mode_answers_total", event="BeforeTool", mode="closed") == 1
    assert value("hookd_request_errors_total", code="bad-payload") == 1
    assert value("hookd_requests_total") == 5
    assert value("hookd_decision_log_written_total") == 4
    assert value("hookd_decision_log_dropped_total") == 0
    assert ("hookd_log_ship_sent_total", ()) not in metrics  # shipping is off
    assert value("process_resident_memory_bytes") > 0
    records = json.loads(f"[{','.join(daemon.decision_log.read_text().splitlines())}]")
    assert [r["verdicts"][0]["rule"] for r in records if r["decision"] == "deny"] == ["no-secret", "engine-error"]


def test_the_endpoint_is_off_unless_configured(tmp_path: Path) -> None:
    daemon = start_daemon(tmp_path)
    try:
        assert '"metrics": null' in logged(daemon, '"event": "serving"')
    finally:
        daemon.stop()


def test_a_non_loopback_address_is_refused_with_one_line(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[metrics]\nlisten = "0.0.0.0:9464"\n')
    done = subprocess.run(
        [sys.executable, "-m", "hookd", "--config", str(config), "serve"],
        capture_output=True, text=True, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    assert done.returncode == 2  # a configuration error, like every other
    assert done.stderr == (
        f"hookd: config {config}: 'metrics.listen' must be a loopback address (127.0.0.1, ::1 or localhost): "
        "the metrics endpoint has no authentication, got '0.0.0.0:9464'\n"
    )


def test_a_port_in_use_stops_the_daemon_with_one_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        daemon = start_daemon(tmp_path, config=f'[metrics]\nlisten = "127.0.0.1:{port}"\n', wait=False)
        assert daemon.proc.wait(timeout=TIMEOUT) == 1
    assert f"hookd: cannot serve metrics on 127.0.0.1:{port}: Address already in use" in daemon.log()
    assert not daemon.socket.exists()
