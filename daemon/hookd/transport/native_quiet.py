"""The native quiet chunk's library (`client_shim/hookd_quiet.c`): found, built and loaded, and its calls typed.

The library serves the stream lane's socket on a native thread: it answers a quiet chunk (one no policy can
answer: hookd.pipeline, `Pipeline.quiet_chunk`) without waking Python, and hands every other connection, and
every one it has any doubt about, to Python unread (hookd.procs.native_lane). It is optional: `hookd shim
build` builds it beside the native shim, and without it the stream lane serves every chunk in Python as before.
Loaded from disk into the lane, it is one of hookd's protected places (hookd.selfprotect).

Before any call is made it must be this checkout's: a regular file opened without following a link, owned by this
user and writable by nobody else, in directories nobody else can write to, loaded through its open descriptor
(what was checked is what is loaded), and answering `hq_abi()` with this source's version and hash. Any failure
(a stale build, a foreign file, a symbol missing) is logged and the lane answers every chunk in Python.
"""

from __future__ import annotations

import ctypes
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import structlog

from hookd.shims.build import QUIET_LIBRARY, data_bin_dir, quiet_abi

LIBRARY_NAME = QUIET_LIBRARY
MAX_CUES = 64  # strings the library searches a chunk for, at most (more: every chunk is Python's)
TEXT_CAP = 1 << 20  # a chunk's text, UTF-8, at most (the library's frame buffer)
_c = ctypes
_SIZE = _c.c_size_t
_HANDLE = _c.c_void_p
_OUT = _c.POINTER(_c.c_char)  # a buffer the library writes into (c_char_p would hand it a copy)
log = structlog.get_logger("hookd.workers")


class UntrustedLibrary(Exception):
    """The library file is not one this user built from this source: it is not loaded."""


def library_path() -> Path:
    """Where `hookd shim build` puts the library: beside the native shim."""
    return data_bin_dir() / LIBRARY_NAME


def described() -> str:
    """Which path answers a quiet chunk, for `hookd status` and `hookd doctor`."""
    path = library_path()
    try:
        fd = _opened(path)
        if fd is None:
            return f"every chunk answered in Python (no native quiet chunk at {path}: `hookd shim build` builds it)"
        with os.fdopen(fd, "rb") as library:
            current = quiet_abi().encode() in library.read()  # read, not loaded: doctor runs no library code
    except (UntrustedLibrary, OSError) as exc:
        return f"every chunk answered in Python (the native quiet chunk at {path} is not loaded: {exc})"
    if not current:
        return f"every chunk answered in Python (a stale native quiet chunk at {path}: `hookd shim build` rebuilds it)"
    return f"quiet chunks answered natively ({path}; a stream lane started before it was built: in Python)"


def load(path: Path | None = None) -> ctypes.CDLL | None:
    """The library at `path` (default: `library_path()`), its calls typed; None when it is not there, or is not
    one to load (logged: the lane answers every chunk in Python)."""
    path = path or library_path()
    try:
        return _load(path)
    except Exception as exc:  # any failure of an optional library: Python's path, as without it
        log.error("native_quiet_chunk_not_loaded", path=str(path), error=f"{type(exc).__name__}: {exc}")
        return None


def _trusted_dirs(path: Path) -> None:
    """Its directory, and each above it up to $HOME (or /), owned by this user or root and written by no one
    else (a root-owned sticky one, as /tmp, is allowed above the library's own)."""
    home, uid = Path.home(), os.getuid()
    for at, directory in enumerate([path.parent, *path.parent.parents]):
        info = os.stat(directory)
        shared = info.st_mode & 0o022 and not (at and info.st_uid == 0 and info.st_mode & stat.S_ISVTX)
        if info.st_uid not in (uid, 0) or (at == 0 and info.st_uid != uid) or shared:
            raise UntrustedLibrary(f"{directory} is not this user's alone")
        if directory == home:
            return


