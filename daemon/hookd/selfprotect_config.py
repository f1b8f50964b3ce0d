"""The config a later hookd of the caller reads: `~/.config/hookd/config.toml` in the caller's home, the file the
service manager's `hookd serve` and every autostart without `--config` load (README "Configuration"). Whatever
config the running daemon was given, the files that one names are what the next daemon verifies bundles with,
fetches and loads policies from and writes its log to: hookd's, as the running config's are."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from hookd.config import Config, parse_config
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


_LOOPBACK = ("127.0.0.1", "localhost", "[::1]", "0.0.0.0", "127.1")  # the spellings a client reaches loopback by
# OPA's REST API paths that change what it decides with (https://www.openpolicyagent.org/docs/rest-api: policies
# created, replaced or deleted; data documents put, patched or deleted; a POST to /v1/data is a query, a read)
_ENGINE_CHANGES = re.compile(r"/v1/(?:policies|data)(?:/|$|\?)")
_PORT_TARGET = re.compile(r"(\d+)/tcp")  # fuser(1)'s PORT/tcp: the processes using that port


def own_endpoints(config: Config) -> tuple[tuple[str, ...], int]:
    """Where hookd's decisions are served from: the OPA server's `host:port` (each loopback spelling of a loopback
    host), and the HTTP hook listener's port (whether enabled or not, the one it takes when it is)."""
    parts = urlsplit(config.opa.url)
    hosts: tuple[str, ...] = ()
    if parts.scheme in ("http", "https") and parts.hostname:
        port = parts.port or (443 if parts.scheme == "https" else 80)
        loopback = parts.hostname in ("127.0.0.1", "localhost", "::1")
        hosts = tuple(f"{h}:{port}" for h in (_LOOPBACK if loopback else (parts.hostname,)))
    return hosts, config.http.port


def reached_endpoints(endpoints: tuple[tuple[str, ...], int], effects: Any) -> dict[str, list[dict[str, str]]]:
    """`endpoints` (none: no key): the call's requests that change the policies or data of hookd's OPA server
    (`curl -X PUT …:8181/v1/policies/x`), and its signals to what holds hookd's HTTP port (`fuser -k 8765/tcp`)."""
    hosts, port = endpoints
    found: list[dict[str, str]] = []
    for e in effects if isinstance(effects, list) else ():
        if not isinstance(e, Mapping):
            continue
        if e.get("op") == "fetch" and e.get("method") not in (None, "POST"):
            url = str(e.get("url", "")).lower().split("://", 1)[-1]
            host, _, path = url.partition("/")
            if host in hosts and _ENGINE_CHANGES.match("/" + path):
                found.append({"what": "the policy engine hookd decides with", "how": f"{e['method']} {e['url']}"})
        elif e.get("op") == "signal" and _port(str(e.get("target", ""))) == port:
            found.append({"what": "hookd's HTTP hook listener", "how": f"{e.get('program')} {e['target']}"})
    return {"endpoints": found} if found else {}


def _port(target: str) -> int | None:
    found = _PORT_TARGET.fullmatch(target)
    return int(found.group(1)) if found else None
