"""The stream lane's journal: the texts of the open responses (hookd.enrich.stream), where a stream lane
started again after a crash finds them.

The stream lane writes each chunk's text here as the chunk joins its response's text (hookd.enrich.stream,
`MemoryTexts.journal`), before the policies see it and so before its reply; the daemon reads the journal
only when the lane has died, and hands what it holds to the next one. It used to send the text to the
daemon on the channel instead, a line for every chunk: each line woke the daemon, which cost the chunk's
reply about 70 µs of wall time and the daemon 0.1 ms of CPU a chunk on a 2-vCPU box (docs/performance.md,
issue 30). A write to a memory file wakes nobody and, like a line in a socket's buffer, outlives the
process that wrote it.

Two anonymous memory files (memfd: no path anyone else could open or replace), made by the daemon for each
stream lane it starts. Each begins with a header, a magic and a generation; the valid file of the higher
generation is the journal. Its lines, JSON each, are a snapshot of every open response's text (`s`) and
then one line per chunk (`c`), replayed in order. When the active file grows past its bound the lane writes
a snapshot of its texts into the other file, under a header of generation 0 (not valid), and only then the
new generation into that header: a lane that dies in between leaves the old file, whole, the journal. A
last line cut short by the crash is not read.
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
from collections.abc import Callable

import structlog

from hookd.enrich.stream import MAX_TEXT, Kept, MemoryTexts

log = structlog.get_logger("hookd.workers")

_MAGIC = b"HKDJ"
_HEADER = struct.Struct("!4s4xQ")  # the magic, the generation (0: not valid yet)
_NOT_VALID = _HEADER.pack(_MAGIC, 0)
MIN_BOUND = 1 << 20  # a file is compacted past this many bytes, or twice its last snapshot's if larger
MAX_READ = 128 << 20  # read of a journal at most: its snapshot (<= 256 texts of 16 Ki characters) fits many times

Files = tuple[int, int]


def create(kept: Kept) -> Files:
    """Two new journal files for a stream lane, the first holding `kept` (the texts it goes on from)."""
    files = (os.memfd_create("hookd-stream-journal", os.MFD_CLOEXEC),
             os.memfd_create("hookd-stream-journal", os.MFD_CLOEXEC))  # fmt: skip
    _write_snapshot(files[0], kept, generation=1)
    os.pwrite(files[1], _NOT_VALID, 0)
    return files


def read(files: Files) -> Kept:
    """The texts the journal holds: its snapshot with every chunk after it (the daemon's, once the lane
    that wrote it is gone; and the new lane's, at its start)."""
    generation, active = max((_generation(fd), fd) for fd in files)
    texts = MemoryTexts()
    if generation == 0:
        return texts.kept()
    data = os.pread(active, min(os.fstat(active).st_size, MAX_READ), 0)[_HEADER.size :]
    for raw in data.split(b"\n")[:-1]:  # the part after the last newline is a line the crash cut short
        _replay(texts, raw)
    return texts.kept()


def taken_over(files: Files) -> Kept:
    """What the journal of a stream lane that is gone holds, its files closed. Nothing when it cannot be read:
    the lane's uid can open its files (/proc/PID/fd), so its contents are not the daemon's to trust whole,
    and the next lane then starts every open response afresh, which costs a split secret's first half."""
    try:
        return read(files)
    except Exception as exc:  # whatever the file holds, the daemon starts the next lane
        log.error("stream_journal_unreadable", error=f"{type(exc).__name__}: {exc}")
        return []
    finally:
        close(files)


def close(files: Files) -> None:
    for fd in files:
        with contextlib.suppress(OSError):  # one a failed read found closed already
            os.close(fd)


# json.dumps with separators builds an encoder on every call: one, kept, for a line a chunk
_LINE = json.JSONEncoder(separators=(",", ":")).encode
_STRING = json.encoder.encode_basestring_ascii  # a str as _LINE writes it (ensure_ascii)
_ENDS = {(cut, final): _LINE({"cut": cut, "f": final}).replace("{", ",", 1).encode() + b"\n" for cut in (False, True)
         for final in (False, True)}  # fmt: skip
KEYS_KEPT = 256  # the lines' beginnings kept, one per response (MAX_RESPONSES)


def line_start(key: tuple[int, str, str, str]) -> bytes:
    """What a chunk's line of response `key` begins with, up to its text."""
    return f'{{"c":{_LINE(list(key))},"x":'.encode()


class Journal:
    """The stream lane's side: each chunk's text appended, the active file compacted past its bound."""

    def __init__(self, files: Files, snapshot: Callable[[], Kept]) -> None:
        self._files = files
        self._snapshot = snapshot
        self._generation, active = max((_generation(fd), fd) for fd in files)
        self._active = files.index(active)
        self._size = os.fstat(active).st_size
        self._bound = max(MIN_BOUND, 2 * self._size)
        self._starts: dict[tuple[int, str, str, str], bytes] = {}

    def append(self, key: tuple[int, str, str, str], text: str, final: bool) -> None:
        """One chunk's text (its last MAX_TEXT characters: hookd.enrich.stream keeps no more of a response), as the
        line `_LINE({"c": list(key), "x": kept, "cut": ..., "f": final})` is, its response's part written once."""
        kept = text[-MAX_TEXT:]
        start = self._starts.get(key)
        if start is None:
            if len(self._starts) >= KEYS_KEPT:
                self._starts.clear()
            start = self._starts[key] = line_start(key)
        line = b"".join((start, _STRING(kept).encode(), _ENDS[len(kept) < len(text), final]))
        self._size += os.pwrite(self._files[self._active], line, self._size)
        if self._size > self._bound:
            self._compact()

    def place(self) -> tuple[int, int, int]:
        """The active file, its size and the size past which it is compacted (the native quiet chunk's lines go
        there, below the bound: hookd.procs.native_lane)."""
        return self._files[self._active], self._size, self._bound

    def moved_to(self, size: int) -> None:
        """The active file's size after the native quiet chunk's lines."""
        self._size = size

    def _compact(self) -> None:
        other = 1 - self._active
        self._generation += 1
        size = _write_snapshot(self._files[other], self._snapshot(), self._generation)
        self._active, self._size, self._bound = other, size, max(MIN_BOUND, 2 * size)


def _write_snapshot(fd: int, kept: Kept, generation: int) -> int:
    """`kept` into `fd` as a snapshot, made valid (its generation written) only once it is whole."""
    os.ftruncate(fd, 0)
    lines = b"".join(
        json.dumps({"s": list(key), "x": text, "t": truncated, "n": chunks}, separators=(",", ":")).encode() + b"\n"
        for key, text, truncated, chunks in kept
    )
    os.pwrite(fd, _NOT_VALID + lines, 0)
    os.pwrite(fd, _HEADER.pack(_MAGIC, generation), 0)
    return _HEADER.size + len(lines)


def _generation(fd: int) -> int:
    header = os.pread(fd, _HEADER.size, 0)
    if len(header) < _HEADER.size:
        return 0
    magic, generation = _HEADER.unpack(header)
    return int(generation) if magic == _MAGIC else 0


def _replay(texts: MemoryTexts, raw: bytes) -> None:
    try:
        line = json.loads(raw)
        if "s" in line:
            uid, client, session, response = line["s"]
            key = (int(uid), str(client), str(session), str(response))
            texts.seed([(key, str(line["x"]), bool(line["t"]), int(line["n"]))])
        else:
            uid, client, session, response = line["c"]
            key = (int(uid), str(client), str(session), str(response))
            texts.add(key, str(line["x"]), bool(line["f"]), bool(line["cut"]))
    except (ValueError, KeyError, TypeError, RecursionError):
        return  # a line the lane could not finish, or one it did not write
