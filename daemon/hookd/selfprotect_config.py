"""The config a later hookd of the caller reads: `~/.config/hookd/config.toml` in the caller's home, the file the
service manager's `hookd serve` and every autostart without `--config` load (README "Configuration"). Whatever
config the running daemon was given, the files that one names are what the next daemon verifies bundles with,
fetches and loads policies from and writes its log to: hookd's, as the running config's are."""

from __future__ import annotations

import os
import posixpath
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import SplitResult, unquote, urlsplit

from hookd.config import Config, parse_config
from hookd.enrich.effects.fetches import loopback
from hookd.errors import ConfigError

_CALLER_CONFIG = (".config", "hookd", "config.toml")

# a config file's identity: (device, inode, size, mtime); None when there is none to read
Stamp = tuple[int, int, int, int] | None


def caller_config_stamp(home: str) -> Stamp:
    """What tells a set derived from the caller's config that the file changed (one stat a call)."""
    if not home.startswith("/"):
        return None
    try:
        stat = os.stat(os.path.join(home, *_CALLER_CONFIG))  # not pathlib: ~10 functions on every writing call
    except OSError:
        return None
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)


def caller_config(home: str) -> Config | None:
    """The caller's own config, read with its `~` as the caller's home (the daemon's may differ). A file that cannot
    be read or parsed names nothing more."""
    path = Path(home, *_CALLER_CONFIG)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        return parse_config(_home_filled(raw, home.rstrip("/")), source=path)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, ConfigError, ValueError, TypeError):
        return None


def _home_filled(value: Any, home: str) -> Any:
    """Every `~`-led path of the TOML document as the caller's home has it (parse_config would expand the daemon's)."""
    if isinstance(value, str):
        return home + value[1:] if value == "~" or value.startswith("~" + os.sep) else value
    if isinstance(value, list):
        return [_home_filled(v, home) for v in value]
    if isinstance(value, dict):
        return {k: _home_filled(v, home) for k, v in value.items()}
    return value


# OPA's REST API (https://www.openpolicyagent.org/docs/rest-api): PUT, PATCH and DELETE of /v1/policies and /v1/data
# create, replace or delete what it decides with; GET and HEAD read; POST is a query there (/v1/data with input,
# /v1/compile, /v1/query; /v1/policies routes no POST); any other method, or one built at run time, is not known.
_CHANGING = frozenset({"PUT", "PATCH", "DELETE"})
_READING = frozenset({"", "GET", "HEAD", "POST", "OPTIONS"})
_ENGINE_CHANGES = re.compile(r"/v1/(?:policies|data)(?:/|$)")
_BUILT = re.compile(r"[$`]")
_WORDS = re.compile(r"[\s()]+")  # a part the shell fills in when the line runs
# the hook port named as a listening socket: fuser(1)'s `PORT[,HOST[,RPORT]]/tcp`, and in a lookup's words lsof(8)'s
# `-i [PROTO][@HOST]:PORT`, ss(8)'s `sport = :PORT`, netstat's `HOST:PORT`, a bare `PORT` (`fuser -n tcp PORT`)
_PORT_TARGET = r"(?:\S*:{0}|{0}(?:,[^/\s]*)?/tcp6?)"
_PORT_WORD = r"(?:{0}|" + _PORT_TARGET + ")"


class Endpoints(NamedTuple):
    """hookd's own endpoints from its config: the OPA server's (host, port) (host "" for any loopback spelling),
    the Unix sockets it is reached by (OPA's, when its URL is one), hookd's own sockets, the HTTP hook port."""

    hosts: tuple[tuple[str, int], ...]
    engine_sockets: tuple[str, ...]
    own_sockets: tuple[str, ...]
    port: int


def own_endpoints(config: Config) -> Endpoints:
    """Where hookd's decisions are served from: the OPA server's address (every spelling of loopback for a loopback
    host), its socket, hookd's own sockets, and the HTTP hook listener's port (whether enabled or not)."""
    parts = urlsplit(config.opa.url)
    hosts: tuple[tuple[str, int], ...] = ()
    sockets: tuple[str, ...] = ()
    if parts.scheme in ("http", "https") and parts.hostname:
        hosts = ((_host(parts.hostname), parts.port or _DEFAULT_PORTS[parts.scheme]),)
    elif parts.scheme == "unix":
        sockets = (os.path.normpath(parts.path),)
    backend = config.control_socket.with_name("grpc.sock")  # the control plane's gRPC server (control/server.py)
    own = tuple(str(p) for p in (config.hook_socket, config.control_socket, config.lane_socket, backend))
    return Endpoints(hosts, sockets, own, config.http.port)


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _host(name: str) -> str:
    name = name.strip("[]").rstrip(".").lower()
    return "" if loopback(name) else name


