"""The settings merge of `hookd install`: hookd's hook definitions put into, and taken out of, an agent's
`hooks.<Event>` lists and the install record that lets uninstall undo exactly what install did (hookd.install's
docstring has the rules)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hookd.dialects.registry import AGENTS, agent
from hookd.errors import SettingsError
from hookd.install.files import _dump
from hookd.install.plan import (
    MARKER_KEY,
    MAX_TIMEOUT_MS,
    InstallPlan,
    JSONObject,
    _all_event_names,
    hook_entries,
    install_events,
)


def _put_entries(
    hooks: JSONObject, ours: Mapping[str, list[int]], plan: InstallPlan, created: list[str]
) -> tuple[str, ...]:
    """Append or update hookd's definition on every event of the plan; return the events changed."""
    added: list[str] = []
    for event in install_events(plan.client):
        if event not in plan.commands:
            continue
        definition = _definition(plan, event)
        entries = hooks.get(event)
        if entries is None:
            entries = hooks[event] = []
            _note(created, f"hooks.{event}")
        found = ours.get(event, [])
        if not found:
            entries.append(definition)
            added.append(event)
            continue
        first, *extra = found
        for index in reversed(extra):
            del entries[index]
        if extra or _dump(entries[first]) != _dump(definition):
            entries[first] = definition
            added.append(event)
    return tuple(added)


def _drop_stale(
    hooks: JSONObject, ours: Mapping[str, list[int]], plan: InstallPlan, created: list[str]
) -> tuple[str, ...]:
    """Remove hookd's definitions from events the plan leaves out; return those events."""
    removed: list[str] = []
    for event, found in ours.items():
        if event in plan.commands:
            continue
        entries = hooks[event]
        for index in reversed(found):
            del entries[index]
        removed.append(event)
        _drop_if_empty(hooks, event, created, f"hooks.{event}")
    return _event_order(removed)


def _remove_entries(doc: JSONObject, name: str, created: list[str], identity: str = "name") -> tuple[str, ...]:
    """Remove every hook called `name` (and definitions left without hooks); return the events."""
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        return ()
    removed: list[str] = []
    for event in list(hooks):
        entries = hooks[event]
        if not isinstance(entries, list) or not any(_names(d, name, identity) for d in entries):
            continue
        kept: list[Any] = []
        for definition in entries:
            if not _names(definition, name, identity):
                kept.append(definition)
                continue
            rest = [h for h in definition["hooks"] if not _is_named(h, name, identity)]
            if rest:
                kept.append({**definition, "hooks": rest})
        entries[:] = kept
        removed.append(event)
        _drop_if_empty(hooks, event, created, f"hooks.{event}")
    _drop_if_empty(doc, "hooks", created, "hooks")
    return _event_order(removed)


def _event_order(events: list[str]) -> tuple[str, ...]:
    """The agents' table order first (registry order), then any other keys as they came."""
    rank = {event: index for index, event in enumerate(_all_event_names())}
    return tuple(sorted(events, key=lambda event: rank.get(event, len(rank))))


def _restore_config(doc: JSONObject, record: JSONObject, created: list[str], enable_key: str) -> None:
    """Put the agent's enable switch (`enable_key`, dotted) back as it was before the first install, unless
    the user changed it, and delete a managed-hooks-only switch that install added."""
    container, _, leaf = enable_key.rpartition(".")
    for key in [c for c in created if "." not in c and c not in ("hooks", container)]:
        if doc.get(key) is True:
            del doc[key]
        created.remove(key)
    config = doc.get(container) if container else None
    if not isinstance(config, dict):
        return
    if config.get(leaf) is True:
        if enable_key in record:
            config[leaf] = record[enable_key]
        else:
            del config[leaf]
    _drop_if_empty(doc, container, created, container)


def _drop_if_empty(parent: JSONObject, key: str, created: list[str], container: str) -> None:
    """Delete `parent[key]` when it is empty and install created it."""
    if container in created and key in parent and not parent[key]:
        del parent[key]
        created.remove(container)


def _check_plan(plan: InstallPlan) -> None:
    if not isinstance(plan.hook_name, str) or not plan.hook_name.strip():
        raise ValueError("hook name must be a non-empty string")
    if not plan.commands:
        raise ValueError("install plan has no events")
    if plan.client not in AGENTS:
        raise ValueError(f"unknown client {plan.client!r}")
    known = install_events(plan.client)
    for event, command in plan.commands.items():
        if event not in known:
            raise ValueError(f"unknown {plan.client} event {event!r}; known: {', '.join(known)}")
        if not isinstance(command, str) or not command.strip():
            raise ValueError(f"empty command for event {event}")
    timeout = plan.timeout_ms
    if isinstance(timeout, bool) or not isinstance(timeout, int) or not 0 < timeout <= MAX_TIMEOUT_MS:
        raise ValueError(f"hook timeout must be an integer from 1 to {MAX_TIMEOUT_MS} ms, got {timeout!r}")


def _definition(plan: InstallPlan, event: str) -> JSONObject:
    """hookd's definition on `event`, in the shape the agent's module gives it."""
    entry = next(e for e in hook_entries(plan) if e.event == event)
    return agent(plan.client).install.entry(entry)


def _is_named(hook: Any, name: str, identity: str = "name") -> bool:
    return isinstance(hook, dict) and hook.get(identity) == name


def _names(definition: Any, name: str, identity: str = "name") -> bool:
    """Does this hook definition hold a hook called `name`?"""
    return (
        isinstance(definition, dict)
        and isinstance(definition.get("hooks"), list)
        and any(_is_named(h, name, identity) for h in definition["hooks"])
    )


def _find_ours(hooks: JSONObject, name: str, path: Path, identity: str = "name") -> dict[str, list[int]]:
    """Indexes of hookd's own definitions per event; SettingsError for a `name` hook we did not write."""
    found: dict[str, list[int]] = {}
    for event, entries in hooks.items():
        if not isinstance(entries, list):
            continue
        for index, definition in enumerate(entries):
            if not _names(definition, name, identity):
                continue
            extra = sorted(set(definition) - {"hooks"})
            if len(definition["hooks"]) == 1 and not extra:
                found.setdefault(event, []).append(index)
                continue
            why = (
                f"its definition also has {', '.join(repr(k) for k in extra)}"
                if extra
                else "it shares its definition with other hooks"
            )
            raise SettingsError(
                f"{path}: hooks.{event}[{index}] holds a hook named {name!r} that hookd install did not "
                f"write ({why}); remove it, or uninstall hookd first, then install again"
            )
    return found


def _note(created: list[str], container: str) -> None:
    if container not in created:
        created.append(container)


def _record(doc: JSONObject) -> JSONObject | None:
    marker = doc.get(MARKER_KEY)
    if marker is None:
        return None
    record: JSONObject = marker["installed"]
    return record
