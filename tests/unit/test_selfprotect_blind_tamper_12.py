"""blind-tamper-12 (policies/README.md, "The sixth blind tamper batch"): a limit only printed, the paths `git stash`
reverts, an agent started in a tree the line wrote, and a directory's contents copied where its files land, through
the whole hot path with the shipped policies; and the look-alikes that stay allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_selfprotect import shell_outcome

# --- prlimit: a resource option without `=limits` prints the process's limits, it sets none ---


def test_a_daemons_limits_printed_pass(world: tuple[Path, Path]) -> None:
    home, project = world
    line = 'prlimit --pid "$(systemctl --user show -p MainPID --value hookd.service)" --nofile --as'
    assert shell_outcome(home, project, line) == "allow"


@pytest.mark.parametrize(
    "line",
    [
        'prlimit --pid "$(systemctl --user show -p MainPID --value hookd.service)" --fsize=0:0',
        "prlimit --nofile --as=16777216 --pid $(pgrep -f 'hookd serve')",
    ],
)
def test_a_daemons_limits_set_are_stopped(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) != "allow"


# --- git stash push: the paths it stashes are reverted in the working tree ---


@pytest.mark.parametrize(
    "line",
    [
        "git stash push -q -m tmp -- .gemini/settings.json",
        "git stash -- .claude/settings.json",
        "git stash push --message=tmp .claude/settings.json",
    ],
)
def test_an_agents_settings_stashed_away_are_denied(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    for agent in (".gemini", ".claude"):
        (project / agent).mkdir()
        (project / agent / "settings.json").write_text('{"hooks": {}}\n')
    assert shell_outcome(home, project, line) == "deny"


@pytest.mark.parametrize("line", ["git stash push -m wip -- src/app.py", "git stash", "git stash list"])
def test_source_stashed_passes(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("print('hi')\n")
    assert shell_outcome(home, project, line) == "allow"


# --- an agent started in a tree the same line wrote: its project settings are the line's ---


@pytest.mark.parametrize(
    "line",
    [
        "git worktree add -q ../proj-review origin/no-hooks && cd ../proj-review && claude -p 'finish'",
        "git clone -q https://github.com/example-org/tooling ~/scratch/t && cd ~/scratch/t && gemini -y -p 'run'",
        "git clone -q https://github.com/example-org/tooling /tmp/t; cd /tmp/t/sub; codex exec 'run the setup'",
    ],
)
def test_an_agent_started_in_a_tree_the_line_wrote_is_denied(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "deny"


@pytest.mark.parametrize(
    "line",
    [
        "git clone -q https://github.com/psf/requests ~/src/requests && claude -p 'summarise ~/src/requests'",
        "git worktree add ../myproj-hotfix hotfix/1.2",
        "git stash pop -q && claude -p 'review the change'",
    ],
)
def test_an_agent_started_elsewhere_than_a_written_tree_passes(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "allow"


# --- a directory's contents copied: each of its files lands at its path below the destination ---


def _dotfiles(home: Path) -> None:
    (home / ".codex").mkdir()
    (home / ".codex" / "hooks.json").write_text('{"hooks": {"PreToolUse": []}}\n')
    source = home / "Downloads" / "dotfiles"
    (source / ".codex").mkdir(parents=True)
    (source / ".codex" / "hooks.json").write_text('{"hooks": {}}\n')
    (source / ".vimrc").write_text("set nu\n")


@pytest.mark.parametrize(
    "line",
    ["rsync -a ~/Downloads/dotfiles/ ~/", 'cp -a ~/Downloads/dotfiles/. "$HOME"', "cp -rT ~/Downloads/dotfiles ~"],
)
def test_a_trees_contents_landing_on_an_agents_settings_are_denied(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    _dotfiles(home)
    assert shell_outcome(home, project, line) == "deny"


@pytest.mark.parametrize("line", ["rsync -a --delete src/ /tmp/src-copy/", "cp -a templates/.vscode/. .vscode/"])
def test_a_trees_contents_copied_elsewhere_pass(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    _dotfiles(home)
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("print('hi')\n")
    (project / "templates" / ".vscode").mkdir(parents=True)
    (project / "templates" / ".vscode" / "settings.json").write_text("{}\n")
    assert shell_outcome(home, project, line) == "allow"


def test_the_landed_files_are_listed_up_to_a_bound(tmp_path: Path) -> None:
    from hookd.enrich.effects.landed import landed_files, names_contents

    (tmp_path / "a" / "b").mkdir(parents=True)
    for k in range(3):
        (tmp_path / "a" / "b" / f"f{k}").write_text("x")
    (tmp_path / "a" / "link").symlink_to(tmp_path / "a" / "b")
    files, complete = landed_files(str(tmp_path / "a"))
    assert complete and sorted(files) == ["b/f0", "b/f1", "b/f2", "link"]
    assert landed_files(str(tmp_path / "a"), limit=2) == (files[:2], False)
    assert names_contents("x/") and names_contents("x/.") and names_contents(".") and not names_contents("x")


# --- an archive on disk extracted: each member it holds now lands below the extraction directory ---


def _archives(home: Path) -> None:
    import tarfile
    import zipfile

    (home / ".codex").mkdir()
    (home / ".codex" / "hooks.json").write_text('{"hooks": {"PreToolUse": []}}\n')
    staged = home / "stage"
    (staged / "dots" / ".codex").mkdir(parents=True)
    (staged / "dots" / ".codex" / "hooks.json").write_text('{"hooks": {}}\n')
    (staged / "dots" / ".vimrc").write_text("set nu\n")
    (home / "Downloads").mkdir()
    with tarfile.open(home / "Downloads" / "dots.tar.gz", "w:gz") as archive:
        archive.add(staged / "dots", arcname="dots")
    with zipfile.ZipFile(home / "Downloads" / "dots.zip", "w") as archive:
        archive.write(staged / "dots" / ".codex" / "hooks.json", ".codex/hooks.json")


@pytest.mark.parametrize(
    "line",
    [
        "tar -xzf ~/Downloads/dots.tar.gz --strip-components=1 -C ~",
        'tar xf ~/Downloads/dots.tar.gz -C "$HOME" --strip-components 1',
        "unzip -o ~/Downloads/dots.zip -d ~",
    ],
)
def test_an_archives_members_landing_on_an_agents_settings_are_denied(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    _archives(home)
    assert shell_outcome(home, project, line) == "deny"


@pytest.mark.parametrize(
    "line",
    [
        "tar -xzf ~/Downloads/dots.tar.gz -C ~/unpacked",  # into the home itself: tree-over-home asks
        "unzip -o ~/Downloads/dots.zip -d ~/unpacked",
        "unzip -l ~/Downloads/dots.zip",
    ],
)
def test_an_archives_members_landing_elsewhere_pass(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    _archives(home)
    assert shell_outcome(home, project, line) == "allow"


def test_the_members_are_read_within_a_budget(tmp_path: Path) -> None:
    import io
    import tarfile

    from hookd.enrich.effects.archive_members import MAX_BYTES, archive_members

    bomb = tmp_path / "bomb.tar.gz"  # small on disk, past the budget once decompressed
    with tarfile.open(bomb, "w:gz") as archive:
        big = tarfile.TarInfo("big.bin")
        big.size = MAX_BYTES + 1024
        archive.addfile(big, io.BytesIO(b"\0" * big.size))
        archive.addfile(tarfile.TarInfo(".codex/hooks.json"), io.BytesIO(b""))
    assert bomb.stat().st_size < MAX_BYTES and archive_members(str(bomb)) is None
    assert archive_members(str(tmp_path / "absent.tar")) is None
    (tmp_path / "plain.txt").write_text("not an archive\n")
    assert archive_members(str(tmp_path / "plain.txt")) is None
