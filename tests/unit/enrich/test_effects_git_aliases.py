"""gitfix41 (the review's 5th finding): an alias of the configuration files git reads hid a discard
(`git config alias.wipe 'reset --hard'`, allowed, then `git wipe`). A subcommand git does not have is the alias
its name has in the repository's config, the home's `~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`, or a file
they include: judged as what it stands for; `!…` as the shell command it is. Repositories built by the real git."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hookd.enrich.effects import gitaliases
from hookd.enrich.shell.analysis import analyse_shell

_GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "HOME": os.devnull, "PATH": os.defpath}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, env=_GIT_ENV,
                   check=True, capture_output=True, timeout=60)  # fmt: skip


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    """A home, and a clean repository in it (nothing a discard there would lose)."""
    home, repo = tmp_path / "home", tmp_path / "home" / "repo"
    repo.mkdir(parents=True)
    (repo / "a.txt").write_text("a")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "init")
    return home, repo


def _effects(line: str, home: Path, repo: Path) -> list[dict[str, Any]]:
    return analyse_shell(line, home=str(home), base_dir=str(repo), project_dir=str(repo))[1]


def _lost(line: str, home: Path, repo: Path) -> list[Any]:
    return [e.get("what") for e in _effects(line, home, repo) if e["op"] == "delete"]


def test_an_alias_of_the_repositorys_config_is_judged_as_what_it_stands_for(world: tuple[Path, Path]) -> None:
    home, repo = world
    (repo / "notes.md").write_text("untracked: lost to a clean")
    _git(repo, "config", "alias.wipe", "clean -f")
    assert _lost("git wipe", home, repo) == ["untracked"]  # was nothing: `wipe` is no subcommand hookd knows
    _git(repo, "config", "alias.tidy", "!git clean -f")
    assert _lost("git tidy", home, repo) == ["untracked"]  # a shell command, walked as one
    assert _lost("git status", home, repo) == []


@pytest.mark.parametrize("where", [".gitconfig", ".config/git/config", "included"])
def test_an_alias_of_the_homes_config_or_an_include_is_judged(world: tuple[Path, Path], where: str) -> None:
    home, repo = world
    text = '[alias]\n\twipe = "reset --hard" ; a comment\n'
    if where == "included":
        (home / "aliases.inc").write_text(text)
        text = "[include]\n\tpath = ~/aliases.inc\n"
        where = ".gitconfig"
    (home / where).parent.mkdir(parents=True, exist_ok=True)
    (home / where).write_text(text)
    assert _lost("git wipe origin/main", home, repo) == ["uncommitted"]


def test_an_alias_naming_another_alias_is_followed(world: tuple[Path, Path]) -> None:
    home, repo = world
    _git(repo, "config", "alias.a", "b")
    _git(repo, "config", "alias.b", "restore --source=HEAD~0 .")
    assert _lost("git a", home, repo) == ["uncommitted"]


def test_a_configuration_not_read_whole_is_code_not_known(
    world: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    home, repo = world
    (home / ".gitconfig").write_text("[user]\n\tname = x\n")
    monkeypatch.setattr(gitaliases, "MAX_TEXT", 4)
    execs = [e for e in _effects("git wipe", home, repo) if e["op"] == "exec"]
    assert execs and execs[0]["known"] is False


def test_an_alias_of_a_command_git_has_is_ignored_as_git_ignores_it(world: tuple[Path, Path]) -> None:
    home, repo = world
    _git(repo, "config", "alias.status", "reset --hard")
    assert _lost("git status", home, repo) == []
