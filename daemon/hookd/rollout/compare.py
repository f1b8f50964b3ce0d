"""How two decisions of the same request compare: what changed (a transition like `allow-to-deny`) and
which rules decided. Pure; shared by the shadow (hookd.rollout.observe) and `hookd replay`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hookd.types import VERDICT_OUTCOME, Decision, Outcome, Verdict

OUTCOMES = tuple(outcome.name.lower() for outcome in Outcome)
TRANSITIONS = tuple(f"{a}-to-{b}" for a in OUTCOMES for b in OUTCOMES if a != b)


def outcome_name(outcome: Outcome) -> str:
    return outcome.name.lower()


def transition(before: str, after: str) -> str:
    """`allow-to-deny` when the two differ, "" when they agree."""
    return "" if before == after else f"{before}-to-{after}"


def deciding_rules(decision: Decision) -> tuple[str, ...]:
    """`policy:rule` of every verdict of the winning kind (none for an allow), without repeats."""
    return rules_of(v for v in decision.verdicts if VERDICT_OUTCOME.get(v.kind) is decision.outcome)


def rules_of(verdicts: Iterable[Verdict]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(f"{v.policy_id}:{v.rule_id}" for v in verdicts))


def parse_transitions(text: str) -> frozenset[str]:
    """`deny-to-allow,allow-to-deny` (or `any`) → the set; raises ValueError naming a bad entry."""
    wanted = [part.strip() for part in text.split(",") if part.strip()]
    if wanted == ["any"]:
        return frozenset(TRANSITIONS)
    bad = [part for part in wanted if part not in TRANSITIONS]
    if bad:
        raise ValueError(
            f"unknown transition {bad[0]!r} (like deny-to-allow; outcomes: {', '.join(OUTCOMES)}, or 'any')"
        )
    return frozenset(wanted)


def without_layer(verdicts: Sequence[Verdict], layer: str) -> list[Verdict]:
    return [v for v in verdicts if v.layer != layer]
