"""Processes without bound (`op: fork`): a shell function that runs itself as an element of a pipeline in its own
body, found wherever the line runs shell code, however it spells, prints or decodes the function
(hookd.enrich.shell.tree, `pipes_into_itself`; policies/destructive_shell, `fork-bomb`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects


def forks(command: str, project: Path) -> list[str]:
    return [e["program"] for e in effects(command, project) if e["op"] == "fork"]


@pytest.mark.parametrize(
    ("command", "function"),
    [
        (":(){ :|:& };:", ":"),
        ("bomb() { bomb | bomb & }; bomb", "bomb"),
        ("f(){ f|f; }", "f"),  # defined, never called: judged as if run
        ("f(){ { f; } | (f) & }; f", "f"),  # a group and a subshell around the call are the call
        ("g(){ echo hi | g; }; g", "g"),  # one copy more a call, none of them ever returning
        ("bash <(printf ':(){ :|:& };:')", ":"),
        ("source <(printf '%s' 'b(){ b|b& };b')", "b"),
        ("eval ':(){ :|:& };:'", ":"),
        ("echo ':(){ :|:& };:' | sh", ":"),
        (r"printf '\x3a\x28\x29\x7b\x20\x3a\x7c\x3a\x26\x20\x7d\x3b\x3a' | bash", ":"),
        ("sh -c 'x(){ x | x & }; x'", "x"),
    ],
)
def test_a_function_run_as_an_element_of_its_own_pipeline_forks_without_bound(
    command: str, function: str, tmp_path: Path
) -> None:
    assert forks(command, tmp_path) == [function]


@pytest.mark.parametrize(
    "command",
    [
        'walk(){ ls "$1" | while read -r d; do walk "$1/$d"; done; }; walk .',  # runs when the loop reads a line
        "f(){ ls | grep x; }; f",
        "f(){ g | g; }; g(){ echo; }; f",  # another function piped twice: no recursion
        "echo ':(){ :|:& };:' > notes.txt",  # text written, not run
        "b() { ab|ba & }; b",
    ],
)
def test_a_function_that_does_not_run_itself_in_its_pipelines_does_not(command: str, tmp_path: Path) -> None:
    assert forks(command, tmp_path) == []


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ("f(){ f & f; }; f", "f"),  # each call starts one of itself in the background and runs another
        ("spawn() { spawn & }; spawn", "spawn"),  # an endless chain of processes
        ("while true; do sleep 1000 & done", "while"),  # a loop without end starting one more each turn
        ("while :\ndo\n  (yes > /dev/null &)\ndone", "while"),
        ("until false; do ./worker.sh & done", "while"),
        ("bash -c 'while :; do sleep 9 & done'", "while"),
        ("python3 -c 'import os\nwhile True: os.fork()'", "python"),
        ('python3 -c \'import subprocess as s\nwhile 1:\n    s.Popen(["sleep", "99"])\'', "python"),
        (
            "python3 - <<'EOF'\nfrom multiprocessing import Process\nwhile True:\n    Process(target=f).start()\nEOF",
            "python",
        ),
    ],
)
def test_processes_started_in_the_background_without_end_fork_without_bound(
    command: str, program: str, tmp_path: Path
) -> None:
    assert forks(command, tmp_path) == [program]


@pytest.mark.parametrize(
    "command",
    [
        "for i in 1 2 3; do ./worker.sh $i & done; wait",  # a loop with an end
        "while :; do ./server & sleep 5; kill $!; done",  # each one stopped before the next
        "while true; do make & wait; done",
        "while true; do ./poll & break; done",
        'while read -r f; do gzip "$f" & done < list.txt',  # ends with its input
        'f(){ [ "$1" -gt 0 ] && f $(($1 - 1)) & }; f 3',  # a test guards the call: it ends
        "while true; do sleep 1; done",  # endless, but one process at a time
        "python3 -c 'import os\nwhile True:\n    pid = os.fork()\n    os.waitpid(pid, 0)'",
        "python3 -c 'import subprocess\nfor n in range(3): subprocess.Popen([\"w\"])'",
        "python3 -c 'import os\nwhile True:\n    if os.fork() == 0: break'",
    ],
)
def test_processes_that_are_waited_for_stopped_or_counted_do_not(command: str, tmp_path: Path) -> None:
    assert forks(command, tmp_path) == []


@pytest.mark.parametrize(
    "command",
    [
        "until [ 1 = 0 ]; do yes > /dev/null & done",  # a test of literals never changes its answer
        'while [ "a" = "a" ]; do sleep 9 & done',
        "while [[ 1 -eq 1 ]]; do sleep 9 & done",
        "while test x; do sleep 9 & done",
        "while [ -n x ]; do sleep 9 & done",
        "while ((1)); do sleep 9 & done",
        "until (( 0 )); do sleep 9 & done",
        "while ! false; do sleep 9 & done",
        "while true && :; do sleep 9 & done",
        "until false || false; do sleep 9 & done",
    ],
)
def test_a_loop_whose_condition_is_a_constant_test_is_endless(command: str, tmp_path: Path) -> None:
    assert forks(command, tmp_path) == ["while"]


@pytest.mark.parametrize(
    "command",
    [
        "while [ 1 = 0 ]; do sleep 9 & done",  # never entered
        "until [ 1 = 1 ]; do sleep 9 & done",
        'while [ "$x" = 1 ]; do sleep 9 & done',  # the shell decides: unknown here
        "while [ -f /tmp/ready ]; do sleep 9 & done",
        "while [[ x == x* ]]; do sleep 9 & done",  # a pattern, not read here
        "while ((n < 3)); do sleep 9 & done",
        "while false && true; do sleep 9 & done",
    ],
)
def test_a_loop_whose_condition_is_not_known_to_hold_is_not(command: str, tmp_path: Path) -> None:
    assert forks(command, tmp_path) == []


@pytest.mark.parametrize(
    ("command", "program"),
    [
        ('[ "$CI" = true ] || while :; do sleep 9 & done', "while"),
        ("if [[ ! -d x ]]; then f(){ f & f; }; f; fi", "f"),
        ("[[ $f == *.py ]] && while :; do sleep 9 & done", "while"),
    ],
)
def test_a_line_with_a_tests_operators_is_read_by_the_tree(command: str, program: str, tmp_path: Path) -> None:
    """`[ a = b ]`, `[[ ! x ]]`, `[[ f == *.py ]]`: the test's operators are its words, not a reason to read the
    whole line with the fallback parser, which knows no processes without bound."""
    assert forks(command, tmp_path) == [program]


@pytest.mark.parametrize(
    "command",
    [
        "while false; true; do yes & done",  # the condition list's last command decides
        "while true 2>/dev/null; do yes & done",
        "while :|:; do yes & done",
        "while (true); do yes & done",
        "while { true; }; do yes & done",
        "while command true; do yes & done",
        "until ((010 == 10)); do yes & done",  # arithmetic reads 010 as octal: 8
        "while ((0x10 == 16)); do yes & done",
        "while [[ 010 -eq 8 ]]; do yes & done",  # [[ -eq ]] evaluates arithmetic too
        "while [ 010 -eq 10 ]; do yes & done",  # test(1) reads decimal
        "while :; do sleep 9 & done; while ((" + "1" * 4400 + ")); do :; done",  # past int()'s digits: not known
    ],
)
def test_a_constant_condition_spelled_other_ways_is_endless(command: str, tmp_path: Path) -> None:
    assert forks(command, tmp_path) == ["while"]


@pytest.mark.parametrize(
    "command",
    [
        "while true; false; do yes & done",
        "while ((08)); do yes & done",  # not a number in arithmetic: bash fails it
        "while ((" + "1" * 4400 + ")); do yes & done",  # too many digits to read: not known
    ],
)
def test_a_condition_that_ends_or_cannot_be_read_is_not(command: str, tmp_path: Path) -> None:
    assert forks(command, tmp_path) == []
