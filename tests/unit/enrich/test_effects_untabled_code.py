"""Code handed to a program whose entry says nothing of where it takes code (blind-shell-4's second group): an
interpreter with no option table given `-c`/`-Command`, a program GTFOBins knows runs commands fed a text on
stdin, an output "file" that is a pipe into a command, a string of Python that is code, cmake's tool mode."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from effect_support import HOME, ops


def _deletes(command: str, proj: Path) -> list[tuple[str, bool]]:
    return [(e["path"], e["recursive"]) for e in ops(command, proj, "delete")]


@pytest.mark.parametrize(
    "command",
    ["pwsh -NoProfile -c 'Remove-Item -Recurse ~/x'", "pwsh -NoProfile -Command 'Get-ChildItem'", "pwsh -c x"],
)
def test_code_given_to_an_interpreter_with_no_option_table_is_unknown(command: str, tmp_path: Path) -> None:
    assert [(e["code"]["lang"], e["known"]) for e in ops(command, tmp_path, "exec")] == [("powershell", False)]


@pytest.mark.parametrize("command", ["echo '!rm -rf ~/Documents' | debugfs"])
def test_stdin_of_a_program_that_runs_commands_is_its_code_and_bang_lines_are_shell(
    command: str, tmp_path: Path
) -> None:
    execs = ops(command, tmp_path, "exec")
    assert execs and execs[0]["known"] is False
    assert _deletes(command, tmp_path) == [(f"{HOME}/Documents", True)]


@pytest.mark.parametrize(
    "command",
    ["strace -o '|rm -rf ~/Documents' true", "ltrace -o '|rm -rf ~/Documents' ls", "foo --log=|'rm -rf ~/Documents'"],
)
def test_an_output_file_that_pipes_into_a_command_runs_it(command: str, tmp_path: Path) -> None:
    assert _deletes(command, tmp_path) == [(f"{HOME}/Documents", True)]


@pytest.mark.parametrize(
    "call",
    [
        "code.InteractiveInterpreter().runsource(S)",
        "timeit.timeit(S, number=1)",
        "cProfile.run(S)",
    ],
)
def test_a_python_string_that_is_code_is_judged_as_that_code(call: str, tmp_path: Path) -> None:
    body = "S = \"import shutil; shutil.rmtree('/home/u/Documents')\"; " + call
    assert _deletes(f"python3 -c {shlex.quote(body)}", tmp_path) == [(f"{HOME}/Documents", True)]


def test_a_python_string_that_is_text_stays_text(tmp_path: Path) -> None:
    assert ops("python3 -c 'print(\"see rmtree(x) in the docs\")'", tmp_path, "delete") == []


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("cmake -E rm -rf ~/Documents", [(f"{HOME}/Documents", True)]),
        ("cmake -E remove_directory ~/Documents", [(f"{HOME}/Documents", True)]),
        ("cmake -E rm build/x.o", [("{proj}/build/x.o", False)]),
    ],
)
def test_cmake_tool_mode_deletes_as_rm_does(command: str, expected: list[tuple[str, bool]], tmp_path: Path) -> None:
    assert _deletes(command, tmp_path) == [(p.format(proj=tmp_path), r) for p, r in expected]


def test_cmake_script_on_stdin_is_unknown_code(tmp_path: Path) -> None:
    execs = ops("cmake -P /dev/stdin <<< 'execute_process(COMMAND id)'", tmp_path, "exec")
    assert [(e["code"]["lang"], e["known"]) for e in execs] == [("cmake", False)]


def test_cmake_configure_and_build_do_nothing_judged(tmp_path: Path) -> None:
    assert ops("cmake -S . -B build && cmake --build build -j4", tmp_path, "exec") == []
