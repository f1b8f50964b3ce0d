"""The text a model has streamed so far in the current response: `input.stream` on AfterModel. Owned by
the policies engineer; docs/policies.md ("input.stream").

Gemini CLI calls AfterModel once per streamed chunk, so a policy that sees one chunk misses a secret
split across two. This enricher keeps, per session, the text of the response being streamed: a
BeforeModel (the next request) or AfterAgent starts afresh, every AfterModel chunk is appended, and
the policy sees `{"text": the text so far, "chunk": this chunk's text, "truncated": bool}`.

Bounded: at most MAX_TEXT characters per response (the tail is kept: a secret is looked for where it
ends) and MAX_SESSIONS responses at a time (the least recently streamed is forgotten).

Where the text is kept: with one deciding process, in its memory (`MemoryTexts`). With `[daemon]
workers` above 1 the kernel hands each connection, so each chunk, to any of the processes, so the text
is kept where all of them see it: one file per response in `streams/` of the daemon's runtime directory
(`FileTexts`; private to the daemon's user, 0700 and 0600 files, locked while a chunk is added, removed
when the response ends). If that store fails (a full disk), the event follows the fail mode, as any
enricher failure does: judging the chunk alone could let a split secret through.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import stat
from collections import OrderedDict
from pathlib import Path
from typing import Protocol

from hookd.types import JSON, Event, NormalisedEvent

MAX_TEXT = 16 * 1024
MAX_SESSIONS = 256

_Key = tuple[int, str, str]  # the caller's uid, the client, the session


class Texts(Protocol):
    def add(self, key: _Key, chunk: str) -> tuple[str, bool]:
        """Appends `chunk` to the response's text; returns the (bounded) text so far and whether it was cut."""

    def end(self, key: _Key) -> None:
        """Forgets the response: the next chunk starts a new one."""


class MemoryTexts:
    """The texts in this process (one deciding process)."""

    def __init__(self, max_text: int = MAX_TEXT, max_sessions: int = MAX_SESSIONS) -> None:
        self.max_text = max_text
        self.max_sessions = max_sessions
        self._texts: OrderedDict[_Key, tuple[str, bool]] = OrderedDict()

    def add(self, key: _Key, chunk: str) -> tuple[str, bool]:
        before, truncated = self._texts.pop(key, ("", False))
        text, truncated = _bounded(before + chunk, truncated, self.max_text)
        self._texts[key] = (text, truncated)
        while len(self._texts) > self.max_sessions:
            self._texts.popitem(last=False)
        return text, truncated

    def end(self, key: _Key) -> None:
        self._texts.pop(key, None)


class FileTexts:
    """The texts in files every process of the daemon shares: one a response, named by a hash of its key,
    holding a truncation flag byte and the text (UTF-8). A chunk is added under an exclusive lock."""

    def __init__(self, directory: Path, max_text: int = MAX_TEXT, max_sessions: int = MAX_SESSIONS) -> None:
        self.directory = directory
        self.max_text = max_text
        self.max_sessions = max_sessions
        self._checked = False

    def add(self, key: _Key, chunk: str) -> tuple[str, bool]:
        self._check_directory()
        fd = os.open(self._path(key), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held = _read_all(fd)
            if not held:
                self._evict()
            truncated = held[:1] == b"1"
            before = held[1:].decode("utf-8", errors="replace")
            text, truncated = _bounded(before + chunk, truncated, self.max_text)
            data = (b"1" if truncated else b"0") + text.encode("utf-8")
            os.pwrite(fd, data, 0)
            os.ftruncate(fd, len(data))
        finally:
            os.close(fd)
        return text, truncated

    def end(self, key: _Key) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self._path(key))

    def _path(self, key: _Key) -> str:
        name = hashlib.sha256(f"{key[0]}\0{key[1]}\0{key[2]}".encode()).hexdigest()[:40]
        return str(self.directory / name)

    def _check_directory(self) -> None:
        """Made 0700 if missing; refused unless it is a directory of this user that no one else can enter."""
        if self._checked:
            return
        with contextlib.suppress(FileExistsError):
            os.mkdir(self.directory, 0o700)
        info = os.lstat(self.directory)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
            raise PermissionError(f"{self.directory} is not a private directory of this user")
        self._checked = True

    def _evict(self) -> None:
        """A new response: the least recently streamed go while there are more than max_sessions."""
        entries: list[tuple[float, str]] = []
        with os.scandir(self.directory) as found:
            for entry in found:
                with contextlib.suppress(FileNotFoundError):
                    entries.append((entry.stat(follow_symlinks=False).st_mtime, entry.path))
        entries.sort()
        for _mtime, path in entries[: max(0, len(entries) - self.max_sessions)]:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


class ResponseStreams:
    """The enricher: adds `stream` to AfterModel events from `texts` (in memory unless given)."""

    def __init__(self, texts: Texts | None = None) -> None:
        self.texts: Texts = texts or MemoryTexts()

    def __call__(self, event: NormalisedEvent) -> NormalisedEvent:
        key = (event.caller.uid, event.client, event.session_id)
        if event.event in (Event.BEFORE_MODEL, Event.AFTER_AGENT):
            self.texts.end(key)
            return event
        if event.event is not Event.AFTER_MODEL:
            return event
        chunk = chunk_text(event.payload.get("llm_response"))
        text, truncated = self.texts.add(key, chunk)
        return event.with_facts(stream={"text": text, "chunk": chunk, "truncated": truncated})


def response_streams(runtime_dir: Path, processes: int) -> ResponseStreams:
    """The enricher for a daemon of `processes` deciding processes (shared files when more than one)."""
    return ResponseStreams(FileTexts(runtime_dir / "streams") if processes > 1 else None)


def _bounded(text: str, truncated: bool, max_text: int) -> tuple[str, bool]:
    if len(text) > max_text:
        return text[-max_text:], True
    return text, truncated


def _read_all(fd: int) -> bytes:
    parts = []
    offset = 0
    while chunk := os.pread(fd, 65536, offset):
        parts.append(chunk)
        offset += len(chunk)
    return b"".join(parts)


def chunk_text(response: JSON) -> str:
    """The text parts of a Gemini `llm_response` chunk (`candidates[0].content.parts`), joined."""
    if not isinstance(response, dict):
        return ""
    candidates = response.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        return ""
    content = candidates[0].get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    if not isinstance(parts, list):
        return ""
    texts = [p if isinstance(p, str) else p.get("text") for p in parts if isinstance(p, str | dict)]
    return "".join(t for t in texts if isinstance(t, str))
