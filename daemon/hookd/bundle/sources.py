"""Fetching a bundle from its source: HTTP(S) with ETag / If-None-Match, an optional bearer token and
CA file, and OPA's long polling (`Prefer: modes=snapshot;wait=N`, kept on while the server answers
`Content-Type: application/vnd.openpolicyagent.bundles`); or a local file, compared by mtime and size.
Each fetch is blocking and runs in a worker thread; the poll loop is in bundle.manager."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import random
import ssl
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from hookd.bundle.config import BundleSource
from hookd.errors import BundleError

LONG_POLL_TYPE = "application/vnd.openpolicyagent.bundles"
FIRST_RETRY_SECONDS = 0.1
BACKOFF_FACTOR = 1.6


@dataclass(frozen=True, slots=True)
class Fetched:
    data: bytes | None  # None: not modified
    etag: str
    long_poll: bool = False  # the server holds requests open (OPA's long polling)


async def fetch_off_loop(source: BundleSource, etag: str, wait: int) -> Fetched:
    """`fetch` on a daemon thread of its own, not the loop's default executor: a long poll the server holds
    open must not hold up the daemon's exit (the executor's threads are joined when the loop closes, so a
    stopping daemon would wait up to `long_polling_timeout_seconds`). Cancelling leaves the thread to end
    with its request; its result is dropped."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Fetched] = loop.create_future()

    def finish(fetched: Fetched | None, error: BaseException | None) -> None:  # on the loop
        if future.done():  # cancelled: the poll loop stopped
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(fetched)  # type: ignore[arg-type]

    def run() -> None:
        try:
            outcome: tuple[Fetched | None, BaseException | None] = (fetch(source, etag, wait), None)
        except BaseException as exc:
            outcome = (None, exc)
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody waits for it any more
            loop.call_soon_threadsafe(finish, *outcome)

    threading.Thread(target=run, name=f"hookd-fetch-{source.name}", daemon=True).start()
    return await future


def fetch(source: BundleSource, etag: str, wait: int) -> Fetched:
    if source.file is not None:
        return _fetch_file(source, etag)
    return _fetch_http(source, etag, wait)


def _fetch_file(source: BundleSource, etag: str) -> Fetched:
    assert source.file is not None
    try:
        stat = os.stat(source.file)
        tag = f'"{stat.st_mtime_ns:x}-{stat.st_size:x}"'
        if tag == etag:
            return Fetched(None, etag)
        if stat.st_size > source.size_limit_bytes:
            raise BundleError(f"{source.file} is {stat.st_size} bytes, over size_limit_bytes")
        return Fetched(source.file.read_bytes(), tag)
    except OSError as exc:
        raise BundleError(f"cannot read {source.file}: {exc.strerror}") from None


def _fetch_http(source: BundleSource, etag: str, wait: int) -> Fetched:
    prefer = "modes=snapshot" + (f";wait={wait}" if wait else "")
    headers = {"Prefer": prefer, "Accept": f"application/gzip, {LONG_POLL_TYPE}", "User-Agent": "hookd"}
    if etag:
        headers["If-None-Match"] = etag
    token = source.bearer()
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(source.url, headers=headers)
    context = _tls_context(source.ca_file) if source.url.startswith("https:") else None
    try:
        with urllib.request.urlopen(
            request, timeout=source.request_timeout_seconds + wait, context=context
        ) as response:
            long_poll = response.headers.get("Content-Type", "").startswith(LONG_POLL_TYPE)
            data = response.read(source.size_limit_bytes + 1)
            if len(data) > source.size_limit_bytes:
                raise BundleError(f"download is over size_limit_bytes ({source.size_limit_bytes})")
            return Fetched(data, response.headers.get("ETag", ""), long_poll)
    except urllib.error.HTTPError as exc:
        if exc.code == 304:
            long_poll = (exc.headers.get("Content-Type") or "").startswith(LONG_POLL_TYPE)
            return Fetched(None, exc.headers.get("ETag") or etag, long_poll)
        raise BundleError(f"HTTP {exc.code} {exc.reason} from {source.url}") from None
    except urllib.error.URLError as exc:
        raise BundleError(f"cannot reach {source.url}: {exc.reason}") from None
    except (OSError, ValueError) as exc:  # timeouts, resets, bad URLs
        raise BundleError(f"download from {source.url} failed: {exc or type(exc).__name__}") from None


@functools.cache
def _tls_context(ca_file: Path | None) -> ssl.SSLContext:
    """One context per CA file: loading the system's CA store costs tens of ms, too much for every poll."""
    return ssl.create_default_context(cafile=str(ca_file) if ca_file else None)


def next_delay(source: BundleSource, failures: int, long_poll: bool, rng: random.Random) -> float:
    """After a success: a uniform delay in [min, max] (none while long polling); after `failures`
    failures in a row: exponential back-off from 100 ms up to max_delay_seconds, with ±20% jitter."""
    if failures:
        base = min(source.max_delay_seconds, FIRST_RETRY_SECONDS * BACKOFF_FACTOR ** (failures - 1))
        return min(source.max_delay_seconds, base * rng.uniform(0.8, 1.2))
    if long_poll:
        return 0.0
    return rng.uniform(source.min_delay_seconds, source.max_delay_seconds)
