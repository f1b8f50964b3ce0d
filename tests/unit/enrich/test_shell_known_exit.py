"""An and-or part whose run is decided by a status known from the text (tree.exits, choices.known_run): `false || X`
and `true && X` run X for certain, `true || X` never runs it (what it sets is never set, what it does is still
judged). Known only while the names it relies on keep the shell's meaning: a function or an alias the line defines
of that name, an unread `. FILE` or `enable` leave the part one that may not run (state44's reading). `command
false`/`builtin false` skip functions and aliases; `/bin/false` fails even where it is absent (the shell's 127),
but a function may carry its name; `/bin/true` may be absent (exit 127), so `/bin/true && X` is not known."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, ops

DOCS = f"{HOME}/Documents"


def _deleted(command: str, proj: Path) -> list[str]:
    return sorted(str(e["path"] or e["raw"]).removeprefix(f"{proj}/") for e in ops(command, proj, "delete"))


@pytest.mark.parametrize(
    ("command", "deleted"),
    [
        ('x=build; false || x=dist; rm -rf "$x"', ["dist"]),
        ('x=build; true && x=dist; rm -rf "$x"', ["dist"]),
        ('x=build; : && x=dist; rm -rf "$x"', ["dist"]),
        ('x=build; true || x=dist; rm -rf "$x"', ["build"]),
        ('x=build; false && x=dist; rm -rf "$x"', ["build"]),
        ('x=build; command false || x=dist; rm -rf "$x"', ["dist"]),
        ('false() { return 0; }; x=build; command false || x=dist; rm -rf "$x"', ["dist"]),
        ('x=build; builtin true && x=dist; rm -rf "$x"', ["dist"]),
        ('x=build; /bin/false || x=dist; rm -rf "$x"', ["dist"]),
        ('x=a; false || true && x=b; rm -rf "$x"', ["b"]),
        ('x=a; true || x=b || x=c; rm -rf "$x"', ["a"]),
        ('x=a; true || x=b && x=c; rm -rf "$x"', ["c"]),
        ('x=a; false || x=b && x=c; rm -rf "$x"', ["b", "c"]),  # x=b runs; x=c when it succeeds
        ('true && x=~; rm -rf "$x"/Documents', [DOCS]),
    ],
)
def test_a_part_after_a_known_status_runs_for_certain_or_never(command: str, deleted: list[str], proj: Path) -> None:
    assert _deleted(command, proj) == deleted  # each was both values (state45: a block that may not run)


@pytest.mark.parametrize(
    "command",
    [
        'false() { return 0; }; x=build; false || x=dist; rm -rf "$x"',
        'shopt -s expand_aliases; alias true=false; x=build; true && x=dist; rm -rf "$x"',
        'BASH_ALIASES[true]=false; x=build; true && x=dist; rm -rf "$x"',
        'command() { return 1; }; x=build; command true && x=dist; rm -rf "$x"',
        '/bin/false() { return 0; }; x=build; /bin/false || x=dist; rm -rf "$x"',
        'x=build; /bin/true && x=dist; rm -rf "$x"',
        'enable -n false; x=build; false || x=dist; rm -rf "$x"',
        'shopt -s expand_aliases; alias "$A"; x=build; false || x=dist; rm -rf "$x"',
        'x=build; ! false || x=dist; rm -rf "$x"',
        'x=build; false --version || x=dist; rm -rf "$x"',
        'x=build; false < in.txt || x=dist; rm -rf "$x"',
        'x=build; f() { true; }; f && x=dist; rm -rf "$x"',
    ],
)
def test_a_status_not_known_here_leaves_the_part_one_that_may_not_run(command: str, proj: Path) -> None:
    assert _deleted(command, proj) == ["build", "dist"]


def test_a_source_the_walk_cannot_read_may_redefine_false(proj: Path) -> None:
    found = _deleted('. "$LIB"; x=build; false || x=dist; rm -rf "$x"', proj)
    assert found == ["build", "dist"]


def test_a_part_that_never_runs_is_still_judged(proj: Path) -> None:
    assert _deleted("true || rm -rf ~/Documents", proj) == [DOCS]


def test_a_directory_made_in_a_part_that_runs_is_the_lines_own(proj: Path) -> None:
    found = ops('false || tmp=$(mktemp -d); rm -rf "$tmp"', proj, "delete")
    assert [(e["known"], e["class"]) for e in found] == [(True, "scratch")]  # state45: not known (asked)
