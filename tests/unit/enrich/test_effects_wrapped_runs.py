"""A launcher inside what xargs runs, and the redirections of a command `env -C` moves (lead40): the command a
launcher runs is judged whether or not the items xargs reads are known, and a redirection is opened where the shell
is, not in the directory the command runs in."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, ops


@pytest.mark.parametrize(
    "command",
    [
        "cat list.txt | xargs nice rm -rf",
        "cat list.txt | xargs -I{} nice rm -rf {}",
        "cat list.txt | xargs -0 timeout 5 rm -rf",
        "cat list.txt | xargs -I % env -C ~ rm -rf %",
        "xargs -a list.txt --replace ionice -c3 rm -rf {}",
    ],
)
def test_a_launcher_xargs_runs_is_peeled_when_its_items_are_unknown(command: str, tmp_path: Path) -> None:
    assert [(e["program"], e["known"], e["recursive"]) for e in ops(command, tmp_path, "delete")] == [
        ("rm", False, True)
    ]


def test_items_that_are_the_command_stay_a_command_built_at_run_time(tmp_path: Path) -> None:
    assert [e["known"] for e in ops("cat cmds.txt | xargs -0 nice", tmp_path, "exec")] == [False]


@pytest.mark.parametrize(
    ("command", "op", "path"),
    [
        ("env -C /tmp cat payload > .claude/settings.json", "write", "{proj}/.claude/settings.json"),
        ("env --chdir=/tmp printf x >> .git/hooks/pre-commit", "write", "{proj}/.git/hooks/pre-commit"),
        ("xargs -I{} env -C ~ rm -rf {} < list.txt", "read", "{proj}/list.txt"),
        ("env -C ~ cat < .env", "read", "{proj}/.env"),
    ],
)
def test_a_redirection_is_opened_where_the_shell_is(command: str, op: str, path: str, tmp_path: Path) -> None:
    assert path.format(proj=tmp_path) in [e["path"] for e in ops(command, tmp_path, op)]


def test_the_moved_command_still_runs_in_its_directory(tmp_path: Path) -> None:
    assert [e["path"] for e in ops("env -C ~ rm -rf Documents > /dev/null", tmp_path, "delete")] == [
        f"{HOME}/Documents"
    ]
