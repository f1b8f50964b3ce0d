"""What the engines whose policies run in a pool of sandboxed workers (hookd.engines.python.pool) share: the
Python policies (hookd.engines.python.engine) and the Rego policies hookd did not ship
(hookd.engines.rego.isolated). Starting the workers, waiting for them (at once, or later without holding the
event loop: a reload), failing the whole load when one does not start, and closing once the calls in flight are
answered are the same for both; what a started worker reports (`_loaded`) and each call are the engine's own.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from hookd.engines.inflight import InFlight
from hookd.engines.python.channel import PolicyWorker, WorkerSettings
from hookd.engines.python.pool import NewWorker, WorkerPool, failing_to_start, start_workers, wait_all_ready
from hookd.sandbox import scratch


def spawn_workers(new_worker: NewWorker, settings: WorkerSettings) -> list[PolicyWorker]:
    """`settings.workers` workers started (still loading), after a dead daemon's scratch files are swept."""
    scratch.sweep(Path(settings.scratch_dir or tempfile.gettempdir()))
    return start_workers(new_worker, settings.workers)


class PooledEngine:
    """The pool and its lifecycle. A subclass starts its workers with `spawn_workers`, builds itself with them
    and calls `_started(wait)`; `_loaded` reads what the first worker reported once ready."""

    remote = True  # its answers are awaitables: the work happens in the workers
    reads: frozenset[str] | None = None  # Python policies can read any key
    workers_of: ClassVar[str]  # whose workers, in a load error: "Python policy", "Rego policy"

    def __init__(self, settings: WorkerSettings, new_worker: NewWorker, workers: Sequence[PolicyWorker]) -> None:
        self.settings = settings
        self._starting_workers = list(workers)
        self._pool = WorkerPool(new_worker, settings.workers, settings.start_timeout, list(workers))
        self._next_id = 0
        self._calls = InFlight()

    def _started(self, *, wait: bool) -> None:
        """With `wait`, block until every worker has loaded the policies (else `ready()` waits for them).
        Raises PolicyLoadError, the workers closed."""
        if not wait:
            return
        workers = self._starting_workers
        with self._failing_to_start():
            for worker in workers:
                worker.wait_ready_blocking(self.settings.start_timeout)
        self._serve_with(workers)

    async def ready(self) -> None:
        """Wait, without holding the event loop, until the workers started with `wait=False` have loaded."""
        workers, self._starting_workers = self._starting_workers, []
        if not workers:
            return
        with self._failing_to_start():
            await wait_all_ready(workers, self.settings.start_timeout)
        self._serve_with(workers)

    def _failing_to_start(self) -> contextlib.AbstractContextManager[None]:
        return failing_to_start(self.workers_of, self._pool.live, self.close)

    def _serve_with(self, workers: Sequence[PolicyWorker]) -> None:
        self._loaded(workers[0].ready)
        self._starting_workers = []
        self._pool.serve_with(list(workers))

    def _loaded(self, ready: Mapping[str, Any]) -> None:
        """What a ready worker reported (its policies, its sandbox layers), read once."""
        raise NotImplementedError

    async def aclose(self, grace: float = 5.0) -> None:
        """Stop once the calls in flight are answered (at most `grace` seconds), then end every worker."""
        self._pool.closing = True
        await self._calls.finished(grace)
        self.close()

    def close(self) -> None:
        self._pool.close()

    @property
    def replaced(self) -> int:
        """Workers killed and replaced (timeouts, crashes, retirements)."""
        return self._pool.replaced

    def worker_pids(self) -> list[int]:
        return sorted(worker.pid for worker in self._pool.live)
