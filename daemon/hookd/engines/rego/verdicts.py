"""A regorus router result as verdicts: each package's verdict rules, their elements in a stable order."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from hookd.types import JSON, Verdict, VerdictKind

VERDICT_RULES: Mapping[str, VerdictKind] = {kind.value: kind for kind in VerdictKind}
_MESSAGE_KEYS = ("reason", "text", "message")


def verdicts_from_result(result: Mapping[str, Any]) -> list[Verdict]:
    verdicts: list[Verdict] = []
    for package, rules in result.items():
        for rule, elements in sorted(rules.items()):
            kind = VERDICT_RULES[rule]
            verdicts.extend(_verdict(kind, package, rule, element) for element in _flatten(elements))
    return verdicts


def _flatten(elements: Sequence[Any]) -> list[Any]:
    """A complete rule (`deny := {...}` or `deny := set()`) arrives as one collection: its members are the
    verdict elements."""
    if len(elements) == 1 and isinstance(elements[0], set | frozenset | list):
        return sorted(elements[0], key=lambda e: json.dumps(e, sort_keys=True, default=str))
    return list(elements)


def _verdict(kind: VerdictKind, package: str, rule: str, element: JSON) -> Verdict:
    if isinstance(element, str):
        return Verdict(kind=kind, policy_id=package, rule_id=rule, message=element)
    if not isinstance(element, dict):
        return Verdict(kind=kind, policy_id=package, rule_id=rule, message=json.dumps(element))
    message = next((str(element[k]) for k in _MESSAGE_KEYS if k in element), "")
    patch = {k: v for k, v in element.items() if k not in ("id", *_MESSAGE_KEYS)}
    return Verdict(kind=kind, policy_id=package, rule_id=str(element.get("id", rule)), message=message, patch=patch)
