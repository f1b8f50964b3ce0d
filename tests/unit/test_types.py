"""The shared data types: what their helpers keep and what they change."""

from __future__ import annotations

import dataclasses

from hookd.types import Caller, Decision, Event, NormalisedEvent, ToolCall, ToolKind


def test_with_facts_keeps_every_other_field() -> None:
    """with_facts names each field (for speed): a field added to NormalisedEvent must be carried too."""
    event = NormalisedEvent(
        client="claude",
        event=Event.BEFORE_TOOL,
        payload={"tool_name": "Bash"},
        tool=ToolCall(name="Bash", kind=ToolKind.SHELL, input={"command": "ls"}),
        session_id="s1",
        cwd="/work",
        project_dir="/work/p",
        caller=Caller(uid=1, gid=2, pid=3, ppid=4),
        env={"HOME": "/home/u"},
        facts={"home": "/home/u"},
        client_event="PreToolUse",
    )
    defaults = NormalisedEvent("", Event.OTHER, {}, None, "", "", "", Caller(0, 0, 0))
    for field in dataclasses.fields(NormalisedEvent):  # the example sets every field away from its default
        assert getattr(event, field.name) != getattr(defaults, field.name), field.name
    enriched = event.with_facts(shell={"commands": []})
    assert enriched == dataclasses.replace(event, facts={"home": "/home/u", "shell": {"commands": []}})
    assert event.facts == {"home": "/home/u"}  # the original is untouched


def test_the_hot_paths_copies_keep_every_field_as_replace_does() -> None:
    """Decision.with_id and NormalisedEvent.with_all_facts name each field (twice as fast as replace()): one
    added later and not copied there would silently fall back to its default."""
    values = {f.name: object() for f in dataclasses.fields(Decision)}
    decision = Decision(**values)  # type: ignore[arg-type]
    assert decision.with_id("d1") == dataclasses.replace(decision, decision_id="d1")
    values = {f.name: object() for f in dataclasses.fields(NormalisedEvent)}
    event = NormalisedEvent(**values)  # type: ignore[arg-type]
    assert event.with_all_facts({"k": 1}) == dataclasses.replace(event, facts={"k": 1})
