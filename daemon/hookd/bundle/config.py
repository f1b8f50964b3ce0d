"""The `[bundles.NAME]`, `[keys.NAME]` and `[layers]` sections of the config (docs/bundles.md)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookd.bundle.archive import MAX_FILE_BYTES
from hookd.bundle.signing import ALGORITHMS, Key
from hookd.errors import BundleError, ConfigError

_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
RESERVED_NAMES = frozenset({"default", "user", "project"})


@dataclass(frozen=True, slots=True)
class KeyConfig:
    name: str
    algorithm: str = "RS256"
    key: str = ""  # inline PEM or HMAC secret
    key_file: Path | None = None
    scope: str = ""

    def load(self, scope: str = "") -> Key:
        if self.key_file is not None:
            return Key.from_file(self.key_file, self.algorithm, key_id=self.name, scope=scope or self.scope)
        return Key(self.algorithm, self.key, self.name, scope or self.scope)


@dataclass(frozen=True, slots=True)
class BundleSource:
    name: str
    url: str = ""
    file: Path | None = None
    token: str = ""
    token_file: Path | None = None
    ca_file: Path | None = None
    key: str = ""  # the name of a [keys.NAME] entry: verification is on whenever it is set
    scope: str = ""
    min_delay_seconds: float = 60.0
    max_delay_seconds: float = 120.0
    long_polling_timeout_seconds: int = 0
    request_timeout_seconds: float = 30.0
    size_limit_bytes: int = MAX_FILE_BYTES
    mode: str = (
        "enforce"  # "monitor": recorded, never enforced; "shadow": a candidate compared with the set (docs/rollout.md)
    )
    replaces: str = ""  # a shadow bundle: the layer it is a candidate for ("" = in addition to the enforced set)

    @property
    def location(self) -> str:
        return self.url or str(self.file)

    def bearer(self) -> str:
        if self.token_file is not None:
            try:
                return self.token_file.read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise BundleError(f"cannot read token file {self.token_file}: {exc.strerror}") from None
        return self.token


@dataclass(frozen=True, slots=True)
class LayersConfig:
    projects: tuple[str, ...] = ()  # project roots whose policy dir is loaded (opt-in, one by one)
    project_policy_dir: str = ".hookd/policies"
    watch: bool = False  # hot-reload local policy directories on change (opt-in: editors write files non-atomically)
    watch_debounce_ms: int = 300
    mode: str = "enforce"  # the user's policy directory: "enforce" or "monitor" (docs/rollout.md)
    project_mode: str = "enforce"  # every opted-in project's policy directory
    monitor_projects: tuple[
        str, ...
    ] = ()  # projects (of `projects`) whose layer is in monitor mode whatever project_mode


@dataclass(frozen=True, slots=True)
class BundlesConfig:
    sources: tuple[BundleSource, ...] = ()
    keys: Mapping[str, KeyConfig] = field(default_factory=dict)

    def key_for(self, source: BundleSource) -> Key | None:
        if not source.key:
            return None
        return self.keys[source.key].load(source.scope)


_SOURCE_TYPES: Mapping[str, type | tuple[type, ...]] = {
    "url": str, "file": str, "token": str, "token_file": str, "ca_file": str, "key": str, "scope": str,
    "min_delay_seconds": (int, float), "max_delay_seconds": (int, float), "long_polling_timeout_seconds": int,
    "request_timeout_seconds": (int, float), "size_limit_bytes": int, "mode": str, "replaces": str,
}  # fmt: skip
LAYER_MODES = ("enforce", "monitor")
BUNDLE_MODES = ("enforce", "monitor", "shadow")
_PATHS = ("file", "token_file", "ca_file", "key_file")


def parse_bundles(raw_bundles: object, raw_keys: object, where: str) -> BundlesConfig:
    keys = {name: _key(name, value, where) for name, value in _tables(raw_keys, "keys", where).items()}
    sources = tuple(_source(name, value, keys, where) for name, value in _tables(raw_bundles, "bundles", where).items())
    return BundlesConfig(sources=sources, keys=keys)


@dataclass(frozen=True, slots=True)
class StatusConfig:
    """`[status]`: reports in OPA's status API format to a fleet's management service (docs/fleet.md), with the
    same target and credential keys as a bundle source."""

    url: str = ""  # http(s) target of each report ({host}, {user}, {id} are filled in); "" = off
    method: str = "POST"  # POST (OPA's status API) or PUT (one object per daemon in an object store)
    token: str = ""  # sent as `Authorization: Bearer <token>` (or token_file, its first line)
    token_file: str = ""
    ca_file: str = ""  # https: a PEM bundle that verifies the server (default: the system's)
    interval_seconds: int = 60  # a report at least this often, besides one on every activation and failure
    timeout_ms: int = 5000
    doctor_interval_seconds: int = 3600  # doctor's checks run again (on a thread) at most this often


def check_status(status: StatusConfig, where: str) -> StatusConfig:
    if status.url and not re.match(r"https?://", status.url):
        raise ConfigError(f"{where}: 'status.url' must be an http:// or https:// URL, got {status.url!r}")
    return status


def parse_discovery(raw: object, keys: Mapping[str, KeyConfig], where: str) -> BundleSource | None:
    """The `[discovery]` table: a bundle source like `[bundles.NAME]` (docs/fleet.md), which must name a key:
    a discovery bundle decides which bundles are trusted, so an unsigned one is never taken."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: 'discovery' must be a table")
    if not raw.get("key"):
        raise ConfigError(f"{where}: 'discovery.key' is required: a discovery bundle must be signed")
    if "mode" in raw or "replaces" in raw:
        raise ConfigError(f"{where}: 'discovery' takes no mode or replaces: it configures, it does not decide")
    modes = raw.get("modes", {})  # discovered bundles' modes made stricter here (hookd.fleet.discovery)
    if not isinstance(modes, Mapping) or any(m not in BUNDLE_MODES for m in modes.values()):
        raise ConfigError(f"{where}: 'discovery.modes' must be a table of NAME = {' | '.join(BUNDLE_MODES)}")
    return _source("discovery", {k: v for k, v in raw.items() if k != "modes"}, keys, where, dotted="discovery")


