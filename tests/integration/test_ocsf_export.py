"""`hookd log ocsf` over a real daemon's decision log: every decision it made (allow, deny, an ask turned
deny) comes out as one OCSF API Activity event that validates against the published OCSF 1.8.0 schema, in
log order, with the decision id, the deciding rule and the chain hash."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import pytest
from bundle_support import policy_dir, start
from ocsf_schema import validate

from hookd import wire
from support import VENV_PYTHON, gemini_payload

pytestmark = pytest.mark.timeout(300)
RULES = """
deny contains {"id": "no-secret", "reason": "no secrets"} if endswith(input.tool.input.file_path, "secret.txt")
ask contains {"id": "careful", "reason": "are you sure"} if endswith(input.tool.input.file_path, "careful.txt")
"""
HEADER = {"client": "gemini", "event": "BeforeTool", "cwd": "/tmp", "ppid": 1, "env": {}}


def decide(path: Path, name: str) -> None:
    payload = gemini_payload("BeforeTool", tool_name="write_file", tool_input={"file_path": name, "content": "x"})
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(60)
        sock.connect(str(path))
        sock.sendall(wire.encode_request(HEADER, json.dumps(payload).encode()))
        while sock.recv(65536):
            pass


def test_a_real_decision_log_as_valid_ocsf_events(tmp_path: Path) -> None:
    policies = policy_dir(tmp_path / "policies", "demo", RULES)
    daemon = start(tmp_path, policies)
    try:
        for name in ("/tmp/a/ok.txt", "/tmp/a/secret.txt", "/tmp/a/careful.txt"):
            decide(daemon.socket, name)
        records = daemon.decisions(at_least=3)
    finally:
        daemon.stop()
    assert daemon.state_dir is not None
    log = daemon.state_dir / "hookd" / "decisions.log"
    done = subprocess.run(
        [VENV_PYTHON, "-m", "hookd", "--config", str(daemon.config_path), "log", "ocsf", str(log)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(events) == len(records) == 3
    for event in events:
        assert validate(event) == [], event
    assert [e["metadata"]["uid"] for e in events] == [r["id"] for r in records]
    assert [e["disposition"] for e in events] == ["Allowed", "Blocked", "Blocked"]  # a headless ask is a deny
    assert [e.get("policy", {}).get("uid") for e in events] == [None, "hookd.demo:no-secret", "hookd.demo:careful"]
    assert [e["unmapped"]["hookd"]["hash"] for e in events] == [r["hash"] for r in records]
