"""The stream lane's socket served with bare socket calls on the event loop, not the loop's transports.

A streamed chunk is one short connection: accept, one read of the whole frame (the shims write it at once),
one write, close. uvloop's stream machinery around that (a transport object, its read buffer, a second wait
for the frame to be readable after the accept, a loop step to report the connection lost) was a measurable
part of what a quiet chunk costs the stream lane (docs/performance.md, issue 30). Here the listener is one
reader callback: it accepts, reads the frame at once when it is there (a reader on the connection only when
it is not), and the protocol's reply is written and the connection closed in the same call.

The protocol is the hook server's own (`_HookConnection`): only the transport under it differs, so the
frame's checks, the admission, the deadline and the errors are those of every other socket. Everything runs
on the loop's thread. A write the peer does not take at once (a reply larger than the socket's buffer) is
finished by a writer callback, within WRITE_TIMEOUT_S; a peer that never reads it is dropped then.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Protocol

import structlog

log = structlog.get_logger("hookd.transport")
READ_SIZE = 256 * 1024  # a streamed chunk's frame with a 100 KB conversation comes in one read
WRITE_TIMEOUT_S = 5.0  # a reply the peer has not taken in this long is dropped with the connection
ACCEPT_PAUSE_S = 0.1  # out of descriptors: accepting stops this long (a listener that stays readable)
_NOWAIT = socket.MSG_DONTWAIT  # each call non-blocking, without a system call to make the socket so


class Listener(Protocol):
    """What serves the stream lane's socket: this module's, or the native quiet chunk's (hookd.procs.native_lane)."""

    sockets: tuple[socket.socket, ...]

    def close(self) -> None: ...


ListenerFactory = Callable[[socket.socket, Callable[[], asyncio.Protocol]], Listener]


class RawListener:
    """A listening socket served by a reader callback on the running loop; `close` stops it."""

    def __init__(self, sock: socket.socket, protocol: Callable[[], asyncio.Protocol]) -> None:
        self.sockets: tuple[socket.socket, ...] = (sock,)
        self._sock = sock
        self._protocol = protocol
        self._loop = asyncio.get_running_loop()
        self._closed = False
        sock.setblocking(False)
        self._loop.add_reader(sock.fileno(), self._accept)

    def _accept(self) -> None:
        try:
            # socket.accept() converts the family and type to enums for the new object: 10 µs a chunk of Python
            fd, _ = self._sock._accept()  # type: ignore[attr-defined]
        except (BlockingIOError, InterruptedError, ConnectionAbortedError):
            return
        except OSError as exc:  # EMFILE, ENFILE, ENOBUFS: the backlog waits; a level-triggered reader would spin
            log.error("stream_socket_accept_failed", error=exc.strerror or str(exc))
            self._loop.remove_reader(self._sock.fileno())
            self._loop.call_later(ACCEPT_PAUSE_S, self._resume)
            return
        RawTransport(self._loop, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM, 0, fd), self._protocol())

    def _resume(self) -> None:
        if not self._closed:
            self._loop.add_reader(self._sock.fileno(), self._accept)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._loop.remove_reader(self._sock.fileno())
        self._sock.close()


class RawTransport(asyncio.Transport):
    """One accepted connection: reads handed to the protocol until it pauses or closes; writes non-blocking."""

    __slots__ = (
        "_closed",
        "_closing",
        "_conn",
        "_fd",
        "_finished",
        "_loop",
        "_paused",
        "_pending",
        "_protocol",
        "_reading",
        "_timer",
    )

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        conn: socket.socket,
        protocol: asyncio.Protocol,
        finished: Callable[[], None] | None = None,
    ) -> None:
        super().__init__()
        self._finished = finished  # called once the connection is closed
        self._loop = loop
        self._conn = conn
        self._fd = conn.fileno()
        self._protocol = protocol
        self._reading = False  # a reader callback is registered on the connection
        self._paused = False
        self._closing = False  # close() was called: the connection ends once the pending write is out
        self._closed = False
        self._pending: memoryview | None = None  # the part of a write the peer did not take yet
        self._timer: asyncio.TimerHandle | None = None
        self._call(protocol.connection_made, self)
        if not self._closing:
            self._read()

    def get_extra_info(self, name: str, default: object = None) -> object:
        return self._conn if name == "socket" else default

    def is_closing(self) -> bool:
        return self._closing

    def pause_reading(self) -> None:
        self._paused = True
        self._stop_reading()

    def _stop_reading(self) -> None:
        if self._reading:
            self._reading = False
            self._loop.remove_reader(self._fd)

    def _read(self) -> None:
        while not (self._paused or self._closing):
            try:
                data = self._conn.recv(READ_SIZE, _NOWAIT)
            except (BlockingIOError, InterruptedError):
                if not self._reading:  # the rest of the frame is not there yet: read it when it comes
                    self._reading = True
                    self._loop.add_reader(self._fd, self._read)
                return
            except OSError as exc:
                self._lost(exc)
                return
            if not data:
                self.pause_reading()
                if not self._call(self._protocol.eof_received):
                    self.close()
                return
            self._call(self._protocol.data_received, data)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if self._closing or self._closed:
            return
        view = memoryview(data)
        try:
            sent = self._conn.send(view, _NOWAIT)
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError as exc:
            self._lost(exc)
            return
        if sent < len(view):
            self._pending = view[sent:]
            self._loop.add_writer(self._fd, self._flush)
            self._timer = self._loop.call_later(WRITE_TIMEOUT_S, self._lost, TimeoutError("the reply was not read"))

    def _flush(self) -> None:
        pending = self._pending
        if pending is None:
            return
        try:
            sent = self._conn.send(pending, _NOWAIT)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            self._lost(exc)
            return
        self._pending = pending[sent:] if sent < len(pending) else None
        if self._pending is None:
            self._loop.remove_writer(self._fd)
            if self._timer is not None:
                self._timer.cancel()
            if self._closing:
                self._finish(None)

    def close(self) -> None:
        if self._closing:
            return
        self._closing = True
        self._stop_reading()
        if self._pending is None:
            self._finish(None)

    def abort(self) -> None:
        self._lost(None)

    def _lost(self, exc: Exception | None) -> None:
        self._closing = True
        self._stop_reading()
        if self._pending is not None:
            self._pending = None
            self._loop.remove_writer(self._fd)
        if self._timer is not None:
            self._timer.cancel()
        self._finish(exc)

    def _finish(self, exc: Exception | None) -> None:
        if self._closed:
            return
        self._closed = True
        if self._finished is not None:  # before the peer sees the end: its next connection finds what this left
            self._finished()
        self._conn.close()
        self._call(self._protocol.connection_lost, exc)

    def _call(self, method: Callable[..., bool | None], *args: object) -> bool | None:
        """A protocol's call; one that raises (a bug) ends its connection, never the listener: the shim then
        has no reply and applies its fail mode."""
        try:
            return method(*args)
        except Exception:
            log.exception("stream_connection_failed")
            self._lost(None)
            return True
