"""Arithmetic expansion with the values the line shows (hookd.enrich.shell.arith) and the OPTIND `getopts`
leaves (state.options_end): `shift $((OPTIND-1))` drops the options a script parsed."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops

from hookd.enrich.shell.arith import arithmetic


@pytest.mark.parametrize(
    ("word", "value"),
    [
        ("$((OPTIND-1))", "1"),
        ("$(( (2+3)*4 ))", "20"),
        ("$((0x10+010))", "24"),
        ("$((-7/2)),$((-7%2))", "-3,-1"),
        ("f$((i+$i))", "f4"),
        ("$((1/0))", "$((1/0))"),
        ("$((x+1))", "$((x+1))"),
        ("$((i<3))", "$((i<3))"),
    ],
)
def test_an_arithmetic_expansion_of_known_values_is_its_value(word: str, value: str) -> None:
    assert arithmetic(word, {"OPTIND": "2", "i": "2"}) == value


def test_a_value_computed_from_the_line_names_the_file(tmp_path: Path) -> None:
    assert [e["path"] for e in ops("i=1; rm -rf ~/$((i+1))", tmp_path, "delete")] == ["/home/u/2"]


@pytest.mark.parametrize(
    ("command", "path"),
    [
        ('set -- -q ~/Documents; while getopts q o; do :; done; shift $((OPTIND-1)); rm -rf "$1"', "/home/u/Documents"),
        ('set -- -o out.txt ~/.ssh; getopts o: o; shift $((OPTIND-1)); rm -rf "$1"', "/home/u/.ssh"),
        ('set -- ~/.ssh; getopts q o; shift $((OPTIND-1)); rm -rf "$1"', "/home/u/.ssh"),
    ],
)
def test_shift_past_what_getopts_parsed_leaves_the_operands(command: str, path: str, tmp_path: Path) -> None:
    assert [e["path"] for e in ops(command, tmp_path, "delete")] == [path]


def test_options_getopts_takes_in_several_calls_leave_optind_unknown(tmp_path: Path) -> None:
    command = 'set -- -a -b ~/.ssh x; getopts ab o; shift $((OPTIND-1)); rm -rf "$2"'
    assert [e["known"] for e in ops(command, tmp_path, "delete")] == [False]
