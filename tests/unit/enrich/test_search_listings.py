"""benign44 (blind-benign-18): a search that prints the names of the files it searched (`grep -rl`, `rg -l`,
`rg --files`, `git grep -l`) lists them, as `find` does: the names xargs hands on are files below what it searched,
not words only known when the shell runs (hookd.enrich.effects.files' `_names_listed`, gitops' `_names_only`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, effects


def _from_stdin(command: str, proj: Path, op: str) -> set[tuple[str, bool]]:
    return {(e["path"], e["recursive"]) for e in effects(command, proj) if e["op"] == op and e.get("from_stdin")}


def _unknown(command: str, proj: Path) -> list[str]:
    return [e["op"] for e in effects(command, proj) if e.get("known") is False]


@pytest.mark.parametrize(
    ("command", "op", "below"),
    [
        ("grep -rl Sink src | xargs sed -i 's/Sink/Sinks/'", "write", "src"),
        ("grep -Lr Sink src | xargs cat", "read", "src"),
        ("rg -l --null 'TODO' src | xargs -0 perl -pi -e 's/a/b/'", "write", "src"),
        ("rg --files-with-matches x src | xargs wc -l", "read", "src"),
        ("git grep -l 'import Sink' -- '*.py' | xargs sed -i 's/a/b/'", "write", "."),
        ("git grep --name-only Sink | xargs cat", "read", "."),
        ("git grep -ile sink | xargs cat", "read", "."),  # -i, -l, then -e's pattern
    ],
)
def test_the_names_a_search_prints_are_files_below_what_it_searched(
    command: str, op: str, below: str, proj: Path
) -> None:
    root = str(proj / below) if below != "." else str(proj)
    assert _from_stdin(command, proj, op) == {(root, True)}  # was one file whose name is unknown (asked)
    assert op not in _unknown(command, proj)


def test_rg_files_takes_no_pattern(proj: Path) -> None:
    # `--files` searches nothing: every operand is a path (src was taken for the pattern, tests alone listed)
    assert _from_stdin("rg --files -g '*.py' src tests | xargs wc -l", proj, "read") == {
        (str(proj / "src"), True),
        (str(proj / "tests"), True),
    }
    assert _from_stdin("rg --files -t go | xargs grep -l x", proj, "read") == {(str(proj), True)}


def test_a_search_of_the_home_lists_the_home(proj: Path) -> None:
    assert _from_stdin("grep -rl TOKEN ~ | xargs cat", proj, "read") == {(HOME, True)}


@pytest.mark.parametrize(
    "command",
    [
        "grep -r Sink src | xargs cat",  # lines, not names
        "git grep Sink | xargs cat",
        "git grep -e -l Sink | xargs cat",  # `-l` is -e's pattern
        "rg Sink src | xargs cat",
    ],
)
def test_a_search_that_prints_lines_lists_nothing(command: str, proj: Path) -> None:
    assert "read" in _unknown(command, proj)
