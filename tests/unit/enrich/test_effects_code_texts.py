"""Code texts hookd now reads rather than asks about (blind-shell-4's everyday calls): a makefile given to
`make --eval` (its recipes and `$(shell …)` are shell), vim's own buffer edits and writes, and code that reads
only the environment's names."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, ops


def _execs(command: str, proj: Path) -> list[tuple[str, bool]]:
    return [(e["code"]["lang"], e["known"]) for e in ops(command, proj, "exec")]


def test_a_make_eval_rule_that_prints_a_variable_is_known(tmp_path: Path) -> None:
    assert _execs("make -s --eval 'print-%: ; @echo $*=$($*)' print-CFLAGS", tmp_path) == [("make", True)]


@pytest.mark.parametrize(
    "command",
    [
        "make --eval 'x: ; rm -rf $(HOME)/Documents' x",
        "make --eval 'X := $(shell rm -rf ~/Documents)'",
        "make --eval $'x:\\n\\t@rm -rf ~/Documents' x",
    ],
)
def test_a_make_eval_recipe_or_shell_call_is_walked_as_shell(command: str, tmp_path: Path) -> None:
    assert [(e["path"], e["recursive"]) for e in ops(command, tmp_path, "delete")] == [(f"{HOME}/Documents", True)]


@pytest.mark.parametrize("text", ["$(file >~/.bashrc,x)", "include /tmp/x.mk", "SHELL := /tmp/sh", "$(eval $(X))"])
def test_make_text_that_writes_includes_or_changes_the_shell_is_not_known(text: str, tmp_path: Path) -> None:
    assert _execs(f"make --eval '{text}'", tmp_path) == [("make", False)]


@pytest.mark.parametrize("edits", ["-c 's/a/b/g' -c wq", "-c '%s/a/b/g' -c 'wq!'", "-c 'retab | update' -c x"])
def test_vim_buffer_edits_and_a_write_of_the_file_are_known(edits: str, tmp_path: Path) -> None:
    assert all(known for _, known in _execs(f"vim -es {edits} src/app.py", tmp_path))


@pytest.mark.parametrize("edits", ["-c 'w /tmp/x'", "-c 's/a/b/|!id'", "-c 'set shell=/tmp/sh'", "-c 'r !id'"])
def test_vim_writes_elsewhere_shell_escapes_and_options_stay_unknown(edits: str, tmp_path: Path) -> None:
    assert not all(known for _, known in _execs(f"vim -es {edits} -c q src/app.py", tmp_path))


@pytest.mark.parametrize(
    "code",
    [
        "node -e 'console.log(Object.keys(process.env).length)'",
        "python3 -c 'import os; print(sorted(os.environ))'",
        "python3 -c 'import os; print(len(os.environ))'",
    ],
)
def test_code_reading_only_the_environments_names_prints_no_value(code: str, tmp_path: Path) -> None:
    assert [e for e in ops(code, tmp_path, "read") if e["path"] == "/proc/self/environ"] == []


def test_code_printing_the_environment_still_reads_it(tmp_path: Path) -> None:
    reads = ops("node -e 'console.log(JSON.stringify(process.env))'", tmp_path, "read")
    assert [e["path"] for e in reads] == ["/proc/self/environ"]
