"""The units a user's own service manager runs that are not hookd's (hookd.selfprotect): a user's unit directory is
protected whole (hookd's units live there, and a drop-in can change them), but a developer's own unit, its drop-ins
and their directory, named as none of hookd's and whose text names nothing of hookd's, are judged by what their
commands do, whichever tool writes them (systemd.unit(5): "Unit File Load Path", drop-in directories)."""

from __future__ import annotations

import fnmatch
import os
from typing import Any

from hookd.enrich.build_files import UNIT_SUFFIXES
from hookd.enrich.edit_texts import texts_after
from hookd.enrich.effects.catalogue import catalogue
from hookd.service.systemd import HOLDING_UNITS, UNIT_NAMES
from hookd.types import NormalisedEvent, ToolKind


def plain_keeps(event: NormalisedEvent, written: list[str], near: list[dict[str, Any]], units_what: str) -> list[str]:
    """The written paths that change no guard without a judge of their text: a user's own unit, or a directory the
    line only makes sure is there. A keep matters only where the call hits a place, so none is listed without one
    (the first test, hookd.selfprotect_first, answers such a call with no keeps)."""
    if not near:
        return []
    units = [str(place["path"]) for place in near if place["what"] == units_what]
    return [p for p in written if ordinary_unit(event, p, units) or made_no_change(event, p)]


def ordinary_unit(event: NormalisedEvent, path: str, unit_dirs: list[str]) -> bool:
    """A unit (or drop-in of one, or its drop-in directory) in a user's unit directory that is not hookd's: named as a
    unit of its own (no type-wide `service.d/`, no prefix drop-in `foo-.service.d/`), none of hookd's units, and whose
    whole new text names nothing of hookd's; what its commands do is judged as code left for later (enrich/
    tool_later.py `judged_unit`, enrich/later_code.py `settle_units` for a shell line's)."""
    base = next((d for d in unit_dirs if path.startswith(d.rstrip("/") + "/")), None)
    tool = event.tool
    if base is None or tool is None or tool.spec is None:
        return False
    parts = path[len(base.rstrip("/")) + 1 :].split("/")
    unit = parts[0].removesuffix(".d") if len(parts) <= 2 and parts[0].endswith(".d") else parts[0]
    stem, _, kind = unit.rpartition(".")
    if len(parts) > 2 or not stem or stem.endswith("-") or f".{kind}" not in UNIT_SUFFIXES or unit in UNIT_NAMES:
        return False
    if any(fnmatch.fnmatchcase(unit, holding) for holding in HOLDING_UNITS):  # `app.slice.d/`: hookd's slice
        return False
    shell = tool.kind is ToolKind.SHELL
    texts = _shell_unit_texts(event, path) if shell else texts_after(path, tool.input, tool.spec, True)
    return texts is not None and not any("hookd" in text.lower() for text in texts)


def _shell_unit_texts(event: NormalisedEvent, path: str) -> list[str] | None:
    """The texts a shell line leaves in `path`: each write's settled text (later_code.settle_units), "" for a program
    that only makes it empty (`mkdir -p`, `touch`); None where any change of it is another (a move, a link, a text
    not shown)."""
    texts: list[str] = []
    for effect in _dicts(event.facts.get("effects")):
        op = effect.get("op")
        if path not in (effect.get("path"), effect.get("to")) or op in ("read", "list", "exec"):
            continue
        if op == "copy" and effect.get("to") == path:
            continue  # the copy's write of `path` carries the text it lands
        program = catalogue().get(str(effect.get("program") or ""))
        if op != "write" or not (isinstance(effect.get("text"), str) or (program is not None and program.makes_empty)):
            return None
        texts.append(str(effect.get("text") or ""))
    return texts or None


def made_no_change(event: NormalisedEvent, path: str) -> bool:
    """A directory that is there, which the line only hands to programs that make what is missing empty (`mkdir -p`,
    `touch`): nothing in it, nor its mode, changes."""
    changes = [e for e in _dicts(event.facts.get("effects")) if e.get("path") == path and e.get("op") != "read"]
    empties = (catalogue().get(str(e.get("program") or "")) for e in changes)
    return (
        bool(changes)
        and all(e.get("op") == "write" for e in changes)
        and all(p is not None and p.makes_empty for p in empties)
        and os.path.isdir(path)
    )


def _dicts(value: object) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
