"""Decision records as OCSF events (hookd.audit.ocsf), validated against the published OCSF 1.8.0 schema
(tests/fixtures/ocsf-1.8.0, read by tests/ocsf_schema.py) for every outcome; and the validator itself
catches what the schema forbids, so this test can fail."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from ocsf_schema import validate

from hookd.audit.ocsf import ocsf_event


def record(decision: str, **more: Any) -> dict[str, Any]:
    kinds = {"allow": [], "rewrite": ["rewrite"], "ask": ["ask"], "deny": ["deny"], "halt": ["halt"]}[decision]
    return {
        "type": "decision", "id": "01a238db20200000", "seq": 7, "time": "2026-12-04T10:11:12.345678Z",
        "client": "claude", "event": "BeforeTool", "tool": "Bash", "decision": decision,
        "reason": "" if decision in ("allow", "rewrite") else "the organisation forbids rm (decision 01a238db20200000)",
        "verdicts": [
            {"kind": k, "policy": "hookd.acme", "rule": "no-rm", "message": "no", "layer": "acme"} for k in kinds
        ],
        "notes": [], "revisions": {"acme": "r7", "default": "3f2a"}, "latency_ms": 2.5,
        "caller": {"uid": 1000, "gid": 1000, "pid": 4242, "ppid": 4200}, "session": "s-1", "via": "socket",
        "input": {"tool": {"name": "Bash", "input": {"command": "rm -rf build"}},
                  "effects": [{"op": "delete", "path": "/src/app/build", "known": True}]},
        **more,
    }  # fmt: skip


@pytest.mark.parametrize("decision", ["allow", "rewrite", "ask", "deny", "halt"])
def test_every_outcome_is_a_valid_api_activity(decision: str) -> None:
    event = ocsf_event(record(decision), seq=7, chain_hash="ab" * 32, host="laptop-17")
    assert validate(event) == []
    assert event["class_uid"] == 6003 and event["type_uid"] == 600304  # Delete: the effect's op
    assert event["metadata"]["uid"] == "01a238db20200000"
    assert event["time"] == 1796379072345
    if decision != "allow":
        assert event["policy"] == {"name": "hookd.acme", "uid": "hookd.acme:no-rm", "is_applied": True, "version": "r7"}


def test_a_call_without_a_known_effect_is_other() -> None:
    event = ocsf_event(record("deny", input={"tool": {"name": "Bash"}}), host="h")
    assert (event["activity_id"], event["type_uid"]) == (99, 600399)
    assert validate(event) == []


@pytest.mark.parametrize(
    ("breakage", "problem"),
    [
        (lambda e: e.pop("severity_id"), "severity_id: required, missing"),
        (lambda e: e.update(action_id=7), "action_id: 7 is not one of"),
        (lambda e: e.update(time="yesterday"), "time: 'yesterday' is not timestamp_t"),
        (lambda e: e["actor"].update(shoe_size=44), "actor.shoe_size: not an attribute here"),
        (lambda e: e["metadata"].pop("product"), "metadata.product: required, missing"),
        (lambda e: e["metadata"].update(profiles=[]), "disposition_id: belongs to profile security_control"),
        (lambda e: e.update(src_endpoint={"port": 1}), "src_endpoint.: needs at least one of"),
        (lambda e: e.update(class_uid=6999), "no such class"),
    ],
)
def test_the_validator_catches_what_the_schema_forbids(breakage: Any, problem: str) -> None:
    event = copy.deepcopy(ocsf_event(record("deny"), host="h"))
    breakage(event)
    assert any(problem in p for p in validate(event)), validate(event)
