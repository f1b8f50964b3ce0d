"""Startup files where a startup file says they are (blind-tools-22's misses, policies/README.md "Known gaps closed
(autoload50)"): zsh's files in the ZDOTDIR `~/.zshenv` sets (hookd.enrich.effects.directed, base_directories.json
`set_in`, `holds`), and the catalogue's new later-run files: lldb's `~/.lldbinit`, IRB's XDG `irbrc`
(programs.json `runs_later`). Spelled otherwise than the corpus's."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.enrich.effects.directed import directed_startup
from hookd.enrich.effects.words import may_run_at_start, startup_language, startup_languages


@pytest.mark.parametrize(
    "line",
    [
        'export ZDOTDIR="${XDG_CONFIG_HOME:-$HOME/.config}/zsh"\n',
        "ZDOTDIR=~/.config/zsh\n",
        "[[ -d $HOME/.config/zsh ]] && export ZDOTDIR=$HOME/.config/zsh\n",
    ],
)
def test_zsh_s_files_are_where_zshenv_moves_them(tmp_path: Path, line: str) -> None:
    home = str(tmp_path)
    (tmp_path / ".zshenv").write_text(line)
    rc = f"{home}/.config/zsh/.zshrc"
    assert directed_startup(rc, home)
    assert startup_language(rc, home) == "sh"
    assert startup_languages(f"{home}/.config/zsh/.zprofile", [home]) == {"sh"}
    assert may_run_at_start(rc, [home])


def test_other_files_of_that_directory_and_other_directories_are_not(tmp_path: Path) -> None:
    home = str(tmp_path)
    (tmp_path / ".zshenv").write_text("export ZDOTDIR=$HOME/.config/zsh\n")
    assert startup_language(f"{home}/.config/zsh/aliases.md", home) is None
    assert startup_language(f"{home}/dotfiles/zsh/.zshrc", home) is None


def test_no_zshenv_or_a_value_only_the_shell_knows_moves_nothing(tmp_path: Path) -> None:
    home = str(tmp_path)
    assert not directed_startup(f"{home}/.config/zsh/.zshrc", home)
    (tmp_path / ".zshenv").write_text("export ZDOTDIR=$(mktemp -d)\n")
    assert not directed_startup(f"{home}/.config/zsh/.zshrc", home)


def test_lldb_s_and_irb_s_init_files_run_later() -> None:
    assert startup_language("/home/u/.lldbinit", "/home/u") == ""
    assert startup_language("/home/u/.config/irb/irbrc", "/home/u") == ""
