"""A D-Bus call to the service manager walked as the systemctl verb that makes it (enrich/shell/dbus_calls.py)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from effect_support import HOME, effects

from hookd.enrich.shell.dbus_calls import systemctl_calls

_MANAGER = "org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager"


@pytest.mark.parametrize(
    ("line", "command"),
    [
        (f"busctl --user call {_MANAGER} StopUnit ss hookd.service replace", "systemctl --user stop hookd.service"),
        (f"busctl call {_MANAGER} KillUnit ssi hookd.service all 19", "systemctl kill hookd.service"),
        (
            f"busctl --user call {_MANAGER} SetEnvironment as 2 A=1 LD_AUDIT=/tmp/a.so",
            "systemctl --user set-environment A=1 LD_AUDIT=/tmp/a.so",
        ),
        (
            "dbus-send --dest=org.freedesktop.systemd1 --type=method_call /org/freedesktop/systemd1 "
            "org.freedesktop.systemd1.Manager.SetUnitProperties string:app.slice boolean:true",
            "systemctl --user set-property app.slice",
        ),
        (
            "gdbus call --session --dest org.freedesktop.systemd1 --object-path "
            "/org/freedesktop/systemd1/unit/hookd_2eservice --method org.freedesktop.systemd1.Unit.Freeze",
            "systemctl --user freeze hookd.service",
        ),
    ],
)
def test_a_managers_method_is_its_systemctl_verb(line: str, command: str) -> None:
    argv = shlex.split(line)
    assert systemctl_calls(argv[0], argv) == [command.split()]


@pytest.mark.parametrize(
    "line",
    [
        f"busctl --user call {_MANAGER} ListUnits",
        "busctl --user call org.freedesktop.Notifications /org/freedesktop/Notifications "
        "org.freedesktop.Notifications Notify susssasa{sv}i app 0 '' hi '' 0 0 5000",
        "busctl --user introspect org.freedesktop.systemd1 /org/freedesktop/systemd1",
    ],
)
def test_other_calls_stand_for_no_verb(line: str) -> None:
    argv = shlex.split(line)
    assert systemctl_calls(argv[0], argv) == []


def test_the_calls_verb_has_its_effects(tmp_path: Path) -> None:
    line = f'busctl --user call {_MANAGER} SetEnvironment as 1 "LD_AUDIT=$HOME/.cache/libaudit.so"'
    later = [e for e in effects(line, tmp_path) if e["op"] == "exec" and e.get("deferred")]
    assert [e["code"]["text"] for e in later] == [f"LD_AUDIT={HOME}/.cache/libaudit.so\n"]


@pytest.mark.parametrize(
    ("line", "command"),
    [
        (
            f"busctl --user --timeout 5 call {_MANAGER} StopUnit ss hookd.service replace",
            "systemctl --user stop hookd.service",
        ),
        (
            f"busctl call --user -H me@box {_MANAGER} StopUnit ss hookd.service replace",
            "systemctl --user stop hookd.service",
        ),
        (
            f"busctl --user --expect-reply=no call {_MANAGER} StopUnit ss hookd.service replace",
            "systemctl --user stop hookd.service",
        ),
        (
            "gdbus call --session --dest=org.freedesktop.systemd1 --object-path=/org/freedesktop/systemd1 "
            "--method=org.freedesktop.systemd1.Manager.StopUnit hookd.service replace",
            "systemctl --user stop hookd.service",
        ),
        (
            "gdbus call -y -dorg.freedesktop.systemd1 -o /org/freedesktop/systemd1 -t 3 "
            "-m org.freedesktop.systemd1.Manager.Exit",
            "systemctl --user exit",
        ),
        (f"busctl call {_MANAGER} PowerOff", "systemctl poweroff"),
        (f"busctl --user call {_MANAGER} StartUnit ss exit.target replace", "systemctl --user start exit.target"),
    ],
)
def test_options_are_read_as_the_clients_parsers_read_them(line: str, command: str) -> None:
    argv = shlex.split(line)
    assert systemctl_calls(argv[0], argv) == [command.split()]


@pytest.mark.parametrize(
    ("line", "command"),
    [
        (
            f"busctl --user call -- {_MANAGER} StartTransientUnit 'ssa(sv)a(sa(sv))' t.service fail 1 ExecStart "
            "'a(sbas)' 1 /bin/sh true 3 /bin/sh -c 'rm -rf ~/Documents' 0",
            ["systemd-run", "--user", "--", "/bin/sh", "-c", "rm -rf ~/Documents"],
        ),
        (
            "gdbus call --session --dest org.freedesktop.systemd1 --object-path /org/freedesktop/systemd1 --method "
            "org.freedesktop.systemd1.Manager.StartTransientUnit t.service fail "
            "\"[('ExecStart', <[('/bin/sh', ['/bin/sh', '-c', 'rm -rf ~/Documents'], false)]>)]\" '[]'",
            ["systemd-run", "--user", "--", "/bin/sh", "-c", "rm -rf ~/Documents"],
        ),
        (
            f"busctl --user call {_MANAGER} StartTransientUnit 'ssa(sv)a(sa(sv))' t.service fail 1 Description s hi 0",
            ["systemd-run", "--user", "--", "${dbus_exec_start}"],
        ),
    ],
)
def test_a_transient_unit_runs_its_exec_start(line: str, command: list[str]) -> None:
    argv = shlex.split(line)
    assert systemctl_calls(argv[0], argv) == [command]


def test_a_transient_units_command_is_walked(tmp_path: Path) -> None:
    line = (
        f"busctl --user call -- {_MANAGER} StartTransientUnit 'ssa(sv)a(sa(sv))' t.service fail 1 ExecStart "
        "'a(sbas)' 1 /bin/sh true 3 /bin/sh -c 'rm -rf ~/Documents' 0"
    )
    deleted = [e["path"] for e in effects(line, tmp_path) if e["op"] == "delete"]
    assert deleted == [f"{HOME}/Documents"]
