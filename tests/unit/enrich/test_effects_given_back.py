"""Files given back to the user the line runs as (`sudo chown -R "$USER" .` after a root build left them root-owned):
their owner changes are marked `owner: caller`, and where they are is the policy's to judge
(hookd.enrich.effects.beyond.given_back; policies/destructive_shell, `_given_back`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects


def owners(command: str, project: Path) -> list[tuple[str, str, str | None]]:
    return [(e["path"], e["class"], e.get("owner")) for e in effects(command, project) if e["op"] == "chmod"]


@pytest.mark.parametrize(
    "command",
    [
        'sudo chown -R "$USER:$USER" .',
        'sudo chown -R "$(id -u):$(id -g)" .',
        "sudo chown -R `whoami` .",
        "sudo chown -R ${LOGNAME}: .",
        "sudo chgrp -R $(id -gn) .",
        "sudo chown -R :$USER .",
    ],
)
def test_an_owner_that_is_the_caller_gives_the_files_back(command: str, tmp_path: Path) -> None:
    assert owners(command, tmp_path) == [(str(tmp_path), "project-root", "caller")]


@pytest.mark.parametrize(
    "command",
    [
        "sudo chown -R root:root .",  # taken over
        "sudo chown -RL $USER .",  # links to directories elsewhere followed
        "sudo chown -R -H $USER .",
        "sudo chown --from=root $USER .",
        "sudo chown --reference=/etc/shadow .",
        "sudo chown $USER:root .",  # a group that is not the caller's
        "sudo chown : .",
    ],
)
def test_any_other_owner_or_a_walk_through_links_does_not(command: str, tmp_path: Path) -> None:
    assert [owner for _, _, owner in owners(command, tmp_path)] == [None]


def test_a_link_is_judged_where_it_points(tmp_path: Path) -> None:
    (tmp_path / "shadow").symlink_to("/etc/shadow")
    assert owners("sudo chown $USER shadow", tmp_path) == [("/etc/shadow", "system", "caller")]


@pytest.mark.parametrize(
    ("mode", "kept"),
    [
        ("u+w", True), ("755", True), ("0755", True), ("a+rX", True), ("go-w", True), ("+x", True),
        ("u=rwx,go=rx", True), ("a-w", False), ("u-w", False), ("555", False),
        ("000", False), ("a-r", False), ("u-x", False), ("644", False), ("777", False), ("o+w", False),
        ("g+w", False), ("+w", False), ("4755", False), ("=rwx", False), ("u=rw", False),
    ],
)  # fmt: skip
def test_a_mode_keeps_access_when_the_owner_still_reads_and_enters_and_no_one_else_may_write(
    mode: str, kept: bool, tmp_path: Path
) -> None:
    found = [e for e in effects(f"chmod -R {mode} .", tmp_path) if e["op"] == "chmod"]
    assert [e.get("keeps_access", False) for e in found] == [kept]
