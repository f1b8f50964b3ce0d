"""blind-tamper-18 (policies/README.md, "The twelfth blind tamper batch"): each mechanism through the whole hot path
with the shipped policies, or through the comparison it feeds, beside the look-alikes that stay allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.dialects.launch import unguarded_start
from hookd.dialects.registry import AGENTS
from tests.unit.test_selfprotect import keeps, shell_outcome, tool_outcome

# --- Codex's profiles: `profile = NAME` selects a table whose keys win over the top level's ---

CODEX = 'model = "gpt-5"\napproval_policy = "on-request"\n'


def _patch(path: Path, added: str) -> dict[str, str]:
    body = "".join(f"\n+{line}" for line in added.split("\n")[:-1])
    head = f"*** Begin Patch\n*** Update File: {path}\n@@\n "
    return {"command": head + CODEX.rstrip("\n") + body + "\n*** End Patch"}


@pytest.mark.parametrize(
    ("added", "kept"),
    [
        ("\n[profiles.quick.features]\nhooks = false\n", False),
        ("\n[profiles.quick]\nfeatures = { codex_hooks = false }\n", False),
        ('profile = "quick"\n[profiles.quick.features]\nhooks = false\n', False),
        ('\n[profiles.fast]\nmodel = "gpt-5-mini"\n', True),  # a profile of models: no switch
        ('\n[profiles.review]\nmodel_reasoning_effort = "high"\n[profiles.review.features]\nweb_search = true\n', True),
    ],
)
def test_a_codex_profile_is_judged_by_the_switches_it_holds(world: tuple[Path, Path], added: str, kept: bool) -> None:
    home, project = world
    path = home / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(CODEX)
    assert bool(keeps(home, project, "codex", "apply_patch", _patch(path, added))) is kept


@pytest.mark.parametrize(
    ("argv", "off"),
    [
        (["-c", "profiles.quick.features.hooks=false", "exec", "x"], True),
        (["-c", "profiles.quick.model=gpt-5-mini", "exec", "x"], False),
    ],
)
def test_a_codex_override_of_a_profiles_switch_is_unguarded(argv: list[str], off: bool, tmp_path: Path) -> None:
    assert bool(unguarded_start(AGENTS["codex"], argv, {}, {"HOME": str(tmp_path)}, str(tmp_path))) is off


@pytest.mark.parametrize(
    ("profile", "off"),
    [
        ("ci", True),  # its features table turns hooks off
        ("fast", False),  # a profile of models
        ("missing", True),  # neither a table nor a file to read: it may be written by the same line
    ],
)
def test_a_codex_profile_selected_at_start_is_judged_by_its_table(profile: str, off: bool, tmp_path: Path) -> None:
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "config.toml").write_text(
        CODEX + '\n[profiles.ci.features]\nhooks = false\n\n[profiles.fast]\nmodel = "gpt-5-mini"\n'
    )
    argv = ["--profile", profile, "exec", "x"]
    assert bool(unguarded_start(AGENTS["codex"], argv, {}, {"HOME": str(tmp_path)}, str(tmp_path))) is off


# --- os.open's flags: a write flag opens the file for writing, as open()'s "w" does ---


@pytest.mark.parametrize(
    ("line", "outcome"),
    [
        ("python3 -c \"import os; os.ftruncate(os.open('.env', os.O_WRONLY), 0)\"", "deny"),
        ("python3 -c \"import os; os.write(os.open('.env', os.O_WRONLY | os.O_APPEND), b'X=1')\"", "deny"),
        ("python3 -c \"from os import open, O_RDWR; open('.env', O_RDWR)\"", "deny"),
        ("python3 -c \"import os; os.close(os.open('.git/hooks/pre-commit', 0o1101))\"", "deny"),
        ("python3 -c \"import os; fd = os.open('logs/app.log', os.O_RDONLY); print(os.read(fd, 64))\"", "allow"),
        ("python3 -c \"import os; os.ftruncate(os.open('logs/app.log', os.O_WRONLY), 0)\"", "allow"),
    ],
)
def test_os_open_with_write_flags_is_a_write(line: str, outcome: str, world: tuple[Path, Path]) -> None:
    home, project = world
    (project / "logs").mkdir()
    (project / "logs" / "app.log").write_text("started\n")
    (project / ".env").write_text("X=0\n")
    assert shell_outcome(home, project, line) == outcome


# --- Perl's truncate and Ruby's File.truncate: the write of the file they name ---


@pytest.mark.parametrize(
    ("line", "outcome"),
    [
        ("perl -e 'truncate \"$ENV{HOME}/.local/state/hookd/decisions.log\", 0 or die $!'", "deny"),
        ("perl -e 'truncate(\".env\", 0)'", "deny"),
        ("ruby -e 'File.truncate(File.join(Dir.home, \".codex/config.toml\"), 0)'", "deny"),
        ("perl -e 'truncate \"logs/dev.log\", 0'", "allow"),
        ("ruby -e 'File.truncate(\"logs/dev.log\", 0)'", "allow"),
        ("ruby -e 'Dir.glob(\"logs/*.log\").each { |f| File.truncate(f, 0) }'", "allow"),
    ],
)
def test_an_interpreters_truncate_is_a_write(line: str, outcome: str, world: tuple[Path, Path]) -> None:
    home, project = world
    (project / "logs").mkdir()
    (project / "logs" / "dev.log").write_text("started\n")
    (project / ".env").write_text("X=0\n")
    assert shell_outcome(home, project, line) == outcome


def test_a_postrotate_signal_to_the_projects_own_pid_file_is_allowed(world: tuple[Path, Path]) -> None:
    """Line 111's look-alike where the project's path does not hold the guard's name (the corpus runner's throw-away
    directory, hookd-cases-…, does, and its lookup is judged as one of hookd: the gap note)."""
    home, project = world
    (project / ".dev-server.pid").write_text("4242\n")
    text = (
        f'{project}/logs/*.log {{\n  postrotate\n    kill -USR1 "$(cat {project}/.dev-server.pid)"\n  endscript\n}}\n'
    )
    assert (
        tool_outcome(
            home, project, "write_file", {"file_path": str(project / "ops" / "logrotate.conf"), "content": text}
        )
        == "allow"
    )
