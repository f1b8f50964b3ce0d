"""gitidx40 (policies/README.md, "git discards by what they lose (gitidx40)"): a discard whose repository, read
from git's own files (the index, HEAD's tree in the object store, loose or packed: hookd.enrich.effects.worktree,
gitstore), holds nothing it would lose is no loss. What is staged counts (review40: `git add f && git reset
--hard` was allowed by gaps38's reading of the work tree alone), and so does a change a command before the discard
on the line may make (the disk does not show it yet). Each repository is built by the real `git`."""

from __future__ import annotations

import os
import subprocess
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from effect_support import effects

from hookd.enrich.effects import gitstore, worktree
from hookd.enrich.effects.worktree import Unknown, nothing_uncommitted, tracked

TempPaths = pytest.TempPathFactory
_GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "HOME": os.devnull, "PATH": os.defpath}


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, env=_GIT_ENV,
                          check=True, capture_output=True, timeout=60, text=True)  # fmt: skip
    return done.stdout.strip()


def _age(repo: Path) -> None:
    """Every work-tree file written well before the index (none racily clean)."""
    old = time.time() - 120
    for path in repo.rglob("*"):
        if ".git" not in path.parts and path.is_file():
            os.utime(path, (old, old))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with two committed files, its index written after them."""
    (tmp_path / "src").mkdir()
    for name in ("a.txt", "src/b.py"):
        (tmp_path / name).write_text(name)
    _age(tmp_path)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "init")
    return tmp_path


def _lost(line: str, where: Path) -> list[Any]:
    return [e.get("what") for e in effects(line, where) if e["op"] == "delete"]


_DISCARDS = ["git reset --hard", "git restore .", "git checkout -- .", "git switch --discard-changes main",
             "git checkout -f", "git restore src", "git checkout -- a.txt", "git restore src/b.py"]  # fmt: skip


@pytest.mark.parametrize("line", _DISCARDS)
def test_a_clean_repository_loses_nothing_to_a_discard(repo: Path, line: str) -> None:
    assert _lost(line, repo) == []  # was a delete of uncommitted work, asked


@pytest.mark.parametrize(
    "line",
    [
        "git fetch && git reset --hard origin/main",
        "git clean -fdx",
        "git fetch origin main:refs/remotes/origin/main && git reset --hard",
        "git fetch --prune --depth 1 origin && git reset --hard",
    ],
)
def test_a_fetch_changes_nothing_a_later_discard_loses(repo: Path, line: str) -> None:
    assert _lost(line, repo) == []


@pytest.mark.parametrize(
    "line",
    [
        "git fetch --update-head-ok . other:main && git reset --hard",
        "git fetch -u . other:main; git restore .",
        "git fetch --update-h . other:main && git reset --hard",  # an abbreviation git accepts
        "git fetch -qu . other && git reset --hard",  # a cluster
        "git fetch . other:main && git reset --hard",  # a refspec into a local branch: maybe the one checked out
        "git fetch origin +refs/heads/x:refs/heads/main && git reset --hard",
    ],
)
def test_a_fetch_that_may_move_head_keeps_a_later_discard_a_loss(repo: Path, line: str) -> None:
    """gitfix41 (the review's 2nd finding): `-u` lets fetch move the branch checked out; the reset then makes the
    work tree that commit's, over untracked files of its names."""
    assert _lost(line, repo)


def test_a_staged_change_is_lost_though_the_disk_matches_the_index(repo: Path) -> None:
    (repo / "a.txt").write_text("edited and staged")
    _git(repo, "add", "a.txt")
    _age(repo)
    assert _lost("git reset --hard", repo) == ["uncommitted"]
    assert _lost("git restore -SW .", repo) == ["uncommitted"]
    assert _lost("git restore src", repo) == []  # the staged file is not below the tree restored


def test_an_unstaged_change_of_the_same_size_and_time_is_found_by_its_content(repo: Path) -> None:
    """gitfix41 (the review's 4th finding): a same-size edit whose mtime `touch -d` put back still changed the
    file's ctime, which git compares (and the inode, device, owner, group): the content settles it."""
    stamp = (repo / "a.txt").stat().st_mtime
    (repo / "a.txt").write_text("A.TXT")  # as long as before
    os.utime(repo / "a.txt", (stamp, stamp))
    index = (repo / ".git" / "index").stat().st_mtime
    os.utime(repo / ".git" / "index", (index, index))
    assert _lost("git checkout -- .", repo) == ["uncommitted"]  # was []: size and mtime were all hookd compared
    os.utime(repo / "a.txt", (stamp + 0.5, stamp + 0.5))
    assert _lost("git checkout -- .", repo) == ["uncommitted"]
    (repo / "a.txt").write_text("a.txt")
    os.utime(repo / "a.txt", (stamp, stamp))
    assert _lost("git checkout -- .", repo) == []  # touched, and the same content


def test_stat_data_that_all_matches_settles_a_file_unread(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def unread(*_: object) -> bytes:
        raise Unknown("hashed")  # a loss: the discard would show it

    monkeypatch.setattr(worktree, "_content", unread)
    assert _lost("git restore .", repo) == []
    os.chmod(repo / "a.txt", 0o644)  # the status-change time moves: the stat data no longer settles it
    assert _lost("git restore .", repo) == ["uncommitted"]  # (the content would be read: unknown here)


def test_one_changed_file_is_lost_to_its_own_restore_only(repo: Path) -> None:
    (repo / "src" / "b.py").write_text("edited")
    assert _lost("git checkout -- src/b.py", repo) == ["uncommitted"]
    assert _lost("git checkout -- a.txt", repo) == []
    assert _lost("git checkout -- ':(icase)A.TXT'", repo) == ["uncommitted"]  # magic: matches what it does not spell


def test_a_file_changed_in_the_indexs_own_second_is_read(repo: Path) -> None:
    index = (repo / ".git" / "index").stat().st_mtime
    (repo / "a.txt").write_text("a.tx!")
    os.utime(repo / "a.txt", (index, index))
    assert _lost("git reset --hard", repo) == ["uncommitted"]


def test_a_deleted_or_retyped_file_is_a_loss(repo: Path) -> None:
    (repo / "a.txt").unlink()
    assert _lost("git reset --hard", repo) == ["uncommitted"]
    (repo / "a.txt").symlink_to("src")
    assert _lost("git reset --hard", repo) == ["uncommitted"]


def test_objects_packed_by_gc_and_deltified_trees_are_read(repo: Path) -> None:
    for k in range(30):  # many versions of a large tree: gc stores most as deltas of another
        for n in range(40):
            (repo / "src" / f"m{n}.py").write_text(f"{n}\n")
        (repo / "src" / f"v{k}.py").write_text(str(k))
        _git(repo, "add", ".")
        _git(repo, "commit", "-qm", str(k))
    _git(repo, "gc", "-q", "--aggressive")
    assert not list((repo / ".git" / "objects").glob("??/*"))  # every object in a pack
    assert "delta" in _git(repo, "verify-pack", "-v", *map(str, (repo / ".git" / "objects" / "pack").glob("*.idx")))
    _age(repo)
    assert _lost("git reset --hard", repo) == []
    _git(repo, "rm", "-q", "--cached", "src/v3.py")
    assert _lost("git reset --hard", repo) == ["uncommitted"]  # staged: HEAD's packed tree still has it


def test_a_tree_stored_as_a_delta_is_rebuilt_and_its_chain_bounded(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(60):
        (repo / "src" / f"m{n}.py").write_text(f"{n}\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "many")
    _git(repo, "rm", "-q", "src/m7.py")  # HEAD's tree is now the smaller one: packed as a delta of the larger
    _git(repo, "commit", "-qm", "fewer")
    _git(repo, "gc", "-q")
    src = _git(repo, "rev-parse", "HEAD:src")
    packed = _git(repo, "verify-pack", "-v", *map(str, (repo / ".git" / "objects" / "pack").glob("*.idx")))
    assert any(line.startswith(src) and len(line.split()) == 7 for line in packed.splitlines())  # a delta
    _age(repo)
    assert _lost("git reset --hard", repo) == []
    monkeypatch.setattr(gitstore, "MAX_DEPTH", 0)
    assert _lost("git reset --hard", repo) == ["uncommitted"]  # past the chain's bound: unknown
    monkeypatch.undo()
    monkeypatch.setattr(gitstore, "MAX_INFLATED", 1000)
    assert _lost("git reset --hard", repo) == ["uncommitted"]


def test_a_corrupt_object_is_unknown(repo: Path) -> None:
    tree = _git(repo, "rev-parse", "HEAD^{tree}")
    path = repo / ".git" / "objects" / tree[:2] / tree[2:]
    path.chmod(0o644)
    path.write_bytes(zlib.compress(b"tree 5\0junk!"))
    assert _lost("git reset --hard", repo) == ["uncommitted"]
    with pytest.raises(Unknown):
        nothing_uncommitted(str(repo), str(repo / ".git"), str(repo))


def test_an_oversized_or_unread_index_is_unknown(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(worktree, "MAX_INDEX", 64)
    assert _lost("git reset --hard", repo) == ["uncommitted"]
    monkeypatch.undo()
    index = repo / ".git" / "index"
    data = bytearray(index.read_bytes())
    data[20] ^= 1  # the checksum no longer matches
    index.write_bytes(bytes(data))
    with pytest.raises(Unknown):
        tracked(str(repo / ".git"))
    assert _lost("git reset --hard", repo) == ["uncommitted"]


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_each_index_version_is_read(repo: Path, version: str) -> None:
    _git(repo, "update-index", "--index-version", version)
    assert sorted(tracked(str(repo / ".git"))) == ["a.txt", "src/b.py"]
    _age(repo)
    assert _lost("git reset --hard", repo) == []


def test_a_split_index_is_unknown(repo: Path) -> None:
    _git(repo, "update-index", "--split-index")
    assert _lost("git reset --hard", repo) == ["uncommitted"]


def test_a_conflict_is_unknown(repo: Path) -> None:
    _git(repo, "checkout", "-qb", "other")
    (repo / "a.txt").write_text("theirs")
    _git(repo, "commit", "-qam", "theirs")
    _git(repo, "checkout", "-q", "-")
    (repo / "a.txt").write_text("ours")
    _git(repo, "commit", "-qam", "ours")
    with pytest.raises(subprocess.CalledProcessError):
        _git(repo, "merge", "-q", "other")
    with pytest.raises(Unknown):
        tracked(str(repo / ".git"))
    assert _lost("git reset --hard", repo) == ["uncommitted"]


@pytest.mark.parametrize(
    "line",
    [
        "git add a.txt && git reset --hard",  # staged by the line itself
        "echo x > a.txt; git restore a.txt",
        "git stash pop; git checkout .",
        "sh -c 'git add .' && git reset --hard",
        "mytool sync && git reset --hard",  # a program whose effects are not modelled
        "git checkout other && git reset --hard",
        "git checkout other -- . && git clean -fd",
    ],
)
def test_a_change_made_before_the_discard_on_the_line_keeps_it_a_loss(repo: Path, line: str) -> None:
    (repo / "notes.md").write_text("mine")  # untracked: what `git add .` would stage
    _age(repo)
    assert _lost(line, repo)


@pytest.mark.parametrize(
    "line",
    [
        "while true; do git reset --hard; git stash pop; done",  # the next turn's reset follows this turn's pop
        "for i in 1 2; do git restore .; git apply p$i.diff; done",
        "git reset --hard & git stash pop",  # alongside: the pop may come first
        "git reset --hard | git stash pop",
        "watch -n1 'git reset --hard; git stash pop'",  # a script handed on, run again and again
        "xargs -n1 sh -c 'git checkout -- .; git stash pop' < list",
    ],
)
def test_a_discard_that_may_run_after_a_later_change_keeps_it_a_loss(repo: Path, line: str) -> None:
    assert _lost(line, repo)


def test_a_line_run_in_order_is_judged_by_what_comes_before(repo: Path) -> None:
    assert _lost("(git reset --hard HEAD) && python app.py && touch b", repo) == []
    assert _lost("while true; do git reset --hard; done", repo) == []  # alone on its line
    assert _lost("while true; do git reset --hard; sleep 1; done", repo)  # the next turn's reset: after a wait


@pytest.mark.parametrize(
    "line",
    [
        "sleep 900; git reset --hard",
        "read -r answer; git restore .",
        "cat a.txt; git restore .",  # a file may be a FIFO, held open by another process
        "timeout 5 true && git reset --hard",  # a wrapper: `flock`, `timeout`, `nice` may wait
        "f() { sleep 60; }; f; git reset --hard",
        ": < a.txt; git reset --hard",  # a redirection opens a file
        "< a.txt; git reset --hard",
        "./echo done; git reset --hard",  # a program of the project's, named as a builtin
        "git status && tail -f log.txt; git checkout -- .",
    ],
)
def test_a_command_that_may_wait_before_the_discard_keeps_it_a_loss(repo: Path, line: str) -> None:
    """gitfix41 (the review's 3rd finding): the repository is judged now, the discard runs after the wait, when the
    person may have edited files; only a builtin that returns at once keeps the reading good."""
    assert _lost(line, repo)


@pytest.mark.parametrize(
    "line", ["git status && git diff && git reset --hard", "echo start; cd src && pwd; export X=1; git restore ."]
)
def test_reading_before_the_discard_keeps_it_read_on_disk(repo: Path, line: str) -> None:
    assert _lost(line, repo) == []


def test_an_untracked_file_is_lost_to_clean_and_overwritten_by_another_commit(repo: Path) -> None:
    (repo / "notes.md").write_text("mine")
    assert _lost("git clean -f", repo) == ["untracked"]
    assert _lost("git clean -f src", repo) == []
    assert _lost("git reset --hard", repo) == []  # onto HEAD, whose files do not name it
    assert _lost("git reset --hard origin/main", repo) == ["uncommitted"]  # another commit may hold notes.md


@pytest.mark.parametrize(
    "line",
    [
        "GIT_WORK_TREE=/srv/site git reset --hard",
        "git -c core.worktree=/srv/site reset --hard",
        "git --git-dir=other/.git reset --hard",
    ],
)
def test_a_repository_the_line_moves_stays_a_loss(repo: Path, line: str) -> None:
    assert _lost(line, repo)


def test_a_linked_worktree_or_alternates_or_sha256_is_unknown(repo: Path, tmp_path_factory: TempPaths) -> None:
    linked = tmp_path_factory.mktemp("linked") / "w"
    _git(repo, "worktree", "add", "-q", str(linked))
    assert _lost("git reset --hard", linked) == ["uncommitted"]
    (repo / ".git" / "objects" / "info" / "alternates").write_text("/elsewhere/objects\n")
    assert _lost("git reset --hard", repo) == ["uncommitted"]
    sha256 = tmp_path_factory.mktemp("sha256")
    _git(sha256, "init", "-q", "--object-format=sha256")
    assert _lost("git reset --hard", sha256) == ["uncommitted"]


@pytest.mark.parametrize(
    "setting", ["core.worktree=/srv/site", "include.path=../other.cfg", "core.sparseCheckout=true"]
)
def test_a_configuration_that_moves_or_hides_the_work_tree_is_unknown(repo: Path, setting: str) -> None:
    _git(repo, "config", *setting.split("="))
    assert _lost("git reset --hard", repo) == ["uncommitted"]


def test_a_replaced_commit_is_unknown(repo: Path) -> None:
    (repo / "a.txt").write_text("other")
    _git(repo, "commit", "-qam", "other")
    _git(repo, "replace", "HEAD", "HEAD~1")  # git now reads HEAD as its parent, whose tree differs
    _git(repo, "reset", "-q", "--soft", "HEAD")
    assert _lost("git reset --hard", repo) == ["uncommitted"]


def test_an_index_file_linked_out_of_the_repository_is_unknown(repo: Path, tmp_path_factory: TempPaths) -> None:
    outside = tmp_path_factory.mktemp("out") / "index"
    (repo / ".git" / "index").rename(outside)
    (repo / ".git" / "index").symlink_to(outside)
    assert _lost("git reset --hard", repo) == ["uncommitted"]


def test_a_new_repository_with_no_commit_and_no_index_loses_nothing(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    (tmp_path / "draft.txt").write_text("untracked")
    assert _lost("git reset --hard", tmp_path) == []  # onto HEAD: untracked files stay
    assert _lost("git fetch && git reset --hard origin/main", tmp_path) == ["uncommitted"]


def test_outside_a_repository_the_discard_stays_a_loss(tmp_path: Path) -> None:
    assert _lost("git reset --hard", tmp_path) == ["uncommitted"]


def test_files_made_racy_are_hashed_only_up_to_a_bound(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file touched after the index was written is read whole to be compared: the bytes one judgement hashes
    together are bounded, past which the discard is a loss (unknown), whatever the files hold."""
    future = time.time() + 60
    for name in ("a.txt", "src/b.py"):
        os.utime(repo / name, (future, future))
    assert _lost("git reset --hard", repo) == []  # the same content: hashed, nothing lost
    monkeypatch.setattr(worktree, "MAX_HASHED_TOTAL", len("a.txt"))
    assert _lost("git reset --hard", repo) == ["uncommitted"]
    monkeypatch.setattr(worktree, "MAX_HASHED_TOTAL", 1 << 20)
    monkeypatch.setattr(worktree, "MAX_HASHED_FILES", 1)  # gitfix41: 20,000 small files cost a second to hash
    assert _lost("git reset --hard", repo) == ["uncommitted"]


def test_a_line_repeating_a_discard_reads_the_repository_once(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """gitfix41 (the review's 1st finding): `git restore .` sixteen times cost sixteen readings on the event loop."""
    reads: list[str] = []
    real = worktree.tracked

    def counted(git_dir: str, limit: int = worktree.MAX_ENTRIES) -> dict[str, Any]:
        reads.append(git_dir)
        return real(git_dir, limit)

    monkeypatch.setattr(worktree, "tracked", counted)
    assert _lost("; ".join(["git restore ."] * 16), repo) == []
    assert len(reads) == 1


def test_the_readings_of_one_line_are_bounded(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [f"f{n}.txt" for n in range(worktree.MAX_READINGS + 1)]
    for name in files:
        (repo / name).write_text(name)
    _age(repo)
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "more")
    line = "; ".join(f"git restore {name}" for name in files)
    assert _lost(line, repo) == ["uncommitted"]  # the last restore, past the bound: a loss
    assert _lost("; ".join(f"git restore {name}" for name in files[:-1]), repo) == []
    monkeypatch.setattr(worktree, "MAX_LINE_WORK", 2 * len(files))  # the index's entries and HEAD's files, no more
    assert _lost("git restore .", repo) == ["uncommitted"]


def test_a_pack_index_is_searched_where_it_lies_not_read_whole(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """gitfix41: a 53 MiB `.idx` read whole and made a list of names cost 1 s and 406 MiB; the lookup now reads the
    fanout entry and the pages of a binary search, and the packs consulted are bounded in number and size."""
    _git(repo, "gc", "-q")
    real = gitstore.read_inside

    def no_index_read(git_dir: str, relative: str, limit: int = gitstore.MAX_FILE) -> bytes | None:
        assert not relative.endswith(".idx"), relative
        return real(git_dir, relative, limit)

    monkeypatch.setattr(gitstore, "read_inside", no_index_read)
    assert _lost("git reset --hard", repo) == []
    pack = repo / ".git" / "objects" / "pack"
    (idx,) = pack.glob("*.idx")
    monkeypatch.setattr(gitstore, "MAX_IDX_TOTAL", idx.stat().st_size - 1)
    assert _lost("git reset --hard", repo) == ["uncommitted"]
    monkeypatch.setattr(gitstore, "MAX_IDX_TOTAL", 1 << 30)
    for n in range(gitstore.MAX_IDX_FILES):
        (pack / f"pack-{n:040x}.idx").write_bytes(idx.read_bytes())
    assert _lost("git reset --hard", repo) == ["uncommitted"]


def test_a_packed_ref_is_found_by_its_whole_line(tmp_path: Path) -> None:
    git_dir = tmp_path / ".git"
    git_dir.mkdir()
    lines = ["# pack-refs with: peeled fully-peeled sorted", f"{'a' * 40} refs/heads/xrefs/heads/main",
             f"{'b' * 40} refs/heads/main", f"^{'c' * 40}", f"{'d' * 40} refs/tags/v1"]  # fmt: skip
    (git_dir / "packed-refs").write_text("\n".join(lines) + "\n")
    assert gitstore._packed_ref(str(git_dir), "refs/heads/main") == bytes.fromhex("b" * 40)
    assert gitstore._packed_ref(str(git_dir), "refs/tags/v1") == bytes.fromhex("d" * 40)
    assert gitstore._packed_ref(str(git_dir), "refs/heads/other") is None


def test_a_packed_refs_past_its_bound_is_unknown(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _git(repo, "pack-refs", "--all")
    assert _lost("git reset --hard", repo) == []
    monkeypatch.setattr(gitstore, "MAX_PACKED_REFS", 8)
    assert _lost("git reset --hard", repo) == ["uncommitted"]
