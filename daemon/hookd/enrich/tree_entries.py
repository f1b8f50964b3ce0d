"""What a whole tree read below the home holds at its top, now: the names directly in the directory (`rsync -a
~/.claude/ backup/`, `grep -r x ~/.config`). A store of credentials lies below the tree only through one of them (a
path exists only when each of its parents does), so the rules count a store the tree may hold only when the name
it lies under is there (policies/secret_reads: `_stores_in`). Bounded: a directory of more names than MAX_ENTRIES,
one that cannot be read, or a tree the line itself makes or changes gets none, and every store below it counts."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

MAX_ENTRIES = 512
_READS = frozenset({"read", "copy"})
_CHANGES = frozenset({"write", "delete", "copy", "link", "fetch", "move"})
_CHANGED = {"copy": ("to",), "move": ("path", "to"), "link": ("path", "to")}  # the places each op changes


def top_entries(effects: list[dict[str, Any]], home: str, made: Mapping[str, str]) -> None:
    """Add `entries` (the names in it now) to each recursive read or copy of a directory below the home that no
    command before it on the line may have changed."""
    inside = home.rstrip("/") + "/"
    if not any(
        e["op"] in _READS and e.get("recursive") and str(e.get("path") or "").startswith(inside) for e in effects
    ):
        return  # almost every line: no whole tree of the home read
    changed: list[str] = list(made)
    for effect in effects:
        path = str(effect.get("path") or "")
        tree = effect["op"] in _READS and effect.get("recursive") and path.startswith(inside)
        if tree and all(c and c != path and not c.startswith(path + "/") for c in changed):  # "": a place not known
            names = _names(path)
            if names is not None:
                effect["entries"] = names
        if effect["op"] in _CHANGES:
            changed += [str(effect.get(k) or "") for k in _CHANGED.get(effect["op"], ("path",))]


def _names(path: str) -> list[str] | None:
    try:
        with os.scandir(path) as found:
            names = []
            for entry in found:
                names.append(entry.name)
                if len(names) > MAX_ENTRIES:
                    return None
    except OSError:
        return None
    return sorted(names)
