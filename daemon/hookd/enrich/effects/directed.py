"""Startup files in a directory another startup file names (blind-tools-22's miss): zsh reads `~/.zshenv` first,
and where it sets ZDOTDIR, zsh reads `.zprofile`, `.zshrc`, `.zlogin`, `.zlogout` from there
(https://zsh.sourceforge.io/Doc/Release/Files.html). The variable, the file of the home that sets it (`set_in`)
and the names it holds (`holds`) are base_directories.json's; the file is read as it is on disk now, its value
expanded from the home and the same table's defaults (`$HOME`, `~`, `${XDG_CONFIG_HOME:-$HOME/.config}`)."""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.catalogue import DATA

MAX_TEXT = 64 * 1024  # bytes of a startup file read for the variable; past it, the variable is not looked for
_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-=][^}]*)?\}|\$([A-Za-z_][A-Za-z0-9_]*)")


@functools.lru_cache(maxsize=1)
def _variables() -> Mapping[str, Any]:
    table: Mapping[str, Any] = json.loads((DATA / "base_directories.json").read_text(encoding="utf-8"))["variables"]
    return table


def directed_startup(path: str, home: str) -> bool:
    """`path` is a startup file zsh (or another program the table names) reads from the directory a startup file
    of `home` moves its files to."""
    directory, _, base = path.rpartition("/")
    return any(
        base in entry["holds"] and directory in _directories(name, f"{home}/{entry['set_in']}", home)
        for name, entry in _variables().items()
        if "holds" in entry
    )


def directed_names() -> frozenset[str]:
    """Every name a directed directory may hold (a cheap first test of `directed_startup`)."""
    return frozenset(n for entry in _variables().values() for n in entry.get("holds", ()))


def _directories(variable: str, source: str, home: str) -> frozenset[str]:
    try:
        stat = os.stat(source)
    except OSError:
        return frozenset()
    return _set_values(variable, source, home, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _set_values(variable: str, source: str, home: str, _mtime: int, size: int) -> frozenset[str]:
    """The directories `source` sets `variable` to (each assignment's, expanded; one that cannot be is left out)."""
    if size > MAX_TEXT:
        return frozenset()
    try:
        with open(source, encoding="utf-8", errors="replace") as f:
            text = f.read(MAX_TEXT)
    except OSError:
        return frozenset()
    assignment = re.compile(rf"(?:^|[\s;&|]){variable}=(\"[^\"]*\"|'[^']*'|[^\s;&|#]+)", re.MULTILINE)
    found = (_expanded(m.group(1), home) for m in assignment.finditer(text))
    return frozenset(os.path.normpath(d) for d in found if d is not None)


def _expanded(value: str, home: str) -> str | None:
    literal = value.startswith("'")
    value = value.strip("'\"")
    if value.startswith("~"):
        value = home + value[1:]
    if literal:
        return value if "$" not in value and value.startswith("/") else None
    value = _REFERENCE.sub(lambda m: _default(m.group(1) or m.group(2), home), value)
    return value if "$" not in value and "`" not in value and value.startswith("/") else None


def _default(name: str, home: str) -> str:
    if name == "HOME":
        return home
    entry = _variables().get(name)
    return f"{home}/{entry['default']}".rstrip("/") if entry is not None else "$"
