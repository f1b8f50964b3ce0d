"""The daemon's bundle sources: one poll loop per source, status per source, and activation by
compile-then-swap. Start-up loads the kept bundles before any network (assembly.kept_bundles_of);
`start` then polls. A refused bundle is logged, counted and kept in the source's status, and the last
good bundle keeps serving."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass

import structlog

from hookd.bundle.activate import Active, Compile, activate, verify_bundle
from hookd.bundle.config import BundlesConfig, BundleSource
from hookd.bundle.sources import fetch_off_loop, next_delay
from hookd.bundle.store import BundleStore
from hookd.errors import BundleError, one_line

log = structlog.get_logger("hookd.bundles")
Swap = Callable[[Mapping[str, Active]], None]  # installs a new set of active bundles; must not fail


@dataclass
class SourceStatus:
    name: str
    location: str
    revision: str = ""  # the active bundle's revision ("" while none is active)
    active_since: float = 0.0
    last_request: float = 0.0
    last_success: float = 0.0  # last request answered 200 or 304
    last_download: float = 0.0  # last request answered 200 (a bundle came)
    last_error: str = ""
    last_error_at: float = 0.0
    next_poll: float = 0.0
    consecutive_failures: int = 0
    downloads: int = 0
    not_modified: int = 0
    activations: int = 0
    refusals: int = 0  # bundles downloaded (or kept) but refused
    fetch_failures: int = 0
    long_polling: bool = False
    last_activation_ms: float = 0.0  # verify + extract + compile + swap of the last activation

    def as_json(self) -> dict[str, object]:
        return asdict(self)


class BundleManager:
    def __init__(self, config: BundlesConfig, store: BundleStore, compile_dir: Compile, swap: Swap) -> None:
        self.config = config
        self.store = store
        self.compile_dir = compile_dir
        self.swap = swap
        self.kept: Callable[[], None] | None = None  # called once an activated bundle is in the store
        self.changed: Callable[[str], None] | None = None  # "activation", or "failure": a refusal or failed request
        self.active: dict[str, Active] = {}
        self.status = {s.name: SourceStatus(s.name, s.location) for s in config.sources}
        self._etags: dict[str, str] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._rng = random.Random()
        self._activating = asyncio.Lock()  # isolated engines start in the background: activations could overlap

    def adopt_kept(self, kept: list[Active], errors: Mapping[str, str]) -> None:
        """Install the bundles loaded from the state directory at start-up (before the first swap)."""
        now = time.time()
        for active in kept:
            self.active[active.source.name] = active
            self._etags[active.source.name] = active.etag
            status = self.status[active.source.name]
            status.revision, status.active_since = active.revision, now
            log.info("bundle_loaded_from_state", source=active.source.name, revision=active.revision)
        for name, error in errors.items():
            self._refused(self.status[name], f"kept bundle refused: {error}")
        for source in self.config.sources:  # extraction directories left by earlier runs
            serving = self.active.get(source.name)
            self.store.sweep(source.name, keep=serving.directory if serving else None)

    def layers(self) -> list[object]:
        return [active.layer for active in self.active.values()]

    def start(self) -> None:
        for source in self.config.sources:
            self._tasks.append(asyncio.create_task(self._poll(source), name=f"bundle-{source.name}"))

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()

    async def reconfigure(self, config: BundlesConfig) -> None:
        """New sources (discovery, docs/fleet.md): a removed source's bundle stops serving at once; a changed
        one keeps serving until its source, fetched again, activates under the new settings; the others go on."""
        await self.stop()
        before = {source.name: source for source in self.config.sources}
        after = {source.name: source for source in config.sources}
        self.config = config
        removed = [name for name in self.active if name not in after]
        for name in removed:
            del self.active[name]
        for name, source in after.items():
            if before.get(name) != source:
                self._etags.pop(name, None)
                old, new = self.status.get(name), SourceStatus(name, source.location)
                if old is not None:  # the revision still serving, until the source activates again
                    new.revision, new.active_since = old.revision, old.active_since
                self.status[name] = new
        for name in set(self.status) - set(after):
            del self.status[name]
        if removed:
            self.swap(dict(self.active))
        log.info("bundle_sources_reconfigured", sources=sorted(after), removed=removed)
        self.start()

    def snapshot(self) -> list[dict[str, object]]:
        return [status.as_json() for status in self.status.values()]

    async def _poll(self, source: BundleSource) -> None:
        while True:
            try:
                await self._poll_forever(source)
            except Exception:  # a bug here must not end the polling of this source for good
                log.exception("bundle_poll_crashed", source=source.name)
                await asyncio.sleep(source.max_delay_seconds)

    async def _poll_forever(self, source: BundleSource) -> None:
        status = self.status[source.name]
        while True:
            wait = source.long_polling_timeout_seconds if status.long_polling or not status.last_success else 0
            status.last_request = time.time()
            try:
                fetched = await fetch_off_loop(source, self._etags.get(source.name, ""), wait)
            except BundleError as exc:
                status.consecutive_failures += 1
                status.fetch_failures += 1
                status.last_error, status.last_error_at = str(exc), time.time()
                self._etags.pop(source.name, None)  # as OPA: the next request asks for the bundle whole
                delay = next_delay(source, status.consecutive_failures, False, self._rng)
                status.next_poll = time.time() + delay
                log.warning("bundle_download_failed", source=source.name, error=str(exc),
                            failures=status.consecutive_failures, retry_in_s=round(delay, 3))  # fmt: skip
                self._notify("failure")
                await asyncio.sleep(delay)
                continue
            status.consecutive_failures = 0
            status.last_success = time.time()
            status.long_polling = fetched.long_poll and source.long_polling_timeout_seconds > 0
            if fetched.data is None:
                status.not_modified += 1
            else:
                status.downloads += 1
                status.last_download = status.last_success
                self._etags[source.name] = fetched.etag  # a refused bundle is not fetched again until it changes
                await self.offer(source, fetched.data, fetched.etag)
            delay = next_delay(source, 0, status.long_polling, self._rng)
            status.next_poll = time.time() + delay
            await asyncio.sleep(delay)

    async def offer(self, source: BundleSource, data: bytes, etag: str) -> bool:
        """Verify, compile and swap in one downloaded bundle; on any failure keep the last good one."""
        status = self.status[source.name]
        started = time.perf_counter()
        serving = self.active.get(source.name)
        if serving is not None and serving.data == data and serving.source == source:  # the same again: no recompile
            status.not_modified += 1
            return True
        async with self._activating:  # one at a time: each checks its roots against the bundles now active
            try:
                bundle = await asyncio.to_thread(verify_bundle, source, data, self.config)
                others = [a for name, a in self.active.items() if name != source.name]
                # Compiled on the event loop's thread: the embedded engine may not cross threads.
                new = activate(
                    source, bundle, data, etag, store=self.store, compile_dir=self.compile_dir, others=others
                )
                await _ready(new)
            except BundleError as exc:
                self._refused(status, str(exc))
                return False
            previous = self.active.get(source.name)
            self.swap({**self.active, source.name: new})
            self.active[source.name] = new
        status.last_activation_ms = round((time.perf_counter() - started) * 1000, 3)
        status.revision, status.active_since = new.revision, time.time()
        status.activations += 1
        status.last_error = ""
        try:
            await asyncio.to_thread(self.store.save, source.name, data, etag=etag, revision=new.revision)
        except OSError as exc:  # it serves; only an offline restart would miss it
            log.error("bundle_not_kept", source=source.name, revision=new.revision, error=str(exc))
        self.store.sweep(source.name, keep=new.directory)
        if self.kept is not None:
            self.kept()
        log.info("bundle_activated", source=source.name, revision=new.revision,
                 previous=previous.revision if previous else None, activation_ms=status.last_activation_ms)  # fmt: skip
        self._notify("activation")
        return True

    def _refused(self, status: SourceStatus, error: str) -> None:
        status.refusals += 1
        status.last_error, status.last_error_at = error, time.time()
        log.error("bundle_refused", source=status.name, error=error, serving=status.revision or None)
        self._notify("failure")

    def _notify(self, reason: str) -> None:
        if self.changed is not None:
            self.changed(reason)


async def _ready(active: Active) -> None:
    """Wait for engines that start asynchronously (sandboxed Python workers); one that cannot start refuses
    the bundle like a compile error, and is closed."""
    engine = active.layer.engine
    try:
        await engine.ready()
    except Exception as exc:
        with contextlib.suppress(Exception):
            await engine.aclose()
        raise BundleError(f"policies do not start: {one_line(str(exc))}") from exc
