"""Shell state a line sets up for its later commands: aliases and `hash -p` names, `${x@P}` (a value
expanded as a prompt, its substitutions run) and text held on a descriptor for a later `<&N`."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import analysed, ops


def _deleted(command: str, proj: Path) -> list[str]:
    return [e["path"] for e in ops(command, proj, "delete")]


@pytest.mark.parametrize(
    "command",
    [
        "shopt -s expand_aliases\nalias wipe='rm -rf'\nwipe ~/Documents",
        "alias wipe='rm -r -f --'; wipe ~/Documents",
        "alias wipe='rm -rf' tidy='ls'; tidy; wipe ~/Documents",
        "hash -p /bin/rm ls; ls -rf ~/Documents",
        "hash -p /usr/bin/rm ll la; la -rf ~/Documents",
        "BASH_ALIASES[w]='rm -rf'; w ~/Documents",
        "BASH_CMDS[ls]=/bin/rm; ls -rf ~/Documents",
    ],
)
def test_a_name_the_line_rebinds_runs_what_it_was_bound_to(command: str, tmp_path: Path) -> None:
    assert _deleted(command, tmp_path) == ["/home/u/Documents"]


def test_an_alias_with_shell_syntax_runs_with_the_words_after_it(tmp_path: Path) -> None:
    assert "/home/u/Documents" in _deleted("alias w='cd ~;'; w rm -rf Documents", tmp_path)


def test_an_everyday_alias_keeps_its_meaning(tmp_path: Path) -> None:
    argvs, found = analysed("alias ll='ls -la'; ll src", tmp_path)
    assert ["ls", "-la", "src"] in argvs
    assert [e["op"] for e in found] == ["list"]


@pytest.mark.parametrize(
    "command",
    [
        "x='$(rm -rf ~/Documents)'; echo \"${x@P}\"",
        "p='`rm -rf ~/Documents`'; printf '%s' \"${p@P}\"",
    ],
)
def test_a_prompt_expansion_runs_the_substitutions_in_the_value(command: str, tmp_path: Path) -> None:
    assert _deleted(command, tmp_path) == ["/home/u/Documents"]


def test_a_prompt_expansion_of_a_value_not_on_the_line_is_built_at_run_time(tmp_path: Path) -> None:
    assert [(e["known"], e["built"]) for e in ops('echo "${PS1@P}"', tmp_path, "exec")] == [(False, True)]


def test_a_plain_value_expanded_as_a_prompt_runs_nothing(tmp_path: Path) -> None:
    assert ops("x='build ok'; echo \"${x@P}\"", tmp_path, "exec") == []


@pytest.mark.parametrize(
    "command",
    [
        "exec 3<<<'rm -rf ~/Documents'; bash <&3",
        "exec 7<<EOF\nrm -rf ~/Documents\nEOF\nsh 0<&7",
        "exec {fd}<<<'rm -rf ~/Documents'; bash <&$fd",
        "printf 'rm -rf ~/Documents' > /tmp/x.sh; exec 3< /tmp/x.sh; bash <&3",
    ],
)
def test_text_held_on_a_descriptor_is_the_script_of_a_shell_reading_it(command: str, tmp_path: Path) -> None:
    assert _deleted(command, tmp_path) == ["/home/u/Documents"]


def test_a_descriptor_duplicated_with_nothing_held_is_no_script(tmp_path: Path) -> None:
    argvs, _ = analysed("exec 3<&0; cat <&3", tmp_path)
    assert argvs[-1] == ["cat"]
