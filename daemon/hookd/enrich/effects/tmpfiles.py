"""A tmpfiles.d configuration's lines are changes the system makes later (blind-tamper-15, policies/README.md):
systemd-tmpfiles applies every `.conf` of `~/.config/user-tmpfiles.d/` and `~/.local/share/user-tmpfiles.d/` at
each login (the user's systemd-tmpfiles-setup.service) and with `systemd-tmpfiles --user`, the system's
`/etc/tmpfiles.d/` at boot (tmpfiles.d(5), https://www.freedesktop.org/software/systemd/man/latest/tmpfiles.d.html).
An `r`/`R` line removes its path (`R` the tree), `D` and `e` empty a directory, `f+`, `w`, `L+`, `C+` replace a
file: so writing such a configuration is, later, that change of each path it names."""

from __future__ import annotations

import os
import re

_CONFIG_DIRS = re.compile(r"/(?:user-)?tmpfiles\.d/[^/]+\.conf$")
# line type (its letter and `+`; the `!`, `-`, `=`, `~`, `^`, `$` modifiers change nothing here) -> (op, whole tree)
_CHANGES = {
    "r": ("delete", False), "R": ("delete", True), "D": ("delete", True), "e": ("delete", True),
    "f+": ("write", False), "w": ("write", False), "w+": ("write", False), "L+": ("write", False),
    "C+": ("write", True),
}  # fmt: skip


def is_tmpfiles_config(path: str) -> bool:
    return _CONFIG_DIRS.search(path) is not None


def configured_changes(path: str, text: str, home: str) -> list[tuple[str, str, bool]]:
    """(op, path, whole tree) for each line of the configuration `text`, written as `path`, that removes or
    replaces what it names; its specifiers as the user's instance fills them in."""
    if not is_tmpfiles_config(path):
        return []
    changes: list[tuple[str, str, bool]] = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 2 or fields[0].startswith("#"):
            continue
        kind = re.sub(r"[!\-=~^$?]", "", fields[0])
        change = _CHANGES.get(kind)
        if change:
            changes.append((change[0], _specified(fields[1], home), change[1]))
    return changes


def _specified(target: str, home: str) -> str:
    """A path with tmpfiles.d(5)'s specifiers filled in as the user's instance does (`%h` the home, `%C`, `%S`,
    `%E`, `%L` its XDG cache, state, config and log directories, `%t` its runtime directory)."""
    values = {
        "h": home, "C": f"{home}/.cache", "S": f"{home}/.local/state", "E": f"{home}/.config",
        "L": f"{home}/.local/state/log", "t": f"/run/user/{os.getuid()}", "%": "%",
    }  # fmt: skip
    return re.sub(r"%(.)", lambda m: values.get(m.group(1), m.group(0)), target)
