"""SSH's client configuration written with keywords that only say how to connect (part of the effect model's tool
effects, enrich/tool_effects.py). A write or edit of a `.ssh/config` whose whole resulting text sets only the
keywords of ssh_config.json's `plain` list (`Host`, `HostName`, `User`, `IdentityFile`, `ServerAliveInterval`,
`ProxyJump`, …), `Match` blocks without `exec`, and a `ProxyCommand` whose command line does nothing the effect
model sees but connect (`ssh -W %h:%p bastion`, `nc %h %p`: no file run, read or written, nothing fetched), runs
nothing later, loads no code, reads no other file and
weakens no check: its write effect is marked `plain: "ssh_config"`, which protected_paths' `ssh-dir` rule lets
through (keys and every other file below `~/.ssh` stay denied). A keyword the list does not hold (`ProxyCommand`,
`LocalCommand`, `Match exec`, `PKCS11Provider`, `Include`, `ForwardAgent`, `StrictHostKeyChecking`, …), a text
that cannot be known (an edit of a file that does not hold its old text) or one past MAX_TEXT leaves the write as
any other below `~/.ssh`: denied."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hookd.enrich.shell.analysis import analyse_shell
from hookd.types import JSON

MAX_TEXT = 256 * 1024
_DATA = Path(__file__).with_name("effects") / "data" / "ssh_config.json"
# `Keyword value`, `Keyword=value`, `Keyword = "value"` (ssh_config(5): keywords are case-insensitive)
_LINE = re.compile(r"[ \t]*([A-Za-z][A-Za-z0-9]*)(?:[ \t]*=[ \t]*|[ \t]+)?(.*)")


@functools.cache
def _table() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        Path(__file__).with_name("effects").joinpath("data", "ssh_config.json").read_text()
    )
    return data


def is_ssh_config(path: str) -> bool:
    return path.endswith("/.ssh/config")


def plain(text: str) -> bool:
    """Every line of `text` is blank, a comment, or sets a keyword that only says how to connect."""
    if len(text) > MAX_TEXT:
        return False
    table = _table()
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        matched = _LINE.fullmatch(stripped)
        if matched is not None and matched.group(1).lower() == "proxycommand" and connects_only(matched.group(2)):
            continue
        if matched is None or matched.group(1).lower() not in table["plain"]:
            return False
        criteria = {w.lower() for w in matched.group(2).split()}
        if matched.group(1).lower() == "match" and criteria & set(table["match_runs"]):
            return False
    return True


def connects_only(command: str) -> bool:
    """A ProxyCommand's line has no effect the effect model sees (a program named by a path is run, code fetched,
    a file read or written): a client that only connects, as ssh runs it with `%h`/`%p` given."""
    shell, effects = analyse_shell(command, home="/nonexistent-home", base_dir="/", project_dir="/nonexistent-project")
    return bool(shell.get("commands")) and not shell.get("parse_error") and all(e["op"] == "send" for e in effects)


def mark_plain_ssh_configs(effects: list[dict[str, JSON]], texts_after: Callable[[str], list[str] | None]) -> None:
    """Mark each write of a `.ssh/config` whose every resulting text is plain (the module doc)."""
    for effect in effects:
        path = effect.get("path")
        if effect.get("op") == "write" and isinstance(path, str) and is_ssh_config(path):
            texts = texts_after(path)
            if texts and all(plain(t) for t in texts):
                effect["plain"] = "ssh_config"
