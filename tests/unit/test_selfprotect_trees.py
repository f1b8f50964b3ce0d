"""Where an agent on the line starts (selfprotect_trees.start_dirs): the directory the shell's analysis gives each
command (`cwd`), so `env -C DIR`, `sudo -D DIR` and launchers in front are followed as `cd DIR` is."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.enrich.shell.analysis import analyse_shell
from hookd.selfprotect_trees import start_dirs, started_in_written, written_trees
from tests.unit.test_selfprotect import shell_outcome

HOME = "/home/u"
PROJECT = "/home/u/proj"


def _agent_start(line: str) -> str:
    """Why the last command of `line` (an agent) reads settings the line wrote; '' when it does not."""
    shell, effects = analyse_shell(line, home=HOME, base_dir=PROJECT, project_dir=PROJECT)
    trees = written_trees(effects, PROJECT)
    return started_in_written(start_dirs(shell["commands"], PROJECT)[-1], trees)


@pytest.mark.parametrize(
    "line",
    [
        "git clone https://x.example/t ~/t && env -C ~/t claude -p hi",
        "git clone https://x.example/t ~/t && env --chdir=/home/u/t/sub claude -p hi",
        "git clone https://x.example/t ~/t && sudo -D ~/t claude -p hi",
        "git clone https://x.example/t ~/t && sudo -u dev --chdir ~/t nice -n 5 gemini -p hi",
        "git clone https://x.example/t ~/t && nice -n 5 env -C ~/t codex exec hi",
        "git clone https://x.example/t ~/t && (cd ~/t && nohup claude -p hi)",
        "git clone https://x.example/t ~/t && cd ~/t && claude -p hi",
    ],
)
def test_an_agent_started_in_the_written_tree_by_any_launcher_is_found(line: str) -> None:
    assert "/home/u/t" in _agent_start(line)


@pytest.mark.parametrize(
    "line",
    [
        "git clone https://x.example/t ~/t && env -C /tmp claude -p hi",
        "git clone https://x.example/t ~/t && (cd ~/t && make) && claude -p hi",  # the subshell's cd ends there
        "git clone https://x.example/t ~/t && sudo -u dev claude -p hi",
    ],
)
def test_an_agent_started_elsewhere_is_not(line: str) -> None:
    assert _agent_start(line) == ""


def test_the_shell_gives_each_command_its_directory() -> None:
    line = "env -C /srv/a ls && cd /srv/b && ls && sudo -D /srv/c true"
    shell, _ = analyse_shell(line, home=HOME, base_dir=PROJECT, project_dir=PROJECT)
    assert [c.get("cwd", PROJECT) for c in shell["commands"]] == ["/srv/a", PROJECT, "/srv/b", "/srv/c"]


def test_a_clone_entered_with_env_dash_c_is_denied(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "proj").mkdir()
    line = "git clone -q https://github.com/example-org/tooling ~/t && env -C ~/t claude -p 'run the setup'"
    assert shell_outcome(tmp_path / "home", tmp_path / "proj", line) == "deny"
