"""A stash dropped by a name known only at run time (hookd.enrich.effects.discards `_stash`): any stash, every one
where the drop repeats over a listing, is lost (`what: stashes`, asked by destructive_shell); a named stash dropped
is not judged (as a deleted branch is not)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects


def _lost(line: str, where: Path) -> list[object]:
    return [e.get("what") for e in effects(line, where) if e["op"] == "delete"]


@pytest.mark.parametrize(
    "line",
    [
        "git stash list --format=%gd | xargs -n1 git stash drop",
        "git stash list | cut -d: -f1 | xargs -I{} git stash drop {}",
        'for s in $(git stash list --format=%gd); do git stash drop "$s"; done',
        'git stash list --format=%gd | while read -r s; do git stash drop "$s"; done',
        'git stash drop "stash@{$n}"',
        "git stash drop $(git stash list --format=%gd | tail -1)",
    ],
)
def test_a_drop_of_a_stash_named_at_run_time_loses_stashes(tmp_path: Path, line: str) -> None:
    assert "stashes" in _lost(line, tmp_path)


@pytest.mark.parametrize(
    "line", ["git stash drop stash@{2}", "git stash drop 1", "git stash list", "git stash show -p stash@{0}"]
)
def test_a_named_stash_dropped_or_a_listing_loses_no_stashes(tmp_path: Path, line: str) -> None:
    assert "stashes" not in _lost(line, tmp_path)
