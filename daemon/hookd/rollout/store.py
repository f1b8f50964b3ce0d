"""The replay store (`[replay] enabled = true`): the input document of each decision, for `hookd replay`.

The hot path hands each decision over with `offer` (an append to a bounded queue, like the decision
log's sink); this module's task writes them, off the hot path, as JSON lines into segment files
`replay-<unix ms>.jsonl` in an owner-only directory (0700, files 0600, never through a symlink). A
segment is closed at `segment_bytes`; whole segments are deleted, oldest first, when together they pass
`max_bytes`, and when they are older than `max_age_hours`.

Each line holds what replay needs: the input document exactly as the policies saw it, with secrets
redacted the same way as the decision log does (its built-in and configured patterns, and values of keys
named like secrets) but nothing else cut or erased except strings beyond `max_string_length`; the
recorded outcome (the verdicts combined, before the headless-ask fallback) and the rules that decided it.
`redacted` says that something in the input was replaced by `[REDACTED:<kind>]`: a policy that looked
at the secret itself may decide differently on replay (docs/rollout.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import structlog

from hookd.audit.mask import Masker
from hookd.audit.sink import Sink
from hookd.config import LogConfig, ReplayConfig
from hookd.errors import DaemonError, HookdError
from hookd.policy.combine import combine
from hookd.rollout.compare import deciding_rules, outcome_name
from hookd.types import JSON, Handled
from hookd.wire import MAX_PAYLOAD_DEPTH, jsonstrict

log = structlog.get_logger("hookd.replay")
PREFIX, SUFFIX = "replay-", ".jsonl"
REDACTED = "[REDACTED:"
YIELD_EVERY = 32
PRUNE_EVERY_S = 60.0
MAX_DEPTH = MAX_PAYLOAD_DEPTH + 8  # a stored line: the entry, its input document, the payload in it


def redactor(log_config: LogConfig, replay: ReplayConfig) -> Masker:
    """The decision log's secret redaction, without its masking and erasing of bulky fields."""
    return Masker(
        max_string_length=replay.max_string_length,
        builtin_secrets=log_config.builtin_secret_patterns,
        secret_patterns=log_config.secret_patterns,
    )


def entry(handled: Handled, at: float, redact: Masker) -> dict[str, JSON]:
    """One stored line: the decision's id, what decided, and the redacted input document."""
    event, decision = handled.event, handled.decision
    combined = combine(decision.verdicts)
    document = event.input_document()
    stored = redact(document)
    return {
        "id": decision.decision_id,
        "time": round(at, 6),
        "client": event.client,
        "event": event.event.value,
        "tool": event.tool.name if event.tool is not None else None,
        "decision": outcome_name(decision.outcome),
        "outcome": outcome_name(combined.outcome),
        "rules": list(deciding_rules(combined)),
        "engine_error": handled.engine_error,
        "redacted": REDACTED in json.dumps(stored) and REDACTED not in json.dumps(document),
        "input": stored,
    }


