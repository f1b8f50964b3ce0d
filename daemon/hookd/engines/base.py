"""The verdicts that stand in for an answer that could not be had, in one place: an engine that failed (the
pipeline turns its EngineError into the event's fail mode), a Python policy that timed out (the same), and
a policy that broke (an exception, a crash, a malformed answer: closed wherever a deny can block, whatever
the configured fail mode, since hostile input can be what breaks it).

A Python policy's failure stays a verdict beside the other policies' verdicts instead of an EngineError:
raising would drop what the rest of the policy set decided (a composite's Rego part, another layer), and
on a fail-open event that could turn their deny into an allow.
"""

from __future__ import annotations

from collections.abc import Mapping

from hookd.config import CAN_FAIL_CLOSED
from hookd.errors import EngineError, one_line
from hookd.types import Event, FailMode, Verdict, VerdictKind

ENGINE_POLICY = "hookd"


def engine_failure(event: Event, error: EngineError, fail_modes: Mapping[Event, FailMode]) -> Verdict:
    """What the pipeline decides when the engine raised: the event's fail mode, with the error as reason."""
    reason = f"hookd could not evaluate its policies: {one_line(str(error))}"
    return fail_mode_verdict(event, fail_modes, "engine-error", reason)


def fail_mode_verdict(event: Event, fail_modes: Mapping[Event, FailMode], rule_id: str, reason: str) -> Verdict:
    """hookd's own verdict where it could not decide: a deny where the event fails closed, else a message."""
    return _failed(fail_modes.get(event) is FailMode.CLOSED, ENGINE_POLICY, rule_id, reason)


def timed_out(event: Event, fail_modes: Mapping[Event, FailMode], policy_id: str, reason: str) -> Verdict:
    """A policy that did not answer in time: the event's fail mode."""
    return _failed(fail_modes.get(event) is FailMode.CLOSED, policy_id, "timeout", reason)


def policy_failed(event: Event, policy_id: str, rule_id: str, reason: str) -> Verdict:
    """A policy that broke: closed wherever a deny can block."""
    return _failed(event in CAN_FAIL_CLOSED, policy_id, rule_id, reason)


def _failed(closed: bool, policy_id: str, rule_id: str, reason: str) -> Verdict:
    return Verdict(VerdictKind.DENY if closed else VerdictKind.MESSAGE, policy_id, rule_id, reason)
