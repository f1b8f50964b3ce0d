"""A variable that a block which may not run sets is one of the known values before and after it (choices.py): a
command naming it is judged once per value (`out=build; if …; then out=dist; fi; rm -rf "$out"` deletes build or
dist, both known), and the value stays not known where any of them is not known or there are too many. Also state45's
two fixes to state44: a piped `while read` loop's second pass reads the same listing, and a long `&&` run is one flat
block (it nested one block per `&&`: the walk's recursion ran out)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, analysed, ops

from hookd.enrich.shell.choices import CHOICES

DOCS = f"{HOME}/Documents"


def _deleted(command: str, proj: Path) -> list[tuple[str, bool]]:
    return sorted((e["path"] or e["raw"], e["known"]) for e in ops(command, proj, "delete"))


@pytest.mark.parametrize(
    ("command", "chosen"),
    [
        ('out=build; if [ -n "$CI" ]; then out=dist; fi; rm -rf "$out"', ["build", "dist"]),
        ('out=build; [ -n "$CI" ] && out=dist; rm -rf "$out"', ["build", "dist"]),
        ('out=build; [ -z "$CI" ] || out=dist; rm -rf "$out/"', ["build", "dist"]),
        ('out=a; case $1 in x) out=b;; y) out=c;; esac; rm -rf "$out"', ["a", "b", "c"]),
        ('x=build; if [ -d dist ]; then x=dist; fi; y="$x/cache"; rm -rf "$y"', ["build/cache", "dist/cache"]),
        ('o=build; if a; then o=dist; fi; rm -rf "${o:?}"/*', ["build/*", "dist/*"]),
    ],
)
def test_a_variable_a_branch_may_set_is_judged_as_each_value(command: str, chosen: list[str], proj: Path) -> None:
    assert _deleted(command, proj) == [(str(proj / c), True) for c in chosen]  # was one unknown delete (denied)


@pytest.mark.parametrize(
    "command",
    [
        'out=build; if [ -n "$CI" ]; then out=~/Documents; fi; rm -rf "$out"',
        'out=build; [ -n "$CI" ] || out=$HOME/Documents; cd "$out" && rm -rf -- ./*',
        'c=ls; [ -n "$X" ] && c="rm -rf $HOME/Documents"; $c',
        'd=build; if x; then d=~; fi; y=$d/Documents; rm -rf "$y"',
    ],
)
def test_each_value_is_judged_the_harmful_one_too(command: str, proj: Path) -> None:
    argvs, found = analysed(command, proj)
    deletes = [e for e in found if e["op"] == "delete"]
    assert DOCS in {e["path"] for e in deletes} or ["rm", "-rf", DOCS] in argvs or all(e["after_cd"] for e in deletes)


@pytest.mark.parametrize(
    "command",
    [
        'if [ -n "$CI" ]; then out=dist; fi; rm -rf "$out"',  # the value before is the environment's
        'out=build; if a; then read -r out; fi; rm -rf "$out"',
        'out=build; if a; then out=dist; fi; read -r out; rm -rf "$out"',
        '(if a; then out=dist; fi); rm -rf "$out"',
        'f() { local out=build; if a; then out=dist; fi; }; f; rm -rf "$out"',
        'out=build; if a; then out=dist; fi; unset out; rm -rf "$out"',
        "o=0; " + " ".join(f"if a; then o={i}; fi;" for i in range(1, CHOICES + 1)) + ' rm -rf "$o"',
    ],
)
def test_a_value_not_known_on_some_way_stays_not_known(command: str, proj: Path) -> None:
    assert any(not known for _, known in _deleted(command, proj))


def test_a_command_naming_two_variables_with_choices_is_walked_per_pair_within_the_bound(proj: Path) -> None:
    command = 'a=x; b=p; if c; then a=y; fi; if d; then b=q; fi; rm -rf "$a/$b"'
    assert [p for p, _ in _deleted(command, proj)] == [str(proj / f"{a}/{b}") for a in "xy" for b in "pq"]


def test_a_directory_each_value_goes_to_is_not_known_after_it(proj: Path) -> None:
    found = ops('d=build; if a; then d=dist; fi; cd "$d"; rm -rf out', proj, "delete")
    assert [e.get("after_cd") for e in found] == [True]


def test_a_piped_read_loop_reads_the_same_listing_on_its_second_pass(proj: Path) -> None:
    """`find … | while read f; do n=1; …; done`: the body changed n, so the loop is walked a second time; its
    `read` there takes a name the same pipe lists, not a name only known when it runs."""
    found = ops("find . -name '*.log' | while read -r f; do n=1; rm \"$f\"; done", proj, "delete")
    assert found and all(e["known"] for e in found)


def test_a_long_and_list_is_walked_flat(proj: Path) -> None:
    argvs, _ = analysed(" && ".join(f"rm -f build/x{i}" for i in range(300)), proj)
    assert len(argvs) == 300
