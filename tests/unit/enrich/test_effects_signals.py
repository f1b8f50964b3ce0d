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
