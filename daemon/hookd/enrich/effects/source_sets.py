"""A package manager's default source of packages redirected from the shell (package_sources.json, read by
hookd.enrich.package_sources for a file tool's writes): known text the line writes to one of the managers'
configuration files (`printf '[global]\\nindex-url = URL\\n' > ~/.config/pip/pip.conf`), and the manager's own
command that sets the key (`pip config set global.index-url URL`, `npm config set registry URL`, `go env -w
GOPROXY=URL`: the table's `commands`). Every later everyday install then fetches from that host and runs what it
fetches: a deferred exec of code not known here (what that host serves)."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.ledger import CommandView, Ledger
from hookd.enrich.package_sources import _DATA, redirected_sources


@functools.cache
def _commands() -> tuple[Mapping[str, Any], ...]:
    return tuple(json.loads(_DATA.read_text(encoding="utf-8")).get("commands", ()))


def _set_by_command(argv: list[str]) -> list[tuple[str, str]]:
    """(configuration file name, its text) for a manager's command that sets a default source key."""
    found: list[tuple[str, str]] = []
    for spec in _commands():
        words = [w for w in argv[1:] if not w.startswith("-")]
        if argv[0].rpartition("/")[2] != spec["program"] or words[: len(spec["words"])] != spec["words"]:
            continue
        rest = words[len(spec["words"]) :]
        key, eq, value = rest[0].partition("=") if rest else ("", "", "")
        value = value if eq else (rest[1] if len(rest) > 1 else "")
        if key in spec["keys"] and value:
            found.append((str(spec["file"]), str(spec["line"]).replace("{}", value)))
    return found


def sources_redirected(ledger: Ledger, view: CommandView, start: int) -> None:
    """A deferred exec for each configuration this command points at a foreign package source."""
    written = {str(e["path"]) for e in ledger.effects[start:] if e["op"] == "write" and e.get("path")}
    texts = {path: [ledger.contents[path]] for path in written if path in ledger.contents}
    texts.update({name: [text] for name, text in _set_by_command(view.argv)} if view.argv else {})
    for effect in redirected_sources(sorted(texts), lambda path: texts[path], view.name, ledger.project):
        code, when, path = effect["code"], str(effect["when"]), str(effect["startup"])
        ledger.add("exec", None, view.name, code=code, known=False, deferred=True, startup=path, when=when)
