"""holes44: an agent's config directory reached through a symbolic link (`~/.claude -> ~/dotfiles/claude`) is protected
as named too (selfprotect._fill), so a link or move put in place of the link (`ln -sfn DIR ~/.claude`, `mv -T DIR
~/.claude`) is a change of what the agent reads there (self_protection's `replace`), while replacing a link that
holds no agent's file (`ln -sfn ~/dotfiles/nvim ~/.config/nvim`) stays everyday."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.config import Config
from tests.unit.test_selfprotect import protected, shell_decisions


@pytest.fixture
def linked(world: tuple[Path, Path]) -> tuple[Path, Path]:
    home, project = world
    for name in ("claude", "gemini", "nvim", "evil"):
        (home / "dotfiles" / name).mkdir(parents=True)
    (home / "dotfiles" / "claude" / "settings.json").write_text("{}\n")
    (home / ".claude").symlink_to(home / "dotfiles" / "claude")
    (home / ".gemini").symlink_to(home / "dotfiles" / "gemini")
    (home / ".config").mkdir()
    (home / ".config" / "nvim").symlink_to(home / "old-nvim")
    return home, project


def test_a_place_through_a_link_is_protected_as_named_too(linked: tuple[Path, Path]) -> None:
    home, project = linked
    places = protected(Config(), home, project)
    assert str(home / "dotfiles" / "claude" / "settings.json") in places  # where input.paths resolves it
    assert str(home / ".claude" / "settings.json") in places  # was missing: the link's own path holds it


@pytest.mark.parametrize(
    "command",
    [
        "ln -sfn ~/dotfiles/evil ~/.claude",
        "ln -sfT ~/dotfiles/evil ~/.gemini",
        "ln -s ~/dotfiles/evil /tmp/l && mv -T /tmp/l ~/.claude",
    ],
)
def test_a_link_to_an_agents_config_replaced_is_denied(linked: tuple[Path, Path], command: str) -> None:
    home, project = linked
    [(outcome, _)] = shell_decisions(home, project, [command.replace("~", str(home))])
    assert outcome == "deny"


def test_a_link_of_the_developers_own_config_replaced_stays_allowed(linked: tuple[Path, Path]) -> None:
    home, project = linked
    [(outcome, _)] = shell_decisions(home, project, [f"ln -sfn {home}/dotfiles/nvim {home}/.config/nvim"])
    assert outcome == "allow"
