"""A package manager's default source of packages redirected (part of the effect model's tool effects, called by
enrich/tool_effects.py): a configuration key that sets where EVERY later install fetches its packages from
(package_sources.json: npm's and Yarn's registry, pip's `index-url`, uv's default index, conda's channels, Go's
`GOPROXY` list, Cargo's `[source.crates-io] replace-with`, the Maven and Gradle wrappers' `distributionUrl`), set by
a file tool's text to a host that is not that manager's own public registry. Every later everyday `npm install`, `pip
install`, `uv sync`, `go build`, `cargo build`, `./mvnw` then fetches from there, and runs what it fetches (install
scripts, build backends, build scripts, the build tool itself): a deferred exec of the URL, asked as a startup file's
commands are. A scoped or explicit extra source is no default and is not read; a key left at the public registry is
no redirect, and neither is one set to a mirror the project's own README or contributor guide names (the host written
there: the project documents where its packages come from)."""

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

import yaml

from hookd.types import JSON

_DATA = Path(__file__).parent / "effects" / "data" / "package_sources.json"
MAX_SOURCE_TEXT = 256 * 1024  # a configuration text past this is not parsed for its default source
_WHEN = "a package manager's default source of packages set to a host that is not its public registry"
_LIST = re.compile(r"[,|]")  # GOPROXY: a list of proxies (`https://proxy.golang.org,direct`)
_PROJECT_DOCS = ("README.md", "README.rst", "README.txt", "README", "CONTRIBUTING.md", "CONTRIBUTING.rst")
MAX_DOC_TEXT = 64 * 1024  # bytes of a project document read for the hosts it names
MAX_REPLACEMENTS = 8  # Cargo sources followed from crates-io through `replace-with`


@dataclass(frozen=True, slots=True)
class _Format:
    kind: str  # ini (`key = value`), words (`key "value"`), yaml (a top-level `key: value`), toml
    keys: frozenset[str]
    public: frozenset[str]
    table: tuple[str, ...] = ()  # toml: the table the keys are in (pyproject's [tool.uv])
    own_remotes: bool = False  # the hosts of the repository's own git remotes are its own too (git-lfs)
    when: str = _WHEN


def _format(f: Mapping[str, Any]) -> _Format:
    keys, public, table = frozenset(f["keys"]), frozenset(f["public"]), tuple(f.get("table", ()))
    return _Format(str(f["format"]), keys, public, table, bool(f.get("own_remotes")), str(f.get("when", _WHEN)))


@functools.cache
def _formats() -> Mapping[str, _Format]:
    data = json.loads(_DATA.read_text(encoding="utf-8"))
    return {name: _format(f) for f in data["files"] for name in f["names"]}


def redirected_sources(
    written: Iterable[str], texts_for: Callable[[str], list[str]], program: str, project: str = ""
) -> list[dict[str, JSON]]:
    """A deferred exec for each file `written` whose text (`texts_for(path)`: the whole text after the call, else
    its new texts) sets a default package source to a host that is neither the manager's public registry nor
    one the project's own documents name."""
    formats = _formats()
    out: list[dict[str, JSON]] = []
    for path in written:
        spec = _format_of(formats, path)
        if spec is None:
            continue
        urls = [u for text in texts_for(path) for u in default_sources(spec, text[:MAX_SOURCE_TEXT])]
        urls = [part.strip() for u in urls for part in _LIST.split(u)]
        foreign = next((u for u in urls if _foreign(_host(u), spec, project)), None)
        if foreign is not None:
            out.append({"op": "exec", "path": "", "known": True, "recursive": False, "to": "", "program": program,
                        "via": "tool", "class": "unresolved", "code": {"lang": "text", "text": foreign},
                        "deferred": True, "startup": path, "when": f"{spec.when} ({foreign})"})  # fmt: skip
    return out


