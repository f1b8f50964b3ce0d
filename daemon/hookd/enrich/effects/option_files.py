"""A file of a program's own options that the line itself wrote (`printf 'upload-file = …' > c && curl -K c`,
`CURL_HOME=d curl …` after writing `d/.curlrc`, `wget --config=F`, `wget -e CMD`, `aria2c -i LIST`): the options
it holds are added to the command's words, so the program's own option table judges them as if given on the
command line (data/option_files.json). A file the line did not write stays a read of that file."""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.catalogue import DATA, catalogue
from hookd.enrich.effects.ledger import CommandView, Ledger, Place
from hookd.enrich.effects.options import parse

_CURL_NAME = re.compile(r"[ \t]*(-{0,2}[A-Za-z0-9][\w.-]*)[ \t:=]*")
_QUOTED_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "v": "\v"}
_LIMIT = 65536  # the text read of one file: a config is short, a longer one is read as far as this


@functools.cache
def _table() -> Mapping[str, Any]:
    table: Mapping[str, Any] = json.loads((DATA / "option_files.json").read_text(encoding="utf-8"))["programs"]
    return table


def options_from_files(view: CommandView, place: Place, ledger: Ledger) -> CommandView:
    """The view with the options of each option file it is given whose text the line wrote, after its own words."""
    entry = _table().get(view.name)
    program = catalogue().get(view.name) if entry else None
    if entry is None or program is None:
        return view  # (most commands: no table entry)
    parsed = parse(view.argv, program.table)
    texts = [_text(v, place, ledger, view) for o, v in parsed.options if o in entry["files"] and v]
    texts += [v for o, v in parsed.options if o in entry.get("lines", ()) and v]
    for found in entry["environment"]:
        value = view.env.get(found["variable"]) or view.variables.get(found["variable"])
        if value:
            texts.append(_text(f"{value.rstrip('/')}/{found['file']}" if found["file"] else value, place, ledger, view))
    words = [w for text in texts if text for w in _READERS[entry["syntax"]](text[:_LIMIT], entry)]
    return dataclasses.replace(view, argv=[*view.argv, *words]) if words else view


def _text(word: str, place: Place, ledger: Ledger, view: CommandView) -> str | None:
    if word == "-":
        return view.stdin_text if view.stdin == "text" else None
    path = str(place(word).get("path") or "")
    return ledger.contents.get(path) if path else None


def _curlrc(text: str, entry: Mapping[str, Any]) -> list[str]:
    """curl's config lines: `name = value`, `name value`, `--name value`, `-o value`; a quoted value's escapes."""
    words: list[str] = []
    for line in text.splitlines():
        found = _CURL_NAME.match(line)
        if found is None or line.lstrip().startswith("#"):
            continue
        name, rest = found.group(1), line[found.end() :].rstrip()
        if rest.startswith('"'):
            value = re.sub(r"\\(.)", lambda m: _QUOTED_ESCAPES.get(m.group(1), m.group(1)), rest[1:].split('"')[0])
        else:
            value = rest.split()[0] if rest.split() else ""
        words += [name if name.startswith("-") else f"--{name}", *([value] if value else [])]
    return words


def _wgetrc(text: str, entry: Mapping[str, Any]) -> list[str]:
    """wgetrc's `name = value` lines: a name whatever its case, `_` and `-`, as the long option that takes it."""
    program = catalogue().get("wget")
    longs = {o.replace("-", ""): f"--{o}" for o in program.table.long_value} if program else {}
    longs.update(entry.get("names", {}))
    words: list[str] = []
    for line in text.splitlines():
        name, eq, value = line.partition("=")
        option = longs.get(re.sub(r"[-_\s]", "", name).lower()) if eq and not line.lstrip().startswith("#") else None
        if option:
            words += [option, value.strip()]
    return words


def _aria2(text: str, entry: Mapping[str, Any]) -> list[str]:
    """aria2's input file and config: a line of URIs (tab-separated) is operands; an indented one, or a config's,
    `name=value`, is the option `--name=value`."""
    words: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        name, eq, value = stripped.partition("=")
        if eq and (line[:1].isspace() or re.fullmatch(r"[a-z0-9-]+", name)):
            words.append(f"--{name.strip()}={value.strip()}")
        else:
            words += stripped.split("\t")
    return words


_READERS = {"curlrc": _curlrc, "wgetrc": _wgetrc, "aria2": _aria2}
