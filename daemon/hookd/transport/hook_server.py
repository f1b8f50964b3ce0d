"""The hook socket: a Unix stream listener, one Protocol per connection, one frame each way.

The socket lives in an owner-only (0700) runtime directory and is itself 0600. A lock file held for
the daemon's life keeps a second daemon out; a socket left by a dead daemon is replaced. Each
connection gets the request deadline from the moment it is accepted: reading the frame, deciding and
writing the reply all count against it. Errors become one error frame, built in one place.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import socket
import time
from collections import deque
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import cast

import structlog

from hookd import wire
from hookd.config import Config
from hookd.config.runtime_dir import prepare_runtime_dir
from hookd.errors import DaemonError, DialectError, FrameError, LaneRefused, Unavailable
from hookd.transport.peers import (
    DIRECT_PER_SESSION,
    HeaderCache,
    Places,
    from_own_daemon,
    parent_of,
    peer_credentials,
)
from hookd.transport.raw import Listener, ListenerFactory, RawListener
from hookd.types import Caller, Deadline, HookRequest, Reply

log = structlog.get_logger("hookd.transport")
# Decides a request: the reply, when it was decided in the call, or one awaitable of it (hookd.decide.Decider)
Handler = Callable[[HookRequest], "Reply | Awaitable[Reply]"]
ReplyWriter = Callable[[bytes], None]  # writes one reply frame to the connection and closes it
ORPHAN_GRACE_S = 5.0  # how long a starting daemon waits for a killed daemon's workers to exit
_MISPLACED = "frame header: 'forwarded' is taken only on the lane's socket"
_NOT_DIRECT = "the lane takes forwarded requests from its own daemon and streamed events from its user only"


class ServerStats:
    """Request counters of the hook path (the hook socket and the Decide call), read by Status.
    `on_count`, when set, is called after each count (a worker reports its counts only after some)."""

    __slots__ = ("direct", "direct_errors", "errors", "on_count", "requests")

    def __init__(self, on_count: Callable[[], None] | None = None) -> None:
        self.requests = 0
        self.direct = 0  # a lane's: the requests a shim sent it (not forwarded), of `requests`
        self.errors: dict[str, int] = {}
        self.direct_errors: dict[str, int] = {}  # a lane's: the errors it answered to those, of `errors`
        self.on_count = on_count

    def request(self) -> None:
        self.requests += 1
        if self.on_count is not None:
            self.on_count()

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1
        if self.on_count is not None:
            self.on_count()

    def direct_error(self, code: str) -> None:
        self.direct_errors[code] = self.direct_errors.get(code, 0) + 1


def socket_listener(path: Path) -> int | None:
    """The pid of the process answering on `path`, or None when nothing listens there."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(str(path))
        return peer_credentials(probe).pid
    except OSError as exc:
        if exc.errno in (errno.ECONNREFUSED, errno.ENOENT, errno.ENOTSOCK):
            return None
        raise
    finally:
        probe.close()


def _bound(path: Path, backlog: int) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    return sock


