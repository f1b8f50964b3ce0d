"""The API of Python policies (docs/python-policies.md). Standard library only: it is imported inside the
sandboxed workers, which start from a clean interpreter (`-I -S`) without site-packages.

    from hookd.policy_api import policy, deny

    @policy(events=["BeforeTool"], kinds=["shell"])
    def no_force_push(input):
        argv = [c["argv"] for c in input["shell"]["commands"]]
        if any(a[:2] == ["git", "push"] and "--force" in a for a in argv):
            return deny("force-pushing is not allowed", rule="force-push")

A policy function gets the same `input` document that Rego policies see and returns None, one verdict or a
list of verdicts. Its policy id is the decorator's `id` (default `hookd.<file name>`), and a verdict's rule
id is its `rule` (default: the function's name).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

EVENTS = frozenset(
    {
        "SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
        "BeforeToolSelection", "BeforeTool", "AfterTool", "PreCompress", "Notification",
    }
)  # fmt: skip
KINDS = frozenset({"shell", "read", "write", "edit", "web", "mcp", "other"})
REWRITE_TARGETS = ("tool_input", "llm_request", "llm_response", "tool_config", "tail_tool_call")


@dataclass(frozen=True, slots=True)
class PolicyVerdict:
    kind: str
    message: str = ""
    rule: str | None = None
    policy: str | None = None
    patch: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Declared:
    """One decorated function: what it applies to (None: everything) and its policy id (None: the default)."""

    function: Callable[[Mapping[str, Any]], Any]
    events: frozenset[str] | None
    kinds: frozenset[str] | None
    tools: frozenset[str] | None
    policy_id: str | None


REGISTRY: list[Declared] = []  # filled while a policy file is executed; the worker takes and clears it


def policy(
    *,
    events: Iterable[str] | None = None,
    kinds: Iterable[str] | None = None,
    tools: Iterable[str] | None = None,
    id: str | None = None,
) -> Callable[[Callable[[Mapping[str, Any]], Any]], Callable[[Mapping[str, Any]], Any]]:
    """Declare a policy function and the events, tool kinds and tool names it applies to."""
    event_set, kind_set = _checked(events, EVENTS, "event"), _checked(kinds, KINDS, "tool kind")
    tool_set = frozenset(tools) if tools is not None else None

    def register(function: Callable[[Mapping[str, Any]], Any]) -> Callable[[Mapping[str, Any]], Any]:
        REGISTRY.append(Declared(function, event_set, kind_set, tool_set, id))
        return function

    return register


def _checked(values: Iterable[str] | None, known: frozenset[str], what: str) -> frozenset[str] | None:
    if values is None:
        return None
    chosen = frozenset([values] if isinstance(values, str) else values)
    unknown = sorted(chosen - known)
    if unknown:
        raise ValueError(f"unknown {what} {unknown[0]!r} (known: {', '.join(sorted(known))})")
    return chosen


def deny(
    reason: str,
    *,
    rule: str | None = None,
    policy: str | None = None,
    clear_context: bool = False,
    llm_response: Mapping[str, Any] | None = None,
) -> PolicyVerdict:
    """Block the action. `clear_context` (AfterAgent) and `llm_response` (BeforeModel) as in Rego."""
    patch: dict[str, Any] = {"clear_context": True} if clear_context else {}
    if llm_response is not None:
        patch["llm_response"] = dict(llm_response)
    return PolicyVerdict("deny", reason, rule, policy, patch)


def ask(reason: str, *, rule: str | None = None, policy: str | None = None) -> PolicyVerdict:
    return PolicyVerdict("ask", reason, rule, policy)


def halt(reason: str, *, rule: str | None = None, policy: str | None = None) -> PolicyVerdict:
    return PolicyVerdict("halt", reason, rule, policy)


def rewrite(*, rule: str | None = None, policy: str | None = None, **targets: Any) -> PolicyVerdict:
    """A rewrite: `tool_input` (a merge patch over the tool's arguments), `llm_request`, `llm_response`,
    `tool_config` or `tail_tool_call`, as in Rego (docs/policies.md)."""
    unknown = sorted(set(targets) - set(REWRITE_TARGETS))
    if unknown or not targets:
        raise ValueError(f"rewrite takes one or more of {', '.join(REWRITE_TARGETS)}; got {unknown or 'none'}")
    return PolicyVerdict("rewrite", "", rule, policy, targets)


def context(text: str, *, rule: str | None = None, policy: str | None = None) -> PolicyVerdict:
    return PolicyVerdict("context", text, rule, policy)


def message(text: str, *, rule: str | None = None, policy: str | None = None) -> PolicyVerdict:
    return PolicyVerdict("message", text, rule, policy)


__all__ = ["PolicyVerdict", "ask", "context", "deny", "halt", "message", "policy", "rewrite"]
