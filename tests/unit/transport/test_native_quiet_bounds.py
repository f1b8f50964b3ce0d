"""The native quiet chunk's library at its bounds and failures (`client_shim/hookd_quiet.c`, driven through
hookd.transport.native_quiet): a cue longer than a chunk's text is refused, hookd's frame limits hold, a frame
sent in part is handed over at once, a thread whose socket fails says so; and a library that is not this
checkout's, or not this user's alone, is not loaded."""

from __future__ import annotations

import ctypes
import os
import select
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookd import wire
from hookd.shims.build import CFLAGS, build_quiet, find_compiler, quiet_source
from hookd.transport import native_quiet

MAX_TEXT = 16 * 1024
HEADER = {"client": "gemini", "event": "AfterModel", "cwd": "/p", "ppid": 1, "env": {"HOME": "/home/u"}}
REQUEST = b'{"contents":[]}'


def payload(text: str) -> bytes:
    response = b'{"candidates":[{"content":{"parts":[{"text":"' + text.encode() + b'"}]}}]}'
    return (
        b'{"session_id":"s","hook_event_name":"AfterModel","llm_request":'
        + REQUEST
        + b',"llm_response":'
        + response
        + b"}"
    )


class Served:
    """One native server on a socket of its own, told one response whose chunks it may answer."""

    def __init__(self, lib: ctypes.CDLL, base: Path, max_payload: int = 1 << 24) -> None:
        self.path = str(base / "s.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(16)
        self.wake = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.journal = os.open(base / "journal", os.O_RDWR | os.O_CREAT, 0o600)
        self.native = native_quiet.Library(lib, self.listener.fileno(), self.wake[1], timeout_ms=30_000,
                                           max_text=MAX_TEXT, max_header=64 * 1024, max_payload=max_payload,
                                           magic=wire.REQUEST_MAGIC, version=wire.VERSION, reply=b"R")  # fmt: skip
        frame = wire.encode_request(HEADER, payload("x"))
        header = frame[14 : 14 + int.from_bytes(frame[6:10], "big")]
        lib.hq_add_header(self.native.handle, header, len(header))
        self.native.set_cues(("AKIA",), MAX_TEXT)
        lib.hq_set_journal(self.native.handle, self.journal, 0, 1 << 40)
        self.native.set_key(0, (b"s", REQUEST, b'{"x":'), b"", 1, True)
        self.handed = 0
        lib.hq_resume(self.native.handle, 0)
        self.native.start()

    def note(self, timeout: float = 30.0) -> int:
        ready, _, _ = select.select([self.wake[0]], [], [], timeout)
        assert ready, "the library wrote no note"
        return int.from_bytes(os.read(self.wake[0], 4), "little", signed=True)

    def taken(self) -> None:
        """A handed connection taken (closed unanswered) and the library let answer again."""
        fd = self.note()
        assert fd >= 0
        os.close(fd)
        self.handed += 1
        self.native.lock()
        self.native.lib.hq_resume(self.native.handle, self.handed)
        self.native.unlock()

    def exchange(self, frame: bytes) -> bytes:
        """The reply to `frame`: b"R" when answered natively, b"" when handed over (and taken)."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(30)  # (a long chunk on a box at load 10 took over 10 s: a bound, not a speed claim)
            sock.connect(self.path)
            sock.sendall(frame)
            deadline = time.monotonic() + 30
            while True:
                ready, _, _ = select.select([sock, self.wake[0]], [], [], max(0.0, deadline - time.monotonic()))
                assert ready, "neither a reply nor a note"
                if sock in ready:
                    return sock.recv(16)
                fd = int.from_bytes(os.read(self.wake[0], 4), "little", signed=True)
                if fd >= 0:  # handed over: Python's to answer; taken here unanswered
                    os.close(fd)
                    self.handed += 1
                    self.native.lock()
                    self.native.lib.hq_resume(self.native.handle, self.handed)
                    self.native.unlock()
                    return b""

    def close(self) -> None:
        self.native.close()
        for fd in (*self.wake, self.journal):
            os.close(fd)
        self.listener.close()


@pytest.fixture
def served(lib: ctypes.CDLL) -> Iterator[Served]:
    with tempfile.TemporaryDirectory(prefix="hkq", dir="/tmp") as base:
        one = Served(lib, Path(base))
        yield one
        one.close()


def test_a_cue_longer_than_a_chunks_text_is_refused(served: Served) -> None:
    """The library's tail of a text keeps at most MAX_TEXT characters; a longer cue is Python's to search for."""
    with pytest.raises(OSError, match="cues"):
        served.native.set_cues(("AKIA",), MAX_TEXT + 1)
    with pytest.raises(OSError, match="cues"):
        served.native.set_cues(("AKIA",), 3_000_000)


def test_long_chunks_with_the_longest_cue_allowed_are_answered(served: Served) -> None:
    """A chunk of MAX_TEXT - 1 four-byte characters (a 64 KiB frame, which one write puts on the socket in two
    pieces) is answered natively; one is handed over only when its sender stalled mid-frame (counted late)."""
    text = "\U0001f600" * (MAX_TEXT - 1)
    frame = wire.encode_request(HEADER, payload(text))
    late = served.native.lib.hq_late(served.native.handle)
    replies = [served.exchange(frame) for _ in range(20)]
    handed = replies.count(b"")
    assert replies.count(b"R") + handed == 20
    assert handed == served.native.lib.hq_late(served.native.handle) - late  # none refused by a bound
    assert handed < 20


def test_a_frame_past_hookds_payload_limit_is_pythons(lib: ctypes.CDLL) -> None:
    frame = wire.encode_request(HEADER, payload("quiet"))
    with tempfile.TemporaryDirectory(prefix="hkq", dir="/tmp") as base:
        for limit, reply in ((len(payload("quiet")), b"R"), (len(payload("quiet")) - 1, b"")):
            Path(base, "s.sock").unlink(missing_ok=True)
            one = Served(lib, Path(base), max_payload=limit)
            try:
                if reply:
                    assert one.exchange(frame) == reply
                else:
                    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                        sock.connect(one.path)
                        sock.sendall(frame)
                        one.taken()  # handed over: Python answers payload-too-large
            finally:
                one.close()


def test_a_frame_sent_in_part_is_handed_over_at_once(served: Served) -> None:
    """A sender that stops mid-frame holds the accepting thread for no time (it waited HQ_WAIT_MS, spinning)."""
    frame = wire.encode_request(HEADER, payload("quiet"))
    socks = []
    began = time.monotonic()
    for _ in range(10):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        socks.append(sock)
        sock.connect(served.path)
        sock.sendall(frame[:20])
        served.taken()
    spent = time.monotonic() - began
    for sock in socks:
        sock.close()
    assert spent < 0.08, f"{spent * 1000:.1f} ms for 10 part frames"  # at least 10 ms each, waited, before
    assert served.exchange(frame) == b"R"  # and a whole one is still answered


def test_a_thread_whose_socket_fails_says_so(served: Served) -> None:
    served.listener.shutdown(socket.SHUT_RDWR)
    assert served.note() == -2


def compiled(source: str, out: Path, *flags: str) -> Path:
    library = out / native_quiet.LIBRARY_NAME
    command = [*find_compiler(), *CFLAGS, "-shared", "-fPIC", "-pthread", *flags, "-o", str(library), source]
    subprocess.run(command, check=True, timeout=120, capture_output=True)
    return library


def test_a_library_not_of_this_source_is_not_loaded(tmp_path: Path) -> None:
    """Built by hand (no source hash), or missing a call: logged and not loaded, never raised."""
    assert native_quiet.load(compiled(str(quiet_source()), tmp_path)) is None
    (tmp_path / "old.c").write_text("int hq_new(void) { return 0; }\n")
    other = tmp_path / "other"
    other.mkdir(mode=0o700)
    assert native_quiet.load(compiled(str(tmp_path / "old.c"), other)) is None


def test_a_library_others_could_write_is_not_loaded(tmp_path: Path) -> None:
    built = build_quiet(find_compiler(), tmp_path, tmp_path)
    assert built is not None
    link = tmp_path / "linked" / native_quiet.LIBRARY_NAME
    link.parent.mkdir(mode=0o700)
    link.symlink_to(built)
    assert native_quiet.load(link) is None  # a link: what it points at may change after the check
    built.chmod(0o664)
    assert native_quiet.load(built) is None
    built.chmod(0o644)
    tmp_path.chmod(0o777)
    try:
        assert native_quiet.load(built) is None
    finally:
        tmp_path.chmod(0o700)
    assert native_quiet.load(built) is not None


def test_doctor_names_a_stale_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    where = native_quiet.library_path()
    where.parent.mkdir(parents=True)
    compiled(str(quiet_source()), where.parent)
    assert "stale" in native_quiet.described()
    build_quiet(find_compiler(), tmp_path, where.parent)
    assert "answered natively" in native_quiet.described()
    where.chmod(0o666)
    assert "not loaded" in native_quiet.described()  # as the lane would refuse it
