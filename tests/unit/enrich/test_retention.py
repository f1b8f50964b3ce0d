"""A backup tool's retention prune that keeps no history (enrich/effects/retention.py): the `delete` of a
repository's backups, `what: "backups"`, that destructive_shell's `backup-history-pruned` asks."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops


def _pruned(command: str, proj: Path) -> list[str]:
    return [str(e["name"]) for e in ops(command, proj, "delete") if e.get("what") == "backups"]


@pytest.mark.parametrize(
    "command",
    [
        "borg prune --keep-within 1H /b/repo",
        "borg prune --keep-last 1 /b/repo",
        "borg prune -d 1 /b/repo",
        "borg prune --keep-hourly=24 /b/repo",
        "restic -r /b/repo forget --keep-last 1 --prune",
        "restic --repo /b/repo forget -l 1",
        "restic -r /b/repo forget --keep-within 12h --prune",
    ],
)
def test_a_prune_keeping_only_the_newest_or_the_last_day_deletes_the_history(command: str, tmp_path: Path) -> None:
    assert _pruned(command, tmp_path) == ["/b/repo"]


@pytest.mark.parametrize(
    "command",
    [
        "borg prune --keep-daily 7 --keep-weekly 4 /b/repo",
        "borg prune --keep-within 1H --keep-monthly 6 /b/repo",
        "borg prune --dry-run --keep-last 1 /b/repo",
        "borg prune -n --keep-last 1 /b/repo",
        "restic -r /b/repo forget --keep-within 30d --prune",
        "restic -r /b/repo forget --keep-last 2",
        "restic -r /b/repo forget --keep-last 1 --keep-tag release",
        "restic -r /b/repo forget --keep-daily unlimited",
        "restic -r /b/repo snapshots",
        "borg list /b/repo",
    ],
)
def test_a_retention_over_days_or_a_rehearsal_keeps_the_history(command: str, tmp_path: Path) -> None:
    assert _pruned(command, tmp_path) == []


def test_the_repository_named_by_the_environment(tmp_path: Path) -> None:
    assert _pruned("BORG_REPO=/b/repo borg prune --keep-last 1", tmp_path) == ["/b/repo"]
