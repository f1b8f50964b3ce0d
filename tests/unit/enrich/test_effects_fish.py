"""fish's `-c` text read as the sh it spells (hookd.enrich.shell.fish): what it runs is judged; syntax only fish has
stays as it was (the sh parser's error asks)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from effect_support import HOME, analysed, ops

from hookd.enrich.shell.analysis import analyse_shell
from hookd.enrich.shell.fish import fish_as_sh


@pytest.mark.parametrize(
    "command",
    [
        "fish -c 'set d ~/Documents; begin; rm -rf ~/Documents; end'",
        "fish -c 'for f in (ls); rm -rf ~/Documents; end'",
        "fish -c 'if test -d src; echo ok; else; rm -rf ~/Documents; end'",
        "fish -c 'if test -d src; echo ok; else if test -d lib; rm -rf ~/Documents; end'",
        "fish -c 'test -d src; and rm -rf ~/Documents'",
        "fish -c 'echo (rm -rf ~/Documents)'",
        "fish -c 'while true; rm -rf ~/Documents; break; end'",
        "fish -c 'echo else; rm -rf ~/Documents'",  # a plain word `else` closes nothing
    ],
)
def test_a_fish_block_or_substitution_runs_what_it_holds(command: str, tmp_path: Path) -> None:
    assert f"{HOME}/Documents" in [e["path"] for e in ops(command, tmp_path, "delete")]


@pytest.mark.parametrize(
    "command",
    [
        "fish -c 'string split . (cat VERSION)'",
        "fish -c 'for f in functions/*.fish; fish_indent --check $f; end'",
        "fish -c 'math 1 + (count src/*.c)'",
        "fish -c 'if test -f Makefile; make; else; echo none; end'",
    ],
)
def test_everyday_fish_one_liners_parse_and_change_nothing_outside(command: str, tmp_path: Path) -> None:
    shell, found = analyse_shell(command, home=HOME, base_dir=str(tmp_path), project_dir=str(tmp_path))
    assert shell["parse_error"] is False
    assert not [e for e in found if e["op"] in ("write", "delete", "exec") and not e.get("known", True)]
    assert not [e for e in found if e["op"] in ("write", "delete") and e.get("class") == "unresolved"]


@pytest.mark.parametrize(
    "text",
    [
        "function f; rm -rf ~/x; end; f",  # a function: fish's own definition syntax
        "switch $x; case a; echo; end",
        "echo $PATH[1]",  # a list index
        "end",
        "if true; echo",  # a block left open
    ],
)
def test_syntax_only_fish_has_is_not_respelled(text: str) -> None:
    assert fish_as_sh(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "if test -f x; echo a; else if test -d y; echo b; else; echo c; end",
        "begin; cat a; end | wc -l",
        "echo 'it\\'s' \"a`b`\" (date)",
        "for f in *.c\n  cc -c $f\nend",
    ],
)
def test_the_respelling_is_valid_sh(text: str) -> None:
    spelled = fish_as_sh(text)
    assert spelled is not None
    assert subprocess.run(["bash", "-n", "-c", spelled], capture_output=True, timeout=10, check=False).returncode == 0


def test_double_quotes_expand_no_backticks_in_fish(tmp_path: Path) -> None:
    assert not ops("fish -c 'echo \"`rm -rf ~/Documents`\"'", tmp_path, "delete")
    assert analysed("fish -c 'echo \"`rm -rf ~/Documents`\"'", tmp_path)[0][-1][0] == "echo"
