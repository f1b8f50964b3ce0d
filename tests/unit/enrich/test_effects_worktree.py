"""gaps38 (policies/README.md, "Known gaps closed (gaps38)"): a `git clean` whose tree, read as it is on disk (the
index's entries against the files, hookd.enrich.effects.worktree), holds no untracked file is no loss. A reset,
restore, checkout or switch stays a discard whatever the disk shows: it also loses what is staged, which only git's
object store tells (review40: `git add f && git reset --hard` was allowed)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from effect_support import effects

from hookd.enrich.effects.worktree import Unknown, tracked

_GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "HOME": os.devnull, "PATH": os.defpath}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, env=_GIT_ENV, check=True,
                   capture_output=True, timeout=30)  # fmt: skip


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with two committed files, written long before its index (not racily clean)."""
    (tmp_path / "src").mkdir()
    old = time.time() - 120
    for name in ("a.txt", "src/b.py"):
        (tmp_path / name).write_text(name)
        os.utime(tmp_path / name, (old, old))
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "init")
    return tmp_path


def _lost(line: str, where: Path) -> list[Any]:
    return [e.get("what") for e in effects(line, where) if e["op"] == "delete"]


def test_a_clean_work_tree_loses_nothing_to_clean(repo: Path) -> None:
    assert _lost("git clean -fdx", repo) == []  # was a delete of untracked work, denied or asked


@pytest.mark.parametrize(
    "line", ["git reset --hard", "git fetch && git reset --hard origin/main", "git restore .", "git checkout -- ."]
)
def test_a_reset_or_restore_stays_a_discard_however_clean_the_disk(repo: Path, line: str) -> None:
    assert _lost(line, repo) == ["uncommitted"]


def test_a_staged_change_is_lost_to_a_reset_though_the_disk_matches_the_index(repo: Path) -> None:
    (repo / "a.txt").write_text("edited and staged")
    _git(repo, "add", "a.txt")
    assert _lost("git reset --hard", repo) == ["uncommitted"]
    assert _lost("git restore -SW .", repo) == ["uncommitted"]


def test_an_untracked_file_is_lost_to_clean(repo: Path) -> None:
    (repo / "notes.md").write_text("mine")
    assert _lost("git clean -f", repo) == ["untracked"]
    assert _lost("git clean -f src", repo) == []


def test_a_file_changed_in_the_indexs_own_second_counts_as_changed(repo: Path) -> None:
    index = (repo / ".git" / "index").stat().st_mtime
    os.utime(repo / "a.txt", (index, index))
    assert _lost("git reset --hard", repo) == ["uncommitted"]


@pytest.mark.parametrize(
    "line",
    [
        "git stash pop && git reset --hard",  # a stash put back, then thrown away
        "GIT_WORK_TREE=/srv/site git reset --hard",
        "git -c core.worktree=/srv/site reset --hard",
        "git --git-dir=other/.git reset --hard",
    ],
)
def test_a_tree_the_disk_does_not_show_stays_a_loss(repo: Path, line: str) -> None:
    assert _lost(line, repo)


def test_outside_a_repository_the_discard_stays_a_loss(tmp_path: Path) -> None:
    assert _lost("git reset --hard", tmp_path) == ["uncommitted"]


def test_an_index_it_cannot_read_is_unknown(repo: Path) -> None:
    (repo / ".git" / "index").write_bytes(b"DIRC\x00\x00\x00\x04\x00\x00\x00\x01")  # version 4: not read
    with pytest.raises(Unknown):
        tracked(str(repo / ".git"))
    assert _lost("git reset --hard", repo) == ["uncommitted"]
