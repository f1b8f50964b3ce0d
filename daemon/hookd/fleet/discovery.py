"""Discovery (`[discovery]`, docs/fleet.md): one signed bundle, published by the organisation, carries the
configuration of the fleet's bundles (with their rollout modes), decision-log shipping, status reporting,
OpenTelemetry export and the modes of the local layers, as OPA's discovery bundle does. The configuration
is the data document at `hookd.discovery` (the bundle's `hookd/discovery/data.json`), written with the same
keys as hookd's TOML config.

The local configuration may add layers and tighten, never loosen, what the organisation set:
* `bundles`: the organisation's bundle tables are taken whole; local `[bundles.NAME]` tables of other names
  add layers; of a bundle the organisation set, only the mode may be changed (`[discovery] modes`, or
  `mode` in a local table of the same name), and only to a stricter one (monitor < enforce; a shadow
  stays a shadow);
* `log.ship`, `status`, `otel`: a key the organisation set keeps its value; the others may be set locally;
* `layers.mode`, `layers.project_mode`: "monitor" may be made "enforce" locally, not the other way round;
* `keys` never come from discovery: the keys that verify bundles (the discovery bundle's first) are local.
A local setting that would loosen is not applied: it is logged (`discovery_override_refused`) and reported.
A discovery bundle that does not verify, or whose configuration is not valid, is refused whole: the last
good one (kept in `state_dir/discovery/`, loaded before any network at start) stays in force.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import structlog

from hookd.bundle.activate import verify_bundle
from hookd.bundle.config import BundleSource
from hookd.bundle.manager import SourceStatus
from hookd.bundle.sources import fetch_off_loop, next_delay
from hookd.bundle.store import BundleStore
from hookd.config import Config, parse_config
from hookd.errors import BundleError, ConfigError, one_line

log = structlog.get_logger("hookd.discovery")
DATA_FILE = "hookd/discovery/data.json"
SECTIONS: Mapping[str, frozenset[str] | None] = {  # what discovery may set (None: any key of the section)
    "bundles": None,
    "status": None,
    "otel": None,
    "log": frozenset({"ship"}),
    "layers": frozenset({"mode", "project_mode"}),
}
STRICTNESS = {"shadow": 0, "monitor": 1, "enforce": 2}
Apply = Callable[[Config], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Discovered:
    revision: str
    config: Config  # the effective configuration: the local one with the organisation's merged in
    refused: tuple[str, ...]  # local settings that would have loosened the organisation's


def discovered_settings(data: bytes, source: BundleSource, local: Config) -> tuple[str, dict[str, Any]]:
    """Verify a discovery bundle with the local key and return (revision, its settings). Raises BundleError."""
    bundle = verify_bundle(source, data, local.bundles)
    if not bundle.verified.signed:
        raise BundleError("a discovery bundle must be signed")
    raw = bundle.files.get(DATA_FILE)
    if raw is None:
        raise BundleError(f"the discovery bundle holds no {DATA_FILE}")
    try:
        settings = json.loads(raw)
    except ValueError as exc:
        raise BundleError(f"{DATA_FILE} is not JSON: {exc}") from None
    if not isinstance(settings, dict):
        raise BundleError(f"{DATA_FILE} must hold an object of configuration sections")
    for section, value in settings.items():
        if section not in SECTIONS:
            raise BundleError(f"discovery may not set '{section}' (only {', '.join(SECTIONS)})")
        allowed = SECTIONS[section]
        if not isinstance(value, dict):
            raise BundleError(f"discovery's '{section}' must be an object")
        if allowed is not None and set(value) - allowed:
            raise BundleError(f"discovery may not set '{section}.{sorted(set(value) - allowed)[0]}'")
    for name, table in settings.get("bundles", {}).items():
        if not isinstance(table, dict) or not table.get("key") or "file" in table:
            raise BundleError(f"discovered bundle '{name}' must be a url source that names a key (signed)")
    return bundle.revision, settings


def merge(local: Mapping[str, Any], org: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The local raw configuration with the organisation's settings merged in; and the local settings not
    applied because they would loosen the organisation's."""
    merged = {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in local.items()}
    refused: list[str] = []
    bundles = dict(local.get("bundles", {}))
    modes = dict(local.get("discovery", {}).get("modes", {}))
    for name, table in org.get("bundles", {}).items():
        mine = dict(bundles.get(name, {}))
        if name in modes:
            mine["mode"] = modes.pop(name)
        taken = dict(table)
        for key, value in mine.items():
            org_mode = str(table.get("mode", "enforce"))
            if key == "mode" and org_mode != "shadow" and STRICTNESS.get(str(value), -1) >= STRICTNESS[org_mode]:
                taken["mode"] = value
            elif table.get(key) != value:
                refused.append(f"bundles.{name}.{key}")
        bundles[name] = taken
    refused += [f"discovery.modes.{name}" for name in modes]  # names no discovered bundle has
    if bundles:
        merged["bundles"] = bundles
    for section in ("status", "otel"):
        merged[section] = _keep_org(section, dict(local.get(section, {})), org.get(section, {}), refused)
    if "log" in org:
        log_table = dict(local.get("log", {}))
        log_table["ship"] = _keep_org("log.ship", dict(log_table.get("ship", {})), org["log"]["ship"], refused)
        merged["log"] = log_table
    if "layers" in org:
        layers = dict(local.get("layers", {}))
        for key, value in org["layers"].items():
            if layers.get(key, value) != value and not (value == "monitor" and layers[key] == "enforce"):
                refused.append(f"layers.{key}")
                layers[key] = value
            layers.setdefault(key, value)
        merged["layers"] = layers
    return merged, refused


