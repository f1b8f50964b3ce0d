"""The hook socket: a Unix stream listener, one task per connection, one frame each way.

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
import stat
import struct
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import structlog

from hookd import wire
from hookd.errors import DaemonError, DialectError, FrameError
from hookd.types import Caller, Deadline, HookRequest, Reply

log = structlog.get_logger("hookd.transport")
Handler = Callable[[HookRequest], Awaitable[Reply]]
_PEERCRED = struct.Struct("3i")


class ServerStats:
    """Request counters of the hook path (the hook socket and the Decide call), read by Status."""

    __slots__ = ("errors", "requests")

    def __init__(self) -> None:
        self.requests = 0
        self.errors: dict[str, int] = {}

    def error(self, code: str) -> None:
        self.errors[code] = self.errors.get(code, 0) + 1


def prepare_runtime_dir(path: Path) -> None:
    """Create the runtime dir 0700, or check that an existing one is ours and private."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode):
        raise DaemonError(f"runtime dir {path} is not a directory")
    if info.st_uid != os.getuid():
        raise DaemonError(f"runtime dir {path} belongs to uid {info.st_uid}, not to this user ({os.getuid()})")
    if stat.S_IMODE(info.st_mode) != 0o700:
        os.chmod(path, 0o700)


def peer_credentials(sock: socket.socket) -> Caller:
    pid, uid, gid = _PEERCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _PEERCRED.size))
    return Caller(uid=uid, gid=gid, pid=pid)


def socket_is_live(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(str(path))
    except OSError as exc:
        if exc.errno in (errno.ECONNREFUSED, errno.ENOENT, errno.ENOTSOCK):
            return False
        raise
    finally:
        probe.close()
    return True


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
    ) -> None:
        self.path = path
        self.stats = stats or ServerStats()
        self._handler = handler
        self._limits = limits
        self._timeout = request_timeout
        self._slots = asyncio.Semaphore(max_concurrency)
        self._backlog = max(128, max_concurrency * 4)
        self._server: asyncio.AbstractServer | None = None
        self._lock_fd: int | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        if len(os.fsencode(self.path)) > 107:
            raise DaemonError(f"socket path {self.path} is longer than the 107 bytes a Unix socket allows")
        prepare_runtime_dir(self.path.parent)
        self._take_lock()
        if self.path.exists() or self.path.is_symlink():
            if socket_is_live(self.path):
                raise DaemonError(f"a hookd daemon is already listening on {self.path}")
            self.path.unlink()
            log.info("stale_socket_removed", path=str(self.path))
        old_umask = os.umask(0o177)
        try:
            self._server = await asyncio.start_unix_server(
                self._on_connection, path=str(self.path), backlog=self._backlog
            )
        finally:
            os.umask(old_umask)
        os.chmod(self.path, 0o600)

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

    async def stop(self, grace: float = 2.0) -> None:
        if self._server is not None:
            self._server.close()
            await asyncio.sleep(0)  # let just-accepted connections start
        if self._tasks:
            _, pending = await asyncio.wait(self._tasks, timeout=grace)
            for task in pending:
                task.cancel()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    async def _on_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        started = time.monotonic()
        deadline = Deadline(started + self._timeout)
        try:
            caller = peer_credentials(writer.get_extra_info("socket"))
            async with asyncio.timeout(self._timeout):
                async with self._slots:
                    frame = await self._serve(reader, caller, deadline, started)
        except TimeoutError:
            ms = int(self._timeout * 1000)
            frame = wire.encode_error("deadline", f"hookd did not decide within its {ms} ms deadline")
            self.stats.error("deadline")
            log.warning("request_deadline", timeout_ms=ms)
        except (FrameError, DialectError) as exc:
            code = exc.code if isinstance(exc, FrameError) else "bad-payload"
            frame = wire.encode_error(code, str(exc))
            self.stats.error(code)
            log.warning("request_rejected", code=code, error=str(exc))
        except asyncio.IncompleteReadError as exc:
            if exc.partial or exc.expected != wire.REQUEST_PREFIX_SIZE:  # not a connect-and-close probe
                self.stats.error("truncated")
            log.warning("request_truncated")
            frame = wire.encode_error("truncated", "truncated frame: the connection closed inside the frame")
        except Exception as exc:  # one bad request must never take the daemon down
            self.stats.error("internal")
            log.exception("request_failed")
            frame = wire.encode_error("internal", f"hookd internal error: {type(exc).__name__}")
        await self._send(writer, frame)

    async def _serve(self, reader: asyncio.StreamReader, caller: Caller, deadline: Deadline, started: float) -> bytes:
        prefix = await reader.readexactly(wire.REQUEST_PREFIX_SIZE)
        self.stats.requests += 1  # a connection that sent nothing (a liveness probe) is not a request
        header_len, payload_len = wire.parse_request_prefix(prefix, self._limits)
        header = wire.parse_header(await reader.readexactly(header_len))
        payload = await reader.readexactly(payload_len)
        request = HookRequest(
            client=header.client,
            event=header.event,
            payload=payload,
            env=header.env,
            cwd=header.cwd,
            caller=Caller(uid=caller.uid, gid=caller.gid, pid=caller.pid, ppid=header.ppid),
            deadline=deadline,
            received_at=started,
        )
        reply = await self._handler(request)
        return wire.encode_reply(reply.stdout, reply.stderr, reply.exit_code)

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, frame: bytes) -> None:
        try:
            writer.write(frame)
            await asyncio.wait_for(writer.drain(), timeout=1.0)
        except (ConnectionError, TimeoutError, OSError):
            pass  # the shim is gone; it has applied its own fail mode
        finally:
            writer.close()
