"""Mechanisms blind-tamper-7's first run missed (policies/README.md, "The blind tamper batch"): the effects they
now have, and the everyday look-alikes that keep none."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, analysed, effects

# --- `${NAME:-WORD}` whose word holds quotes or expansions: one expansion, its value unknown ---


@pytest.mark.parametrize(
    ("command", "raw"),
    [
        ('chmod 000 "${XDG_RUNTIME_DIR:-/run/user/$(id -u)}/hookd"', "${XDG_RUNTIME_DIR:-/run/user/$(id -u)}/hookd"),
        ('tee -a "${CODEX_HOME:-$HOME/.codex}/config.toml" < x', "${CODEX_HOME:-$HOME/.codex}/config.toml"),
        ('echo x > "${LOG:-"$HOME/.bashrc"}"', '${LOG:-"$HOME/.bashrc"}'),
    ],
)
def test_a_parameter_with_a_default_that_expands_is_one_unknown_expansion(
    command: str, raw: str, tmp_path: Path
) -> None:
    changed = [e for e in effects(command, tmp_path) if e["op"] in ("chmod", "write") and not e["path"]]
    assert [(e["raw"], e["fixed"]) for e in changed] == [(raw, "elsewhere")]  # was a quoted project path


def test_the_substitution_in_a_default_still_runs(tmp_path: Path) -> None:
    argv, _ = analysed('touch "${D:-$(mktemp -d)}/x"', tmp_path)
    assert ["mktemp", "-d"] in argv


def test_a_default_of_plain_words_keeps_its_reading(tmp_path: Path) -> None:
    argv, _ = analysed('echo "${X:-plain}" "$HOME/a"', tmp_path)
    assert argv == [["echo", "${X:-plain}", f"{HOME}/a"]]


# --- the variables a startup file's settings set, kept on the write for hookd.selfprotect ---


@pytest.mark.parametrize(
    ("command", "sets"),
    [
        ("echo 'export CLAUDE_CODE_SIMPLE=1' >> ~/.zshenv", {"CLAUDE_CODE_SIMPLE": "1"}),
        ("echo 'set -gx CODEX_HOME /tmp/c' >> ~/.config/fish/config.fish", {"CODEX_HOME": "/tmp/c"}),
        ("echo 'export EDITOR=\"nvim\"' >> ~/.bashrc", {"EDITOR": "nvim"}),
    ],
)
def test_a_startup_files_settings_are_kept_on_its_write(command: str, sets: dict[str, str], tmp_path: Path) -> None:
    assert [e["sets"] for e in effects(command, tmp_path) if "sets" in e] == [sets]