def _tables(raw: object, section: str, where: str) -> dict[str, Mapping[str, Any]]:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: '{section}' must be a table of [{section}.NAME] tables")
    for name, value in raw.items():
        if not _NAME.fullmatch(name) or name in RESERVED_NAMES:
            raise ConfigError(
                f"{where}: '{section}.{name}': a name of letters, digits, _ . - (not {sorted(RESERVED_NAMES)})"
            )
        if not isinstance(value, Mapping):
            raise ConfigError(f"{where}: '{section}.{name}' must be a table")
    return dict(raw)


def _key(name: str, raw: Mapping[str, Any], where: str) -> KeyConfig:
    values = _typed(raw, {"algorithm": str, "key": str, "key_file": str, "scope": str}, f"keys.{name}", where)
    if values.get("algorithm", "RS256") not in ALGORITHMS:
        raise ConfigError(f"{where}: 'keys.{name}.algorithm' must be one of {', '.join(ALGORITHMS)}")
    if ("key" in values) == ("key_file" in values):
        raise ConfigError(f"{where}: 'keys.{name}' needs exactly one of key, key_file")
    return KeyConfig(name=name, **values)


def _source(
    name: str, raw: Mapping[str, Any], keys: Mapping[str, KeyConfig], where: str, dotted: str = ""
) -> BundleSource:
    dotted = dotted or f"bundles.{name}"
    values = _typed(raw, _SOURCE_TYPES, dotted, where)
    if ("url" in values) == ("file" in values):
        raise ConfigError(f"{where}: '{dotted}' needs exactly one of url (http/https) or file")
    url = values.get("url", "")
    if url and not re.match(r"https?://", url):
        raise ConfigError(f"{where}: '{dotted}.url' must be an http:// or https:// URL, got {url!r}")
    if values.get("key") and values["key"] not in keys:
        raise ConfigError(f"{where}: '{dotted}.key' names {values['key']!r}, which is not a [keys.NAME] entry")
    if values.get("mode", "enforce") not in BUNDLE_MODES:
        raise ConfigError(f"{where}: '{dotted}.mode' must be one of {', '.join(BUNDLE_MODES)}, got {values['mode']!r}")
    if values.get("replaces") and values.get("mode") != "shadow":
        raise ConfigError(f"{where}: '{dotted}.replaces' needs mode = \"shadow\"")
    source = BundleSource(name=name, **values)
    if not 0 < source.min_delay_seconds <= source.max_delay_seconds:
        raise ConfigError(f"{where}: '{dotted}': need 0 < min_delay_seconds <= max_delay_seconds")
    if source.long_polling_timeout_seconds < 0 or source.size_limit_bytes <= 0 or source.request_timeout_seconds <= 0:
        raise ConfigError(f"{where}: '{dotted}': timeouts and limits must be positive")
    return source


def _typed(
    raw: Mapping[str, Any], types: Mapping[str, type | tuple[type, ...]], dotted: str, where: str
) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for key, value in raw.items():
        expected = types.get(key)
        if expected is None:
            raise ConfigError(f"{where}: unknown key '{dotted}.{key}'")
        if isinstance(value, bool) or not isinstance(value, expected):
            raise ConfigError(f"{where}: '{dotted}.{key}' has the wrong type: {value!r}")
        if key in _PATHS:
            values[key] = Path(os.path.expanduser(str(value))).absolute()
        else:
            values[key] = float(str(value)) if expected == (int, float) else value
    return values
