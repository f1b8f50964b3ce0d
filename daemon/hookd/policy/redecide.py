"""A rewrite is decided again (issue 25): what a policy rewrites a tool call into is what the agent runs, so
the pipeline decides the rewritten call too, with every layer, as if the agent had asked for it; a halt,
deny or ask it gets then is part of the answer. Otherwise any layer that may rewrite (an opted-in project's,
which the agent can write) could launder a call the layers above it deny: `ls` rewritten into `rm -rf ~`.
Pure; the pipeline enriches and evaluates (hookd.pipeline)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from hookd.policy.combine import combine, merge_patch
from hookd.types import NormalisedEvent, Outcome, Verdict, VerdictKind

_BLOCKING = frozenset({VerdictKind.HALT, VerdictKind.DENY, VerdictKind.ASK})


def rewritten_call(event: NormalisedEvent, verdicts: Sequence[Verdict]) -> NormalisedEvent | None:
    """`event` with its tool call as the combined rewrite makes it (facts left for the enrichers to build
    again), when the verdicts' answer is a rewrite that changes the call; else None."""
    if event.tool is None or not any(v.kind is VerdictKind.REWRITE for v in verdicts):
        return None
    decision = combine(verdicts)
    patch = decision.rewrite.get("tool_input")
    if decision.outcome is not Outcome.REWRITE or patch is None:
        return None
    arguments = merge_patch(event.tool.input, patch)
    if not isinstance(arguments, dict) or arguments == event.tool.input:
        return None  # the dialect carries neither (a patch that is not an object, or no change)
    payload = dict(event.payload)
    if payload.get("tool_input") == event.tool.input:  # `input.raw` says what the agent will run, too
        payload["tool_input"] = arguments
    return replace(event, payload=payload, tool=replace(event.tool, input=arguments), facts={})


def decided_again(verdicts: Sequence[Verdict], again: Sequence[Verdict]) -> list[Verdict]:
    """The first verdicts and every halt, deny and ask the rewritten call got (its own rewrites, contexts and
    messages are not the agent's: the call they would change is not the one it sent), each saying so."""
    rewriters = ", ".join(
        dict.fromkeys(f"{v.policy_id}:{v.rule_id}" for v in verdicts if v.kind is VerdictKind.REWRITE)
    )
    said = f"the call as rewritten by {rewriters}"
    return [*verdicts, *(replace(v, message=f"{said}: {v.message}" if v.message else said)
                         for v in again if v.kind in _BLOCKING)]  # fmt: skip