def prepare_dir(path: Path) -> None:
    """Create the store 0700, or check that an existing one is a directory of ours (then make it 0700)."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode):
        raise DaemonError(f"replay store {path} is not a directory")
    if info.st_uid != os.getuid():
        raise DaemonError(f"replay store {path} belongs to uid {info.st_uid}, not to this user ({os.getuid()})")
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(path, 0o700)


def segments(path: Path) -> list[Path]:
    """The store's segment files, oldest first: `replay-<digits>.jsonl`; any other name is not one of ours
    (a `replay-x.jsonl` someone put there is left alone, not a reason to fail)."""
    try:
        names = [n for n in os.listdir(path) if n.startswith(PREFIX) and n.endswith(SUFFIX)]
    except FileNotFoundError:
        return []
    stamped = [n for n in names if n[len(PREFIX) : -len(SUFFIX)].isdecimal()]
    return [path / n for n in sorted(stamped, key=lambda n: int(n[len(PREFIX) : -len(SUFFIX)]))]


def read_entries(path: Path) -> Iterator[tuple[Path, dict[str, JSON]]]:
    """Every stored line of a store directory (or of one segment file), oldest first. A segment's last line
    with no newline after it may be torn (the daemon was killed mid-write): skipped when it does not read.
    Raises HookdError, one line, for any other line that is not a stored decision (not JSON, nested too
    deeply to read, not an entry): the store is damaged."""
    files = [path] if path.is_file() else segments(path)
    for file in files:
        try:
            lines = file.read_bytes().split(b"\n")
        except OSError as exc:
            raise HookdError(f"replay store: cannot read {file}: {exc.strerror or exc}") from None
        torn = len(lines) if lines[-1] else 0  # the number of a last line with no newline after it
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                value = jsonstrict.loads(line)
            except (ValueError, UnicodeDecodeError) as exc:
                if number == torn:
                    continue  # the daemon was killed mid-write
                raise HookdError(f"replay store: {file} line {number} is not a stored decision: {exc}") from None
            if jsonstrict.deeper_than(value, MAX_DEPTH):
                raise HookdError(f"replay store: {file} line {number} nests more than {MAX_DEPTH} levels deep")
            if not isinstance(value, dict) or not isinstance(value.get("input"), dict):
                raise HookdError(f"replay store: {file} line {number} is not a stored decision (no input document)")
            yield file, value


class ReplayStore:
    """The writer task and its segment files. `start()` before serving, `close()` after the servers stop."""

    def __init__(self, config: ReplayConfig, log_config: LogConfig) -> None:
        self.config = config
        self.path = config.path
        self.sink: Sink[tuple[Handled, float] | dict[str, JSON]] = Sink(config.queue_size)
        self._redact = redactor(log_config, config)
        self._file: int | None = None
        self._size = 0
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._pruned_at = 0.0
        self._last_stamp = 0  # segment names must rise: two segments opened in one millisecond must not share one
        self.written = 0
        self.write_errors = 0
        self.deleted = 0  # segments deleted for size or age

    def status(self) -> dict[str, Any]:
        """For `hookd status`: the counters, and the segments on disk now."""
        files = segments(self.path)
        return {
            "path": str(self.path), "written": self.written, "dropped": self.sink.dropped,
            "write_errors": self.write_errors, "deleted": self.deleted, "segments": len(files),
            "bytes": sum(_size(f) for f in files),
        }  # fmt: skip

    def offer(self, handled: Handled) -> None:
        """The hot path's hand-over: never awaits."""
        self.sink.put_nowait((handled, time.time()))

    def offer_entry(self, line: dict[str, JSON]) -> None:
        """A line a worker process built and redacted with `entry` (hookd.rollout.relay)."""
        self.sink.put_nowait(line)

    def start(self) -> None:
        prepare_dir(self.path)
        self._prune()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="hookd-replay-store")

    async def close(self) -> None:
        self._closing = True
        self.sink.wake()
        if self._task is not None:
            await self._task
        self._close_segment()

    async def _run(self) -> None:
        while True:
            await self.sink.wait()
            for n, item in enumerate(self.sink.take(), 1):
                self._write(item)
                if n % YIELD_EVERY == 0:
                    await asyncio.sleep(0)
            if time.monotonic() - self._pruned_at > PRUNE_EVERY_S:
                self._prune()
            if self._closing and not len(self.sink):
                return

    def _write(self, item: tuple[Handled, float] | dict[str, JSON]) -> None:
        try:
            line = item if isinstance(item, dict) else entry(*item, self._redact)
            data = (json.dumps(line, separators=(",", ":")) + "\n").encode()
            if self._file is None or self._size + len(data) > self.config.segment_bytes:
                self._open_segment()
            assert self._file is not None
            os.write(self._file, data)
            self._size += len(data)
            self.written += 1
        except Exception:  # a full disk or an odd input must not stop the store, nor the daemon
            self.write_errors += 1
            decision = item.get("id") if isinstance(item, dict) else item[0].decision_id
            log.exception("replay_store_write_failed", decision=decision)

    def _open_segment(self) -> None:
        self._close_segment()
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW
        stamp = max(int(time.time() * 1000), self._last_stamp + 1)
        while True:
            try:
                self._file = os.open(self.path / f"{PREFIX}{stamp}{SUFFIX}", flags, 0o600)
                break
            except FileExistsError:
                stamp += 1
        self._last_stamp = stamp
        self._size = 0
        self._prune()

    def _close_segment(self) -> None:
        if self._file is not None:
            os.close(self._file)
            self._file = None

    def _prune(self) -> None:
        """Delete whole segments: older than max_age_hours, then the oldest while all pass max_bytes."""
        self._pruned_at = time.monotonic()
        files = segments(self.path)
        current = files[-1] if self._file is not None and files else None
        cutoff = time.time() - self.config.max_age_hours * 3600
        sizes = {f: _size(f) for f in files}
        total = sum(sizes.values())
        for file in files:
            if file == current:
                break
            if _mtime(file) >= cutoff and total <= self.config.max_bytes:
                continue
            with contextlib.suppress(FileNotFoundError):
                file.unlink()
                self.deleted += 1
            total -= sizes[file]


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return 0.0
