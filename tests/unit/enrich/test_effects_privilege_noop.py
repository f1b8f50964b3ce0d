"""gaps38 (policies/README.md, "Known gaps closed (gaps38)"): a command that does nothing with the privileges it
runs with (a program whose words are never files nor code, given options only) is no use of them
(hookd.enrich.effects.beyond.changes_nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops


@pytest.mark.parametrize(
    "line",
    [
        "sudo -n true 2>/dev/null && echo ok || echo no",
        "sudo true",
        "sudo id -u",
        "doas whoami",
        "sudo -n -l",
        "sudo -ll",
        "sudo -u root -l",
        "sudo --list",
        "sudo -k",
        "sudo -K",  # sudo's own modes
    ],
)
def test_a_privileged_command_that_does_nothing_uses_no_privilege(line: str, tmp_path: Path) -> None:
    assert not ops(line, tmp_path, "privilege")  # was a privilege effect, asked as every sudo is


@pytest.mark.parametrize(
    "line",
    [
        "sudo hostname build-box",
        "sudo rm -rf build",
        "sudo -n true && sudo rm -rf build",
        "sudo env",
        "sudo -s",
        "sudo -k rm -rf build",
        "sudo -u root -s",
        "sudo -h",  # -k with a command runs it; -h may name a host
    ],
)
def test_a_privileged_command_that_may_change_something_stays_privileged(line: str, tmp_path: Path) -> None:
    assert ops(line, tmp_path, "privilege")


@pytest.mark.parametrize(
    "line",
    [
        "sudo -pl bash -c id",  # -p's value is "l", no list mode
        "sudo -pVerify sh -c id",
        "sudo -gplugdev bash -c id",
        "sudo -pl -s",
        "sudo -p l -s",
        "sudo -ul bash -c id",
        "sudo -cl bash -c id",  # -c: a login class, BSD
        "sudo --prompt -l bash -c id",  # --prompt takes the next word
        "sudo --pro -l bash",  # a long option's unique prefix takes its value too
        "sudo --nosuch -l bash",  # an option sudo does not know: not read further
    ],
)
def test_a_valued_options_value_is_no_sudo_mode(line: str, tmp_path: Path) -> None:
    assert ops(line, tmp_path, "privilege")  # was no privilege: each letter of the value read as a mode


@pytest.mark.parametrize("line", ["sudo -nl", "sudo -p pw -l", "sudo --li", "sudo -u root --list", "sudo -lU bob"])
def test_sudo_modes_read_by_its_option_table_run_nothing(line: str, tmp_path: Path) -> None:
    assert not ops(line, tmp_path, "privilege")
