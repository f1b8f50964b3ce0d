"""`git clean` limited to a directory below the tree it works in (hookd.enrich.effects.discards, fixes43): the
untracked files there go as `rm -r DIR` takes them, a plain delete the rules judge by its path; the whole tree, a
pattern, and ignored files (`-x`) stay what git cannot restore."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops


@pytest.fixture
def repo(proj: Path) -> Path:
    (proj / ".git").mkdir()
    (proj / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (proj / "tmp").mkdir()
    (proj / "tmp" / "out.log").write_text("x\n")
    return proj


@pytest.mark.parametrize("line", ["git clean -fd -- tmp/", "git clean -fd tmp", "git clean -f -d -- ./tmp"])
def test_a_named_directory_s_untracked_files_are_a_plain_delete(line: str, repo: Path) -> None:
    [delete] = ops(line, repo, "delete")
    assert delete["path"] == f"{repo}/tmp" and "what" not in delete


@pytest.mark.parametrize(
    "line", ["git clean -fd", "git clean -fd -- .", "git clean -fdx -- tmp", "git clean -fd -- '*.log'"]
)
def test_the_whole_tree_a_pattern_or_ignored_files_stay_a_loss(line: str, repo: Path) -> None:
    assert all(e.get("what") for e in ops(line, repo, "delete"))
