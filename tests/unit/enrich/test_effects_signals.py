"""A service manager's subcommand that stops every unit it runs is a signal to every process
(enrich/effects/signals.py, programs.json `stop_all`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects


def _signals(line: str, tmp_path: Path) -> list[tuple[str, str]]:
    return [(e["target"], e["match"]) for e in effects(line, tmp_path) if e["op"] == "signal"]


@pytest.mark.parametrize(
    "line",
    [
        "systemctl --user exit",
        "systemctl --user isolate basic.target",
        "systemctl --user rescue",
        "loginctl terminate-user root",
        "loginctl kill-session 3",
        "supervisorctl stop all",
        "supervisorctl shutdown",
    ],
)
def test_stopping_every_unit_signals_every_process(line: str, tmp_path: Path) -> None:
    assert _signals(line, tmp_path) == [("", "all")]


@pytest.mark.parametrize(
    ("line", "signalled"),
    [
        ("systemctl --user stop myapp", [("myapp", "unit")]),
        ("supervisorctl restart web", [("web", "unit")]),
        ("systemctl --user status", []),
        ("loginctl list-sessions", []),
        ("supervisorctl status all", []),
        ("systemctl soft-reboot", [("system", "power")]),
    ],
)
def test_other_subcommands_keep_their_targets(line: str, signalled: list[tuple[str, str]], tmp_path: Path) -> None:
    assert _signals(line, tmp_path) == signalled


@pytest.mark.parametrize(
    "line",
    [
        "systemctl --user start exit.target",
        "systemctl start poweroff.target",
        "systemctl --user restart rescue.target",
        "systemctl --user start --job-mode=isolate default.target",
        "systemctl --user start --job-mode isolate basic.target",
        "supervisorctl signal KILL all",
    ],
)
def test_starting_a_unit_that_ends_every_other_signals_every_process(line: str, tmp_path: Path) -> None:
    assert _signals(line, tmp_path) == [("", "all")]


@pytest.mark.parametrize(
    "line", ["systemctl --user start devserver", "systemctl --user status poweroff.target", "systemctl list-jobs"]
)
def test_other_starts_and_reads_signal_nothing(line: str, tmp_path: Path) -> None:
    assert _signals(line, tmp_path) == []
