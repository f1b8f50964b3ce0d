"""One effect of an agent's file, search, patch or web tool call, from one entry of its `paths` fact
(enrich/paths.py), and the bounds on a command line a tool holds (hookd.enrich.tool_effects builds the call's
list)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookd.enrich.facts import arg_class
from hookd.types import JSON, ToolSpec


def _op(entry: Mapping[str, Any], spec: ToolSpec) -> tuple[str, bool]:
    """The effect's op and whether it is recursive, for one `input.paths` entry."""
    op = entry.get("op")
    if isinstance(op, str):
        return op, entry.get("recursive") is True
    if entry.get("access") != "read":
        return "write", False
    arg = entry.get("arg")
    if arg in spec.roots() and "search" in spec.globs.values():
        return "read", True  # a search tool's root: every file below it can be read
    if arg in spec.relative_to and arg not in spec.globs:
        return "list", False  # a glob tool's pattern lists names
    return "read", False


def path_effect(
    entry: Mapping[str, Any], spec: ToolSpec, program: str, *, home: str | None, project: str
) -> dict[str, JSON]:
    op, recursive = _op(entry, spec)
    path = entry.get("path")
    path = path if isinstance(path, str) else ""
    to = entry.get("to")
    effect: dict[str, JSON] = {
        "op": op,
        "path": path,
        "known": entry.get("known") is not False and bool(path),
        "recursive": recursive,
        "to": to if isinstance(to, str) else "",
        "program": program,
        "via": "tool",
        "class": arg_class(entry, path, home=home, project=project) if path else "unresolved",
    }
    return effect


def unknown_effect(op: str, program: str) -> dict[str, JSON]:
    return {"op": op, "path": "", "known": False, "recursive": False, "to": "", "program": program,
            "via": "tool", "class": "unresolved"}  # fmt: skip


def written_paths(effects: list[dict[str, JSON]]) -> list[str]:
    return list(dict.fromkeys(str(e["path"]) for e in effects if e["op"] == "write" and e["path"]))


MAX_COMMAND_LINE = 16 * 1024  # a command line a tool holds past this (or past MAX_COMMAND_WORDS) is not analysed
MAX_COMMAND_WORDS = 2000


def too_long(line: str) -> bool:
    return len(line) > MAX_COMMAND_LINE or len(line.split()) > MAX_COMMAND_WORDS
