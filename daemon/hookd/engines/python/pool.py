"""A pool of sandboxed policy workers (hookd.engines.python.channel), shared fairly between sessions: the
out-of-process engines (Python policies, and Rego policies hookd did not ship) take a worker per call, kill
it at the call's deadline and have it replaced in the background.

Fair by session: one session may hold at most `size - 1` workers at once (all of them only when the pool
has one), so however slow its calls are, another session finds a worker free. A worker killed at a
deadline or after a crash stays charged to the session that broke it until its replacement has started:
a session whose every call overruns cannot take the workers kept for the others while they restart. A
freed worker goes to the waiting session that holds the fewest.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import structlog

from hookd.engines.python.channel import PolicyWorker
from hookd.errors import PolicyLoadError, WorkerGone, one_line
from hookd.types import NormalisedEvent

log = structlog.get_logger("hookd")
RESPAWN_BACKOFF = (0.1, 0.5, 2.0, 5.0)
NewWorker = Callable[[], PolicyWorker]
Session = str


def session_of(event: NormalisedEvent) -> Session:
    """Whose call it is, for fairness: the agent's session id, else the agent process (the shim's parent)."""
    caller = event.caller
    return f"{caller.uid}:{event.session_id}" if event.session_id else f"{caller.uid}:pid:{caller.ppid or caller.pid}"


@dataclass(slots=True)
class _Waiter:
    session: Session
    future: asyncio.Future[PolicyWorker]
    order: int = field(default=0)


class WorkerPool:
    """`size` workers made by `new_worker`; `acquire` and then exactly one of `release` or `replace`."""

    def __init__(self, new_worker: NewWorker, size: int, start_timeout: float, workers: list[PolicyWorker]) -> None:
        self.size = max(1, size)
        self._new_worker = new_worker
        self._start_timeout = start_timeout
        self._idle: deque[PolicyWorker] = deque()
        self.live: set[PolicyWorker] = set(workers)
        self._starting = 0
        self._waiters: list[_Waiter] = []
        self._order = 0
        self._held: Counter[Session] = Counter()
        self.closing = False
        self.replaced = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._finalizer = weakref.finalize(self, kill_all, self.live)

    def serve_with(self, workers: list[PolicyWorker]) -> None:
        self._idle.extend(workers)

    @property
    def cap(self) -> int:
        """The most workers one session may hold at once."""
        return max(1, self.size - 1)

    async def acquire(self, session: Session, end: float) -> PolicyWorker:
        """A worker for `session`, waited for until the loop time `end` (TimeoutError after it)."""
        if self._held[session] < self.cap:
            while self._idle:
                worker = self._idle.popleft()
                if worker.proc.poll() is None:
                    self._held[session] += 1
                    return worker
                self._discard(worker)
                self._spawn("")
        if len(self.live) + self._starting < self.size and not self.closing:
            self._spawn("")
        self._order += 1
        waiter = _Waiter(session, asyncio.get_running_loop().create_future(), self._order)
        self._waiters.append(waiter)
        try:
            async with asyncio.timeout_at(end):
                return await waiter.future
        except TimeoutError:
            if waiter.future.done() and not waiter.future.cancelled():
                self.release(waiter.future.result(), session)  # handed over just as the deadline passed
            raise
        finally:
            with contextlib.suppress(ValueError):
                self._waiters.remove(waiter)

    def release(self, worker: PolicyWorker, session: Session) -> None:
        """`session` is done with `worker`, which is sound: it serves the next call."""
        self._unhold(session)
        self._hand_out(worker)

    def replace(self, worker: PolicyWorker, session: Session, *, charge: bool = True) -> None:
        """`worker` overran, crashed or is in an unknown state (`charge`: by `session`'s call, which keeps it
        charged until the replacement has started), or asked to retire: killed and replaced."""
        self._discard(worker)
        self.replaced += 1
        if self.closing:
            self._unhold(session)
        elif charge:
            self._spawn(session)
        else:
            self._unhold(session)
            self._spawn("")

    def close(self) -> None:
        self.closing = True
        self._idle.clear()
        for task in list(self._tasks):
            task.cancel()
        for waiter in self._waiters:
            if not waiter.future.done():
                waiter.future.cancel()
        self._finalizer()

    def _unhold(self, session: Session) -> None:
        if session:
            self._held[session] -= 1
            if self._held[session] <= 0:
                del self._held[session]

    def _hand_out(self, worker: PolicyWorker) -> None:
        if self.closing:
            self._discard(worker)
            return
        waiter = self._next_waiter()
        if waiter is None:
            self._idle.append(worker)
            return
        self._waiters.remove(waiter)
        self._held[waiter.session] += 1
        waiter.future.set_result(worker)

    def _next_waiter(self) -> _Waiter | None:
        """The waiting call of the session holding the fewest workers (under its cap), oldest first."""
        eligible = [w for w in self._waiters if not w.future.done() and self._held[w.session] < self.cap]
        if not eligible:
            return None
        return min(eligible, key=lambda w: (self._held[w.session], w.order))

    def _discard(self, worker: PolicyWorker) -> None:
        self.live.discard(worker)
        worker.kill()

    def _spawn(self, charged: Session) -> None:
        self._starting += 1
        task = asyncio.get_running_loop().create_task(self._start_one(charged))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _start_one(self, charged: Session) -> None:
        try:
            for attempt, pause in enumerate((0.0, *RESPAWN_BACKOFF)):
                await asyncio.sleep(pause)
                if self.closing:
                    return
                worker = self._new_worker()
                try:
                    await worker.wait_ready(self._start_timeout)
                except (WorkerGone, PolicyLoadError, TimeoutError) as exc:
                    log.error(
                        "policy_worker_respawn_failed", attempt=attempt + 1, error=str(exc), stderr=worker.stderr_tail()
                    )
                    worker.kill()
                    continue
                except BaseException:
                    worker.kill()
                    raise
                self.live.add(worker)
                self._unhold(charged)
                charged = ""
                self._hand_out(worker)
                return
        finally:
            self._starting -= 1
            if charged:  # every attempt failed: the charge is lifted all the same
                self._unhold(charged)
                self._serve_waiters()

    def _serve_waiters(self) -> None:
        """Idle workers to the waiters that a lifted charge let back under their cap."""
        while self._idle and not self.closing and (waiter := self._next_waiter()) is not None:
            self._waiters.remove(waiter)
            self._held[waiter.session] += 1
            waiter.future.set_result(self._idle.popleft())


def kill_all(workers: set[PolicyWorker]) -> None:
    for worker in list(workers):
        worker.kill()
    workers.clear()


def start_workers(new_worker: NewWorker, count: int) -> list[PolicyWorker]:
    """`count` workers started (each still loading its policies: `wait_ready` before serving it)."""
    workers: list[PolicyWorker] = []
    try:
        for _ in range(max(1, count)):
            workers.append(new_worker())
    except BaseException:
        kill_all(set(workers))
        raise
    return workers


async def wait_all_ready(workers: list[PolicyWorker], timeout: float) -> None:
    """Raises WorkerGone for a worker that did not start within `timeout` seconds."""
    for worker in workers:
        try:
            await worker.wait_ready(timeout)
        except TimeoutError:
            raise WorkerGone(f"did not start within {timeout:g} s") from None


@contextlib.contextmanager
def failing_to_start(what: str, workers: set[PolicyWorker], close: Callable[[], None]) -> Iterator[None]:
    """A worker that does not start fails the whole policy set's load (`what`: whose workers), closed."""
    try:
        yield
    except WorkerGone as exc:
        tail = " ".join(one_line(w.stderr_tail())[-300:] for w in workers)
        close()
        raise PolicyLoadError(f"a {what} worker did not start: {exc} {tail}".strip()) from None
    except BaseException:
        close()
        raise