class HookServer:
    def __init__(
        self,
        path: Path,
        handler: Handler,
        *,
        limits: wire.Limits,
        request_timeout: float,
        max_concurrency: int,
        stats: ServerStats | None = None,
        lane: bool = False,
        direct: frozenset[tuple[str, str]] = frozenset(),
    ) -> None:
        self.path = path
        # The lane's server takes requests forwarded by its own daemon and workers (same uid), each with the
        # sender's caller and deadline (the hook socket never takes one), and, from any process of its user,
        # the (client, event) pairs of `direct` as a shim sends them: a streamed chunk reaches the process
        # that holds its response's text without the daemon's relay (docs/performance.md, issue 30).
        self.lane = lane
        self.direct = direct
        self.raw = bool(direct)  # the stream lane's socket: bare socket calls, not uvloop's transports (raw.py)
        self.listen_with: ListenerFactory = RawListener  # or the native quiet chunk's (hookd.procs.native_lane)
        self.on_direct_header: Callable[[bytes, wire.RequestHeader], None] | None = None  # its headers, as read
        self._headers = HeaderCache()  # a shim's header is parsed once
        self._places = Places()  # the lane's: the streamed chunks open, by session
        self._uid = os.getuid()
        self.stats = stats or ServerStats()
        self._handler = handler
        self._deciding_now = 0  # 1 while a request is decided in the callback that read it
        self._limits = limits
        self._timeout = request_timeout
        self._deadline_ms = int(request_timeout * 1000)
        self._slots = asyncio.Semaphore(max_concurrency)
        self._backlog = max(128, max_concurrency * 4)
        self._server: asyncio.AbstractServer | Listener | None = None
        self._lock_fd: int | None = None
        self._owns_path = True  # false in a worker, which serves the daemon's socket
        self._unlink_at_stop = True  # false when a service manager bound the socket
        self._tasks: set[asyncio.Task[None]] = set()
        # Open connections in the order accepted, which is the order of their deadlines (each gets the same
        # request_timeout), and one timer for the earliest: a timer per connection cost 25-30 us of a cold
        # decision's CPU to arm and cancel, and nearly every connection is answered long before it fires.
        self._open: deque[_HookConnection] = deque()
        self._sweep: asyncio.TimerHandle | None = None

    @classmethod
    def from_config(
        cls,
        config: Config,
        handler: Handler,
        stats: ServerStats,
        *,
        lane: bool = False,
        direct: frozenset[tuple[str, str]] = frozenset(),
    ) -> HookServer:
        """The hook socket's server as `[daemon]` configures it (the daemon's and each worker's), the lane's
        socket's (the lane process's), or with `direct` events the stream lane's."""
        daemon = config.daemon
        return cls(
            config.hook_socket.with_name(wire.STREAM_SOCKET)
            if direct
            else config.lane_socket
            if lane
            else config.hook_socket,
            handler,
            limits=wire.Limits(daemon.max_header_bytes, daemon.max_payload_bytes),
            request_timeout=daemon.request_timeout_ms / 1000,
            max_concurrency=daemon.max_concurrency,
            stats=stats,
            lane=lane,
            direct=direct,
        )

    async def start(self, inherited: socket.socket | None = None) -> None:
        """Bind the socket, or serve `inherited`, the one a service manager bound (hookd.transport.activation):
        its path is then the manager's, left in place at stop."""
        if len(os.fsencode(self.path)) > 107:
            raise DaemonError(f"socket path {self.path} is longer than the 107 bytes a Unix socket allows")
        if not self.lane:  # the lane's socket is in the runtime dir its daemon prepared (and may have opened up)
            prepare_runtime_dir(self.path.parent)
        self._take_lock()
        if inherited is not None:
            self._unlink_at_stop = False
            loop = asyncio.get_running_loop()
            self._server = await loop.create_unix_server(self._connection, sock=inherited, backlog=self._backlog)
            return
        if self.path.exists() or self.path.is_symlink():
            await self._wait_for_orphans()
            self.path.unlink()
            log.info("stale_socket_removed", path=str(self.path))
        old_umask = os.umask(0o177)
        try:
            if self.raw:
                self._server = self.listen_with(_bound(self.path, self._backlog), self._connection)
            else:
                loop = asyncio.get_running_loop()
                self._server = await loop.create_unix_server(
                    self._connection, path=str(self.path), backlog=self._backlog
                )
        finally:
            os.umask(old_umask)
        os.chmod(self.path, 0o600)

    async def _wait_for_orphans(self) -> None:
        """Holding the lock, no daemon serves this path: a process still answering on it is a killed daemon's
        worker on its way out (workers die with their daemon), so a restart waits for it a moment."""
        end = time.monotonic() + ORPHAN_GRACE_S
        while (pid := socket_listener(self.path)) is not None:
            if time.monotonic() > end:
                raise DaemonError(
                    f"process {pid} still answers on {self.path} although no hookd daemon holds its lock: "
                    "stop it, then start hookd again"
                )
            await asyncio.sleep(0.05)

    async def adopt(self, listener: socket.socket) -> None:
        """Serve a listening socket another process bound (a worker's share of the daemon's hook socket).
        The socket path and its lock stay the daemon's: `stop` here closes this process's copy only."""
        self._owns_path = False
        loop = asyncio.get_running_loop()
        self._server = await loop.create_unix_server(self._connection, sock=listener, backlog=self._backlog)

    @property
    def in_flight(self) -> int:
        """Requests read and not yet answered."""
        return len(self._tasks) + self._deciding_now

    def listening_fd(self) -> int:
        """The listening socket's descriptor, to hand to worker processes."""
        sockets = getattr(self._server, "sockets", None)  # asyncio.Server's; AbstractServer does not declare it
        if not sockets:
            raise DaemonError("the hook socket is not listening")
        return int(sockets[0].fileno())

    def _take_lock(self) -> None:
        lock_path = self.path.with_suffix(".lock")
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise DaemonError(f"another hookd daemon holds {lock_path}: it is already running") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd = fd

    def _watch(self, connection: _HookConnection) -> None:
        """Give `connection` its deadline: it is expired then, unless answered or closed before."""
        open_ = self._open
        while open_ and open_[0].done:
            open_.popleft()
        open_.append(connection)
        if self._sweep is None:
            self._sweep = asyncio.get_running_loop().call_at(connection.expires_at, self._expire_due)

    def _expire_due(self) -> None:
        """Expire the connections whose deadline has come; the timer is then set for the next one still open."""
        self._sweep = None
        open_, now = self._open, time.monotonic()
        while open_ and (open_[0].done or open_[0].expires_at <= now):
            open_.popleft().expire()
        if open_:
            self._sweep = asyncio.get_running_loop().call_at(open_[0].expires_at, self._expire_due)

    async def stop(self, grace: float = 2.0) -> None:
        if self._sweep is not None:
            self._sweep.cancel()
            self._sweep = None
        if self._server is not None:
            self._server.close()
            await asyncio.sleep(0)  # let just-accepted connections start
        if self._tasks:
            _, pending = await asyncio.wait(self._tasks, timeout=grace)
            for task in pending:
                task.cancel()
        if not self._owns_path:
            return
        if self._unlink_at_stop:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def _connection(self) -> _HookConnection:
        return _HookConnection(self)

    def _request(self, caller: Caller, header: wire.RequestHeader, payload: bytes, started: float) -> HookRequest:
        deadline, via = Deadline(started + self._timeout), "socket"
        if (forwarded := header.forwarded) is not None:  # the lane's: checked in _HookConnection
            caller = Caller(uid=forwarded.uid, gid=forwarded.gid, pid=forwarded.pid)
            deadline, started, via = Deadline(forwarded.deadline), forwarded.received_at, forwarded.via
        return HookRequest(
            client=header.client,
            event=header.event,
            payload=payload,
            env=header.env,
            cwd=header.cwd,
            caller=Caller(uid=caller.uid, gid=caller.gid, pid=caller.pid, ppid=header.ppid),
            deadline=deadline,
            received_at=started,
            via=via,
        )

    def _answer(self, request: HookRequest, reply: ReplyWriter) -> asyncio.Task[None] | None:
        """Decide `request` in the callback that read it and write the reply; None when it was answered so, or
        the task that awaits the rest of the decision (a remote engine, the lane) in a slot and then writes it: a
        Task and its loop step cost 25-30 us of a cold decision's CPU and delay the reply by as much. A request
        decided in the call takes no slot: heavy requests waiting for the lane never hold up the light ones."""
        self._deciding_now += 1
        try:
            decided = self._handler(request)
        except Exception as exc:
            reply(self._failure_frame(exc))
            return None
        finally:
            self._deciding_now -= 1
        if isinstance(decided, Reply):
            reply(self._in_time(request, _frame(decided)))
            return None
        return self._serve(request, self._awaited(decided), reply)

    def _serve(self, request: HookRequest, frame: Awaitable[bytes], reply: ReplyWriter) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(self._reply_when_decided(request, frame, reply))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _reply_when_decided(self, request: HookRequest, frame: Awaitable[bytes], reply: ReplyWriter) -> None:
        """Decide and write the reply in the same step: the decision log's writer, woken by this decision,
        runs only after the reply is on its way (a done-callback would have run after the writer).
        A decision that took past the deadline (the loop was busy, so the timer could not fire) is not
        sent: the shim applies the event's fail mode, never a late allow."""
        reply(self._in_time(request, await frame))

    def _in_time(self, request: HookRequest, frame: bytes) -> bytes:
        """`frame`, or the deadline error when the decision took past the deadline."""
        if request.deadline.expired():
            return self.error_frame("deadline", f"hookd did not decide within its {self._deadline_ms} ms deadline")
        return frame

    async def _awaited(self, decided: Awaitable[Reply]) -> bytes:
        """The reply frame of the rest of a decision begun in the callback, awaited in a slot (the remote work
        starts only when awaited: `max_concurrency` bounds it)."""
        try:
            async with self._slots:
                reply = await decided
        except Exception as exc:  # CancelledError is not one: the deadline's cancel goes through
            return self._failure_frame(exc)
        return _frame(reply)

    def _failure_frame(self, exc: Exception) -> bytes:
        """The error frame of a request whose handler raised `exc` (called in the `except` that caught it)."""
        if isinstance(exc, DialectError):
            return self.error_frame("bad-payload", str(exc))
        if isinstance(exc, LaneRefused):
            return self.error_frame(exc.code, str(exc))
        if isinstance(exc, Unavailable):
            return self.error_frame("unavailable", str(exc))
        log.exception("request_failed")  # one bad request must never take the daemon down
        return self.error_frame("internal", f"hookd internal error: {type(exc).__name__}")

    def error_frame(self, code: str, message: str) -> bytes:
        """Every error reply is built here: counted, logged, encoded."""
        self.stats.error(code)
        if code != "internal":  # internal errors were logged with their traceback already
            log.warning("request_rejected", code=code, error=message)
        return wire.encode_error(code, message)


