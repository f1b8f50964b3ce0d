"""A first test of the protected places (issue 26 item 7: a decision's cost; hookd.enrich.first_test's kind).

hookd.selfprotect.ProtectedSet hands the policies `input.hookd` on every call that can change a file: the protected
places a path the call names can hit, the settings files whose new text keeps hookd's hooks, the agents the call
starts unguarded now or later, and what a pattern of paths reaches. Most calls touch none of it, and for them that
fact is all empty lists, which ProtectedSet reaches through some 75 distinct functions (the settings judges, the
extension and unit tests, three start analyses), each paid cold at some 2 µs (docs/performance.md, cost36).

`ProtectedPlaces.first_answer` proves that answer in one pass, asking each part's own first test:

* no command names an agent or a runner that could start one (`starting_words`, as `unguarded_starts` asks it),
  nor installs an agent at a release it pins (`pinned_installs`);
* no effect sets a variable for later sessions (`sets`), defines aliases, or writes a file a manager starts
  (`is_started_file`): what `later_starts` and `later_agent_starts` read;
* then, for a call that names no path a file tool writes (a shell line, a delete, a tool's read of a place), nothing
  is left to judge (no settings file, extension or unit, no settings' `env`): its `hookd` is the places its paths
  hit and what its patterns reach, computed by ProtectedSet's own `hit` (`rm -rf ~/`: the home holds places), and
  the writes that change nothing of them (`plain_keeps`: `mkdir -p ~/.config/systemd/user`);
* for a file tool's write, no named path (ProtectedSet's own `_reached`: a file tool's paths, a command's arguments
  and redirects, the effects' paths and destinations) is a protected place, inside one, or a directory above one:
  its ancestry and the path itself looked up in the caller's index of places (the same index, so every place
  counts: the agents' settings, hookd's own files, units, environments; the caller's config's), and none is a
  pattern of paths, nor one built from an expansion (`built_patterns`); with no place near, no written path is a
  settings file, an extension's or a unit directory's to judge.

Anything else falls through to the full computation. tests/unit/test_selfprotect_first.py compares the facts with
ProtectedSet's for every corpus, case, golden and bench payload, and for mutations that move paths onto each place.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookd.dialects.launch import starting_words
from hookd.dialects.registry import AGENTS
from hookd.enrich.build_files import is_editor_tasks, is_started_file
from hookd.enrich.paths import event_home
from hookd.selfprotect import _NOT_WRITING, UNITS, ProtectedSet, _ancestry, _dicts, _first_words, _Index, _reached
from hookd.selfprotect_config import reached_endpoints
from hookd.selfprotect_installs import pinned_installs
from hookd.selfprotect_keys import extension_judge
from hookd.selfprotect_patterns import PATTERN, built_patterns
from hookd.selfprotect_units import plain_keeps
from hookd.types import Event, NormalisedEvent, ToolKind


class ProtectedPlaces(ProtectedSet):
    """ProtectedSet, with a call whose only part of `input.hookd` is the places it reaches answered first."""

    def __call__(self, event: NormalisedEvent) -> NormalisedEvent:
        quick = self.first_answer(event)
        return super().__call__(event) if quick is None else quick

    def first_answer(self, event: NormalisedEvent) -> NormalisedEvent | None:
        """The event with ProtectedSet's `hookd` fact when the call provably starts nothing and judges no file (the
        module docstring), the event as it came where ProtectedSet adds nothing (a read, no tool call); None for
        any other event (a veto is ProtectedSet's to judge)."""
        tool, facts = event.tool, event.facts
        if event.event is Event.OTHER:
            return None
        if event.event is not Event.BEFORE_TOOL or tool is None:
            return event
        if tool.kind in _NOT_WRITING:  # a web tool's request may change hookd's engine; a read is not routed
            web = tool.kind is ToolKind.WEB
            return None if web and reached_endpoints(self._endpoints, _dicts(facts.get("effects"))) else event
        effects = _dicts(facts.get("effects"))
        if any(_left_for_later(effect) for effect in effects) or reached_endpoints(self._endpoints, effects):
            return None
        if _may_start_an_agent(facts.get("shell")) or pinned_installs(_dicts(_commands(facts.get("shell"))), event.cwd):
            return None
        home = event_home(event)
        listed, judged = self.places(home, event.project_dir, event.env)
        named, only_deleted, written = _reached(facts)
        if not built_patterns(effects, home) and _clear(self._index(listed), named):
            return event.with_facts(hookd={"protected": [], "keeps": [], "starts": [], "patterns": []})
        # nothing to judge: the places and patterns are all, computed as ProtectedSet computes them
        if not judged_writes(event, written, judged):
            near, reached = self.hit(event, home, listed, named, only_deleted)
            keeps = plain_keeps(event, written, near, UNITS)
            return event.with_facts(hookd={"protected": near, "keeps": keeps, "starts": [], "patterns": reached})
        return None


def judged_writes(event: NormalisedEvent, written: list[str], judged: Mapping[str, Any]) -> list[str]:
    """The writes ProtectedSet judges by their text: a file tool's; a shell line's only where a settings or extension
    judge is (selfprotect_edits computes those texts), any other file it writes is no place of hookd's."""
    if event.tool is None or event.tool.kind is not ToolKind.SHELL:
        return written
    return [p for p in written if p in judged or extension_judge(p, judged, [], event.project_dir)]


def _clear(index: _Index, named: set[str]) -> bool:
    """No named path is a pattern of paths, a protected place, inside one, or a directory above one."""
    for named_path in named:
        path = named_path.rstrip("/") or "/"
        if PATTERN.search(path) or path in index.below:
            return False
        for current in _ancestry(path, index.longest):
            if current in index.at:
                return False
    return True


def _left_for_later(effect: dict[str, Any]) -> bool:
    """Whether the effect sets variables, defines aliases or writes a file a manager starts: what later sessions
    would run (hookd.selfprotect_later, hookd.selfprotect_aliases)."""
    if effect.get("sets") or effect.get("aliases"):
        return True
    path = effect.get("path")
    return effect.get("op") == "write" and isinstance(path, str) and (is_started_file(path) or is_editor_tasks(path))


def _commands(shell: object) -> object:
    return shell.get("commands") if isinstance(shell, dict) else None


def _may_start_an_agent(shell: object) -> bool:
    """Whether a command's name or first word is one by which an agent, or a runner that could start one, is found
    (unguarded_starts' own first test)."""
    commands = _dicts(shell.get("commands") if isinstance(shell, dict) else None)
    words = starting_words(AGENTS)
    return any(not words.isdisjoint(_first_words(command)) for command in commands)
