"""A tmpfiles.d configuration's lines are changes the system makes later (blind-tamper-15, policies/README.md):
systemd-tmpfiles applies every `.conf` of `~/.config/user-tmpfiles.d/` and `~/.local/share/user-tmpfiles.d/` at
each login (the user's systemd-tmpfiles-setup.service) and with `systemd-tmpfiles --user`, the system's
`/etc/tmpfiles.d/` at boot (tmpfiles.d(5), https://www.freedesktop.org/software/systemd/man/latest/tmpfiles.d.html).
An `r`/`R` line removes its path (`R` the tree), `D` and `e` empty a directory, `f+`, `w`, `L+`, `C+` replace a
file: so writing such a configuration is, later, that change of each path it names. A configuration named on
`systemd-tmpfiles`' command line is applied at once, whatever its name (`applied_configs`, review47)."""

from __future__ import annotations

import os
import re

from hookd.enrich.effects.ledger import Ledger, Place
from hookd.enrich.effects.words import STDIN_FILES
from hookd.enrich.holdings import head

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
    return _changes(text, home) if is_tmpfiles_config(path) else []


def _changes(text: str, home: str) -> list[tuple[str, str, bool]]:
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


TMPFILES = "systemd-tmpfiles"
# systemd-tmpfiles(8) (https://www.freedesktop.org/software/systemd/man/latest/systemd-tmpfiles.html): the long
# options that take their value as the next word; a basename is looked up in the configuration directories
_VALUED = frozenset({"--root", "--image", "--image-policy", "--prefix", "--exclude-prefix", "--replace"})
_USER_DIRS = (".config/user-tmpfiles.d", ".local/share/user-tmpfiles.d")
MAX_CONFIG = 64 * 1024  # bytes of a configuration read; a longer one is read no further (its lines past it unseen)


def applied_configs(ledger: Ledger, argv: list[str], place: Place, stdin_text: str | None) -> None:
    """`systemd-tmpfiles --remove CONFIG…`: the configurations named are applied now, each line its change; the
    text is what the line wrote there, else the file's on disk (`-` the standard input's). One whose text hookd
    cannot see (unread, made by the line unseen, not found) is a change it cannot judge: asked."""
    if os.path.basename(argv[0] if argv else "") != TMPFILES:
        return
    words = iter(argv[1:])
    for word in words:
        if word in _VALUED:
            next(words, None)
        elif word in STDIN_FILES or not word.startswith("-"):
            text = stdin_text if word in STDIN_FILES else _config_text(ledger, word, place)
            if text is None:
                ledger.add("exec", None, TMPFILES, code={"lang": "text", "text": ""}, known=False)
            for op, target, tree in _changes(text or "", ledger.home):
                ledger.add(op, {"raw": target, "path": target, "in_project": False}, TMPFILES, recursive=tree)


def _config_text(ledger: Ledger, word: str, place: Place) -> str | None:
    if "/" in word:
        candidates = [str(place(word).get("path") or "")]
    else:  # a basename: the first of the user's configuration directories that holds it
        candidates = [f"{ledger.home}/{d}/{word}" for d in _USER_DIRS]
    for path in candidates:
        if path in ledger.contents:
            return ledger.contents[path]
        if ledger.made(path):
            return None
        if os.path.lexists(path):
            text = head(path, MAX_CONFIG + 1, follow=True)
            return text if text is not None and len(text) <= MAX_CONFIG else None
    return None


def configured_later(ledger: Ledger, config: str, text: str | None) -> None:
    """A tmpfiles.d configuration written: the changes systemd-tmpfiles makes of what it names, later; of a text
    the line does not show (copied, linked, fetched), changes hookd cannot see (asked)."""
    if text is None:
        ledger.add("exec", None, "systemd-tmpfiles", code={"lang": "text", "text": ""}, known=False, deferred=True,
                   startup=config)  # fmt: skip
    for op, target, tree in configured_changes(config, text or "", ledger.home):
        placed = {"raw": target, "path": target, "in_project": False}
        ledger.add(op, placed, "systemd-tmpfiles", recursive=tree, deferred=True, startup=config)
