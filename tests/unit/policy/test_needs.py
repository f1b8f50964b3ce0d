"""The events a policy set needs (hookd.policy.needs) and what `hookd install` registers for them."""

from __future__ import annotations

from hookd.dialects.registry import AGENTS
from hookd.install import install_events, registered_events
from hookd.policy.needs import needed_events
from hookd.types import Event, PackageInfo


def package(*events: str, routed: bool = True) -> PackageInfo:
    return PackageInfo("hookd.p", {"deny": "Set"}, {"events": frozenset(events)} if routed else {"kinds": frozenset()})


def test_union_of_the_routed_events() -> None:
    assert needed_events([package("BeforeTool"), package("AfterModel", "BeforeTool")]) == {
        Event.BEFORE_TOOL,
        Event.AFTER_MODEL,
    }


def test_a_package_without_routed_events_needs_every_event() -> None:
    assert needed_events([package("BeforeTool"), package(routed=False)]) == frozenset(Event)


def test_no_package_needs_nothing() -> None:
    assert needed_events([]) == frozenset()


def test_python_policy_routing_counts_like_rego() -> None:
    python = PackageInfo("hookd.python.p", {"check": "python"}, {"events": frozenset({"AfterTool"})})
    assert needed_events([python]) == {Event.AFTER_TOOL}


def test_before_tool_and_settings_vetoes_always_registered() -> None:
    for name, spec in AGENTS.items():
        names = set(registered_events(name, frozenset()))
        kept = {e.name for e in spec.events if e.install and (e.event is Event.BEFORE_TOOL or e.vetoes_settings)}
        assert names == kept and kept, name


def test_none_means_every_installable_event() -> None:
    for name in AGENTS:
        assert registered_events(name, None) == install_events(name)


def test_gemini_after_model_only_when_needed() -> None:
    assert "AfterModel" not in registered_events("gemini", {Event.BEFORE_TOOL})
    assert "AfterModel" in registered_events("gemini", {Event.AFTER_MODEL})
    assert "ConfigChange" in registered_events("claude", frozenset())
