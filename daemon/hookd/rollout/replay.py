"""`hookd replay`: recorded requests (the replay store, hookd.rollout.store) against a candidate policy set.

Each stored input document is evaluated by the candidate exactly as the policies saw it when it was
recorded (the enrichment's facts included, so neither the file system nor the shell parser of today
changes it); the candidate's verdicts are combined and compared with the recorded outcome (both before the
headless-ask fallback). The report counts what changed by transition, event, tool and rule, and keeps the
first N differing requests with both decisions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hookd.dialects.registry import AGENTS
from hookd.engines.base import settle
from hookd.errors import HookdError, PartialAnswer, one_line
from hookd.policy.combine import combine
from hookd.policy.layers import Layer, Rank, layered
from hookd.rollout.compare import deciding_rules, outcome_name, transition
from hookd.types import (
    JSON,
    Caller,
    Deadline,
    Engine,
    EngineRequest,
    Event,
    FailMode,
    NormalisedEvent,
    PolicySet,
    ToolCall,
    ToolKind,
    Verdict,
    settled,
)

_DOCUMENT_KEYS = frozenset(
    {"client", "event", "client_event", "tool", "session", "cwd", "project_dir", "caller", "raw"}
)
EVALUATION_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class Difference:
    id: str
    event: str
    tool: str | None
    transition: str
    recorded: str
    candidate: str
    recorded_rules: tuple[str, ...]
    candidate_rules: tuple[str, ...]
    redacted: bool

    def as_json(self) -> dict[str, JSON]:
        return {
            "id": self.id, "event": self.event, "tool": self.tool, "transition": self.transition,
            "recorded": self.recorded, "candidate": self.candidate, "recorded_rules": list(self.recorded_rules),
            "candidate_rules": list(self.candidate_rules), "redacted": self.redacted,
        }  # fmt: skip


@dataclass
class Report:
    replayed: int = 0
    redacted: int = 0  # replayed requests with a redacted field
    skipped: int = 0  # recorded while the enforced set had failed (the fail mode answered): nothing to compare
    differing: int = 0
    differing_redacted: int = 0
    by_transition: Counter[str] = field(default_factory=Counter)
    by_event: Counter[str] = field(default_factory=Counter)
    by_tool: Counter[str] = field(default_factory=Counter)
    by_rule: Counter[str] = field(default_factory=Counter)
    first: list[Difference] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (decision id, why the candidate failed)

    def as_json(self) -> dict[str, JSON]:
        return {
            "replayed": self.replayed, "redacted": self.redacted, "skipped": self.skipped,
            "differing": self.differing, "differing_redacted": self.differing_redacted,
            "by_transition": dict(self.by_transition), "by_event": dict(self.by_event),
            "by_tool": dict(self.by_tool), "by_rule": dict(self.by_rule),
            "first": [d.as_json() for d in self.first],
            "errors": [{"id": i, "error": e} for i, e in self.errors],
        }  # fmt: skip


CANDIDATE_LAYER = "candidate"


def within(configured: PolicySet, candidate: Engine, location: str, replaces: str = "") -> PolicySet:
    """The configured policy set with the candidate in it: standing in for the layer named `replaces` (a
    bundle's name, "default" or "project:ROOT"; it takes that layer's rank and project, and decides even
    where the layer it replaces was only monitored), or, without `replaces`, added as one more
    organisation layer (a new bundle). Raises HookdError naming the layers when `replaces` names none."""
    layers = list(configured.layers)
    if not replaces:
        return layered([Layer(CANDIDATE_LAYER, Rank.ORGANISATION, candidate, location=location), *layers])
    replaced = next((layer for layer in layers if layer.name == replaces), None)
    if replaced is None:
        names = ", ".join(layer.name for layer in layers)
        raise HookdError(f"--replaces {replaces}: the configured policy set has no such layer (it has: {names})")
    stand_in = Layer(replaces, replaced.rank, candidate, location=location, project_root=replaced.project_root)
    return layered([stand_in if layer is replaced else layer for layer in layers])


def event_of(document: Mapping[str, Any]) -> NormalisedEvent:
    """The normalised event a stored input document was made from (what engines route on). Raises
    KeyError or ValueError for a document that is not one."""
    tool = document.get("tool")
    call = None
    if isinstance(tool, Mapping):
        call = ToolCall(str(tool["name"]), ToolKind(tool["kind"]), dict(tool.get("input") or {}), tool.get("mcp"))
    caller = document.get("caller") or {}
    event = Event(document["event"])
    client_event = str(document.get("client_event") or "")
    return NormalisedEvent(
        client=_client(document["client"]),
        event=event,
        payload=dict(document.get("raw") or {}),
        tool=call,
        session_id=str((document.get("session") or {}).get("id", "")),
        cwd=str(document.get("cwd", "")),
        project_dir=str(document.get("project_dir", "")),
        caller=Caller(int(caller.get("uid", -1)), -1, int(caller.get("pid", 0))),
        facts={k: v for k, v in document.items() if k not in _DOCUMENT_KEYS},
        client_event="" if client_event == event.value else client_event,
    )


def _client(name: Any) -> str:
    if name not in AGENTS:
        raise ValueError(f"unknown client {name!r}")
    return str(name)


async def _verdicts(
    candidate: Engine, request: EngineRequest, fail_modes: Mapping[Event, FailMode]
) -> Sequence[Verdict]:
    """The candidate's verdicts as the pipeline would have them: a policy that broke is its verdict."""
    try:
        return await settled(candidate.evaluate(request))
    except PartialAnswer as exc:
        return settle(request.event.event, exc.results, fail_modes)


