"""What a git command throws away for good (hookd.enrich.effects.discards, git.json's `discards`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookd.enrich.effects.catalogue import DATA
from hookd.enrich.shell.analysis import analyse_shell

HOME = "/home/u"


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    (tmp_path / "proj" / "src").mkdir(parents=True)
    return tmp_path / "proj"


def lost(command: str, proj: Path) -> list[dict[str, Any]]:
    shell, found = analyse_shell(command, home=HOME, base_dir=str(proj), project_dir=str(proj))
    assert shell["parse_error"] is False, shell["error"]
    return [
        {k: e[k] for k in ("path", "known", "recursive", "what", "whole", "head", "ref", "url", "fixed") if k in e}
        for e in found
        if e["op"] == "delete" and "what" in e
    ]


# git's own manual; git filter-repo, which git runs from PATH as a subcommand, documents itself in its repository
_MANUALS = ("https://git-scm.com/docs/git-", "https://github.com/newren/git-filter-repo/blob/main/Documentation/")


def test_every_discard_names_its_git_scm_page() -> None:
    discards = json.loads((DATA / "git.json").read_text())["discards"]
    sources = [v for spec in discards.values() for v in _strings(spec) if v.startswith("http")]
    assert sources and all(url.startswith(_MANUALS) for url in sources)
    for spec in discards.values():
        for rule in [*spec.get("whole", ()), spec.get("pathspecs", {})]:
            assert not rule or str(rule.get("source", "")).startswith(_MANUALS)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@pytest.mark.parametrize(
    "command",
    ["git reset --hard", "git reset --har HEAD~3", "git reset -q --hard", "git -c x=y reset --hard origin/main"],
)
def test_a_hard_reset_loses_every_uncommitted_change_and_moves_the_branch(command: str, proj: Path) -> None:
    assert lost(command, proj) == [
        {"path": str(proj), "known": True, "recursive": True, "what": "uncommitted", "whole": True, "head": True}
    ]


@pytest.mark.parametrize(
    "command",
    ["git checkout -f main", "git checkout -qf main", "git checkout --forc main", "git switch --force main",
     "git switch -f main", "git switch --discard-changes main", "git checkout .", "git checkout -- .",
     "git checkout HEAD -- :/", "git checkout -- '*'", "git restore .", "git restore -SW .",
     "git restore --staged --worktree ."],
)  # fmt: skip
def test_the_whole_tree_discarded(command: str, proj: Path) -> None:
    (effect,) = lost(command, proj)
    assert effect == {"path": str(proj), "known": True, "recursive": True, "what": "uncommitted", "whole": True}


@pytest.mark.parametrize(
    "command",
    ["git status", "git commit -am x", "git checkout -b x", "git checkout -qbfeature", "git switch -c x",
     "git switch -cfeature", "git checkout main", "git switch main", "git restore --staged f", "git restore --staged .",
     "git reset --soft HEAD~1", "git reset HEAD f", "git clean -n", "git clean -ndx", "git clean -d",
     "git push origin main", "git push", "git push origin :", "git log --grep reset --hard", "git switch -- -f"],
)  # fmt: skip
def test_everyday_git_loses_nothing(command: str, proj: Path) -> None:
    assert lost(command, proj) == []


def test_named_files_and_directories_are_their_own_paths(proj: Path) -> None:
    src = str(proj / "src")
    assert lost("git checkout main a.txt src/", proj) == [
        {"path": str(proj / "a.txt"), "known": True, "recursive": False, "what": "uncommitted", "whole": False},
        {"path": src, "known": True, "recursive": True, "what": "uncommitted", "whole": False},
    ]
    assert lost("git restore src/app.py", proj)[0]["path"] == src + "/app.py"
    assert lost("git restore src", proj)[0]["recursive"] is True
    assert lost("git checkout -- 'src/*.py'", proj)[0] == {
        "path": src,
        "known": True,
        "recursive": True,
        "what": "uncommitted",
        "whole": False,
    }


def test_the_directory_the_command_works_in(proj: Path) -> None:
    """`cd src && git checkout .` and `git -C src checkout .` take src whole; `..` from src takes the project."""
    src = str(proj / "src")
    assert lost("cd src && git checkout .", proj)[0]["path"] == src
    assert lost("git -C src checkout .", proj)[0]["path"] == src
    assert lost("git -C src switch -f main", proj)[0]["path"] == src
    (up,) = lost("cd src && git checkout ..", proj)
    assert up["path"] == str(proj) and up["whole"] is True


def test_a_pathspec_built_at_run_time_stays_in_the_work_tree(proj: Path) -> None:
    (effect,) = lost('git checkout -- "$f"', proj)
    assert effect["known"] is False and effect["fixed"] == "project"
    (effect,) = lost("git checkout HEAD --pathspec-from-file=paths.txt", proj)
    assert effect["known"] is False and effect["fixed"] == "project"


def test_clean_widens_with_its_options(proj: Path) -> None:
    assert [e["what"] for e in lost("git clean -f", proj)] == ["untracked"]
    assert [e["what"] for e in lost("git clean -fd", proj)] == ["untracked-trees"]
    assert [e["what"] for e in lost("git clean -f -x", proj)] == ["ignored"]
    assert [e["what"] for e in lost("git clean --forc -dX", proj)] == ["ignored"]
    assert [e["what"] for e in lost("git -c clean.requireForce=false clean -dx", proj)] == ["ignored"]
    assert lost("git clean -fd build", proj)[0]["path"] == str(proj / "build")


@pytest.mark.parametrize(
    ("command", "ref"),
    [("git push --force origin main", "main"), ("git push -uf origin main", "main"), ("git push origin +main", "main"),
     ("git push -f origin HEAD:refs/heads/release/2", "release/2"), ("git push -f origin HEAD", ""),
     ("git push --force", ""), ("git push --force-with-lease=main:abc origin main", "main"),
     ("git push -o ci.skip -f origin main", "main"), ("git push --mirror origin", "*"),
     ("git push --force --all origin", "*")],
)  # fmt: skip
def test_a_forced_push_loses_the_remote_branch_history(command: str, ref: str, proj: Path) -> None:
    (effect,) = lost(command, proj)
    assert effect["what"] == "history" and effect["ref"] == ref and effect["path"] == ""


def test_a_push_deleting_a_branch(proj: Path) -> None:
    assert [(e["what"], e["ref"]) for e in lost("git push origin --delete main x", proj)] == [
        ("branch", "main"),
        ("branch", "x"),
    ]
    assert [(e["what"], e["ref"]) for e in lost("git push origin :master", proj)] == [("branch", "master")]
    assert lost("git push origin main:feature", proj) == []


def test_an_alias_given_for_the_command_is_what_runs(proj: Path) -> None:
    (reset,) = lost("git -c alias.nuke='reset --har' nuke", proj)
    assert reset["what"] == "uncommitted" and reset["head"] is True
    assert lost("git -c alias.co=checkout co .", proj)[0]["whole"] is True
    assert lost("git -c alias.st=status st", proj) == []


def test_an_alias_the_line_configured_is_what_a_later_git_command_runs(proj: Path) -> None:
    (push,) = lost("git config alias.sync 'push --force origin HEAD:main' && git sync", proj)
    assert push["what"] == "history" and push["ref"] == "main"
    (reset,) = lost("git config --global alias.nuke 'reset --hard' ; git nuke", proj)
    assert reset["what"] == "uncommitted"
    assert lost("git config alias.nuke 'reset --hard' && git config --unset alias.nuke && git nuke", proj) == []
    assert lost("git config alias.st 'status -sb' && git st", proj) == []
