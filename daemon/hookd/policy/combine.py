"""Combine verdicts deny-wins: halt > deny > ask > rewrite > allow. Pure; no I/O.

Reasons come from the verdicts of the winning kind only, each tagged `[policy:rule]`; contexts and
messages concatenate in order. Rewrites of the same target combine in order, by target:

* `tool_input`, `llm_request` (and any other target) are JSON merge patches (RFC 7386) over what the
  agent sent. Two patches compose so that applying the result equals applying them one after the
  other: a later policy wins per key, and a later `null` still deletes the key.
* `llm_response`, `tail_tool_call` are whole values, not patches: the later policy's value wins whole
  (merging two tail calls' `args`, or two responses' candidates, would send something nobody wrote).
* `tool_config` restrictions compose: allowed names intersect (`allowed` or `allowedFunctionNames`;
  a missing list is no restriction), the strictest mode wins (NONE > ANY > AUTO; a missing or unknown
  mode counts as AUTO), and an empty intersection means no tool may be called (mode NONE).

Layers (policy/layers.py) rank verdicts: 0 is the organisation, then the user, then a project.
Deny-wins already keeps a lower layer from relaxing a higher one; for rewrites, a lower layer's rewrite
that touches what a higher layer's rewrite set (the same key path of a patch, or a whole-value target)
is dropped, with a note in the decision, and the higher layer's value stands. `tool_config` never
conflicts: composing it can only restrict further. Non-conflicting lower rewrites apply.

`clear_context` (AfterAgent) is sticky: any halt or deny verdict that asks for it sets it when a halt
or deny wins. `llm_response` extras (BeforeModel's synthetic answer) come from the winning kind only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hookd.types import JSON, VERDICT_OUTCOME, Decision, Outcome, Verdict, VerdictKind

TOOL_MODES = ("AUTO", "ANY", "NONE")  # in order of strictness
_WHOLE_VALUE_TARGETS = frozenset({"llm_response", "tail_tool_call"})
_BLOCKING_KINDS = (VerdictKind.HALT, VerdictKind.DENY)
_KIND_OF = {outcome: kind for kind, outcome in VERDICT_OUTCOME.items()}  # the verdict kind that wins as each outcome


def combine(verdicts: Sequence[Verdict]) -> Decision:
    if not verdicts:  # most decisions: no policy had anything to say
        return Decision(Outcome.ALLOW)
    # One pass sorts the verdicts by what they add (this runs before every reply that has verdicts).
    outcome = Outcome.ALLOW
    contexts: list[str] = []
    messages: list[str] = []
    rewrites: list[Verdict] = []
    clear_context = False
    for verdict in verdicts:
        kind = verdict.kind
        rank = VERDICT_OUTCOME.get(kind)
        if rank is not None and rank > outcome:
            outcome = rank
        if kind is VerdictKind.CONTEXT:
            if verdict.message:
                contexts.append(verdict.message)
        elif kind is VerdictKind.MESSAGE:
            if verdict.message:
                messages.append(verdict.message)
        elif kind is VerdictKind.REWRITE:
            rewrites.append(verdict)
        elif kind in _BLOCKING_KINDS and verdict.patch.get("clear_context") is True:
            clear_context = True
    winning_kind = _KIND_OF.get(outcome)
    winners = [v for v in verdicts if v.kind is winning_kind] if winning_kind else []
    rewrite, notes = _layered_rewrites(rewrites) if rewrites else ({}, [])
    extras: dict[str, JSON] = {}
    for verdict in sorted(winners, key=lambda v: -v.rank):  # the highest layer's value is set last
        if "llm_response" in verdict.patch:
            extras["llm_response"] = verdict.patch["llm_response"]
    if outcome >= Outcome.DENY and clear_context:
        extras["clear_context"] = True
    return Decision(
        outcome=outcome,
        reasons=tuple(_dedupe(_tagged(v) for v in winners)) if winning_kind is not VerdictKind.REWRITE else (),
        contexts=tuple(contexts),
        messages=tuple(messages),
        rewrite=rewrite,
        extras=extras,
        verdicts=tuple(verdicts),
        notes=tuple(notes),
    )


Claim = tuple[int, str, tuple[str, ...]]  # (rank, layer, target + key path) a rewrite has set


def _layered_rewrites(rewrites: Sequence[Verdict]) -> tuple[dict[str, JSON], list[str]]:
    """Merge the rewrite verdicts in layer order (stable within a layer); drop a lower layer's conflicting one."""
    rewrite: dict[str, JSON] = {}
    claims: list[Claim] = []
    notes: list[str] = []
    for verdict in sorted(rewrites, key=lambda v: v.rank):
        paths = list(_claimed_paths(verdict.patch))
        clash = next((c for c in claims if c[0] < verdict.rank for p in paths if _overlaps(p, c[2])), None)
        if clash is not None:
            notes.append(
                f"rewrite {verdict.policy_id}:{verdict.rule_id} of layer {verdict.layer or '?'} dropped: "
                f"layer {clash[1]} already rewrites {'.'.join(clash[2])}"
            )
            continue
        rewrite = merge_rewrite(rewrite, verdict.patch)
        claims.extend((verdict.rank, verdict.layer, p) for p in paths)
    return rewrite, notes


