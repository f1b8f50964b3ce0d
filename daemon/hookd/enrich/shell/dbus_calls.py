"""A D-Bus call to the service manager is the systemctl verb that makes the same call: `busctl --user call
org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager StopUnit ss hookd.service
replace` is `systemctl --user stop hookd.service`, and is walked as that command (runners.spawned), so what the
verb does (a unit stopped, the manager's environment set) is judged as itself.

The methods and their verbs are org.freedesktop.systemd1(5)'s
(https://www.freedesktop.org/software/systemd/man/latest/org.freedesktop.systemd1.html): the Manager's methods
take the unit's name (or unit files, or environment assignments) as their first argument; a Unit object's
methods (`/org/freedesktop/systemd1/unit/hookd_2eservice`, its name escaped with `_XX` hex) act on that unit.
The clients: busctl(1) (`call SERVICE OBJECT INTERFACE METHOD [SIGNATURE [ARGUMENT…]]`, the system bus unless
`--user`), dbus-send(1) (`--dest=SERVICE OBJECT INTERFACE.METHOD TYPE:VALUE…`, the session bus unless
`--system`), gdbus(1) (`call --dest SERVICE --object-path OBJECT --method INTERFACE.METHOD ARG…`)."""

from __future__ import annotations

import re

_SERVICE = "org.freedesktop.systemd1"
_MANAGER = "org.freedesktop.systemd1.Manager"
_UNIT = "org.freedesktop.systemd1.Unit"
_UNIT_OBJECT = "/org/freedesktop/systemd1/unit/"
# method -> the systemctl verb that calls it
_MANAGER_VERBS = {
    "StopUnit": "stop", "RestartUnit": "restart", "TryRestartUnit": "try-restart",
    "ReloadOrRestartUnit": "reload-or-restart", "ReloadOrTryRestartUnit": "try-reload-or-restart",
    "KillUnit": "kill", "QueueSignalUnit": "kill", "FreezeUnit": "freeze", "CleanUnit": "clean",
    "SetUnitProperties": "set-property", "DisableUnitFiles": "disable", "DisableUnitFilesWithFlags": "disable",
    "MaskUnitFiles": "mask", "LinkUnitFiles": "link", "RevertUnitFiles": "revert",
    "SetEnvironment": "set-environment", "UnsetAndSetEnvironment": "set-environment",
}  # fmt: skip
_UNIT_VERBS = {
    "Stop": "stop", "Restart": "restart", "TryRestart": "try-restart", "ReloadOrRestart": "reload-or-restart",
    "Kill": "kill", "QueueSignal": "kill", "Freeze": "freeze", "Clean": "clean", "SetProperties": "set-property",
}  # fmt: skip
CLIENTS = frozenset({"busctl", "dbus-send", "gdbus"})
_ESCAPED = re.compile(r"_([0-9a-fA-F]{2})")
_TYPED = re.compile(r"^(?:array:|dict:[a-z]+:)?(?:string|objpath|[a-z0-9]+):")


def systemctl_calls(name: str, argv: list[str]) -> list[list[str]]:
    """The systemctl command lines `argv` (a D-Bus client's) stands for: none when it calls nothing of the
    service manager's that changes a unit or its environment."""
    call = _busctl(argv) if name == "busctl" else _dbus_send(argv) if name == "dbus-send" else _gdbus(argv)
    if call is None:
        return []
    user, obj, member, args = call
    interface, _, method = member.rpartition(".")
    scope = ["--user"] if user else []
    if interface in ("", _MANAGER) and method in _MANAGER_VERBS:
        verb = _MANAGER_VERBS[method]
        many = verb in ("disable", "mask", "link", "revert", "set-environment")
        words = [a for a in args if verb != "set-environment" or "=" in a]
        return [["systemctl", *scope, verb, *(words if many else words[:1])]] if words else []
    if interface in ("", _UNIT) and method in _UNIT_VERBS and obj.startswith(_UNIT_OBJECT):
        unit = _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), obj[len(_UNIT_OBJECT) :])
        return [["systemctl", *scope, _UNIT_VERBS[method], unit]]
    return []


def _busctl(argv: list[str]) -> tuple[bool, str, str, list[str]] | None:
    words = [w for w in argv[1:] if not w.startswith("-")]
    if len(words) < 5 or words[0] != "call" or words[1] != _SERVICE:
        return None
    obj, interface, method = words[2], words[3], words[4]
    return "--user" in argv, obj, f"{interface}.{method}", _values(words[6:]) if len(words) > 5 else []


def _values(words: list[str]) -> list[str]:
    """busctl's arguments after the signature: an array's count is not a value (`as 2 A=1 B=2`)."""
    return [w for w in words if not w.isdigit() and w not in ("true", "false")]


def _dbus_send(argv: list[str]) -> tuple[bool, str, str, list[str]] | None:
    if f"--dest={_SERVICE}" not in argv:
        return None
    words = [w for w in argv[1:] if not w.startswith("-")]
    if len(words) < 2:
        return None
    values = [v for w in words[2:] for v in _TYPED.sub("", w).split(",")]
    return "--system" not in argv, words[0], words[1], values


def _gdbus(argv: list[str]) -> tuple[bool, str, str, list[str]] | None:
    given: dict[str, str] = {}
    rest: list[str] = []
    k = 1
    while k < len(argv):
        word = argv[k]
        if word in ("--dest", "-d", "--object-path", "-o", "--method", "-m") and k + 1 < len(argv):
            given[word.lstrip("-")[:1]] = argv[k + 1]
            k += 2
            continue
        if not word.startswith("-"):
            rest.append(word)
        k += 1
    if rest[:1] != ["call"] or given.get("d") != _SERVICE:
        return None
    values = [v.strip(" '\"") for w in rest[1:] for v in w.strip("[]()").split(",") if v.strip(" '\"")]
    return "--session" in argv, given.get("o", ""), given.get("m", ""), values
