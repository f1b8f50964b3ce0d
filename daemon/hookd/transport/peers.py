"""Who is on the other end of a hook connection, and what a lane lets each peer hold: the peer's credentials
and parent, the stream lane's places per session, and the shims' headers, parsed once each.

What the stream lane spends here is spent on every streamed chunk (issue 30, docs/performance.md): a session
is read from /proc only when places run short, and a header that repeats byte for byte is not parsed again.
"""

from __future__ import annotations

import os
import socket
import struct
from collections import Counter
from typing import Protocol

from hookd import wire
from hookd.types import Caller

_PEERCRED = struct.Struct("3i")
# Streamed chunks one session (the peer's parent process: the agent that ran the shims) may have open at the
# lane's socket at once; its next connection is refused unread (`busy`: the shim relays that chunk through the
# hook socket, whose places at the lane are shared fairly, hookd.lane.FairSlots). An agent streams one chunk
# at a time: the cap is for a process flooding the socket, whose connections would otherwise hold the lane's
# descriptors and CPU ahead of every other session's chunks and heavy requests (docs/reliability.md).
DIRECT_PER_SESSION = 4
HEADERS_KEPT = 64  # headers parsed kept (`HeaderCache`), each of at most HEADER_KEPT_BYTES
HEADER_KEPT_BYTES = 4096


def peer_credentials(sock: socket.socket) -> Caller:
    pid, uid, gid = _PEERCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size))
    return Caller(uid=uid, gid=gid, pid=pid)


def parent_of(pid: int) -> int | None:
    """The parent pid of process `pid` (the kernel's word, /proc), None when it is gone. Read with bare
    system calls: pathlib's text file cost 20 µs more."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        stat = os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)
    return int(stat.rsplit(b")", 1)[1].split()[1])


def from_own_daemon(caller: Caller, parent: int | None) -> bool:
    """Whether a connection to the lane comes from the daemon that started it (its parent) or one of that
    daemon's workers (its siblings; `parent`: the caller's parent, `parent_of`). The uid alone is not enough:
    every process of the daemon's user may connect to a socket of the user's (the 0700 runtime dir keeps only
    other users out), and a forwarded frame names the caller and the deadline the lane decides and records
    for (issue 25)."""
    daemon = os.getppid()
    return caller.uid == os.getuid() and daemon in (caller.pid, parent)


class Peer(Protocol):
    """A connection at the lane, as `Places` asks about it (read once each, on demand)."""

    def session(self) -> int: ...

    def from_own_daemon(self) -> bool: ...


class Places:
    """The stream lane's places: a session (the peer's parent process: the agent that ran the shims) holds at
    most DIRECT_PER_SESSION connections open at once; the daemon's workers hold none here (their forwards hold
    places in the worker: hookd.lane.FairSlots). Reading a peer's session from /proc cost 30-40 µs of a
    chunk's CPU; while fewer places are open than one session may hold, no session can be at its cap, so
    sessions are read only once that many are open, then once per connection."""

    __slots__ = ("_by_session", "_open", "_unread")

    def __init__(self) -> None:
        self._open: set[Peer] = set()
        self._unread: list[Peer] = []  # open, their session not read yet: fewer than DIRECT_PER_SESSION
        self._by_session: Counter[int] = Counter()  # the places of the sessions read

    def take(self, peer: Peer) -> bool:
        """A place for `peer` (none for the daemon's workers), or False when its session holds
        DIRECT_PER_SESSION already."""
        if len(self._open) < DIRECT_PER_SESSION:
            self._open.add(peer)
            self._unread.append(peer)
            return True
        unread, self._unread = self._unread, []
        for held in unread:
            if held.from_own_daemon():
                self._open.discard(held)
            else:
                self._by_session[held.session()] += 1
        if peer.from_own_daemon():
            return True
        session = peer.session()
        if self._by_session[session] >= DIRECT_PER_SESSION:
            return False
        self._open.add(peer)
        self._by_session[session] += 1
        return True

    def leave(self, peer: Peer) -> None:
        """`peer` is answered or gone (or found to be a worker): its place is free. Any number of times."""
        if peer not in self._open:
            return
        self._open.discard(peer)
        if peer in self._unread:
            self._unread.remove(peer)
            return
        session = peer.session()
        self._by_session[session] -= 1
        if not self._by_session[session]:
            del self._by_session[session]


class HeaderCache:
    """Frame headers parsed, by their bytes. A shim's header is the same bytes from call to call of one agent
    (its client, event, cwd, parent and environment): each is parsed once (25-30 µs of a streamed chunk's CPU),
    and each request gets an env of its own."""

    __slots__ = ("_known",)

    def __init__(self) -> None:
        self._known: dict[bytes, wire.RequestHeader] = {}

    def parse(self, raw: bytes) -> wire.RequestHeader:
        """`raw` parsed as wire.parse_header parses it (raises FrameError)."""
        known = self._known.get(raw)
        if known is None:
            known = wire.parse_header(raw)
            if known.forwarded is not None or len(raw) > HEADER_KEPT_BYTES:
                return known  # a forwarded header names its own deadline: never the same twice
            if len(self._known) >= HEADERS_KEPT:
                self._known.clear()
            self._known[raw] = known
        return wire.RequestHeader(known.client, known.event, known.cwd, known.ppid, dict(known.env))
