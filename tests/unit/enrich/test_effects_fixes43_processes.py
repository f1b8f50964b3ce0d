"""Signals and programs on PATH (fixes43, blind-tamper-14's gaps): a pid read off `/proc` is any process's; a
signal from node, perl or ruby inline code is the `kill` it is, its pid a file's text when the code reads one; a link
or a move onto an existing link to a file replaces that link, not the file it points at."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from effect_support import ops

from hookd.enrich.effects.processes import EVERY_NAME
from hookd.enrich.shell.analysis import analyse_shell


@pytest.mark.parametrize(
    "line",
    [
        'for p in /proc/[0-9]*; do grep -qa hookd "$p/cmdline" && kill -STOP "${p#/proc/}"; done',
        'for d in /proc/*/; do pid=$(basename "$d"); grep -q hookd "$d/cmdline" && kill -9 "$pid"; done',
    ],
)
def test_a_pid_off_the_process_table_is_any_process(line: str, proj: Path) -> None:
    # (a loop over a glob is walked again with its values not known: state44's choices.uncertain)
    assert any(EVERY_NAME in signal["lookup"] for signal in ops(line, proj, "signal"))


def test_a_pid_file_s_pid_looks_up_that_file(proj: Path) -> None:
    [signal] = ops("kill $(cat .dev-server.pid)", proj, "signal")
    assert EVERY_NAME not in signal.get("lookup", [])


@pytest.mark.parametrize(
    ("line", "pid"),
    [
        (
            "node -e \"process.kill(Number(require('fs').readFileSync('.dev.pid','utf8')), 'SIGTERM')\"",
            "$(cat .dev.pid)",
        ),
        ("ruby -e 'Process.kill(:TERM, File.read(\"tmp/server.pid\").to_i)'", "$(cat tmp/server.pid)"),
        ("node -e 'process.kill(4242)'", "4242"),
    ],
)
def test_inline_code_s_signal_is_the_kill_it_sends(line: str, pid: str, proj: Path) -> None:
    [signal] = ops(line, proj, "signal")
    assert signal["target"] == pid
    assert all(e["known"] for e in ops(line, proj, "exec"))


def test_perl_s_kill_of_an_argument_is_a_kill_of_a_pid_not_known(proj: Path) -> None:
    [signal] = ops("perl -e 'kill 0, $ARGV[0] or die \"gone\\n\"' 42", proj, "signal")
    assert signal["target"] == "${inline_pid}"


def test_a_link_onto_a_link_replaces_the_link(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".local/bin").mkdir(parents=True)
    (home / "versions").mkdir()
    (home / "versions/2").write_text("x")
    os.symlink(home / "versions/2", home / ".local/bin/claude")
    line = "ln -sfn ~/versions/1 ~/.local/bin/claude"
    found = analyse_shell(line, home=str(home), base_dir=str(tmp_path), project_dir=str(tmp_path))[1]
    assert [e["path"] for e in found if e["op"] == "write"] == [f"{home}/.local/bin/claude"]
    assert any(e.get("startup") == f"{home}/.local/bin/claude" for e in found)
