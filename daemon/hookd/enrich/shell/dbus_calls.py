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
`--system`), gdbus(1) (`call --dest SERVICE --object-path OBJECT --method INTERFACE.METHOD ARG…`). busctl reads its
options with getopt_long (src/busctl/busctl.c: a value after `--timeout` or in `--timeout=5`, options anywhere
before `--`); gdbus with GOption (`--dest X`, `--dest=X`, `-d X`).

The Manager's `Exit` (the user's manager quits), `Reboot`, `PowerOff`, `Halt`, `KExec`, `SoftReboot` are systemctl's
`exit` and power verbs; `StartTransientUnit` runs the command of its `ExecStart` property as a new unit, which is
`systemd-run -- COMMAND` (a command whose words cannot be read from the call is handed on as one unknown word)."""

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
    "SetEnvironment": "set-environment", "UnsetAndSetEnvironment": "set-environment", "StartUnit": "start",
    "StartUnitReplace": "start", "EnqueueUnitJob": "start",
}  # fmt: skip
_MANAGER_WHOLE = {
    "Exit": "exit", "Reboot": "reboot", "PowerOff": "poweroff", "Halt": "halt", "KExec": "kexec",
    "SoftReboot": "soft-reboot",
}  # fmt: skip
_TRANSIENT = "StartTransientUnit"
_UNREADABLE = "${dbus_exec_start}"  # a command the call runs whose words were not read: no program hookd knows
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
    if interface in ("", _MANAGER) and method in _MANAGER_WHOLE:
        return [["systemctl", *scope, _MANAGER_WHOLE[method]]]
    if interface in ("", _MANAGER) and method == _TRANSIENT:
        return [["systemd-run", *scope, "--", *(_exec_start(args) or [_UNREADABLE])]]
    if interface in ("", _MANAGER) and method in _MANAGER_VERBS:
        verb = _MANAGER_VERBS[method]
        many = verb in ("disable", "mask", "link", "revert", "set-environment")
        words = [a for a in args if verb != "set-environment" or "=" in a]
        return [["systemctl", *scope, verb, *(words if many else words[:1])]] if words else []
    if interface in ("", _UNIT) and method in _UNIT_VERBS and obj.startswith(_UNIT_OBJECT):
        unit = _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), obj[len(_UNIT_OBJECT) :])
        return [["systemctl", *scope, _UNIT_VERBS[method], unit]]
    return []


_BUSCTL_LONG_VALUES = frozenset(
    {"address", "match", "host", "machine", "capsule", "size", "expect-reply", "auto-start",
     "allow-interactive-authorization", "timeout", "augment-creds", "watch-bind", "json", "destination",
     "limit-messages"}
)  # fmt: skip
_BUSCTL_SHORT_VALUES = "HMCJN"
_GDBUS_VALUES = {"--address": "a", "-a": "a", "--dest": "d", "-d": "d", "--object-path": "o", "-o": "o",
                 "--method": "m", "-m": "m", "--timeout": "t", "-t": "t"}  # fmt: skip


def _busctl(argv: list[str]) -> tuple[bool, str, str, list[str]] | None:
    words, user = _getopt_operands(argv)
    if len(words) < 5 or words[0] != "call" or words[1] != _SERVICE:
        return None
    obj, interface, method = words[2], words[3], words[4]
    if method == _TRANSIENT:
        return user, obj, f"{interface}.{method}", words[6:]  # its counts are read by _exec_start
    return user, obj, f"{interface}.{method}", _values(words[6:]) if len(words) > 5 else []


def _getopt_operands(argv: list[str]) -> tuple[list[str], bool]:
    """busctl's operands as getopt_long permutes them (options anywhere, a value in the next word or after `=`),
    and whether the last of `--user`/`--system` is `--user`."""
    words: list[str] = []
    user = False
    k = 1
    while k < len(argv):
        word = argv[k]
        k += 1
        if word == "--":
            words.extend(argv[k:])
            break
        if word in ("--user", "--system"):
            user = word == "--user"
        elif word.startswith("--"):
            k += word[2:] in _BUSCTL_LONG_VALUES  # `--timeout 5`; `--timeout=5` is one word
        elif word.startswith("-") and len(word) > 1:
            cluster = word[1:]
            taking = next((i for i, ch in enumerate(cluster) if ch in _BUSCTL_SHORT_VALUES), -1)
            k += taking == len(cluster) - 1  # `-H host`; `-Hhost` holds its value
        else:
            words.append(word)
    return words, user


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
        k += 1
        name, equals, value = word.partition("=")
        if word.startswith("--") and equals and name in _GDBUS_VALUES:
            given[_GDBUS_VALUES[name]] = value
        elif word in _GDBUS_VALUES and k < len(argv):
            given[_GDBUS_VALUES[word]] = argv[k]
            k += 1
        elif len(word) > 2 and word[:2] in _GDBUS_VALUES and not word.startswith("--"):
            given[_GDBUS_VALUES[word[:2]]] = word[2:]  # `-dorg.freedesktop.systemd1`
        elif not word.startswith("-"):
            rest.append(word)
    if rest[:1] != ["call"] or given.get("d") != _SERVICE:
        return None
    if given.get("m", "").endswith("." + _TRANSIENT):
        return "--session" in argv or "-y" in argv, given.get("o", ""), given["m"], rest[1:]
    values = [v.strip(" '\"") for w in rest[1:] for v in w.strip("[]()").split(",") if v.strip(" '\"")]
    return "--session" in argv or "-y" in argv, given.get("o", ""), given.get("m", ""), values


_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")


def _exec_start(args: list[str]) -> list[str]:
    """The command line of a transient unit's `ExecStart` property: busctl's `ExecStart a(sbas) 1 PATH BOOL N
    ARGV…`, or the first string list after `ExecStart` in a GVariant text (gdbus: `[('PATH', ['ARGV', …], false)]`)."""
    if "ExecStart" in args:
        after = args[args.index("ExecStart") + 1 :]
        if len(after) > 5 and after[0].startswith("a(") and after[1].isdigit() and after[4].isdigit():
            return after[5 : 5 + int(after[4])]
    text = " ".join(args)
    at = text.find("ExecStart")
    if at < 0:
        return []
    bracket = text.find("[", text.find("[", at) + 1)
    close = text.find("]", bracket)
    if bracket < 0 or close < 0:
        return []
    return [m.group(1) if m.group(1) is not None else m.group(2) for m in _QUOTED.finditer(text[bracket:close])]
