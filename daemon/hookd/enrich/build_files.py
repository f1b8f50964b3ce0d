"""Project files a build tool runs later (part of the effect model's tool effects, called by enrich/tool_effects.py),
known by their names and judged by the whole text the call leaves in them:

* a Maven `pom.xml`: each exec-maven-plugin `<configuration>`'s `<executable>` with its `<argument>`s, a command
  the plugin starts at the phase its execution is bound to (https://www.mojohaus.org/exec-maven-plugin/usage.html);
* a makefile (`Makefile`, `makefile`, `GNUmakefile`, `*.mk`): `make` hands each recipe to the shell with the
  makefile's variables expanded in it, and make's own where it sets none (`$(RM)`: configtext.makefile_commands);
* a Compose file (`compose.yaml`, `docker-compose.yml`, `compose.override.yaml`, …): `docker compose up` runs each
  service's entrypoint and command in a container that sees the host paths its volumes bind
  (https://docs.docker.com/reference/compose-file/services/#volumes): what the command does to a bound directory
  is done to the host's, a leading `~` being the home (Compose expands it) and a relative path the project's.
"""

from __future__ import annotations

import html
import re
import shlex

from hookd.enrich.effects.compose import MAX_SERVICES
from hookd.enrich.effects.configtext import makefile_commands
from hookd.jsonc import loads as jsonc_loads

MAKEFILES = frozenset({"Makefile", "makefile", "GNUmakefile"})
_COMPOSE = re.compile(r"(?:docker-)?compose(?:\.[\w-]{1,64})?\.ya?ml")


def is_makefile(path: str) -> bool:
    name = path.rpartition("/")[2]
    return name in MAKEFILES or name.endswith(".mk")


def is_compose_file(path: str) -> bool:
    return _COMPOSE.fullmatch(path.rpartition("/")[2]) is not None


def is_pom(path: str) -> bool:
    return path.rpartition("/")[2] == "pom.xml"


# a unit in a service manager's unit directory (or a drop-in of one): its Exec*= lines run when it is started
_UNIT_DIR = re.compile(r"/systemd/(?:user|system)(?:\.control)?/|/systemd/transient/")
UNIT_SUFFIXES = (".service", ".socket", ".timer", ".path", ".target", ".mount", ".automount", ".slice", ".swap")
_EXEC_KEYS = frozenset(
    {"ExecStart", "ExecStartPre", "ExecStartPost", "ExecStop", "ExecStopPost", "ExecReload", "ExecCondition"}
)
# systemd.unit(5) "Specifiers": the ones a user unit's command lines use for the user's places
_SPECIFIERS = {"%h": "${HOME}", "%t": "${XDG_RUNTIME_DIR}", "%u": "${USER}", "%U": "${UID}", "%%": "%"}


def is_unit_file(path: str) -> bool:
    name = path.rpartition("/")[2]
    return _UNIT_DIR.search(path) is not None and (name.endswith(UNIT_SUFFIXES) or name.endswith(".conf"))


def is_user_unit(path: str) -> bool:
    """A unit of a user's own manager (`…/systemd/user/`, `user.control/`): it runs as that user."""
    return is_unit_file(path) and re.search(r"/systemd/user(?:\.control)?/", path) is not None


def is_autostart_entry(path: str) -> bool:
    """A desktop entry in the user's XDG autostart directory: its `Exec=` runs, as the user, at every login
    (https://specifications.freedesktop.org/autostart-spec/latest/)."""
    return "/.config/autostart/" in path and path.endswith(".desktop")


def is_started_file(path: str) -> bool:
    """A file whose command lines a manager starts (a unit, an autostart entry): judged as a unit's (gaps38)."""
    return is_unit_file(path) or is_autostart_entry(path)


def is_users_started_file(path: str) -> bool:
    """One the user's own manager or session starts, as the user."""
    return is_user_unit(path) or is_autostart_entry(path)


def is_build_file(path: str) -> bool:
    return is_makefile(path) or is_compose_file(path) or is_pom(path) or is_started_file(path)


def unit_commands(text: str) -> list[str]:
    """The command lines a unit's `Exec*=` settings run (systemd.service(5): a leading `@`, `-`, `:`, `+`, `!` only
    changes how it runs), its specifiers for the user's places spelled as the shell's variables."""
    lines = []
    for line in text.splitlines():
        key, eq, value = line.strip().partition("=")
        command = value.strip().lstrip("@-:+!|").strip()
        if eq and key.strip() in _EXEC_KEYS and command:
            lines.append(re.sub(r"%[htuU%]", lambda m: _SPECIFIERS[m.group(0)], command))
    return lines[:MAX_SERVICES]


def desktop_commands(text: str) -> list[str]:
    """The command line a desktop entry's `Exec=` runs, its field codes (`%f`, `%U`, …) left out and `%%` a `%`
    (https://specifications.freedesktop.org/desktop-entry-spec/latest/exec-variables.html). An entry activated over
    D-Bus runs what its service file says, not shown here: a program only known when it runs."""
    if "DBusActivatable" in text:
        return ['"${DBUS_SERVICE_EXEC}"']
    lines = []
    for line in text.splitlines():
        key, eq, value = line.strip().partition("=")
        if eq and key.strip() == "Exec" and value.strip():
            lines.append(re.sub(r"%[fFuUdDnNickvm%]", lambda m: "%" if m.group(0) == "%%" else "", value.strip()))
    return lines[:MAX_SERVICES]


def is_editor_tasks(path: str) -> bool:
    """A workspace's VS Code tasks (https://code.visualstudio.com/docs/editor/tasks)."""
    return path.endswith("/.vscode/tasks.json")


def folder_open_commands(text: str) -> list[str]:
    """The command lines of the tasks VS Code runs when the folder opens (`"runOptions": {"runOn": "folderOpen"}`,
    its tasks page, "Run behavior"): each task's `command` and its `args`, as the shell it starts them in reads
    them. A text that is not such JSON runs nothing known here."""
    try:
        doc = jsonc_loads(text)
    except ValueError:
        return []
    tasks = doc.get("tasks") if isinstance(doc, dict) else None
    lines = []
    for task in tasks if isinstance(tasks, list) else []:
        run = task.get("runOptions") if isinstance(task, dict) else None
        command = task.get("command") if isinstance(task, dict) else None
        if isinstance(run, dict) and run.get("runOn") == "folderOpen" and isinstance(command, str):
            args = [a for a in task.get("args") or [] if isinstance(a, str)]
            lines.append(" ".join([command, *map(shlex.quote, args)]))
    return lines


def make_lines(path: str, text: str) -> list[str]:
    """The shell lines a makefile's recipes run, the commands a pom's exec configurations start, or the tasks an
    editor runs when the folder opens."""
    if is_makefile(path):
        return makefile_commands(text)
    if is_editor_tasks(path):
        return folder_open_commands(text)
    if is_unit_file(path):
        return unit_commands(text)
    if is_autostart_entry(path):
        return desktop_commands(text)
    return (
        [_exec_line(c) for c in _CONFIGURATION.findall(text)[:MAX_SERVICES] if "<executable>" in c]
        if is_pom(path)
        else []
    )


_CONFIGURATION = re.compile(r"<configuration>(.*?)</configuration>", re.S)
_ELEMENT = re.compile(r"<(executable|argument)>([^<]*)</\1>")


def _exec_line(configuration: str) -> str:
    words = [html.unescape(value.strip()) for name, value in _ELEMENT.findall(configuration)]
    return shlex.join(words)
