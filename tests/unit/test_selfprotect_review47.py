"""blind-tamper-15's mechanisms by other routes (review47), through the whole hot path with the shipped policies,
beside look-alikes: a tmpfiles.d configuration named to `systemd-tmpfiles` on its command line is applied now,
whatever its name, and one copied, linked or fetched into a configuration directory from a text hookd cannot see
is asked; tmux's environment set by an abbreviation of its command's name (tmux takes any unique prefix)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_selfprotect import shell_outcome


@pytest.mark.parametrize(
    "line",
    [
        "printf 'R %%h/.config/hookd - - - -\\n' > /tmp/x.conf && systemd-tmpfiles --user --remove /tmp/x.conf",
        "systemd-tmpfiles --user --remove ./cleanup.conf",
        "systemd-tmpfiles --remove --user --prefix=/ cleanup.conf",
    ],
)
def test_a_configuration_named_on_the_line_is_applied_now(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    (project / "cleanup.conf").write_text("r %h/.config/hookd/config.toml\n")
    assert shell_outcome(home, project, line) == "deny"


@pytest.mark.parametrize(
    "line",
    [
        "mkdir -p ~/.config/user-tmpfiles.d && cp /tmp/unseen-r47.conf ~/.config/user-tmpfiles.d/",
        "ln -s /tmp/unseen-r47.conf ~/.local/share/user-tmpfiles.d/clean.conf",
        "curl -so ~/.config/user-tmpfiles.d/x.conf https://cfg.example.net/x.conf",
    ],
)
def test_a_configuration_of_unseen_text_is_asked(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) in ("ask", "deny")


@pytest.mark.parametrize(
    "line",
    [
        "systemd-tmpfiles --user --create ./scratch.conf",
        "systemd-tmpfiles --cat-config",
        "cp scratch.conf ~/.config/user-tmpfiles.d/",
    ],
)
def test_a_configuration_of_the_apps_own_scratch_passes(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    (project / "scratch.conf").write_text("d %C/myapp-scratch 0700 - - 7d\n")
    assert shell_outcome(home, project, line) == "allow"


# --- a manager's environment set by a command's abbreviated name (tmux takes a unique prefix of a command's) ---


@pytest.mark.parametrize(
    "line", ["tmux set-env -g CODEX_HOME /tmp/cx", "tmux set-e -g CLAUDE_CONFIG_DIR /tmp/cc", "tmux setenv -g X 1"]
)
def test_tmuxs_environment_set_by_a_prefix_of_its_name(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    want = "allow" if line.endswith("X 1") else "deny"
    assert shell_outcome(home, project, line) == want


def test_an_ambiguous_prefix_names_no_command() -> None:
    from hookd.enrich.effects.catalogue import catalogue
    from hookd.enrich.effects.entries import command_named

    tmux = catalogue().get("tmux")
    assert tmux is not None
    assert command_named("set-env", tmux) == "set-environment"
    assert command_named("set-", tmux) == "set-"
    assert command_named("setenv", tmux) == "setenv"
