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