def reached_endpoints(endpoints: Endpoints, effects: Any) -> dict[str, list[dict[str, Any]]]:
    """`endpoints` (none: no key): the call's requests that change the policies or data of hookd's OPA server
    (`curl -X PUT …:8181/v1/policies/x`; `ask` where the method or the server is built at run time or not a known
    one), its requests through hookd's own sockets, and its signals to what holds hookd's HTTP port (`fuser -k
    8765/tcp`, `kill $(lsof -t -i :8765)`)."""
    found: list[dict[str, Any]] = []
    for e in effects if isinstance(effects, list) else ():
        if not isinstance(e, Mapping):
            continue
        if e.get("op") == "fetch":
            found += _request(endpoints, e)
        elif e.get("op") == "signal" and _names_port(endpoints.port, e):
            found.append({"what": "hookd's HTTP hook listener", "how": f"{e.get('program')} {e.get('target')}"})
    return {"endpoints": found} if found else {}


def _request(endpoints: Endpoints, e: Mapping[str, Any]) -> list[dict[str, Any]]:
    method, url, socket = str(e.get("method") or "").upper(), str(e.get("url", "")), str(e.get("socket") or "")
    how = f"{method or 'GET'} {url}" + (f" through {socket}" if socket else "")
    if e.get("grpc"):
        return _grpc(endpoints, e, how)
    if socket and _same_socket(socket, endpoints.own_sockets):
        return [{"what": "hookd's own socket", "how": how}]
    if method in _READING and not _BUILT.search(method):
        return []
    split = _split(url)
    if split is None or not _ENGINE_CHANGES.match(_path(split.path)):
        return []
    if socket:
        reached = _same_socket(socket, endpoints.engine_sockets) or (None if _BUILT.search(socket) else False)
    else:
        reached = _same_server(split, endpoints.hosts)
    if reached is False:
        return []
    known = reached and method in _CHANGING
    return [{"what": "the policy engine hookd decides with", "how": how, **({} if known else {"ask": True})}]


def _grpc(endpoints: Endpoints, e: Mapping[str, Any], how: str) -> list[dict[str, Any]]:
    """A gRPC client's call to hookd: through its sockets (the control socket serves its gRPC API), to the engine's
    server or to the hook port on loopback; a listing of services by reflection changes nothing (self-protection
    judges changes) and passes, as a call to any other server does."""
    if e.get("listing"):
        return []
    socket = str(e.get("socket") or "")
    what = {"what": "hookd's own endpoint", "how": how.replace("POST grpc://", "gRPC call to ", 1)}
    if socket:
        sockets = (*endpoints.own_sockets, *endpoints.engine_sockets)
        return [what] if _same_socket(socket, sockets) else []
    split = _split(str(e.get("url", "")))
    if split is None:
        return []
    reached = _same_server(split, (*endpoints.hosts, ("", endpoints.port)))
    return [] if reached is False else [what] if reached else [{**what, "ask": True}]


def _split(url: str) -> SplitResult | None:
    try:
        return urlsplit(url if "://" in url else "http://" + url)  # curl's default scheme
    except ValueError:
        return None


def _path(path: str) -> str:
    """The path as the server routes it: percent-decoded, dot segments and repeated slashes gone, in lower case."""
    return posixpath.normpath("/" + unquote(path)).lower().replace("//", "/")


def _same_server(split: SplitResult, hosts: tuple[tuple[str, int], ...]) -> bool | None:
    """True where the URL's server is one of `hosts`, None where its host or port is built at run time."""
    if _BUILT.search(split.netloc):
        return None if hosts else False
    try:
        port = split.port or _DEFAULT_PORTS.get(split.scheme.lower(), 80)
    except ValueError:
        return False
    return (_host(split.hostname or ""), port) in hosts


def _same_socket(path: str, sockets: tuple[str, ...]) -> bool:
    """The same socket: the same path, or one built at run time (`$XDG_RUNTIME_DIR/hookd/hook.sock`) of its name."""
    path = os.path.normpath(path)
    name = "/" + path.rpartition("/")[2]
    return any(path == s or (_BUILT.search(path) and s.endswith(name)) for s in sockets)


def _names_port(port: int, e: Mapping[str, Any]) -> bool:
    """The signal's target names the hook port as a socket (`8765/tcp`, ss's `:8765`), or its pid is looked up from
    a query that names it (`kill $(lsof -t -i :8765)`, `lsof -ti tcp:8765 | xargs kill`)."""
    target = re.compile(_PORT_TARGET.format(port), re.IGNORECASE)
    if any(target.fullmatch(w) for w in _WORDS.split(str(e.get("target", "")))):  # ss's `( sport = :8765 )`
        return True
    word = re.compile(_PORT_WORD.format(port), re.IGNORECASE)
    return any(word.fullmatch(str(w)) for w in e.get("lookup") or ())
