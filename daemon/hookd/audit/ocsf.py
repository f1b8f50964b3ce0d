"""A decision record as an OCSF event (docs/fleet.md, "SIEM"): class API Activity (6003, category
Application Activity) of OCSF 1.8.0, with the security_control profile's action, disposition and policy,
so a SIEM that ingests OCSF files a hookd decision beside its other API activity. The agent's tool call is
the API call (`api.operation`: the tool, or the hook event), the agent is the actor's application, and the
policy verdict is the control's outcome. What OCSF has no attribute for is under `unmapped.hookd`.
`tests/unit/audit/test_ocsf.py` validates events against the published schema (tests/fixtures/ocsf-1.8.0)."""

from __future__ import annotations

import datetime
import socket
from collections.abc import Mapping
from typing import Any

from hookd import __version__

OCSF_VERSION = "1.8.0"
CATEGORY_UID, CLASS_UID = 6, 6003
ACTIVITIES = {"write": 3, "delete": 4, "move": 3, "copy": 1, "chmod": 3, "read": 2, "list": 2}  # effect op ->
ACTIVITY_NAMES = {1: "Create", 2: "Read", 3: "Update", 4: "Delete", 99: "Other"}
# decision -> (action_id, action, disposition_id, disposition, severity_id, severity, status_id, status)
OUTCOMES: Mapping[str, tuple[int, str, int, str, int, str, int, str]] = {
    "allow": (1, "Allowed", 1, "Allowed", 1, "Informational", 1, "Success"),
    "rewrite": (4, "Modified", 11, "Corrected", 1, "Informational", 1, "Success"),
    "ask": (99, "Ask", 23, "Challenge", 2, "Low", 0, "Unknown"),
    "deny": (2, "Denied", 2, "Blocked", 3, "Medium", 2, "Failure"),
    "halt": (2, "Denied", 2, "Blocked", 4, "High", 2, "Failure"),
}


def ocsf_event(record: Mapping[str, Any], seq: int = 0, chain_hash: str = "", host: str = "") -> dict[str, Any]:
    """One `decision` record of the decision log (docs/decision-log.md) as an OCSF API Activity event."""
    decision = str(record.get("decision") or "allow")
    action_id, action, disposition_id, disposition, severity_id, severity, status_id, status = OUTCOMES.get(
        decision, OUTCOMES["deny"]
    )
    activity_id = _activity(record)
    caller = record.get("caller") or {}
    client, event = str(record.get("client") or ""), str(record.get("event") or "")
    verdicts = [v for v in record.get("verdicts") or [] if isinstance(v, Mapping)]
    out: dict[str, Any] = {
        "category_uid": CATEGORY_UID,
        "category_name": "Application Activity",
        "class_uid": CLASS_UID,
        "class_name": "API Activity",
        "activity_id": activity_id,
        "activity_name": ACTIVITY_NAMES[activity_id],
        "type_uid": CLASS_UID * 100 + activity_id,
        "type_name": f"API Activity: {ACTIVITY_NAMES[activity_id]}",
        "time": _epoch_ms(str(record.get("time") or "")),
        "severity_id": severity_id,
        "severity": severity,
        "status_id": status_id,
        "status": status,
        "action_id": action_id,
        "action": action,
        "disposition_id": disposition_id,
        "disposition": disposition,
        "message": str(record.get("reason") or f"{decision}: {event} {record.get('tool') or ''}".strip()),
        "metadata": {
            "version": OCSF_VERSION,
            "product": {"name": "hookd", "vendor_name": "hookd", "version": __version__},
            "uid": str(record.get("id") or ""),
            "log_name": "decisions",
            "profiles": ["security_control"],
            **({"sequence": seq} if seq else {}),
        },
        "actor": {
            "app_name": client,
            "user": {"uid": str(caller.get("uid", ""))},
            **({"process": {"pid": int(caller["pid"])}} if isinstance(caller.get("pid"), int) else {}),
            **({"session": {"uid": str(record["session"])}} if record.get("session") else {}),
        },
        "api": {"operation": str(record.get("tool") or event), "service": {"name": client}},
        "src_endpoint": {"hostname": host or socket.gethostname()},
        "unmapped": {
            "hookd": {
                "event": event,
                "decision": decision,
                "verdicts": verdicts,
                "revisions": record.get("revisions") or {},
                "notes": record.get("notes") or [],
                "via": record.get("via"),
                "latency_ms": record.get("latency_ms"),
                "input": record.get("input"),
                **({"seq": seq, "hash": chain_hash} if chain_hash else {}),
            }
        },
    }
    deciding = next((v for v in verdicts if v.get("kind") in ("deny", "halt", "ask", "rewrite")), None)
    if deciding is not None:
        revisions = record.get("revisions") or {}
        layer = str(deciding.get("layer") or "")
        out["policy"] = {
            "name": str(deciding.get("policy") or ""),
            "uid": f"{deciding.get('policy')}:{deciding.get('rule')}",
            "is_applied": True,
            **({"version": str(revisions[layer])} if layer in revisions else {}),
        }
    return out


def _activity(record: Mapping[str, Any]) -> int:
    """Create/Read/Update/Delete from what the call does (the first effect enrich found), else Other."""
    effects = (record.get("input") or {}).get("effects") if isinstance(record.get("input"), Mapping) else None
    for effect in effects or ():
        if isinstance(effect, Mapping) and effect.get("op") in ACTIVITIES:
            return ACTIVITIES[str(effect["op"])]
    return 99


def _epoch_ms(rfc3339: str) -> int:
    try:
        return int(datetime.datetime.fromisoformat(rfc3339).timestamp() * 1000)
    except ValueError:
        return 0
