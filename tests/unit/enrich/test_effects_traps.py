"""A trap's action runs later than where it is set (bash(1), "trap"): at exit, or between any two later commands.
Walked where it is set without setting anything yet, again when what it reads changes, and what an action that may
run between commands sets is unknown from there on (shell/traps.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects, ops


def _deletes(line: str, tmp_path: Path) -> list[str]:
    return [e["path"] for e in ops(line, tmp_path, "delete")]


@pytest.mark.parametrize(
    "line",
    [
        "c='rm -rf ~/Documents'; trap 'c=\"echo hi\"' EXIT; $c",  # the action has not run when $c runs
        "c='echo hi'; trap '$c' EXIT; c='rm -rf ~/Documents'",  # the action runs with the value at exit
        "c='echo hi'; trap 'eval \"$c\"' INT; c='rm -rf ~/Documents'; sleep 5",  # a signal: any later value
        "f(){ $c; }; c='echo hi'; c='rm -rf ~/Documents' f",  # an assignment before a call holds in its body
    ],
)
def test_what_runs_is_judged_with_the_value_it_runs_with(line: str, tmp_path: Path) -> None:
    assert _deletes(line, tmp_path) == ["/home/u/Documents"]


def test_what_an_action_between_commands_sets_is_unknown_after_it(tmp_path: Path) -> None:
    line = "trap 'c=\"rm -rf ~/Documents\"' DEBUG; c='echo hi'; $c"
    runs = [e for e in effects(line, tmp_path) if e["op"] == "exec"]
    assert any(not e.get("known", True) for e in runs) or _deletes(line, tmp_path)


def test_an_exit_trap_removing_the_lines_own_temporary_directory_is_that_directory(tmp_path: Path) -> None:
    line = 'tmp=$(mktemp -d); trap \'rm -rf "$tmp"\' EXIT INT TERM; cd "$tmp" && tar xzf ~/dist.tgz'
    assert _deletes(line, tmp_path) == ["/tmp/tmp.mktemp"]
