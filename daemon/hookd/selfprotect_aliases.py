"""The agents a command line left for later starts without hookd's hooks (gaps38): an alias left in a startup file
runs its value whenever its name is typed (`alias codex='codex --disable hooks'` starts every later Codex session
with its hooks off), a unit or an autostart entry a file tool writes runs its `Exec*=` lines when started or at
login, and a VS Code task marked `runOn: folderOpen` runs when the folder opens. The effect model keeps the aliases
a startup text defines on its write (`aliases`, enrich/effects/later_lines); a started file's lines are read from
the text the tool leaves (enrich/build_files). Each is judged here as the start of the agent it names is
(hookd.dialects.launch), its leading assignments (`alias gemini='GEMINI_CLI_HOME=/tmp/g gemini'`) set for it."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from hookd.dialects.approvals import approvals_off
from hookd.dialects.launch import agents_started, unguarded_start
from hookd.dialects.registry import AGENTS
from hookd.enrich.build_files import is_editor_tasks, is_started_file, make_lines
from hookd.enrich.edit_texts import texts_after
from hookd.enrich.effects.catalogue import runs_anything
from hookd.enrich.shell.wrappers import _peel as peel_wrappers
from hookd.types import JSON, NormalisedEvent


def later_agent_starts(event: NormalisedEvent, home: str) -> list[JSON]:
    """One {"program", "agent", "why", "later"} for each alias value or started file's line that starts an agent
    unguarded (`home`: the caller's)."""
    current = {**event.env, "HOME": home}
    effects = event.facts.get("effects")
    starts: list[JSON] = []
    for effect in effects if isinstance(effects, list) else []:
        for program, line in _left_lines(event, effect if isinstance(effect, dict) else {}):
            for agent, why in _unguarded(line, current, event.cwd):
                starts.append({"program": program, "agent": agent, "why": why, "later": True})
    return starts


def _left_lines(event: NormalisedEvent, effect: dict[str, Any]) -> list[tuple[str, str]]:
    aliases = effect.get("aliases")
    if isinstance(aliases, dict):
        return [(f"alias {name}", str(value)) for name, value in aliases.items()]
    path, tool = effect.get("path"), event.tool
    started = isinstance(path, str) and (is_started_file(path) or is_editor_tasks(path))
    if effect.get("op") != "write" or not isinstance(path, str) or not started or tool is None:
        return []
    texts = texts_after(path, tool.input, tool.spec, True) if tool.spec is not None else None
    return [(path, line) for text in texts or () for line in make_lines(path, text)]


def _unguarded(value: str, current: Mapping[str, str], cwd: str) -> list[tuple[str, str]]:
    try:
        words = shlex.split(value)
    except ValueError:
        return [("an agent", "an alias whose value hookd cannot read")]
    assigned: dict[str, Any] = {}
    while words and "=" in words[0] and not words[0].startswith(("-", "=")):
        key, _, val = words.pop(0).partition("=")
        assigned[key] = val
    handed: dict[str, str] = {}
    words, _wrappers = peel_wrappers(words, handed)  # `env X=1 claude`, `nohup claude`: the agent they start
    assigned.update(handed)
    if not words:
        return []
    found = agents_started(words[0].rsplit("/", 1)[-1], words, AGENTS)
    return [
        (spec.title, why)
        for spec, at in found
        if (
            why := unguarded_start(spec, words[at + 1 :], assigned, current, cwd)
            or approvals_off(spec.name, words[at + 1 :], runs_anything)
        )
    ]
