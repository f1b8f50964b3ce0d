"""What opening each URL a tool is given does (hookd.enrich.tool_effects): a `file:` URL's read, any other's fetch."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from hookd.enrich.effects.fetches import reached_secrets, served_home_file
from hookd.enrich.paths import PathResolver
from hookd.enrich.tool_entries import (
    path_effect,
    unknown_effect,
)
from hookd.types import JSON, ToolKind, ToolSpec

# A file URL in each form a client takes (RFC 8089): `file:///p`, `file://localhost/p`, `file://host/p`, `file:/p`.
_FILE_URL = re.compile(r"\bfile:(?://[^/\s'\"<>`]*)?(/(?!/)[^\s'\"<>`)]*)", re.IGNORECASE)
_URL = re.compile(r"\b[a-z][a-z0-9+.-]{0,20}://[^\s'\"<>`]+", re.IGNORECASE)


MAX_URLS = 16
_DATA = Path(__file__).with_name("effects") / "data"
# A URL's path ends at its query or its fragment (RFC 3986 section 3.3): neither names part of the file.
_PATH_END = re.compile(r"[?#]")


def _url_path(text: str) -> str:
    return _PATH_END.split(text, maxsplit=1)[0]


def _names(part: str) -> tuple[str, ...]:
    """fetch_tools.json's argument names of `part` (method, body) as words, in its order (the first given wins)."""
    return tuple(_word(str(e["name"])) for e in _fetch_tools()[part])


@functools.cache
def _fetch_tools() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((_DATA / "fetch_tools.json").read_text(encoding="utf-8"))
    return data


def _word(name: str) -> str:
    """An argument's name as a word: `httpMethod`, `http_method` and `http-method` are one."""
    return name.lower().replace("_", "").replace("-", "")


def request_method(given: Mapping[str, Any]) -> str:
    """The method of a tool's request that is no plain GET, upper case (`{"method": "put"}`), or POST for a body: the
    argument names are fetch_tools.json's."""
    named = {_word(k): v for k, v in given.items() if isinstance(k, str)}
    method = next((v for k in _names("method") if isinstance(v := named.get(k), str) and v), "")
    if not method and any(named.get(k) not in (None, "", {}, []) for k in _names("body")):
        method = "POST"
    return "" if method.upper() in ("", "GET", "HEAD") else method.upper()


def url_effects(
    texts: list[tuple[str, bool]], program: str, home: str | None, project: str, given: Mapping[str, Any] | None = None
) -> list[dict[str, JSON]]:
    """What opening each URL does, for any tool (a web tool, a browser's `navigate`, an MCP server's `fetch` or
    resource `uri`): a `file:` URL reads its file, judged as any file tool's read would be; any other is a
    `fetch`, and a fetch of the cloud instance metadata service (in any spelling of its address) a read of the
    machine's credentials (`metadata`), as the shell's downloaders have."""
    out: list[dict[str, JSON]] = []
    seen: set[str] = set()
    method = request_method(given) if given else ""
    resolver: PathResolver | None = None
    for text, whole in texts:
        if ":" not in text:
            continue  # no URL (the common case: a path, a pattern, a text)
        found = [m.group() for m in _URL.finditer(text)]
        urls = [text.strip()] if whole and not found and text.strip() and " " not in text.strip() else found
        for url in [*urls, *(m.group() for m in _FILE_URL.finditer(text) if m.group() not in urls)]:
            if url in seen:
                continue
            if len(seen) >= MAX_URLS:
                return [*out, unknown_effect("read", program)]
            seen.add(url)
            local = _FILE_URL.fullmatch(url)
            served = "" if local else served_home_file(url, home or "")  # a local server's file of the home
            if local or served:
                resolver = resolver or PathResolver(home=home or "/", project_dir=project)
                placed = resolver.resolve(unquote(_url_path(local.group(1))) if local else served, project)
                entry = {"arg": "url", **placed, "access": "read"}
                out.append(
                    {**path_effect(entry, ToolSpec(ToolKind.READ), program, home=home, project=project), "url": url}
                )
                if local:
                    continue
            if url[:5].lower() == "file:":
                continue  # a file URL with no path (`file://` explained in a prompt)
            fetched = {**unknown_effect("fetch", program), "known": True, "class": "outside", "url": url}
            out.append({**fetched, "method": method} if method else fetched)
            for secret in reached_secrets(url):  # the metadata service, a local admin service: here or redirected to
                out.append({**unknown_effect("read", program), "known": True, "class": "outside", **secret})
    return out
