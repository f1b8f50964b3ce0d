"""A package manager's default source of packages redirected from the shell (package_sources.json, read by
hookd.enrich.package_sources for a file tool's writes): known text the line writes to one of the managers'
configuration files (`printf '[global]\\nindex-url = URL\\n' > ~/.config/pip/pip.conf`), the manager's own
command that sets the key (`pip config set global.index-url URL`, `npm config set registry URL`, `go env -w
GOPROXY=URL`, `conda config --add channels URL`: the table's `commands`), its command words read as the manager
reads them (npm's: an alias or a unique abbreviation of a command, `npm c set`, `npm conf set`, `npm set`; an
option's value no word, `--location user`), and a variable a startup file sets that the manager reads as the same
key (`export PIP_INDEX_URL=URL` in `~/.bashrc`: the table's `variables`). Every later everyday install then
fetches from that host and runs what it fetches: a deferred exec of code not known here (what that host serves)."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.ledger import CommandView, Ledger
from hookd.enrich.package_sources import _DATA, redirected_sources


@functools.cache
def _table() -> Mapping[str, Any]:
    data: Mapping[str, Any] = json.loads(_DATA.read_text(encoding="utf-8"))
    return data


def npm_command(word: str) -> str:
    """The command npm runs for `word` (npm's cmd-list `deref`): camelCase read snake-case, a command, an alias, or
    a unique abbreviation of a command or alias, followed to its command."""
    table = _table()
    commands, aliases = table["npm_commands"], table["npm_aliases"]
    word = re.sub(r"[A-Z]", lambda m: "-" + m.group(0).lower(), word)
    if word in commands:
        return word
    if word in aliases:
        return str(aliases[word])
    names = [*commands, *aliases]
    if word in names:
        found = word
    else:
        starting = [n for n in names if n.startswith(word)] if word else []
        found = starting[0] if len(starting) == 1 else ""
    return str(aliases.get(found, found))


def _words(spec: Mapping[str, Any], argv: list[str]) -> list[str]:
    """The command's words as its manager reads them: options and the values of valued options left out, npm's
    first word dereferenced and a shortcut written out (`npm set` is `npm config set`)."""
    valued = frozenset(_table()["npm_valued"] if spec.get("deref") == "npm" else spec.get("valued", ()))
    words: list[str] = []
    skip_next = False
    for word in argv[1:]:
        if skip_next:
            skip_next = False
        elif word.startswith("-"):
            skip_next = word in valued
        else:
            words.append(word)
    if spec.get("deref") == "npm" and words:
        command = npm_command(words[0])
        words = [*_table()["npm_shortcuts"].get(command, [command]), *words[1:]]
    return words


def _set_by_command(argv: list[str]) -> list[tuple[str, str]]:
    """(configuration file name, its text) for a manager's command that sets a default source key."""
    found: list[tuple[str, str]] = []
    for spec in _table().get("commands", ()):
        if argv[0].rpartition("/")[2] != spec["program"]:
            continue
        words = _words(spec, argv)
        if words[: len(spec["words"])] != spec["words"] or _not_default(spec, argv):
            continue
        rest = words[len(spec["words"]) :]
        rest = rest[1:] if rest[:1] and rest[0] in spec.get("skip", ()) else rest
        values = [v for _, v in _pairs(rest, frozenset(spec["keys"]), tuple(spec.get("key_prefixes", ())))]
        values += _option_values(argv, frozenset(spec.get("options", ())))
        at = spec.get("at")
        values += [rest[at]] if isinstance(at, int) and at < len(rest) else []
        found.extend((str(spec["file"]), str(spec["line"]).replace("{}", value)) for value in values)
    return found


def _option_values(argv: list[str], options: frozenset[str]) -> list[str]:
    """The value of each of `options` (`--add URL`, `--add=URL`): the source it adds."""
    found: list[str] = []
    for k, word in enumerate(argv[1:], 1):
        name, eq, value = word.partition("=")
        if name in options:
            found.extend([value] if eq else argv[k + 1 : k + 2])
    return found


def _not_default(spec: Mapping[str, Any], argv: list[str]) -> bool:
    """An option's value makes the source no default (Poetry's `--priority explicit`: searched only when named)."""
    unless: Mapping[str, list[str]] = spec.get("unless", {})
    return any(value in unless.get(name, ()) for name, value in _options_given(argv, frozenset(unless)))


def _options_given(argv: list[str], names: frozenset[str]) -> list[tuple[str, str]]:
    return [(n, v) for n in names for v in _option_values(argv, frozenset({n}))]


def _pairs(rest: list[str], keys: frozenset[str], prefixes: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """Each key the words set: `key=value` (npm sets several at once), or a key followed by its value (`set registry
    URL`, conda's `--add channels URL` repeated); a key may be named by its prefix (Bundler's `mirror.SOURCE`)."""
    found: list[tuple[str, str]] = []
    k = 0
    while k < len(rest):
        key, eq, value = rest[k].partition("=")
        known = key in keys or (key.startswith(prefixes) and bool(prefixes))
        if not eq and known and k + 1 < len(rest):
            value, k = rest[k + 1], k + 1
        if known and value:
            found.append((key, value))
        k += 1
    return found


def _set_by_variables(sets: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(configuration file name, its text) for each variable a startup file sets that a manager reads as its
    default source key (npm's `npm_config_*` in any case)."""
    found: list[tuple[str, str]] = []
    for spec in _table().get("variables", ()):
        names = {n.lower() for n in spec["names"]} if spec.get("any_case") else set(spec["names"])
        for name, value in sets.items():
            if (name.lower() if spec.get("any_case") else name) in names and isinstance(value, str) and value:
                found.extend((str(spec["file"]), str(spec["line"]).replace("{}", part)) for part in value.split(","))
    return found


def sources_redirected(ledger: Ledger, view: CommandView, start: int) -> None:
    """A deferred exec for each configuration this command points at a foreign package source."""
    written = {str(e["path"]) for e in ledger.effects[start:] if e["op"] == "write" and e.get("path")}
    texts = {path: [ledger.contents[path]] for path in written if path in ledger.contents}
    for name, text in _set_by_command(view.argv) if view.argv else []:
        texts.setdefault(name, []).append(text)
    _redirected(ledger, view, texts)


def startup_sources_redirected(ledger: Ledger, view: CommandView, start: int) -> None:
    """The same for the variables a startup file this command writes sets (its `sets`, model._startup_files): the
    startup file is where the redirect lives."""
    for effect in ledger.effects[start:]:
        sets = effect.get("sets") if effect["op"] == "write" else None
        texts: dict[str, list[str]] = {}
        for name, text in _set_by_variables(sets) if isinstance(sets, Mapping) else []:
            texts.setdefault(name, []).append(text)
        _redirected(ledger, view, texts, str(effect.get("path") or ""))


def _redirected(ledger: Ledger, view: CommandView, texts: Mapping[str, list[str]], startup: str = "") -> None:
    for effect in redirected_sources(sorted(texts), lambda path: texts[path], view.name, ledger.project):
        code, when, path = effect["code"], str(effect["when"]), startup or str(effect["startup"])
        ledger.add("exec", None, view.name, code=code, known=False, deferred=True, startup=path, when=when)
