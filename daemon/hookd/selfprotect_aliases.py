"""The agents a shell alias left in a startup file starts without hookd's hooks (gaps38): an alias runs its value
whenever its name is typed, so `alias codex='codex --disable hooks'` starts every later Codex session with its hooks
off. The effect model keeps the aliases a startup text defines on its write (`aliases`, enrich/effects/later_lines);
each value is judged here as the start of the agent it names is (hookd.dialects.launch), its leading assignments
(`alias gemini='GEMINI_CLI_HOME=/tmp/g gemini'`) set for it."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from hookd.dialects.launch import agents_started, unguarded_start
from hookd.dialects.registry import AGENTS
from hookd.types import JSON, NormalisedEvent


def alias_starts(event: NormalisedEvent, home: str) -> list[JSON]:
    """One {"program", "agent", "why", "later"} for each alias value that starts an agent unguarded (`home`: the
    caller's)."""
    current = {**event.env, "HOME": home}
    effects = event.facts.get("effects")
    starts: list[JSON] = []
    for effect in effects if isinstance(effects, list) else []:
        aliases = effect.get("aliases") if isinstance(effect, dict) else None
        if not isinstance(aliases, dict):
            continue
        for name, value in aliases.items():
            for agent, why in _unguarded(str(value), current, event.cwd):
                starts.append({"program": f"alias {name}", "agent": agent, "why": why, "later": True})
    return starts


def _unguarded(value: str, current: Mapping[str, str], cwd: str) -> list[tuple[str, str]]:
    try:
        words = shlex.split(value)
    except ValueError:
        return [("an agent", "an alias whose value hookd cannot read")]
    assigned: dict[str, Any] = {}
    while words and "=" in words[0] and not words[0].startswith(("-", "=")):
        key, _, val = words.pop(0).partition("=")
        assigned[key] = val
    if not words:
        return []
    found = agents_started(words[0].rsplit("/", 1)[-1], words, AGENTS)
    return [
        (spec.title, why)
        for spec, at in found
        if (why := unguarded_start(spec, words[at + 1 :], assigned, current, cwd))
    ]