def _format_of(formats: Mapping[str, _Format], path: str) -> _Format | None:
    """The format of the file at `path`: by its name, or by its name and its directory's (`.cargo/config.toml`,
    `go/env`: names too common alone)."""
    parent, _, name = path.rpartition("/")
    return formats.get(name) or formats.get(f"{parent.rpartition('/')[2]}/{name}")


def foreign_source(url: str, config: str, project: str) -> bool:
    """`url`, given on a command line where the configuration file named `config` would set it (`pip install
    --index-url URL`: pip.conf's `index-url`), is a host neither that manager's public registry nor one the project's
    own documents name."""
    spec = _formats().get(config)
    return spec is not None and _foreign(_host(url), spec, project)


def is_source_file(path: str) -> bool:
    """Whether `path` is a file whose text sets a default source (the first test of `redirected_sources`)."""
    return _format_of(_formats(), path) is not None


def _foreign(host: str, spec: _Format, project: str) -> bool:
    if spec.own_remotes and host in _remote_hosts(project):
        return False
    return bool(host) and host not in spec.public and not _documented(host, project)


def _remote_hosts(project: str) -> frozenset[str]:
    """The hosts of the remotes the project's `.git/config` names (`url = git@github.com:a/b.git` as well)."""
    try:
        with open(f"{project}/.git/config", "rb") as config:
            text = config.read(MAX_SOURCE_TEXT).decode("utf-8", "replace")
    except (OSError, ValueError):
        return frozenset()
    urls = [m.group(1).strip("\"'") for m in _URL_LINE.finditer(text)]
    return frozenset(h for u in urls if (h := _host(u) or _scp_host(u)))


_URL_LINE = re.compile(r"^[ \t]*(?:push)?url[ \t]*=[ \t]*(\S+)", re.MULTILINE | re.IGNORECASE)
_SCP = re.compile(r"^(?:[^@/:]+@)?([A-Za-z0-9.-]+):(?!//)")  # git's scp-like syntax, `[user@]host:path`


def _scp_host(url: str) -> str:
    match = _SCP.match(url)
    return match.group(1).lower() if match else ""


def _documented(host: str, project: str) -> bool:
    """`host` is named in the project's README or contributor guide (its first MAX_DOC_TEXT bytes)."""
    if not project:
        return False
    for name in _PROJECT_DOCS:
        try:
            with open(f"{project}/{name}", "rb") as doc:
                text = doc.read(MAX_DOC_TEXT).decode("utf-8", "replace").lower()
        except (OSError, ValueError):
            continue
        if re.search(rf"(?<![\w.-]){re.escape(host)}(?![\w-])", text):
            return True
    return False


def default_sources(spec: _Format, text: str) -> list[str]:
    """The URLs `text` sets as the default source, in its file's format."""
    if spec.kind == "cargo":
        return _cargo_sources(text)
    if spec.kind == "toml":
        return _toml_sources(spec, text)
    if spec.kind == "yaml_lists":
        return _yaml_sources(spec, text)
    if spec.kind == "gitconfig":
        return _gitconfig_sources(spec, text)
    if spec.kind == "maven_mirrors":
        return _maven_mirrors(spec, text)
    if spec.kind == "nuget":
        return _nuget_sources(text)
    pattern = _line_pattern(spec.kind, spec.keys)
    values = [m.group("value").strip().strip("\"'") for m in pattern.finditer(text)]
    return [v.replace("\\", "") for v in values] if spec.kind == "properties" else values  # `https\://…`


@functools.cache
def _line_pattern(kind: str, keys: frozenset[str]) -> re.Pattern[str]:
    names = "|".join(re.escape(k) for k in sorted(keys))
    if kind in ("ini", "properties"):  # `registry=…`, `index-url = …`: a key of its own, not a scope's (`@a:registry`)
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
    values = [data.get(k) for k in spec.keys]  # `extra-index-url` is a list
    urls = [v for value in values for v in (value if isinstance(value, list) else [value]) if isinstance(v, str)]
    indexes = data.get("index")
    for entry in indexes if isinstance(indexes, list) else ():
        if isinstance(entry, Mapping) and entry.get("default") is True and isinstance(url := entry.get("url"), str):
            urls.append(url)
    return urls