def _keep_org(section: str, mine: dict[str, Any], org: Mapping[str, Any], refused: list[str]) -> dict[str, Any]:
    for key, value in org.items():
        if key in mine and mine[key] != value:
            refused.append(f"{section}.{key}")
        mine[key] = value
    return mine


def effective(local: Config, revision: str, settings: Mapping[str, Any]) -> Discovered:
    merged, refused = merge(local.raw, settings)
    try:
        parsed = parse_config(merged, source=local.source)
    except ConfigError as exc:
        raise BundleError(f"the discovered configuration is not valid: {exc}") from None
    # only what discovery may set is taken: the rest stays as the daemon was started (command-line options)
    config = replace(
        local,
        bundles=parsed.bundles,
        status=parsed.status,
        otel=parsed.otel,
        log=replace(local.log, ship=parsed.log.ship),
        layers=replace(local.layers, mode=parsed.layers.mode, project_mode=parsed.layers.project_mode),
    )
    return Discovered(revision, config, tuple(refused))


class Discovery:
    """The discovery source: the kept bundle at start (before any network), then a poll loop like a bundle
    source's. `apply` is the daemon's: it puts a newly discovered configuration in force."""

    NAME = "discovery"

    def __init__(self, local: Config) -> None:
        assert local.discovery is not None
        self.local = local
        self.source: BundleSource = local.discovery
        self.store = BundleStore(local.daemon.state_dir / "discovery")
        self.status = SourceStatus(self.NAME, self.source.location)
        self.current: Discovered | None = None
        self.apply: Apply | None = None
        self.changed: Callable[[str], None] | None = None
        self._data = b""
        self._etag = ""
        self._task: asyncio.Task[None] | None = None
        self._rng = random.Random()

    def start_config(self) -> Config:
        """The configuration to start with: the kept discovery bundle merged into the local one, or the local
        one alone when none is kept or it no longer verifies (then refused, and reported)."""
        try:
            kept = self.store.load(self.NAME)
            if kept is None:
                return self.local
            found = effective(self.local, *discovered_settings(kept.data, self.source, self.local))
        except BundleError as exc:
            self._refused(f"kept discovery bundle refused: {exc}")
            return self.local
        self._take(found, kept.data, kept.etag)
        log.info("discovery_loaded_from_state", revision=found.revision)
        return found.config

    def snapshot(self) -> dict[str, Any]:
        out = self.status.as_json()
        out["overrides_refused"] = list(self.current.refused) if self.current else []
        return out

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._poll(), name="hookd-discovery")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _poll(self) -> None:
        status = self.status
        while True:
            wait = self.source.long_polling_timeout_seconds if status.long_polling or not status.last_success else 0
            status.last_request = time.time()
            try:
                fetched = await fetch_off_loop(self.source, self._etag, wait)
            except BundleError as exc:
                status.consecutive_failures += 1
                status.fetch_failures += 1
                if str(exc) != status.last_error:
                    log.warning("discovery_fetch_failed", error=str(exc), serving=status.revision or None)
                status.last_error, status.last_error_at = str(exc), time.time()
                self._etag = ""
                self._notify("failure")
                await asyncio.sleep(next_delay(self.source, status.consecutive_failures, False, self._rng))
                continue
            status.consecutive_failures, status.last_success = 0, time.time()
            status.long_polling = fetched.long_poll and self.source.long_polling_timeout_seconds > 0
            if fetched.data is None:
                status.not_modified += 1
            else:
                status.downloads, status.last_download = status.downloads + 1, status.last_success
                self._etag = fetched.etag  # a refused bundle is not fetched again until it changes
                await self.offer(fetched.data, fetched.etag)
            await asyncio.sleep(next_delay(self.source, 0, status.long_polling, self._rng))

    async def offer(self, data: bytes, etag: str) -> bool:
        if data == self._data:
            self.status.not_modified += 1
            return True
        try:
            found = await asyncio.to_thread(self._verify, data)
        except BundleError as exc:
            self._refused(str(exc))
            return False
        if self.apply is not None and not await self._applied(found):
            return False
        self._take(found, data, etag)
        try:
            await asyncio.to_thread(self.store.save, self.NAME, data, etag=etag, revision=found.revision)
        except OSError as exc:
            log.error("discovery_not_kept", revision=found.revision, error=str(exc))
        log.info("discovery_activated", revision=found.revision, overrides_refused=list(found.refused))
        self._notify("discovery")
        return True

    async def _applied(self, found: Discovered) -> bool:
        """Put `found` in force; when a step fails (an export that cannot be built, a target refused), put back
        what was in force, so a failed activation leaves no half-applied configuration, and refuse the revision
        (reported in status; not fetched again until it changes)."""
        assert self.apply is not None
        try:
            await self.apply(found.config)
        except Exception as exc:  # whatever a component raises while taking the new configuration
            previous = self.current.config if self.current is not None else self.local
            try:
                await self.apply(previous)  # apply changes only what differs from what the daemon holds
            except Exception as again:
                log.error("discovery_restore_failed", revision=found.revision, error=one_line(str(again)))
            self._refused(f"discovery revision {found.revision!r} not applied: {one_line(str(exc))}")
            return False
        return True

    def _verify(self, data: bytes) -> Discovered:
        return effective(self.local, *discovered_settings(data, self.source, self.local))

    def _take(self, found: Discovered, data: bytes, etag: str) -> None:
        self.current, self._data, self._etag = found, data, etag
        status = self.status
        status.revision, status.active_since, status.activations = found.revision, time.time(), status.activations + 1
        status.last_error = ""
        for setting in found.refused:
            log.warning("discovery_override_refused", setting=setting, revision=found.revision)

    def _refused(self, error: str) -> None:
        self.status.refusals += 1
        self.status.last_error, self.status.last_error_at = error, time.time()
        log.error("discovery_refused", error=error, serving=self.status.revision or None)
        self._notify("failure")

    def _notify(self, reason: str) -> None:
        if self.changed is not None:
            self.changed(reason)