async def replay(
    entries: Iterable[Mapping[str, Any]],
    candidate: Engine,
    first: int,
    fail_modes: Mapping[Event, FailMode] | None = None,
) -> Report:
    report = Report()
    for stored in entries:
        if stored.get("engine_error"):
            report.skipped += 1
            continue
        decision_id = str(stored.get("id", ""))
        document = stored["input"]
        try:
            request = EngineRequest(event_of(document), document, Deadline.after(EVALUATION_TIMEOUT_S))
            decision = combine(await _verdicts(candidate, request, fail_modes or {}))
        except Exception as exc:  # an EngineError, or a stored line that is not an input document
            report.errors.append((decision_id, one_line(str(exc)) or type(exc).__name__))
            continue
        report.replayed += 1
        redacted = bool(stored.get("redacted"))
        report.redacted += redacted
        recorded, after = str(stored.get("outcome", "")), outcome_name(decision.outcome)
        change = transition(recorded, after)
        if not change:
            continue
        rules = deciding_rules(decision)
        recorded_rules = tuple(str(r) for r in stored.get("rules") or ())
        report.differing += 1
        report.differing_redacted += redacted
        report.by_transition[change] += 1
        report.by_event[str(stored.get("event", ""))] += 1
        report.by_tool[str(stored.get("tool") or "-")] += 1
        for rule in rules or recorded_rules:  # a deny-to-allow names the recorded rule that no longer fires
            report.by_rule[rule] += 1
        if len(report.first) < first:
            report.first.append(
                Difference(
                    decision_id,
                    str(stored.get("event", "")),
                    stored.get("tool"),
                    change,
                    recorded,
                    after,
                    recorded_rules,
                    rules,
                    redacted,
                )
            )
    return report


def format_report(report: Report, source: str, candidate: str) -> list[str]:
    def counts(counter: Counter[str]) -> str:
        return ", ".join(f"{k} {n}" for k, n in counter.most_common()) or "none"

    lines = [
        f"replayed {report.replayed} recorded requests from {source} against {candidate}: {report.differing} differ"
        + (
            f" ({report.redacted} had a redacted field, {report.differing_redacted} of those differ)"
            if report.redacted
            else ""
        ),
        f"by transition: {counts(report.by_transition)}",
        f"by event:      {counts(report.by_event)}",
        f"by tool:       {counts(report.by_tool)}",
        f"by rule:       {counts(report.by_rule)}",
    ]
    if report.skipped:
        lines.append(f"skipped:       {report.skipped} recorded while the policies could not be evaluated")
    if report.first:
        lines.append(f"first {len(report.first)} differing:")
        for d in report.first:
            recorded = f"{d.recorded} [{', '.join(d.recorded_rules)}]" if d.recorded_rules else d.recorded
            after = f"{d.candidate} [{', '.join(d.candidate_rules)}]" if d.candidate_rules else d.candidate
            note = " (input had a redacted field)" if d.redacted else ""
            lines.append(f"  {d.id} {d.event} {d.tool or '-'}: recorded {recorded} -> candidate {after}{note}")
    for decision_id, error in report.errors[:10]:
        lines.append(f"error: {decision_id}: the candidate could not evaluate it: {error}")
    if len(report.errors) > 10:
        lines.append(f"error: … and {len(report.errors) - 10} more")
    return lines
