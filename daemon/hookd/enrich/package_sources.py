"""A package manager's default source of packages redirected (part of the effect model's tool effects, called by
enrich/tool_effects.py): a configuration key that sets where EVERY later install fetches its packages from
(package_sources.json: npm's and Yarn's registry, pip's `index-url`, uv's default index), set by a file tool's
text to a host that is not that manager's own public registry. Every later everyday `npm install`, `pip
install`, `uv sync` then fetches from there, and runs what it fetches (install scripts, build backends): a
deferred exec of the URL, asked as a startup file's commands are. A scoped or explicit extra source is no
default and is not read; a key left at the public registry is no redirect."""

from __future__ import annotations

import functools
import json
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from hookd.types import JSON

_DATA = Path(__file__).parent / "effects" / "data" / "package_sources.json"
MAX_SOURCE_TEXT = 256 * 1024  # a configuration text past this is not parsed for its default source
_WHEN = "a package manager's default source of packages set to a host that is not its public registry"


@dataclass(frozen=True, slots=True)
class _Format:
    kind: str  # ini (`key = value`), words (`key "value"`), yaml (a top-level `key: value`), toml
    keys: frozenset[str]
    public: frozenset[str]
    table: tuple[str, ...] = ()  # toml: the table the keys are in (pyproject's [tool.uv])


@functools.cache
def _formats() -> Mapping[str, _Format]:
    data = json.loads(_DATA.read_text(encoding="utf-8"))
    return {
        name: _Format(str(f["format"]), frozenset(f["keys"]), frozenset(f["public"]), tuple(f.get("table", ())))
        for f in data["files"]
        for name in f["names"]
    }


def redirected_sources(
    written: Iterable[str], texts_for: Callable[[str], list[str]], program: str
) -> list[dict[str, JSON]]:
    """A deferred exec for each file `written` whose text (`texts_for(path)`: the whole text after the call, else
    its new texts) sets a default package source to a host that is not the manager's public registry."""
    formats = _formats()
    out: list[dict[str, JSON]] = []
    for path in written:
        spec = formats.get(path.rpartition("/")[2])
        if spec is None:
            continue
        urls = [u for text in texts_for(path) for u in default_sources(spec, text[:MAX_SOURCE_TEXT])]
        foreign = next((u for u in urls if (host := _host(u)) and host not in spec.public), None)
        if foreign is not None:
            out.append({"op": "exec", "path": "", "known": True, "recursive": False, "to": "", "program": program,
                        "via": "tool", "class": "unresolved", "code": {"lang": "text", "text": foreign},
                        "deferred": True, "startup": path, "when": f"{_WHEN} ({foreign})"})  # fmt: skip
    return out


def default_sources(spec: _Format, text: str) -> list[str]:
    """The URLs `text` sets as the default source, in its file's format."""
    if spec.kind == "toml":
        return _toml_sources(spec, text)
    pattern = _line_pattern(spec.kind, spec.keys)
    return [m.group("value").strip().strip("\"'") for m in pattern.finditer(text)]


@functools.cache
def _line_pattern(kind: str, keys: frozenset[str]) -> re.Pattern[str]:
    names = "|".join(re.escape(k) for k in sorted(keys))
    if kind == "ini":  # `registry=…`, `index-url = …`: a key of its own, never a scope's (`@acme:registry`)
        return re.compile(rf"^[ \t]*(?:{names})[ \t]*=[ \t]*(?P<value>\S+)", re.MULTILINE | re.IGNORECASE)
    if kind == "words":  # Yarn 1: `registry "https://…"`
        return re.compile(rf"^(?:{names})[ \t]+(?P<value>\S+)", re.MULTILINE)
    # YAML: a top-level key only (an indented one belongs to a scope: `npmScopes: {acme: {npmRegistryServer: …}}`)
    return re.compile(rf"^[\"']?(?:{names})[\"']?[ \t]*:[ \t]*(?P<value>\S+)", re.MULTILINE)


def _toml_sources(spec: _Format, text: str) -> list[str]:
    """uv's default index: `index-url`, or an `[[index]]` entry with `default = true` (its `url`)."""
    try:
        data: Any = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):  # not TOML, or nested deeper than a reader goes
        return []
    for name in spec.table:
        data = data.get(name) if isinstance(data, Mapping) else None
    if not isinstance(data, Mapping):
        return []
    urls = [v for k in spec.keys if isinstance(v := data.get(k), str)]
    indexes = data.get("index")
    for entry in indexes if isinstance(indexes, list) else ():
        if isinstance(entry, Mapping) and entry.get("default") is True and isinstance(url := entry.get("url"), str):
            urls.append(url)
    return urls


def _host(url: str) -> str:
    """The URL's host, lowercased ("" for no host: a path, a file URL, an unreadable value)."""
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""
