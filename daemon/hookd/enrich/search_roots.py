"""A search tool's root when a file filter names the files it searches (ripgrep's `--glob config`, the agents'
`include`/`glob`): the tool reads the files of that name below the root, each an entry of its own, and none of the
rest. A filter with a wildcard in its name (`*.json`, `**/*`) reaches whatever such files exist when it runs, so its
root is read whole, as a search without one is (a tree that holds secrets is judged by what it may hold)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from hookd.types import ToolSpec


class Resolver(Protocol):
    """What of hookd.enrich.paths.PathResolver a narrowed search reads: the home, and what a glob matches."""

    home: str

    def matches(
        self, raw: str, base_dir: str, *, tilde: bool = True, hidden: bool = False, files: bool = False
    ) -> tuple[list[str], bool]: ...


def narrowed_roots(
    entries: Sequence[dict[str, Any]],
    spec: ToolSpec,
    tool_input: Mapping[str, Any],
    resolver: Resolver,
    search_glob: Callable[[str], str | None],
) -> list[dict[str, Any]]:
    """The entries with each search root its filter names files in listed rather than read whole. A root that is
    the home or above it, or a filter whose matches are not all known (a cap stopped them) or that matches a
    directory (whose files the tool then searches, named or not), leaves its root read whole. A listing tool's
    directory (ToolSpec.lists: LS, list_directory) is listed, as the shell's `ls DIR`: names, no file read."""
    entries = [{**e, "op": "list"} if e.get("arg") in spec.lists and "glob" not in e else e for e in entries]
    filters = [arg for arg, style in spec.globs.items() if style == "search" and _names_files(tool_input.get(arg))]
    roots = set(spec.roots()) if any(arg in spec.relative_to for arg in filters) else set()
    if not roots or any(e.get("arg") in filters and e.get("known") is False for e in entries):
        return list(entries)
    patterns = [search_glob(str(tool_input[arg])) or "" for arg in filters]
    for root in {str(e.get("path") or "") for e in entries if e.get("arg") in roots and "glob" not in e}:
        home = os.path.realpath(resolver.home)
        if not root or home == root or home.startswith(root.rstrip("/") + "/"):
            return list(entries)
        if any(_reaches_directory(resolver, pattern, root) for pattern in patterns):
            return list(entries)
    return [{**e, "op": "list"} if e.get("arg") in roots and "glob" not in e else e for e in entries]


def _names_files(value: Any) -> bool:
    """A filter that names files: no wildcard, brace or negation in its last component (`config`, `.github/*.yml`
    is not one)."""
    name = value.rstrip("/").rpartition("/")[2] if isinstance(value, str) else ""
    return bool(name) and not any(ch in name for ch in "*?[]{}!")


def _reaches_directory(resolver: Resolver, pattern: str, root: str) -> bool:
    found, complete = resolver.matches(pattern, root, hidden=True)
    return not complete or any(os.path.isdir(path) for path in found)


def anchor_arg(spec: ToolSpec, tool_input: Mapping[str, Any], arg: str) -> str | None:
    """The argument an anchored argument is relative to in this call: its anchor, or when the call leaves that out,
    the first other root argument it gives (ToolSpec.roots: rg's `path` for `paths`)."""
    anchor_arg = spec.relative_to.get(arg)
    if anchor_arg is None:
        return None
    for name in (anchor_arg, *(root for root in spec.roots() if root != anchor_arg)):
        if tool_input.get(name):
            return name
    return anchor_arg