def _yaml_sources(spec: _Format, text: str) -> list[str]:
    """conda's channels: each top-level key's value, a string or a list of them (a channel's name is resolved on
    the public alias: only a URL names a host)."""
    try:
        data: Any = yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError):
        return []
    if not isinstance(data, Mapping):
        return []
    values = [data.get(k) for k in spec.keys]
    return [v for value in values for v in (value if isinstance(value, list) else [value]) if isinstance(v, str)]


_GIT_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\](.*)$')
_GIT_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*=\s*(\S+)")


def _gitconfig_sources(spec: _Format, text: str) -> list[str]:
    """git-config syntax (`.lfsconfig`): the values of the keys `section.name` (a subsection any); a key below no
    header in `text` (an edit's added lines) is taken by its name under any section."""
    section, found = "", []
    names = {k.rpartition(".")[2] for k in spec.keys}
    for raw in text.splitlines():
        header, line = _GIT_SECTION.match(raw), raw
        if header:
            section, line = header.group(1).lower(), header.group(2)
        key = _GIT_KEY.match(line)
        name = key.group(1).lower() if key else ""
        if key and (f"{section}.{name}" in spec.keys or (not section and name in names)):
            found.append(key.group(2).strip("\"'"))
    return found


_MIRROR = re.compile(r"<mirror\b.*?</mirror>", re.DOTALL | re.IGNORECASE)
_MIRROR_OF = re.compile(r"<mirrorOf>\s*([^<]*?)\s*</mirrorOf>", re.IGNORECASE)
_MIRROR_URL = re.compile(r"<url>\s*([^<]*?)\s*</url>", re.IGNORECASE)


def _maven_mirrors(spec: _Format, text: str) -> list[str]:
    """Maven's settings: the `<url>` of each `<mirror>` whose `<mirrorOf>` list (comma-separated) names one of the
    keys (`*`, `external:*`, `central`: every download of the default repository)."""
    found = []
    for block in _MIRROR.findall(text):
        of, url = _MIRROR_OF.search(block), _MIRROR_URL.search(block)
        if of and url and any(part.strip() in spec.keys for part in of.group(1).split(",")):
            found.append(url.group(1))
    return found


_NUGET_SOURCES = re.compile(r"<packageSources\b[^>]*>(?P<body>.*?)(?:</packageSources>|\Z)", re.DOTALL | re.IGNORECASE)
_NUGET_VALUE = re.compile(r"<add\b[^>]*?\bvalue\s*=\s*[\"'](?P<value>[^\"']*)", re.IGNORECASE)


def _nuget_sources(text: str) -> list[str]:
    """NuGet's feeds: each `<add … value="URL">` inside `<packageSources>` (a `<config>` entry's value, a proxy or
    a folder, is no feed)."""
    return [v.group("value") for s in _NUGET_SOURCES.finditer(text) for v in _NUGET_VALUE.finditer(s.group("body"))]


def _cargo_sources(text: str) -> list[str]:
    """Cargo's crates-io source replaced (`[source.crates-io] replace-with = "name"`, followed through each
    `replace-with`): the replacing source's `registry` or `git` URL; a `directory` or `local-registry` (vendored
    crates on disk) has none."""
    try:
        sources: Any = tomllib.loads(text).get("source")
    except (tomllib.TOMLDecodeError, ValueError, RecursionError):
        return []
    name, seen = "crates-io", 0
    while isinstance(sources, Mapping) and isinstance(entry := sources.get(name), Mapping) and seen < MAX_REPLACEMENTS:
        seen += 1
        nxt = entry.get("replace-with")
        if not isinstance(nxt, str):
            url = entry.get("registry", entry.get("git"))
            return [url] if isinstance(url, str) and name != "crates-io" else []
        name = nxt
    return []


def _host(url: str) -> str:
    """The URL's host, lowercased ("" for no host: a path, a file URL, an unreadable value)."""
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""
