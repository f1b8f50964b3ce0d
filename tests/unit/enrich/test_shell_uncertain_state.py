"""Values the line's walk cannot know from the order of its text (choices.uncertain, tree.and_or): what a
block that may not run sets (an `if` branch, a `case` arm, the right of `&&`/`||`), what a loop sets for its own
next pass and after it, what a command in the background or a pipeline's last part sets (`lastpipe`), and `+=`."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, analysed, ops

from hookd.enrich.shell.tree import _Block, _Simple, and_or, sequence

DOCS = f"{HOME}/Documents"


def _last(command: str, proj: Path) -> list[str]:
    argvs, _ = analysed(command, proj)
    return [a for a in argvs if a][-1]


@pytest.mark.parametrize(
    "command",
    [
        "c='echo hi'; while :; do $c; c='rm -rf ~/Documents'; done",
        "c='echo hi'; until false; do $c; c='rm -rf ~/Documents'; done",
        "c=true; while $c; do c='rm -rf ~/Documents'; done",
        "a=ls; b=echo; while :; do $b; b=$a; a='rm -rf ~/Documents'; done",
        "c=ls; for f in $(cat list.txt); do $c; c='rm -rf ~/Documents'; done",
        "c=ls; for f in *.txt; do $c; c='rm -rf ~/Documents'; done",
        "c=ls; select x in a b; do $c; c='rm -rf ~/Documents'; done",
    ],
)
def test_a_loop_body_sees_what_its_own_later_commands_set_as_not_known(command: str, proj: Path) -> None:
    """A later pass runs the body's first commands with what its last ones set (bash(1), "Looping Constructs")."""
    argvs, _ = analysed(command, proj)
    assert ["$c"] in argvs or ["$b"] in argvs


@pytest.mark.parametrize(
    "command",
    [
        "c='rm -rf ~/Documents'; while false; do c=ls; done; $c",
        "c='rm -rf ~/Documents'; for f in $(ls none); do c=ls; done; $c",
        "c='rm -rf ~/Documents'; false && c=ls; $c",
        "c='rm -rf ~/Documents'; true || c=ls; $c",
        "c='rm -rf ~/Documents'; true || c=ls && $c",
        "c='rm -rf ~/Documents'; if false; then c=ls; fi; $c",
        "if true; then c='rm -rf ~/Documents'; else c=ls; fi; $c",
        "if false; then c=ls; elif true; then c='rm -rf ~/Documents'; else c=ls; fi; $c",
        "case x in x) c='rm -rf ~/Documents';; *) c=ls;; esac; $c",
    ],
)
def test_what_a_block_that_may_not_run_sets_is_not_known_after_it(command: str, proj: Path) -> None:
    """Not known, or judged as each value it may hold (choices.py: both the value before and the one set known)."""
    argvs, _ = analysed(command, proj)
    assert argvs[-1] == ["$c"] or ["rm", "-rf", DOCS] in argvs[-2:]


@pytest.mark.parametrize(
    "command",
    [
        "c='rm -rf ~/Documents'; c=ls & $c",
        "c='rm -rf ~/Documents'; { c=ls; } & $c",
        "c='rm -rf ~/Documents'; c=ls && c=pwd & $c",
    ],
)
def test_what_a_command_in_the_background_sets_is_not_the_shells(command: str, proj: Path) -> None:
    """`cmd &` runs in a subshell ("Lists"): the shell keeps its own value."""
    assert _last(command, proj) == ["rm", "-rf", DOCS]


@pytest.mark.parametrize(
    "command",
    [
        "shopt -s lastpipe; c=ls; echo 'rm -rf ~/Documents' | read -r c; $c",
        "c=ls; printf 'rm -rf %s' ~/Documents | read -r c; $c",
        "c=ls; echo x | c='rm -rf ~/Documents'; $c",
    ],
)
def test_what_a_pipelines_last_part_sets_is_not_known_after_it(command: str, proj: Path) -> None:
    """Under `shopt -s lastpipe` (which the agent's shell may have set) the last part runs in the shell itself."""
    argvs, _ = analysed(command, proj)
    assert argvs[-1] == ["$c"] or ["rm", "-rf", DOCS] in argvs[-2:]


def test_a_directory_a_branch_may_go_to_is_not_known_after_it(proj: Path) -> None:
    found = ops("cd ~; [ -d /tmp ] && cd /tmp; rm -rf Documents", proj, "delete")
    assert [e.get("after_cd") for e in found] == [True]
    found = ops("cd ~; false && cd /tmp; rm -rf Documents", proj, "delete")  # never goes (state46: known exit)
    assert [(e["path"], e["known"]) for e in found] == [(DOCS, True)]


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ("x='rm -rf ~/Docu'; x+=ments; $x", ["rm", "-rf", DOCS]),
        ("x='rm -rf'; x+=' ~/Documents'; $x", ["rm", "-rf", DOCS]),
        ('a=(rm); a+=(-rf ~/Documents); "${a[@]}"', ["rm", "-rf", DOCS]),
        ('a=(rm -rf); a+=("$d"); "${a[@]}"', ["${a[@]}"]),
    ],
)
def test_an_appending_assignment_keeps_the_value_before(command: str, argv: list[str], proj: Path) -> None:
    """`x+=v` appends to x ("Shell Parameters"): x is its value followed by v, not v."""
    assert [w.lstrip("\x00") for w in _last(command, proj)] == argv


@pytest.mark.parametrize(
    "command",
    [
        "mkdir -p build && cd build && rm -rf out",
        "n=0; for f in a b c; do n=$((n+1)); done; echo $n",
        'for d in a b c; do mkdir -p "build/$d"; done',
        'x=build; [ -d "$x" ] || mkdir -p "$x"; rm -rf "$x/tmp"',
    ],
)
def test_everyday_lines_keep_their_known_values(command: str, proj: Path) -> None:
    argvs, _ = analysed(command, proj)
    assert all(not any("$" in w for w in argv if w != "$n") for argv in argvs)


def test_an_and_or_list_holds_what_runs_only_after_all_before_it_in_one_block() -> None:
    """Flat, not nested one block per `&&`: a line of 240 `&&` parts nested as deep and the walk's recursion ran out."""
    a, b, c = (_Simple([], [w], [], []) for w in "abc")
    assert and_or([[a], [b], [c]], ["&&", "&&"]) == [a, _Block([b, c], maybe=True)]
    assert and_or([[a], [b], [c]], ["||", "&&"]) == [a, _Block([b], maybe=True), _Block([c], maybe=True)]
    assert sequence([a, b, c], ["&&", "&", ";"]) == [_Block([a, _Block([b], maybe=True)], subshell=True), c]


def test_a_while_getopts_loop_keeps_the_index_getopts_gives_for_the_loop(proj: Path) -> None:
    """line_builtins.options_end gives OPTIND as the whole loop leaves it: a second pass does not undo that."""
    command = 'set -- -v README.md; while getopts v o; do verbose=1; done; shift $((OPTIND-1)); wc -l "$1"'
    assert _last(command, proj) == ["wc", "-l", "README.md"]


def test_a_loops_own_variable_is_set_again_on_each_pass(proj: Path) -> None:
    """`for f in $(git ls-files)` repeats an unknown number of times; each pass sets f to a name the listing gave."""
    argvs, _ = analysed('for f in $(git ls-files); do n=1; cat "$f"; done', proj)
    assert [a for a in argvs if a[:1] == ["cat"]] == [["cat", "${xargs_input}"]] * 2
