"""OCSF in the shipping path: a real daemon with `[log.ship] format = "ocsf"` POSTs its decisions to a real
HTTP receiver on 127.0.0.1 as OCSF 1.8.0 API Activity events; every event received validates against the
vendored published schema (tests/fixtures/ocsf-1.8.0), once per decision, in log order, with the decision
id and the record's chain hash. A format hookd does not know is a one-line configuration error."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bundle_support import policy_dir, start
from fleet_support import StatusReceiver
from ocsf_schema import validate

from hookd import wire
from hookd.config import parse_config
from hookd.errors import ConfigError
from support import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import fleet  # bench/fleet.py: send_request

pytestmark = pytest.mark.timeout(300)
RULES = """
deny contains {"id": "no-secret", "reason": "no secrets"} if endswith(input.tool.input.file_path, "secret.txt")
ask contains {"id": "careful", "reason": "are you sure"} if endswith(input.tool.input.file_path, "careful.txt")
"""
HEADER = {"client": "gemini", "event": "BeforeTool", "cwd": "/tmp", "ppid": 1, "env": {}}


@pytest.fixture
def receiver() -> Iterator[StatusReceiver]:
    r = StatusReceiver()
    yield r
    r.close()


def decide(path: Path, name: str) -> None:
    payload = {
        "session_id": "ocsf", "transcript_path": "", "cwd": "/tmp", "hook_event_name": "BeforeTool",
        "timestamp": "2026-01-01T00:00:00.000Z", "tool_name": "write_file",
        "tool_input": {"file_path": name, "content": "x"},
    }  # fmt: skip
    reply = wire.decode_reply(fleet.send_request(path, HEADER, payload))
    assert reply.status is wire.Status.OK, reply


def test_shipped_ocsf_events_validate_against_the_published_schema(tmp_path: Path, receiver: StatusReceiver) -> None:
    policies = policy_dir(tmp_path / "policies", "demo", RULES)
    config = f'[log.ship]\nurl = "{receiver.url("ocsf")}"\nformat = "ocsf"\nbatch_size = 2\nmin_delay_ms = 50\n'
    daemon = start(tmp_path, policies, config=config)
    try:
        names = ["/tmp/a/ok.txt", "/tmp/a/secret.txt", "/tmp/a/careful.txt", "/tmp/a/fine.txt", "/tmp/a/secret.txt"]
        for name in names:
            decide(daemon.socket, name)
        records = daemon.decisions(at_least=len(names))
        ids = [r["id"] for r in records]
        receiver.wait(lambda batches: len(events_in(batches)) >= len(ids), path="ocsf")
    finally:
        daemon.stop()
    events = events_in(receiver.at("ocsf"))
    for event in events:
        assert validate(event) == [], event
    assert [e["metadata"]["uid"] for e in events] == ids  # once each, in order
    assert [e["unmapped"]["hookd"]["hash"] for e in events] == [r["hash"] for r in records]
    assert [e["disposition"] for e in events] == ["Allowed", "Blocked", "Blocked", "Allowed", "Blocked"]
    assert {e["class_uid"] for e in events} == {6003}
    assert len(receiver.at("ocsf")) >= 2  # batched: batch_size 2


def events_in(batches: list[Any]) -> list[dict[str, Any]]:
    return [event for batch in batches for event in batch]


def test_an_unknown_format_is_a_one_line_error() -> None:
    with pytest.raises(ConfigError) as raised:
        parse_config({"log": {"ship": {"url": "http://127.0.0.1:9/x", "format": "cef"}}}, source=Path("t.toml"))
    assert "'log.ship.format' must be one of opa, ocsf, got 'cef'" in str(raised.value)
    assert "\n" not in str(raised.value)
