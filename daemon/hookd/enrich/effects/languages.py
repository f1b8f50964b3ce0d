"""What code in another language does that hookd can follow, from languages.json (docs/policies.md, "The
effect model"): the shell commands it runs given as literals (`system("make")`, `` `ls` ``, `.shell ls`), walked
as scripts of their own, and whether anything else in it reaches the system (runs a command, writes or deletes
a file, opens a socket, builds code at run time) in a way hookd does not follow: then its exec effect is not
`known`. Python is read with its own parser (pycode.py). A language without an entry is never followed."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.pycode import python_effects


@dataclass(frozen=True, slots=True)
class Followed:
    known: bool  # nothing in the code reaches the system beyond `commands`
    commands: tuple[str, ...] = ()  # the shell command lines it runs, as written


@dataclass(frozen=True, slots=True)
class _Language:
    parser: str
    runs: tuple[re.Pattern[str], ...]
    reaches: re.Pattern[str] | None


@cache
def _language(lang: str) -> _Language | None:
    spec: Mapping[str, Any] | None = catalogue().languages.get(lang)
    if spec is None:
        return None
    reaches = spec.get("reaches")
    return _Language(
        parser=str(spec.get("parser", "")),
        runs=tuple(re.compile(pattern) for pattern in spec.get("runs", ())),
        reaches=re.compile(reaches) if reaches else None,
    )


def follow_code(lang: str, text: str) -> Followed:
    """What `text`, code in `lang`, runs, and whether the rest of it stays inside the interpreter."""
    language = _language(lang)
    if language is None:
        return Followed(known=False)
    if language.parser == "python":  # its commands and scripts are walked by the shell builder
        return Followed(known=not python_effects(text).dynamic)
    commands: list[str] = []
    rest = text
    for pattern in language.runs:
        commands.extend(match.group("cmd") for match in pattern.finditer(rest))
        rest = pattern.sub(" ", rest)
    known = language.reaches is None or language.reaches.search(rest) is None
    return Followed(known=known, commands=tuple(c for c in commands if c.strip()))
