"""Patterns of paths a call names, for hookd.selfprotect: where a pattern can reach (`~/.local/state/**/decisions.log*`,
the effect model's reading of `find … -name 'decisions.log*' -exec truncate …`), and the pattern a path built when
the call runs can be (`"/tmp/hookd-$(id -u)"`)."""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Mapping
from typing import Any

from hookd.types import JSON

# an expansion the shell makes when it runs: a command's output, a parameter, arithmetic
_EXPANSION = re.compile(r"\$\((?:[^()]|\([^()]*\))*\)|`[^`]*`|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9#?$!@*-]")
_CHANGING = frozenset({"write", "delete", "move", "chmod", "copy", "link"})

PATTERN = re.compile(r"[*?[]")


def fixed_dir(pattern: str) -> str:
    """The directory of a pattern of paths above its first wildcard (`~/.local/state/**/decisions.log*`, the effect
    model's reading of `find ~/.local/state -name 'decisions.log*' -exec truncate …`)."""
    wildcard = PATTERN.search(pattern)
    return pattern[: wildcard.start() if wildcard else len(pattern)].rpartition("/")[0] or "/"


def reaches(pattern: str, place: str) -> str:
    """Whether a pattern of paths (`*`, `?`, `[…]` within one name, `**` across names, as glob.match with `/` as
    the separator reads them) matches `place` itself ("place"), may match a path inside it ("inside"), or
    neither ("")."""
    wanted, parts = pattern.strip("/").split("/"), place.strip("/").split("/")

    @functools.cache
    def walk(i: int, j: int) -> str:
        if j == len(parts):
            return "place" if i == len(wanted) or wanted[i:] == ["**"] else "inside"
        if i == len(wanted):
            return ""
        if wanted[i] == "**":
            return walk(i + 1, j) or walk(i, j + 1)
        return walk(i + 1, j + 1) if fnmatch.fnmatchcase(parts[j], wanted[i]) else ""

    return walk(0, 0)


def reach(hit: JSON, built: Mapping[str, str]) -> JSON:
    """A pattern's hit as the policy gets it; one built at run time keeps the path as the line spells it."""
    pattern = str(hit["pattern"])
    reach: dict[str, JSON] = {"pattern": pattern, "place": hit["place"]["path"]}
    if pattern in built:
        reach["raw"] = built[pattern]
    return reach


def built_patterns(effects: list[dict[str, Any]], home: str) -> dict[str, str]:
    """The paths a call changes that are built when it runs (`ln -s x "/tmp/hookd-$(id -u)"`), each read as the
    pattern of the paths it can be: every expansion is any text within one name, the home's own spellings are the
    home. Only absolute ones whose every name keeps a fixed part: a name made wholly at run time (`/tmp/$X`) can be
    anything, and is left to the rules on unknown changes. {pattern: the path as the line spells it}."""
    found: dict[str, str] = {}
    for effect in effects:
        raw = str(effect.get("raw") or "")
        if effect.get("known") is not False or effect.get("op") not in _CHANGING or not set("$`") & set(raw):
            continue
        text = re.sub(r"^(~|\$HOME\b|\$\{HOME\})", lambda _: home.rstrip("/"), raw.replace('"', ""))
        pattern = _EXPANSION.sub("*", text)
        names = pattern.strip("/").split("/")
        if pattern.startswith("/") and "*" in pattern and all(n.strip("*") for n in names):
            found[pattern] = raw
    return found
