"""An assignment's value as bash keeps it: a quoted value in parentheses is text, not an array (only `a=(…)`
unquoted, or `declare -a`, makes one), and a value whose `$` are all quoted holds them as written, for the shell
that later runs it to expand (bash(1), "Arrays", "Parameters", "QUOTING")."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, analysed, ops

from hookd.enrich.shell.analysis import analyse_shell


def _deleted(command: str, proj: Path) -> list[str]:
    return [e["path"] for e in ops(command, proj, "delete")]


@pytest.mark.parametrize(
    "command",
    [
        "_c='(cd ~ && rm -rf Documents)'; bash -c \"$_c\"",
        "printf -v _c '%s' '(cd ~ && rm -rf Documents)'; eval \"$_c\"",
        '_c="(cd ~ && rm -rf Documents)"; eval "$_c"',
        "declare c='(cd ~ && rm -rf Documents)'; bash -c \"$c\"",
        'c=\\(cd\\ ~\\ \\&\\&\\ rm\\ -rf\\ Documents\\); eval "$c"',
    ],
)
def test_a_quoted_value_in_parentheses_is_text_the_shell_runs(command: str, tmp_path: Path) -> None:
    assert _deleted(command, tmp_path) == ["/home/u/Documents"]


@pytest.mark.parametrize(
    "command",
    [
        'a=(-r -f); rm "${a[@]}" ~/Documents',
        "declare -a a='(-r -f)'; rm \"${a[@]}\" ~/Documents",
        'declare -a a=(-r -f); rm "${a[@]}" ~/Documents',
    ],
)
def test_an_array_is_still_an_array(command: str, tmp_path: Path) -> None:
    argvs, _ = analysed(command, tmp_path)
    assert ["rm", "-r", "-f", "/home/u/Documents"] in argvs


def test_a_quoted_dollar_dollar_is_the_later_shells_pid_not_a_number(tmp_path: Path) -> None:
    # `$$` in the value is expanded by the `bash -c` that runs it (its own pid: its parent is the agent's shell)
    command = "_c='ps -o ppid= -p $$ | xargs kill -9'; bash -c \"$_c\""
    argvs, _ = analysed(command, tmp_path)
    assert not any("0" in argv for argv in argvs if argv[:1] == ["ps"])
    assert ops(command, tmp_path, "signal") == ops("bash -c 'ps -o ppid= -p $$ | xargs kill -9'", tmp_path, "signal")


def test_an_unquoted_pid_in_a_file_name_is_still_a_number(tmp_path: Path) -> None:
    assert _deleted('f=/tmp/b.$$.log; rm "$f"', tmp_path) == ["/tmp/b.0.log"]


def test_a_quoted_value_is_shown_as_written_in_the_environment(tmp_path: Path) -> None:
    shell, _ = analyse_shell("X='$HOME/x' Y=(a b) env", home=HOME, base_dir=str(tmp_path), project_dir=str(tmp_path))
    assert shell["commands"][0]["env"] == {"X": "$HOME/x", "Y": "(a b)"}