_NOBODY = Caller(uid=-1, gid=-1, pid=0)  # a connection's caller until its credentials are read


class _HookConnection(asyncio.Protocol):
    """One shim connection: buffer one frame, decide it (in this callback, or in a task), write one reply, close.

    A Protocol rather than asyncio streams: the hook path pays for every allocation, and a
    connection here never needs more than a buffer and its place in the server's deadline queue.
    """

    __slots__ = (
        "_buffer",
        "_caller",
        "_direct",
        "_own_daemon",
        "_parent",
        "_server",
        "_session",
        "_sizes",
        "_started",
        "_task",
        "_transport",
        "done",
        "expires_at",
    )

    def __init__(self, server: HookServer) -> None:
        self._server = server
        self._buffer = bytearray()
        self._sizes: tuple[int, int] | None = None
        self._task: asyncio.Task[None] | None = None
        self.done = False  # answered or closed: nothing more is written, the deadline no longer applies
        self._started = self.expires_at = 0.0
        self._caller = _NOBODY
        self._own_daemon = False  # the lane's peer is its daemon or a worker: forwarded frames are taken
        self._direct = False  # the lane's: a frame a shim sent it, read (its errors are no one else's to count)
        self._session = 0  # the lane's: the session of the peer (its parent process), 0 until read
        self._parent: int | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = cast(asyncio.Transport, transport)  # uvloop's transports do not subclass asyncio's
        self._started = time.monotonic()
        server = self._server
        self.expires_at = self._started + server._timeout
        server._watch(self)
        try:
            self._caller = peer_credentials(transport.get_extra_info("socket"))
        except OSError as exc:
            self._reply(server.error_frame("internal", f"cannot read the peer's credentials: {exc}"))
            return
        if server.lane:
            self._admit_at_lane()

    def _admit_at_lane(self) -> None:
        """Before a byte is read: refuse a peer of another uid; a peer that is not the lane's daemon (a shim
        sending a streamed chunk, or a worker, told apart by its frame's header) takes one of its session's
        DIRECT_PER_SESSION places, or is refused `busy`."""
        server, caller = self._server, self._caller
        if caller.uid != server._uid:
            self._reply(server.error_frame("forbidden", f"{_NOT_DIRECT} (uid {server._uid})"))
            return
        if caller.pid == os.getppid():  # the daemon: its forwards hold their places in it (hookd.lane.FairSlots)
            self._own_daemon = True
            return
        if not server._places.take(self):
            message = f"the lane already has {DIRECT_PER_SESSION} streamed chunks of process {self._session}'s session"
            self._reply(server.error_frame("busy", message))

    def session(self) -> int:
        """The session of this connection's peer (its parent process, read from /proc), read once."""
        if not self._session:
            self._parent = parent_of(self._caller.pid)
            self._session = self._parent or self._caller.pid
        return self._session

    def from_own_daemon(self) -> bool:
        """The peer is the lane's daemon or one of its workers: read when a forwarded frame comes (it names
        the caller and deadline the lane records) or when places run short, not for every chunk."""
        if not self._own_daemon:
            self.session()
            self._own_daemon = from_own_daemon(self._caller, self._parent)
        return self._own_daemon

    def _leave_lane(self) -> None:
        """The connection is answered or gone: its session's place at the lane is free."""
        self._server._places.leave(self)

    def data_received(self, data: bytes) -> None:
        if self.done or self._task is not None:
            return
        # A frame that comes in one read (nearly all: the shims write it at once) is read from `data` itself:
        # a copy of a 100 KB payload less (issue 30). Only a frame in pieces is gathered in the buffer.
        frame: bytes | bytearray = data
        if self._buffer or self._sizes is not None:
            self._buffer += data
            frame = self._buffer
        server = self._server
        try:
            if self._sizes is None:
                if len(frame) < wire.REQUEST_PREFIX_SIZE:
                    self._buffer = bytearray(frame)
                    return
                server.stats.request()  # a connection that sends nothing (a liveness probe) is not a request
                self._sizes = wire.parse_request_prefix(bytes(frame[: wire.REQUEST_PREFIX_SIZE]), server._limits)
            header_len, payload_len = self._sizes
            body_start = wire.REQUEST_PREFIX_SIZE + header_len
            if len(frame) < body_start + payload_len:
                if frame is data:
                    self._buffer = bytearray(data)
                return
            raw_header = bytes(frame[wire.REQUEST_PREFIX_SIZE : body_start])
            header = server._headers.parse(raw_header)
            if server.lane:
                self._check_lane_frame(header)  # `forbidden` is answered unread: the shim has it relayed
                self._direct = header.forwarded is None
                if self._direct and server.on_direct_header is not None:
                    server.on_direct_header(raw_header, header)
                server.stats.direct += self._direct
            elif header.forwarded is not None:
                raise FrameError("bad-header", _MISPLACED)
            with memoryview(frame) as view:  # one copy of a payload of megabytes, not two
                payload = bytes(view[body_start : body_start + payload_len])
        except FrameError as exc:
            self._reply(server.error_frame(exc.code, str(exc)))
            return
        self._buffer = bytearray()
        request = server._request(self._caller, header, payload, self._started)
        self._task = server._answer(request, self._reply)
        if self._task is not None:
            self._transport.pause_reading()

    def _check_lane_frame(self, header: wire.RequestHeader) -> None:
        """On the lane's socket: a forwarded frame only from its own daemon or a worker (it names the caller
        and deadline the lane records), else only a `direct` event, the caller the socket's peer."""
        if header.forwarded is not None:
            if not self.from_own_daemon():  # a shim's frame naming another caller and deadline (issue 25)
                raise FrameError("forbidden", f"{_NOT_DIRECT} (uid {os.getuid()})")
            self._server._places.leave(self)  # its forward holds its place in the process that forwarded it
            return
        if (header.client, header.event) not in self._server.direct:
            raise FrameError("forbidden", f"{_NOT_DIRECT} (uid {os.getuid()})")

    def eof_received(self) -> bool:
        if not self.done and self._task is None:
            message = "truncated frame: the connection closed inside the frame"
            # A connect-and-close liveness probe sent nothing: answer it, but do not count an error.
            self._reply(
                self._server.error_frame("truncated", message)
                if self._buffer
                else wire.encode_error("truncated", message)
            )
        return True  # keep the transport open until the reply is written

    def connection_lost(self, exc: Exception | None) -> None:
        self.done = True
        self._leave_lane()

    def expire(self) -> None:
        """The deadline came: the decision still running is cancelled and the shim gets a deadline error."""
        if self.done:
            return
        server = self._server
        if self._task is not None:
            self._task.cancel()
        message = f"hookd did not decide within its {server._deadline_ms} ms deadline"
        self._reply(server.error_frame("deadline", message))

    def _reply(self, frame: bytes) -> None:
        if self.done:
            return
        self.done = True
        self._leave_lane()
        if self._direct and frame[wire.REPLY_STATUS_OFFSET] == wire.Status.ERROR:
            self._server.stats.direct_error(wire.decode_reply(frame).stderr.decode("utf-8", "replace"))
        self._transport.write(frame)
        self._transport.close()  # flushes the reply first; the shim reads to the end of it


_NOTHING = wire.encode_reply(b"")  # the reply of most decisions (an allow that prints nothing), encoded once


def _frame(reply: Reply) -> bytes:
    if not (reply.stdout or reply.stderr or reply.exit_code):
        return _NOTHING
    return wire.encode_reply(reply.stdout, reply.stderr, reply.exit_code)
