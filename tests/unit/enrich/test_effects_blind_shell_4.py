"""Mechanisms blind-shell-4's first run missed (policies/README.md, "Fourth batch"): the effects they now have."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops


@pytest.mark.parametrize(
    "command", ["kill -9 -1", "kill -- -1", "kill -s KILL -1", "kill -TERM -1", "kill --signal=9 -1"]
)
def test_a_signal_to_pid_minus_one_reaches_every_process(command: str, tmp_path: Path) -> None:
    assert [(e["target"], e["match"]) for e in ops(command, tmp_path, "signal")] == [("-1", "all")]


@pytest.mark.parametrize(
    ("command", "target"), [("kill -1 1234", "1234"), ("kill -15 4321", "4321"), ("kill -9 -42", "-42")]
)
def test_the_first_number_is_the_signal_later_ones_are_pids(command: str, target: str, tmp_path: Path) -> None:
    assert [(e["target"], e["match"]) for e in ops(command, tmp_path, "signal")] == [(target, "pid")]


@pytest.mark.parametrize(
    ("command", "regex"),
    [
        ("systemctl --user stop 'hook?.service'", "^hook.$"),
        ("systemctl stop 'hoo[k]*'", "^hoo[k].*$"),
        ("systemctl kill '[!a]ookd.socket'", "^[^a]ookd$"),
        ("systemctl stop 'a.b*'", "^a\\.b.*$"),
    ],
)
def test_a_unit_glob_is_a_pattern_over_unit_names(command: str, regex: str, tmp_path: Path) -> None:
    assert [(e["target"], e["match"]) for e in ops(command, tmp_path, "signal")] == [(regex, "regex")]


def test_a_plain_unit_stays_a_unit(tmp_path: Path) -> None:
    assert [(e["target"], e["match"]) for e in ops("systemctl --user stop hookd", tmp_path, "signal")] == [
        ("hookd", "unit")
    ]


@pytest.mark.parametrize(
    "command",
    [
        "busctl call org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager PowerOff b false",
        "dbus-send --system --print-reply --dest=org.freedesktop.login1 /org/freedesktop/login1"
        " org.freedesktop.login1.Manager.Reboot boolean:true",
        "gdbus call --system --dest org.freedesktop.login1 --object-path /org/freedesktop/login1"
        " --method org.freedesktop.login1.Manager.PowerOff false",
        "qdbus --system org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager.Halt false",
    ],
)
def test_power_asked_of_logind_over_d_bus_ends_every_process(command: str, tmp_path: Path) -> None:
    assert [(e["target"], e["match"]) for e in ops(command, tmp_path, "signal")] == [("system", "power")]


@pytest.mark.parametrize(
    "command",
    [
        "busctl list",
        "busctl status org.freedesktop.login1",
        "dbus-send --session --dest=org.freedesktop.Notifications /org/freedesktop/Notifications"
        " org.freedesktop.Notifications.Notify",
    ],
)
def test_other_d_bus_calls_power_nothing(command: str, tmp_path: Path) -> None:
    assert ops(command, tmp_path, "signal") == []


@pytest.mark.parametrize(
    ("command", "path"), [("getent shadow", "/etc/shadow"), ("getent -s files gshadow adm", "/etc/gshadow")]
)
def test_getent_of_the_shadow_databases_prints_the_hashes(command: str, path: str, tmp_path: Path) -> None:
    assert [e["path"] for e in ops(command, tmp_path, "read")] == [path]


def test_getent_of_other_databases_reads_no_secret(tmp_path: Path) -> None:
    assert ops("getent passwd root; getent hosts github.com", tmp_path, "read") == []


@pytest.mark.parametrize(
    ("command", "lookup"),
    [
        ("pgrep -f hookd | xargs -r kill -9", ["hookd"]),
        ("ps aux | grep '[h]ookd' | awk '{print $2}' | xargs kill", ["aux", "[h]ookd", "{print $2}"]),
        ("kill -9 `systemctl show -p MainPID --value hookd`", ["show", "MainPID", "hookd"]),
        ("kill $(pidof hookd | tr ' ' '\\n' | head -1)", ["hookd", "\\n"]),
    ],
)
def test_a_pid_looked_up_when_the_shell_runs_carries_the_lookups_operands(
    command: str, lookup: list[str], tmp_path: Path
) -> None:
    assert [e.get("lookup") for e in ops(command, tmp_path, "signal")] == [lookup]


def test_a_pid_option_is_a_process_acted_on(tmp_path: Path) -> None:
    found = ops('prlimit --pid "$(pgrep -o hookd)" --nofile=0:0', tmp_path, "signal")
    assert [(e["program"], e["match"], e["acts"], e["lookup"]) for e in found] == [
        ("prlimit", "pid", "process", ["hookd"])
    ]
    assert [e["target"] for e in ops("choom -p 4321 -n 1000", tmp_path, "signal")] == ["4321"]


def test_a_literal_pid_and_a_launched_command_have_no_lookup(tmp_path: Path) -> None:
    assert [e.get("lookup") for e in ops("kill -15 4321", tmp_path, "signal")] == [None]
    assert ops("prlimit --nofile=1024 make -j4", tmp_path, "signal") == []


@pytest.mark.parametrize(
    "command",
    [
        "pid=$(pgrep hookd); kill -9 $pid",
        'for p in $(pgrep -f hookd); do kill -9 "$p"; done',
        'pgrep hookd | while read p; do kill -9 "$p"; done',
        "renice -n 19 -p $(pgrep hookd)",
    ],
)
def test_a_pid_kept_in_a_variable_carries_its_lookup(command: str, tmp_path: Path) -> None:
    assert ["hookd"] in [e.get("lookup") for e in ops(command, tmp_path, "signal")]
