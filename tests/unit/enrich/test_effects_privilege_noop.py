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