def _opened(path: Path) -> int | None:
    """The library's file opened (not following a link) and checked as this user's alone; None when absent."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
            raise UntrustedLibrary(f"{path} is not a file of this user's that only it can write")
        _trusted_dirs(path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _load(path: Path) -> ctypes.CDLL | None:
    fd = _opened(path)
    if fd is None:
        return None
    try:
        # Loaded by its descriptor: the file checked is the one loaded. The descriptor stays open: the loader
        # knows the library by this name, and a later load by a reused number would be handed this one.
        lib = ctypes.CDLL(f"/proc/self/fd/{fd}")
    except BaseException:
        os.close(fd)
        raise
    lib.hq_abi.restype, lib.hq_abi.argtypes = _c.c_char_p, []
    found, wanted = lib.hq_abi(), quiet_abi().encode()
    if found != wanted:
        raise UntrustedLibrary(f"{path} answers {found!r}, not {wanted!r}: a stale build (`hookd shim build`)")
    signatures: dict[str, tuple[object, list[object]]] = {
        "hq_new": (
            _HANDLE,
            [
                _c.c_int,
                _c.c_int,
                _c.c_uint,
                _c.c_long,
                _c.c_long,
                _c.c_ulong,
                _c.c_ulong,
                _c.c_char_p,
                _c.c_int,
                _c.c_char_p,
                _SIZE,
            ],
        ),
        "hq_start": (_c.c_int, [_HANDLE]),
        "hq_stop": (None, [_HANDLE]),
        "hq_free": (None, [_HANDLE]),
        "hq_lock": (None, [_HANDLE]),
        "hq_unlock": (None, [_HANDLE]),
        "hq_pause": (None, [_HANDLE]),
        "hq_disable": (None, [_HANDLE]),
        "hq_handed": (_c.c_ulong, [_HANDLE]),
        "hq_answered": (_c.c_ulong, [_HANDLE]),
        "hq_late": (_c.c_ulong, [_HANDLE]),
        "hq_resume": (_c.c_int, [_HANDLE, _c.c_ulong]),
        "hq_set_cues": (_c.c_int, [_HANDLE, _c.c_char_p, _c.POINTER(_SIZE), _c.c_int, _c.c_long]),
        "hq_add_header": (_c.c_int, [_HANDLE, _c.c_char_p, _SIZE]),
        "hq_set_journal": (_c.c_int, [_HANDLE, _c.c_int, _c.c_longlong, _c.c_longlong]),
        "hq_journal_size": (_c.c_longlong, [_HANDLE]),
        "hq_set_key": (
            _c.c_int,
            [
                _HANDLE,
                _c.c_int,
                _c.c_char_p,
                _SIZE,
                _c.c_char_p,
                _SIZE,
                _c.c_char_p,
                _SIZE,
                _c.c_char_p,
                _SIZE,
                _c.c_long,
                _c.c_int,
            ],
        ),
        "hq_drop_key": (None, [_HANDLE, _c.c_int]),
        "hq_take": (
            _c.c_long,
            [_HANDLE, _c.POINTER(_c.c_int), _c.POINTER(_c.c_long), _c.POINTER(_c.c_double), _OUT, _SIZE],
        ),
        "hq_read_payload": (
            _c.c_int,
            [
                _c.c_char_p,
                _SIZE,
                _c.c_char_p,
                _SIZE,
                _OUT,
                _c.POINTER(_SIZE),
                _OUT,
                _c.POINTER(_SIZE),
                _c.POINTER(_c.c_long),
            ],
        ),
        "hq_escape": (_SIZE, [_c.c_char_p, _SIZE, _OUT]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


class Library:
    """One native server (`hq_new`): the calls hookd.procs.native_lane makes, each with the lock held where the
    library says so (`locked`)."""

    def __init__(
        self,
        lib: ctypes.CDLL,
        listen_fd: int,
        wake_fd: int,
        *,
        timeout_ms: int,
        max_text: int,
        max_header: int,
        max_payload: int,
        magic: bytes,
        version: int,
        reply: bytes,
    ) -> None:
        self.lib = lib
        limits = (timeout_ms, max_text, max_header, max_payload)
        handle = lib.hq_new(listen_fd, wake_fd, os.getuid(), *limits, magic, version, reply, len(reply))
        if not handle:
            raise OSError("the native quiet chunk's server could not be made (out of memory)")
        self.handle: int = handle
        self.started = False
        self._text = ctypes.create_string_buffer(TEXT_CAP)

    def start(self) -> None:
        if self.lib.hq_start(self.handle) != 0:
            raise OSError("the native quiet chunk's thread could not be started")
        self.started = True

    def close_thread(self) -> None:
        """Stop the thread: it finishes the connection it is answering, and accepts no other."""
        self.lib.hq_stop(self.handle)

    def close(self) -> None:
        """Stop the thread (it finishes the connection it is answering) and free the server."""
        if self.handle:
            self.lib.hq_free(self.handle)
            self.handle = 0

    def lock(self) -> None:
        self.lib.hq_lock(self.handle)

    def unlock(self) -> None:
        self.lib.hq_unlock(self.handle)

    def set_cues(self, cues: tuple[str, ...], longest: int) -> None:
        encoded = [cue.encode() for cue in cues]
        lengths = (_SIZE * max(1, len(encoded)))(*(len(cue) for cue in encoded))
        if self.lib.hq_set_cues(self.handle, b"".join(encoded), lengths, len(encoded), longest) != 0:
            raise OSError(f"the native quiet chunk takes at most {MAX_CUES} cues, none longer than its max_text")

    def set_key(
        self, slot: int, named: tuple[bytes, bytes, bytes] | None, tail: bytes, index: int, eligible: bool
    ) -> None:
        """A response's state in `slot`: `named` (its session, request's bytes and journal line's beginning) when
        the slot is new to it, its tail and chunk count, and whether its next chunk may be answered natively."""
        session, request, start = named or (None, None, None)
        done = self.lib.hq_set_key(
            self.handle,
            slot,
            session,
            len(session or b""),
            request,
            len(request or b""),
            start,
            len(start or b""),
            tail,
            len(tail),
            index,
            int(eligible),
        )
        if done != 0:
            raise OSError("the native quiet chunk's response state could not be set")

    def take(self) -> Iterator[tuple[int, int, float, str]]:
        """The chunks answered natively and not taken yet, oldest first: slot, index, latency (ms), text."""
        slot, index, latency = ctypes.c_int(), ctypes.c_long(), ctypes.c_double()
        while (size := self.lib.hq_take(self.handle, slot, index, latency, self._text, TEXT_CAP)) > 0:
            yield slot.value, index.value, latency.value, ctypes.string_at(self._text, size - 1).decode()


def read_payload(lib: ctypes.CDLL, body: bytes, request: bytes) -> tuple[str, str] | None:
    """What the library reads of a chunk's payload whose request is `request`: its session and text; None where
    it doubts (the property test's: tests/unit/transport/test_native_quiet.py)."""
    session, text = ctypes.create_string_buffer(1024), ctypes.create_string_buffer(TEXT_CAP)
    slen, tlen, chars = _SIZE(), _SIZE(), ctypes.c_long()
    if not lib.hq_read_payload(body, len(body), request, len(request), session, slen, text, tlen, chars):
        return None
    read = session.raw[: slen.value].decode(), text.raw[: tlen.value].decode()
    if chars.value != len(read[1]):
        raise AssertionError(f"the library counted {chars.value} characters in a text of {len(read[1])}")
    return read


def escaped(lib: ctypes.CDLL, text: str) -> str:
    """`text` as the library writes it in the journal's line."""
    encoded = text.encode()
    out = ctypes.create_string_buffer(12 * len(encoded) + 1)
    size = lib.hq_escape(encoded, len(encoded), out)
    return out.raw[:size].decode()
