"""Mechanisms the spelling-invariance harness (tests/unit/policy/test_spelling_invariance.py) found missing:
each re-spelling here does what the plain line does, and the analysis now sees the same argv."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import analysed, ops


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        # "Special Parameters": "$@" is one word per positional parameter, blanks and all.
        ('f(){ git "$@"; }; f -c core.pager="rm -rf ~/x" log', ["git", "-c", "core.pager=rm -rf ~/x", "log"]),
        ('set -- -rf "a b"; rm "$@"', ["rm", "-rf", "a b"]),
        ('f(){ "$@"; }; f rm -rf "my dir"', ["rm", "-rf", "my dir"]),
        # "Arrays": "${a[@]}" is one word per element.
        ('a=(-r -f "x y"); rm "${a[@]}"', ["rm", "-r", "-f", "x y"]),
    ],
)
def test_all_elements_in_quotes_keep_each_element_one_word(command: str, argv: list[str], proj: Path) -> None:
    assert argv in analysed(command, proj)[0]


def test_code_handed_through_a_function_is_the_code_given(proj: Path) -> None:
    found = ops("f(){ git \"$@\"; }; f -c core.pager='rm -rf ~/Documents' log", proj, "delete")
    assert [(e["path"], e["recursive"]) for e in found] == [("/home/u/Documents", True)]


def test_an_array_element_in_the_home_is_the_home_path(proj: Path) -> None:
    assert [e["path"] for e in ops('a=(~/Documents); rm -rf "${a[@]}"', proj, "delete")] == ["/home/u/Documents"]


def test_a_function_never_called_has_unknown_arguments(proj: Path) -> None:
    assert ["rm", "-rf", "$@"] in analysed('f(){ rm -rf "$@"; }', proj)[0]


def test_a_function_called_with_no_arguments_has_none(proj: Path) -> None:
    assert ["sort"] in analysed('f(){ sort "$@"; }; cat a | f', proj)[0]


def test_an_argument_built_at_run_time_leaves_the_others_known(proj: Path) -> None:
    argv = ["gdb", "-p", "$(pgrep -n ssh-agent)", "-batch", "-ex", "x"]
    assert argv in analysed('f(){ gdb "$@"; }; f -p "$(pgrep -n ssh-agent)" -batch -ex x', proj)[0]


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        # "Command Substitution": the text printf prints stands for the substitution (trailing newlines dropped).
        ("$(printf git) push origin main", ["git", "push", "origin", "main"]),
        ("$(printf '%s\\n' git) status", ["git", "status"]),
        ("cat $(printf '\\x2eenv')", ["cat", ".env"]),
    ],
)
def test_a_printf_of_literal_words_is_what_it_prints(command: str, argv: list[str], proj: Path) -> None:
    assert argv in analysed(command, proj)[0]


def test_a_printf_that_prints_an_expansion_stays_unknown(proj: Path) -> None:
    argv = analysed("$(printf '$HOME') x", proj)[0]
    assert all(a[:1] != ["/home/u"] for a in argv)
    assert any(a and "$(" in a[0] for a in argv)


@pytest.mark.parametrize(
    "command",
    [
        "nohup printf 'rm -rf ~/Documents' | nohup sh",  # a launcher before the printer and the shell
        "p=printf; $p 'rm -rf ~/Documents' | sh",  # the printer's name from a variable
        "(exec printf 'rm -rf ~/Documents') | (exec sh)",  # "Command Grouping": a subshell of one command
        "{ echo 'rm -rf ~/Documents'; } | { sh; }",
        "f(){ echo \"$@\"; }; g(){ sh; }; f 'rm -rf ~/Documents' | g",  # functions of one command
    ],
)
def test_text_printed_into_a_shell_is_followed_through_its_spelling(command: str, proj: Path) -> None:
    assert [e["path"] for e in ops(command, proj, "delete")] == ["/home/u/Documents"]


def test_a_function_of_several_commands_prints_what_is_not_known(proj: Path) -> None:
    found = ops("f(){ echo 'rm -rf ~/Documents'; echo ls; }; f | sh", proj, "exec")
    assert [e.get("known", False) for e in found if e["program"] == "sh"] == [False]


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        # "Word Splitting": only what expansions give is split; quoted text between them stays one word.
        ("ruby${IFS}-e${IFS}'print File.read(\".env\")'", ["ruby", "-e", 'print File.read(".env")']),
        ("git${IFS}config${IFS}diff.tool${IFS}'sh -c id'", ["git", "config", "diff.tool", "sh -c id"]),
        ('X="-r -f"; rm $X "a b"', ["rm", "-r", "-f", "a b"]),
    ],
)
def test_splitting_is_at_what_expansions_give(command: str, argv: list[str], proj: Path) -> None:
    assert argv in analysed(command, proj)[0]


def test_assignments_before_a_function_call_reach_its_commands(proj: Path) -> None:
    found = ops("f(){ git \"$@\"; }; GIT_EXTERNAL_DIFF='rm -rf ~/Documents' f diff", proj, "delete")
    assert [e["path"] for e in found] == ["/home/u/Documents"]


def test_a_cd_in_a_function_body_moves_the_caller(proj: Path) -> None:
    found = ops('up(){ cd "$@"; }; del(){ rm "$@"; }; up .. && del -rf build', proj, "delete")
    assert [e["path"] for e in found] == [f"{proj.parent}/build"]


def test_a_cd_in_a_subshell_body_does_not(proj: Path) -> None:
    assert [e["path"] for e in ops("f() ( cd /tmp; ); f; rm -rf build", proj, "delete")] == [f"{proj}/build"]


@pytest.mark.parametrize(
    "command",
    [
        "env -i PATH=$PATH pgrep -f hookd | env -i PATH=$PATH xargs -r kill -9",  # the names past a launcher
        'p(){ pgrep "$@"; }; x(){ xargs "$@"; }; p -f hookd | x -r kill -9',  # a function fed what its call is
    ],
)
def test_what_a_pipeline_feeds_a_signal_is_looked_up_through_its_spelling(command: str, proj: Path) -> None:
    assert [e.get("lookup") for e in ops(command, proj, "signal")] == [["hookd"]]


def test_a_function_prints_into_its_call_s_redirection(proj: Path) -> None:
    command = "f(){ printf \"$@\"; }; f 'node-options=--require /tmp/r.js\\n' >> .npmrc"
    (run,) = ops(command, proj, "exec")
    assert (run["path"], run["key"], run["startup"]) == ("/tmp/r.js", "node-options", f"{proj}/.npmrc")


# Wider families (meta30): what the harness's second round found.


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        # xargs(1): -0/--null splits the items at NULs, -d at its delimiter (not at blanks).
        ("printf '%s\\0' -rf ~/Documents | xargs -0 rm", ["rm", "-rf", "/home/u/Documents"]),
        ("printf '%s\\0' 'a b' | xargs --null rm", ["rm", "a b"]),
        ("printf 'a,b' | xargs -d, rm", ["rm", "a", "b"]),
        ("echo a b | xargs -I{} cp {} /tmp", ["cp", "a b", "/tmp"]),
        # The command xargs runs may itself be a launcher: what it launches gets the items too.
        ("printf '%s\\0' -n 19 rm -rf /home/user | xargs -0 nice", ["rm", "-rf", "/home/user"]),
        ("printf '%s\\0' git reset --hard | xargs -0 nohup", ["git", "reset", "--hard"]),
    ],
)
def test_xargs_runs_its_command_with_the_items_it_reads(command: str, argv: list[str], proj: Path) -> None:
    assert argv in analysed(command, proj)[0]


def test_what_xargs_runs_does_not_read_the_pipe(proj: Path) -> None:
    """xargs gives its command /dev/null for stdin: the printed items are not code handed to `find`."""
    assert not ops("printf '%s\\0' . -name '*.pyc' | xargs -0 find", proj, "exec")


@pytest.mark.parametrize(
    ("command", "path"),
    [
        # "Tilde Expansion": `~` is $HOME, whatever the line set it to.
        ("HOME=~/.ssh; cat ~/id_rsa", "/home/u/.ssh/id_rsa"),
        ("(HOME=/etc; cat ~/shadow)", "/etc/shadow"),
        ("export HOME=/etc; cat $HOME/shadow", "/etc/shadow"),
        ("HOME=/etc; bash -c 'cat ~/shadow'", "/etc/shadow"),
        # A temporary assignment is in the command's environment only: its words were expanded before.
        ("HOME=/tmp cat ~/.netrc", "/home/u/.netrc"),
        # An assignment's value is expanded with what the line set before.
        ("d=/etc; f=$d/shadow; cat $f", "/etc/shadow"),
    ],
)
def test_a_home_the_line_sets_is_what_tilde_expands_to(command: str, path: str, proj: Path) -> None:
    assert path in [e["path"] for e in ops(command, proj, "read")]


@pytest.mark.parametrize(
    "command",
    [
        "(HOME=/tmp); rm -rf ~/",  # a subshell's assignment stays in it
        "HOME=/tmp | cat; rm -rf ~/",  # so does a pipeline command's
        "f(){ local HOME=/tmp; }; f; rm -rf ~/",  # a function's local goes back when it returns
    ],
)
def test_what_a_subshell_or_a_local_sets_does_not_leak(command: str, proj: Path) -> None:
    assert [e["path"] for e in ops(command, proj, "delete")] == ["/home/u"]
