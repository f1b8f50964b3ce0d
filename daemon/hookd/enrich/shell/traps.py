"""A trap's action runs later than where it is set (bash(1), "trap"): at the shell's exit (EXIT, 0), or between
any two later commands (DEBUG before each, ERR after a failure, RETURN, a signal at any time). The builder walks
it where it is set, in a scope of its own (what it sets is not set yet); this module keeps what else that takes:
the action walked again whenever a variable it reads changes later on the line (it may run with any value the
variable takes from there on), and the variables an action that may run between commands sets (unknown from there
on, whatever the line assigns them)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from hookd.enrich.shell.state import _Cwd

_AT_EXIT = frozenset({"EXIT", "SIGEXIT", "0"})
_READS = re.compile(r"\$\{?[!#]?([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(slots=True)
class Trap:
    """A trap set on the line: its action, where it was set, and the values of what it reads when last walked."""

    action: str
    depth: int
    cwd: _Cwd
    privileged: bool
    reads: frozenset[str] | None  # None: any variable (`${!name}`, a reference)
    seen: tuple[object, ...]


def between_commands(argv: list[str]) -> bool:
    """Whether `trap ACTION CONDITION…` may run its action between later commands (any condition but EXIT)."""
    words = [w for w in argv[1:] if w not in ("-p", "-l", "-P", "--")]
    return any(word.upper() not in _AT_EXIT for word in words[1:])


def reads_of(action: str) -> frozenset[str] | None:
    """The variables an action's text expands; None where it may read any (an indirect expansion, a reference)."""
    if "${!" in action or re.search(r"-[a-zA-Z]*n\b", action):
        return None
    return frozenset(_READS.findall(action))


def values_of(reads: frozenset[str] | None, tables: tuple[Mapping[str, str], Mapping[str, str]]) -> tuple[object, ...]:
    """What the line holds now for the variables an action reads (`tables`: its known and its built values)."""
    variables, built = tables
    if reads is None:
        return (tuple(sorted(variables.items())), tuple(sorted(built.items())))
    return tuple((variables.get(name), built.get(name)) for name in sorted(reads))


def changed(
    before: tuple[dict[str, str], dict[str, str]], tables: tuple[Mapping[str, str], Mapping[str, str]]
) -> set[str]:
    """The variables whose value differs between `before` and `tables` (each: known values, built values)."""
    names: set[str] = set()
    for old, new in zip(before, tables, strict=True):
        names.update(key for key in old.keys() | new.keys() if old.get(key) != new.get(key))
    return {name.split("[", 1)[0].rstrip("\x00") for name in names}
