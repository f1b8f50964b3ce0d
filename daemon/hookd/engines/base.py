"""The verdicts that stand in for an answer that could not be had, in one place, for the pipeline (and its
offline twins, the rollout observer and `hookd replay`): engines only raise. An engine that failed gets the
event's fail mode; a policy that timed out the same; a policy that broke (an exception, a crash, a
malformed answer) fails closed wherever a deny can block, whatever the configured fail mode, since hostile
input can be what breaks it.

An engine whose policies partly failed raises a PartialAnswer that carries what the others answered, so
that a broken Python policy never drops what the rest of the policy set decided (a composite's Rego part,
another layer): on a fail-open event that could turn their deny into an allow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from hookd.errors import EngineError, EngineTimeout, PolicyError, one_line
from hookd.types import CAN_FAIL_CLOSED, Event, FailMode, Verdict, VerdictKind

ENGINE_POLICY = "hookd"


def engine_failure(event: Event, error: EngineError, fail_modes: Mapping[Event, FailMode]) -> Verdict:
    """What the pipeline decides when the engine raised: the event's fail mode, with the error as reason."""
    reason = f"hookd could not evaluate its policies: {one_line(str(error))}"
    return fail_mode_verdict(event, fail_modes, "engine-error", reason)


def settle(
    event: Event, results: Sequence[Verdict | EngineError], fail_modes: Mapping[Event, FailMode]
) -> list[Verdict]:
    """A PartialAnswer's results as verdicts: the answers kept, each error turned into its verdict in place."""
    return [r if isinstance(r, Verdict) else failure_verdict(event, r, fail_modes) for r in results]


def failure_verdict(event: Event, error: EngineError, fail_modes: Mapping[Event, FailMode]) -> Verdict:
    if isinstance(error, PolicyError):
        verdict = policy_failed(event, error.policy, error.rule, str(error))
    elif isinstance(error, EngineTimeout) and error.policy:
        verdict = timed_out(event, fail_modes, error.policy, str(error))
    else:
        verdict = engine_failure(event, error, fail_modes)
    return verdict if error.layer is None else replace(verdict, layer=error.layer, rank=error.rank)


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
