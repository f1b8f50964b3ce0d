"""The paths a file tool touches, resolved: `input.paths` of docs/policies.md.

A path is made absolute (relative paths against a base directory, `~` against the caller's home),
normalised and symlink-resolved with `os.path.realpath`, which resolves the longest existing prefix
and treats the rest lexically. `in_project` is true iff the result is the realpath of the project
directory or lies under it. Nothing here raises on odd input: a path that cannot be resolved (an
embedded NUL byte, say) is normalised lexically instead.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hookd.types import NormalisedEvent, ToolSpec


def expand_tilde(raw: str, home: str) -> str:
    """`~` and `~/x` to the home directory; `~user` and everything else as written."""
    if raw == "~":
        return home
    if raw.startswith("~/"):
        return home.rstrip("/") + raw[1:]
    return raw


def _join(base: str, path: str) -> str:
    if path.startswith("/"):
        return path
    if not base:
        base = "/"
    return base + path if base.endswith("/") else base + "/" + path


def realpath(path: str) -> str:
    """`os.path.realpath` that never raises (falls back to a lexical normalisation)."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return os.path.normpath(path)


def _realpath_memo(path: str, memo: dict[str, str]) -> str:
    """`os.path.realpath` of an absolute path (the same answer, symlink loops aside: those stay as
    written), one component at a time with the resolved prefixes kept in `memo`, so that paths
    sharing a directory cost one `lstat` each (the standard one takes ~25-35 µs for a four-level
    path, and a command has several)."""
    resolved = ""  # the root
    for name in path.split("/"):
        if not name or name == ".":
            continue
        if name == "..":
            resolved = resolved.rsplit("/", 1)[0]
            continue
        candidate = resolved + "/" + name
        hit = memo.get(candidate)
        if hit is None:
            try:
                is_link = stat.S_ISLNK(os.lstat(candidate).st_mode)
            except (OSError, ValueError):
                is_link = False  # missing (the rest is lexical, as realpath does), or a NUL byte
            hit = memo[candidate] = realpath(candidate).rstrip("/") if is_link else candidate
        resolved = hit
    return resolved or "/"


class PathResolver:
    """Resolves any number of paths against one project, sharing the `lstat`s of common prefixes;
    meant for one event (the file system is taken to stand still meanwhile)."""

    __slots__ = ("_memo", "_prefix", "home", "project")

    def __init__(self, *, home: str, project_dir: str) -> None:
        self.home = home
        self._memo: dict[str, str] = {}
        self.project = _realpath_memo(_join("/", project_dir), self._memo)
        self._prefix = self.project if self.project.endswith("/") else self.project + "/"

    def absolute(self, raw: str, base_dir: str, *, tilde: bool = True) -> str:
        """The absolute, normalised, symlink-resolved form of `raw` seen from `base_dir`."""
        path = expand_tilde(raw, self.home) if tilde else raw
        if not path.startswith("/"):
            path = _join(_join(self.project, base_dir), path)
        return _realpath_memo(path, self._memo)

    def contains(self, path: str) -> bool:
        return path == self.project or path.startswith(self._prefix)

    def resolve(self, raw: str, base_dir: str, *, tilde: bool = True) -> dict[str, Any]:
        path = self.absolute(raw, base_dir, tilde=tilde)
        return {"raw": raw, "path": path, "in_project": self.contains(path)}


def resolve_path(raw: str, *, home: str, base_dir: str, project_dir: str) -> dict[str, Any]:
    """`{"raw", "path", "in_project"}` for one path (see the module docstring)."""
    return PathResolver(home=home, project_dir=project_dir).resolve(raw, base_dir)


def tool_paths(
    spec: ToolSpec, tool_input: Mapping[str, Any], *, home: str, base_dir: str, project_dir: str
) -> list[dict[str, Any]]:
    """The `input.paths` list of a file tool call, from the path arguments of its dialect's ToolSpec;
    arguments that are missing or not strings (or, for list arguments, elements that are not
    strings) are skipped."""
    if not spec.paths:
        return []
    resolver = PathResolver(home=home, project_dir=project_dir)
    out: list[dict[str, Any]] = []
    for arg, access in spec.paths:
        value = tool_input.get(arg)
        values = value if isinstance(value, list) else [value]
        base = base_dir
        anchor_arg = spec.relative_to.get(arg)
        if anchor_arg is not None:
            anchor = tool_input.get(anchor_arg)
            if isinstance(anchor, str) and anchor:
                base = resolver.absolute(anchor, base_dir)
        for item in values:
            if isinstance(item, str):
                out.append({"arg": arg, **resolver.resolve(item, base), "access": access})
    return out


def event_home(event: NormalisedEvent) -> str:
    """The caller's home directory: the `home` fact when an enricher set it, else this process's."""
    home = event.facts.get("home")
    if isinstance(home, str) and home:
        return home
    try:
        return str(Path.home())
    except (RuntimeError, KeyError):  # no $HOME and no passwd entry
        return "/"


def enrich_paths(event: NormalisedEvent) -> NormalisedEvent:
    """Adds `paths` to tool events of tools whose ToolSpec names path arguments; others pass unchanged."""
    tool = event.tool
    if tool is None or tool.spec is None or not tool.spec.paths:
        return event
    paths = tool_paths(
        tool.spec,
        tool.input,
        home=event_home(event),
        base_dir=event.project_dir,
        project_dir=event.project_dir,
    )
    return event.with_facts(paths=paths)
