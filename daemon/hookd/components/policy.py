"""The policy service: the one place that changes what is served. It owns the policy set's holder, reloads
(SIGHUP, a control call, a change in a watched policy directory), the organisation's bundles and the
rollout outputs (monitor and shadow layers' observer, the replay store). Reloads run one at a time; the old
set keeps answering until the new one is ready."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import structlog

from hookd.assembly import bundle_compiler, local_layers
from hookd.bundle.activate import Active
from hookd.bundle.manager import BundleManager
from hookd.bundle.store import BundleStore
from hookd.config import Config
from hookd.errors import HookdError
from hookd.policy.holder import PolicySetHolder
from hookd.policy.layers import Layer, layered
from hookd.rollout.observe import Observer
from hookd.rollout.store import ReplayStore
from hookd.runtime.sdnotify import Notifier
from hookd.types import PolicySet, ReloadResult

log = structlog.get_logger("hookd")


class PolicyService:
    """Reload, watch, bundles and rollout around the holder of the policy set served."""

    name = "policy"

    def __init__(
        self,
        config: Config,
        holder: PolicySetHolder,
        kept: tuple[list[Active], Mapping[str, str]],
        observer: Observer,
        notifier: Notifier,
    ) -> None:
        """`kept`: the last good bundles (and the refusals of the others) the holder's set was built with."""
        self.config = config
        self.holder = holder
        store = BundleStore(config.daemon.state_dir / "bundles")
        compile_bundle = bundle_compiler(config, wait=False)  # the manager awaits ready() before the swap
        self.bundles = BundleManager(config.bundles, store, compile_bundle, self._swap_bundles)
        self.bundles.adopt_kept(*kept)
        self.bundles.kept = self._tell_reloaded  # an activated bundle is in the store: the workers load it
        self.observer = observer
        self.replay = ReplayStore(config.replay, config.log) if config.replay.enabled else None
        self.notifier = notifier
        self.reloads = self.reload_failures = 0
        self.reloaded: list[Callable[[], None]] = []  # told after every swap (the worker processes reload)
        self._lock = asyncio.Lock()
        self._reloading: set[asyncio.Task[Any]] = set()
        self._watcher: asyncio.Task[None] | None = None
        self._watch_stop = asyncio.Event()

    @property
    def current(self) -> PolicySet:
        return self.holder.current

    def start(self) -> None:
        """The rollout outputs (after the decision log), the bundle sources' polling, the watcher."""
        self.observer.start()
        if self.replay is not None:
            self.replay.start()
        self.bundles.start()
        if self.config.layers.watch:
            self._watcher = asyncio.create_task(self._watch_local(), name="watch-local-policies")

    async def stop(self) -> None:
        """Once nothing decides any more: stop watching and polling, observe and store what is queued, let
        reloads under way finish, then close the engines."""
        self._watch_stop.set()
        if self._watcher is not None:
            await asyncio.wait([self._watcher], timeout=2)
        await self.bundles.stop()
        await self.observer.close()  # observes what is queued, passes it on to the decision log
        if self.replay is not None:
            await self.replay.close()  # writes what is queued
        while self._reloading:
            await asyncio.gather(*list(self._reloading))
        await self.holder.close()

    def status(self) -> Mapping[str, Any]:
        served = self.current.status()
        return {
            "revision": served.revision,
            "revisions": dict(served.revisions),
            "packages": list(served.packages),
            "loaded_at": self.holder.loaded_at,
            "reloads": self.reloads,
            "reload_failures": self.reload_failures,
            "bundles": self.bundles.snapshot(),
            "replay": self.replay.status() if self.replay is not None else None,
        }

    def counters(self) -> Mapping[str, float]:
        counters = {"hookd_reloads": self.reloads, "hookd_reload_failures": self.reload_failures}
        if self.replay is not None:
            replay = self.replay
            counters |= {
                "hookd_replay_written": replay.written,
                "hookd_replay_dropped": replay.sink.dropped,
                "hookd_replay_write_errors": replay.write_errors,
            }
        return {name: float(value) for name, value in counters.items()}

    async def reload(self, requested_by: str = "SIGHUP") -> ReloadResult:
        """Load the local policies again and swap once the new set is ready: Python workers start in the
        background, so the old set keeps answering meanwhile. Reloads run one at a time."""
        async with self._lock:
            previous = self.current.status().revision
            self.notifier.reloading()
            try:
                local = await _started(local_layers(self.config, wait=False))
            except HookdError as exc:
                self.reload_failures += 1
                log.error("reload_failed", error=str(exc), kept_revision=previous, requested_by=requested_by)
                self.notifier.ready(f"serving revision {previous} (a reload was refused)")
                return ReloadResult(ok=False, error=str(exc), previous=previous, revision=previous)
            status = self.holder.serve_local(local).status()  # under the bundles serving now
            self._tell_reloaded()
            self.reloads += 1
            log.info("reloaded", revision=status.revision, packages=len(status.packages), requested_by=requested_by)
            self.notifier.ready(f"serving revision {status.revision}")
            return ReloadResult(ok=True, error="", previous=previous, revision=status.revision)

    def reload_soon(self) -> None:
        """A reload in its own task (SIGHUP): kept referenced until done; `stop` waits for it."""
        task = asyncio.get_running_loop().create_task(self.reload())
        self._reloading.add(task)
        task.add_done_callback(self._reloading.discard)

    def local_dirs(self) -> list[Path]:
        """The local policy directories that hot-reload on change: the user's and the opted-in projects'."""
        dirs = [self.config.daemon.policies]
        dirs += [Path(root) / self.config.layers.project_policy_dir for root in self.config.layers.projects]
        return [d for d in dirs if d.is_dir()]

    async def _watch_local(self) -> None:
        import watchfiles

        dirs = self.local_dirs()
        if not dirs:
            return
        debounce = self.config.layers.watch_debounce_ms
        async for changes in watchfiles.awatch(*dirs, debounce=debounce, stop_event=self._watch_stop):
            log.info("policy_files_changed", files=sorted({path for _, path in changes})[:10])
            await self.reload(requested_by="watch")

    def _swap_bundles(self, active: Mapping[str, Active]) -> None:
        """Serve a new set of organisation bundles over the local layers now serving: one assignment."""
        self.holder.serve_bundles([a.layer for a in active.values()])

    def _tell_reloaded(self) -> None:
        for reloaded in self.reloaded:
            reloaded()


async def _started(local: list[Layer]) -> list[Layer]:
    """Wait until every new local layer can serve (Python workers start in the background)."""
    await layered(local).ready()
    return local
