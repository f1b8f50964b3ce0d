"""Reads that may block the deciding thread for longer than a request may hold the event loop (a git
repository's index, objects and work tree: hookd.enrich.effects.worktree, up to about 0.2 s). The pipeline
enriches on the event loop inside `on_loop()`; a step that is about to make such a read calls `blocking_read`,
which then raises NeedsBlockingRead, and the pipeline enriches the event again on its reading thread
(hookd.pipeline), within the request's deadline. Outside `on_loop()` (that thread, the CLI, tests) the read
goes ahead."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from typing import TypeVar

T = TypeVar("T")
_ON_LOOP: ContextVar[bool] = ContextVar("hookd_enrich_on_loop", default=False)
# Threads that make the blocking reads of one process: few, since each read is bounded and the GIL is shared
# (a read in pure Python gives the loop the interpreter every switch interval, 5 ms); a request waiting for
# one past its deadline is not started.
READERS = 2
_readers: list[ThreadPoolExecutor] = []
_readers_made = threading.Lock()


class NeedsBlockingRead(BaseException):
    """Raised on the event loop before a blocking read. A BaseException so that the steps that turn any error
    into a fallback (the shell analysis, the parsers: `except Exception`) let it through to the pipeline."""


@contextlib.contextmanager
def on_loop() -> Iterator[None]:
    """Within it, `blocking_read` refuses: the caller is the event loop."""
    token = _ON_LOOP.set(True)
    try:
        yield
    finally:
        _ON_LOOP.reset(token)


def blocking_read(what: str) -> None:
    """Before a read that may block: raises NeedsBlockingRead on the event loop (`what`: the read, for the log)."""
    if _ON_LOOP.get():
        raise NeedsBlockingRead(what)


async def off_loop(call: Callable[[], T], seconds: float) -> T:
    """`call` on the reading threads, awaited for up to `seconds`, then TimeoutError (a read already started
    ends within its own bounds and its result is dropped; one still waiting for a thread never starts)."""
    until = time.monotonic() + seconds

    def in_time() -> T:
        if time.monotonic() >= until:
            raise TimeoutError
        return call()

    return await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(_executor(), in_time), seconds)


def _executor() -> ThreadPoolExecutor:
    with _readers_made:
        if not _readers:
            _readers.append(ThreadPoolExecutor(READERS, thread_name_prefix="hookd-reads"))
        return _readers[0]
