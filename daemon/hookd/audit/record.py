"""Decision log records: what the hot path hands over (`Pending`), the record built from it, and the record
as written (`Logged`).

The hot path only wraps its `Handled` in a `Pending` (three references); the writer task builds the
record (masking the input, rendering time) off the hot path. docs/decision-log.md lists the fields.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any, Protocol

from hookd.audit.mask import Masker
from hookd.policy.layers import USER_LAYER
from hookd.types import JSON, Handled


class RecordFields(Protocol):
    """What another component adds to a decision's record (monitor and shadow layers: rollout.observe.Observed),
    built by the writer with the record's masking."""

    def fields(self, mask: Masker) -> dict[str, JSON]: ...


@dataclass(frozen=True, slots=True)
class StreamSummary:
    """What the record of a streamed response says of it (the `stream` field; built by audit.streams)."""

    chunks: int
    first_chunk: int
    chars: int
    sha256: str
    ended: str
    changes: tuple[dict[str, JSON], ...]
    more_changes: int
    first_id: str
    last_id: str
    deciding_text: str  # the text so far at the strongest chunk, for the input's `stream.tail` (masked there)

    def as_json(self) -> dict[str, JSON]:
        return {
            "chunks": self.chunks,
            "first_chunk": self.first_chunk,
            "chars": self.chars,
            "sha256": self.sha256,
            "ended": self.ended,
            "changes": list(self.changes),
            "more_changes": self.more_changes,
            "first_id": self.first_id,
            "last_id": self.last_id,
        }


@dataclass(frozen=True, slots=True)
class Pending:
    """One decision waiting for the writer: made on the hot path, so it holds references only."""

    handled: Handled
    time: float  # time.time() when the decision was made
    via: str  # "socket" (the hook socket) or "grpc" (the Decide call)
    observed: RecordFields | None = None  # what monitor and shadow layers would have decided (hookd.rollout)
    stream: StreamSummary | None = None  # the record of a whole streamed response (hookd.audit.streams)


@dataclass(frozen=True, slots=True)
class Logged:
    """One record as written: the fields (masked) and the exact line, with its place in the chain."""

    record: dict[str, JSON]
    seq: int
    line: str
    hash: str = ""


def rfc3339(at: float) -> str:
    """UTC with microseconds: 2026-12-02T10:11:12.345678Z."""
    whole = int(at)
    micros = round((at - whole) * 1_000_000)
    if micros == 1_000_000:
        whole, micros = whole + 1, 0
    return f"{_second(whole)}.{micros:06d}Z"


@functools.lru_cache(maxsize=4)
def _second(whole: int) -> str:
    """The record's second, formatted once: records come many to a second (strftime costs more than the rest)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole))


def revisions(handled: Handled) -> dict[str, str]:
    """The revision of every policy layer that served the decision: one per bundle source, the user's policy
    directory as "default", each opted-in project as "project:ROOT"."""
    if handled.policy_set is None:
        return {}
    status = handled.policy_set.status()
    return dict(status.revisions) if status.revisions else {USER_LAYER: status.revision}


def build_record(pending: Pending, mask: Masker) -> dict[str, JSON]:
    """The record of one decision, without its place in the chain (`seq`, `prev`, `hash`)."""
    handled = pending.handled
    event, decision = handled.event, handled.decision
    caller = event.caller
    verdicts: list[dict[str, Any]] = []
    for verdict in decision.verdicts:
        entry: dict[str, Any] = {
            "kind": verdict.kind.value,
            "policy": verdict.policy_id,
            "rule": verdict.rule_id,
            "message": mask.text(verdict.message),
        }
        if verdict.patch:
            entry["patch"] = mask(dict(verdict.patch))
        if verdict.layer:
            entry["layer"] = verdict.layer
        verdicts.append(entry)
    record: dict[str, JSON] = {
        "type": "decision",
        "id": decision.decision_id,
        "time": rfc3339(pending.time),
        "client": event.client,
        "event": event.event.value,
        "tool": event.tool.name if event.tool is not None else None,
        "decision": decision.outcome.name.lower(),
        "reason": mask.text(decision.reason),
        "verdicts": verdicts,
        "notes": list(decision.notes),
        "revisions": revisions(handled),
        "latency_ms": round(handled.latency_ms, 3),
        "caller": {"uid": caller.uid, "gid": caller.gid, "pid": caller.pid, "ppid": caller.ppid},
        "session": event.session_id,
        "via": pending.via,
        "input": mask(event.input_document()) if pending.stream is None else _stream_input(pending, mask),
    }
    if pending.stream is not None:
        record["stream"] = pending.stream.as_json()
    if pending.observed is not None:
        record |= pending.observed.fields(mask)
    return record


def _stream_input(pending: Pending, mask: Masker) -> JSON:
    """A streamed response's input: what names the call, and the end of the text so far at the deciding chunk
    (redacted with what came before it, cut to [log] mask_length); never the conversation its request carries."""
    event = pending.handled.event
    assert pending.stream is not None
    text = pending.stream.deciding_text
    return {
        "client": event.client,
        "event": event.event.value,
        "client_event": event.client_event or event.event.value,
        "session": {"id": event.session_id},
        "cwd": event.cwd,
        "caller": {"uid": event.caller.uid, "pid": event.caller.pid},
        "stream": {"tail": mask.tail(text)},
    }


def gap_record(dropped: int, at: float) -> dict[str, JSON]:
    """Written in the chain where records were dropped (the queue was full), so that the gap is visible."""
    return {"type": "gap", "time": rfc3339(at), "dropped": dropped}