def _claimed_paths(patch: Mapping[str, JSON]) -> Iterable[tuple[str, ...]]:
    for target, value in patch.items():
        if target == "tool_config":
            continue  # composes by intersection and strictest mode: never relaxes a higher layer
        if target in _WHOLE_VALUE_TARGETS or not isinstance(value, Mapping) or not value:
            yield (target,)
        else:
            yield from _leaf_paths((target,), value)


def _leaf_paths(prefix: tuple[str, ...], value: Mapping[str, JSON]) -> Iterable[tuple[str, ...]]:
    for key, child in value.items():
        if isinstance(child, Mapping) and child:
            yield from _leaf_paths((*prefix, key), child)
        else:
            yield (*prefix, key)


def _overlaps(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    shorter = min(len(a), len(b))
    return a[:shorter] == b[:shorter]


def _tagged(verdict: Verdict) -> str:
    """A reason names the policy and rule behind it, so a user can quote it to an admin."""
    text = verdict.message or f"{verdict.kind.value} by policy"
    return f"{text} [{verdict.policy_id}:{verdict.rule_id}]"


def _dedupe(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def merge_rewrite(current: Mapping[str, JSON], patch: Mapping[str, JSON]) -> dict[str, JSON]:
    """Fold one rewrite verdict's targets into the rewrites so far (see the module docstring)."""
    merged = dict(current)
    for target, value in patch.items():
        if target not in merged or target in _WHOLE_VALUE_TARGETS:
            merged[target] = value
        elif target == "tool_config" and isinstance(value, Mapping) and isinstance(merged[target], Mapping):
            merged[target] = _compose_tool_config(merged[target], value)
        else:
            merged[target] = _compose_patches(merged[target], value)
    return merged


def merge_patch(target: JSON, patch: JSON) -> JSON:
    """RFC 7386 JSON merge patch: objects merge recursively, null deletes, anything else replaces."""
    if not isinstance(patch, Mapping):
        return patch
    result: dict[str, Any] = dict(target) if isinstance(target, Mapping) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def _compose_patches(first: JSON, second: JSON) -> JSON:
    """One merge patch equivalent to applying `first`, then `second`.

    Unlike merge_patch, a `null` in `second` stays in the result (it must still delete the key from
    the document the composed patch is applied to). Exact except for one corner: when `first` sets a
    key to a non-object and `second` patches that key as an object, the composed patch merges over
    the original object instead of replacing it.
    """
    if not isinstance(second, Mapping):
        return second
    if not isinstance(first, Mapping):
        return merge_patch(None, second)  # `first` replaced the whole value: drop second's nulls
    result: dict[str, Any] = dict(first)
    for key, value in second.items():
        if value is None:
            result[key] = None
        elif key in result:
            result[key] = _compose_patches(result[key], value)
        else:
            result[key] = value
    return result


def tool_mode(config: Mapping[str, JSON]) -> str:
    """The mode a tool_config asks for; a missing or unknown mode is AUTO."""
    mode = config.get("mode")
    return mode if isinstance(mode, str) and mode in TOOL_MODES else "AUTO"


def allowed_names(config: Mapping[str, JSON]) -> list[str] | None:
    """The tool_config's allow-list (`allowed`, or Gemini's `allowedFunctionNames`); None: no list."""
    names = config.get("allowed", config.get("allowedFunctionNames"))
    if not isinstance(names, list):
        return None
    return sorted({n for n in names if isinstance(n, str)})


def _compose_tool_config(first: Mapping[str, JSON], second: Mapping[str, JSON]) -> dict[str, JSON]:
    mode = max(tool_mode(first), tool_mode(second), key=TOOL_MODES.index)
    out: dict[str, JSON] = {"mode": mode}
    lists = [names for names in (allowed_names(first), allowed_names(second)) if names is not None]
    if lists:
        allowed = sorted(set(lists[0]).intersection(*lists[1:]))
        out["allowed"] = allowed
        if not allowed:
            out["mode"] = "NONE"  # the allow-lists have nothing in common: no tool may be called
    return out
