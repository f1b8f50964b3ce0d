"""The HTTP hook endpoint: Claude Code's `type: "http"` hooks POST the hook input here, no process per call.

A small HTTP/1.1 server (asyncio streams, keep-alive, Content-Length bodies only) on a loopback
address only. One route: `POST /v1/hooks/<client>`; the event is the body's `hook_event_name`, which
the dialect reads (the body is parsed once). Every request must carry `Authorization: Bearer <token>`,
the token from a 0600 file in the state dir (created on first use), compared in constant time;
without it the answer is 401 and nothing is decided. Route, method, token and a loopback `Host`
(against DNS rebinding) are checked from the request head, before a byte of the body is read; the
body's length is checked against the limit before it is read. Open connections are capped in all
and per peer uid (read from the kernel), so another local user cannot hold them all. A decision is
answered 200 with the reply's stdout as the body (empty = no opinion), exactly what the shim would
print. Everything else is a non-2xx status: Claude Code lets the action through on those unless the
hook has `onFailure: "block"`, which `hookd install` sets on the events that fail closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import os
import secrets
import socket
import struct
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import structlog

from hookd.config import is_loopback
from hookd.errors import DaemonError, DialectError, HttpError, Unavailable, one_line
from hookd.transport.hook_server import ServerStats
from hookd.types import Caller, Deadline, HookRequest, Reply, settled

log = structlog.get_logger("hookd.http")
LOG_EVERY_S = 5.0  # a refusal that anyone on the machine can cause is logged at most this often


class ThrottledWarnings:
    """A warning any local process can cause at will (a refused connection, a rejected request) is logged at
    once, then at most once every LOG_EVERY_S for the same event, with how many were left out since
    (`also`): a flood of them measured 1,068 lines a second, which fills the disk and buries the rest."""

    def __init__(self, every: float = LOG_EVERY_S) -> None:
        self._every = every
        self._logged: dict[str, float] = {}
        self._held: dict[str, int] = {}

    def warning(self, event: str, **fields: object) -> None:
        now = time.monotonic()
        if now - self._logged.get(event, now - self._every) < self._every:
            self._held[event] = self._held.get(event, 0) + 1
            return
        self._logged[event] = now
        also = self._held.pop(event, 0)
        log.warning(event, **fields, **({"also": also, "in_s": self._every} if also else {}))

    def flush(self) -> None:
        """The counts still held (at stop)."""
        for event, also in self._held.items():
            log.warning(event, also=also, in_s=self._every)
        self._held.clear()


Handler = Callable[[HookRequest], "Reply | Awaitable[Reply]"]  # hookd.decide.Decider.handle
ROUTE = "/v1/hooks/"
MAX_HEAD_BYTES = 16 * 1024
IDLE_TIMEOUT = 30.0  # a kept-alive connection with no request for this long is closed
_REASONS = {
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    411: "Length Required",
    413: "Content Too Large",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


def load_token(path: Path) -> str:
    """The bearer token in `path`, created (32 random bytes, urlsafe, mode 0600) when missing."""
    try:
        token = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        token = secrets.token_urlsafe(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(token + "\n")
        return token
    except (OSError, UnicodeDecodeError) as exc:
        raise DaemonError(f"cannot read the HTTP hook token {path}: {exc}") from None
    if len(token) < 16:
        raise DaemonError(f"the HTTP hook token in {path} is shorter than 16 characters")
    if path.stat().st_mode & 0o077:
        raise DaemonError(f"the HTTP hook token {path} is readable by others: chmod 600 it")
    return token


class HttpHookServer:
    def __init__(
        self,
        host: str,
        port: int,
        token: str,
        handler: Handler,
        *,
        max_payload_bytes: int,
        request_timeout: float,
        max_concurrency: int,
        max_connections: int = 256,
        max_connections_per_peer: int = 32,
        stats: ServerStats | None = None,
    ) -> None:
        if not is_loopback(host):
            raise DaemonError(f"the HTTP hook endpoint binds to loopback addresses only, not {host!r}")
        self.host = "127.0.0.1" if host == "localhost" else host
        self.port = port
        self.stats = stats or ServerStats()
        self._token = f"Bearer {token}".encode()
        self._handler = handler
        self._max_payload = max_payload_bytes
        self._timeout = request_timeout
        self._slots = asyncio.Semaphore(max_concurrency)
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._max_connections = max_connections
        self._max_per_peer = max_connections_per_peer
        self._per_peer: dict[int | None, int] = {}  # open connections by peer uid (None: not known)
        self._warnings = ThrottledWarnings()

    @property
    def address(self) -> tuple[str, int]:
        """Where it listens (the real port when 0 was asked for)."""
        assert self._server is not None, "not started"
        host, port = self._server.sockets[0].getsockname()[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        host, port = self.address
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    async def start(self) -> None:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        try:
            self._server = await asyncio.start_server(
                self._connection, self.host, self.port, family=family, reuse_address=True, limit=MAX_HEAD_BYTES
            )
        except OSError as exc:
            raise DaemonError(f"cannot listen on http://{self.host}:{self.port}: {exc.strerror or exc}") from None

    async def stop(self, grace: float = 2.0) -> None:
        self._warnings.flush()
        if self._server is not None:
            self._server.close()
        if self._connections:
            _, pending = await asyncio.wait(self._connections, timeout=grace)
            for task in pending:
                task.cancel()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        uid = peer_uid(writer.get_extra_info("peername"), writer.get_extra_info("sockname"))
        caller = Caller(uid=os.getuid() if uid is None else uid, gid=os.getgid(), pid=0)
        admitted = self._admit(uid)
        try:
            if admitted:
                while await self._one_request(reader, writer, caller):
                    pass
            else:
                await self._send(writer, 503, b"too many connections", keep_alive=False)
        except (ConnectionError, asyncio.IncompleteReadError, TimeoutError):
            pass
        finally:
            if admitted:
                self._per_peer[uid] -= 1
            self._connections.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    def _admit(self, uid: int | None) -> bool:
        """Count a new connection in, or refuse it: over the total cap, or over its peer's share."""
        total = sum(self._per_peer.values())
        if total >= self._max_connections or self._per_peer.get(uid, 0) >= self._max_per_peer:
            self.stats.error("http-503")
            self._warnings.warning("http_connection_refused", uid=uid, open=total, peer_open=self._per_peer.get(uid, 0))
            return False
        self._per_peer[uid] = self._per_peer.get(uid, 0) + 1
        return True

    async def _one_request(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, caller: Caller) -> bool:
        """Serve one request; False when the connection is to be closed."""
        try:
            async with asyncio.timeout(IDLE_TIMEOUT):
                head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.LimitOverrunError:
            await self._send(writer, 431, b"request head too large", keep_alive=False)
            return False
        except asyncio.IncompleteReadError:
            return False
        started = time.monotonic()
        try:
            method, path, headers = _parse_head(head)
            keep_alive = headers.get("connection", "").lower() != "close"
            self._check_head(method, path, headers)  # before a byte of the body is read
            body = await self._read_body(reader, headers, started)
            status, out = await self._respond(path, body, started, caller)
        except HttpError as exc:
            self.stats.error(f"http-{exc.status}")
            if exc.status != 401:
                self._warnings.warning("http_request_rejected", status=exc.status, error=str(exc))
            await self._send(writer, exc.status, str(exc).encode(), keep_alive=False)
            return False
        await self._send(writer, status, out, keep_alive=keep_alive)
        return keep_alive

    async def _read_body(self, reader: asyncio.StreamReader, headers: dict[str, str], started: float) -> bytes:
        if "transfer-encoding" in headers:
            raise HttpError(411, "send the body with a Content-Length")
        raw = headers.get("content-length", "0")
        if not raw.isdigit():
            raise HttpError(400, "bad Content-Length")
        length = int(raw)
        if length > self._max_payload:
            raise HttpError(413, f"body of {length} bytes exceeds the limit of {self._max_payload}")
        try:
            async with asyncio.timeout_at(_loop_time(started + self._timeout)):
                return await reader.readexactly(length)
        except TimeoutError:
            raise HttpError(504, "the request body did not arrive within the deadline") from None

    def _check_head(self, method: str, path: str, headers: dict[str, str]) -> None:
        if not path.startswith(ROUTE):
            raise HttpError(404, f"no such endpoint {path!r}; hooks are POSTed to {ROUTE}<client>")
        if method != "POST":
            raise HttpError(405, "hooks are POSTed")
        if not hmac.compare_digest(headers.get("authorization", "").encode(), self._token):
            raise HttpError(401, "missing or wrong bearer token")
        if not _loopback_host(headers.get("host", "")):
            raise HttpError(403, "the Host header must name a loopback address (127.0.0.1, [::1] or localhost)")

    async def _respond(self, path: str, body: bytes, started: float, caller: Caller) -> tuple[int, bytes]:
        self.stats.request()
        request = HookRequest(
            client=path[len(ROUTE) :].split("?", 1)[0],
            event="",  # the dialect reads it from the payload's hook_event_name
            payload=body,
            env={},
            cwd="",
            caller=caller,
            deadline=Deadline(started + self._timeout),
            received_at=started,
            via="http",
        )
        try:
            async with self._slots, asyncio.timeout_at(_loop_time(started + self._timeout)):
                reply = await settled(self._handler(request))
        except DialectError as exc:
            raise HttpError(400, one_line(str(exc))) from None
        except Unavailable as exc:  # the lane could not decide it, or a worker cannot log: the fail mode
            raise HttpError(503, one_line(str(exc))) from None
        except TimeoutError:
            raise HttpError(504, f"hookd did not decide within its {int(self._timeout * 1000)} ms deadline") from None
        except Exception as exc:  # one bad request must never take the daemon down
            log.exception("http_request_failed")
            raise HttpError(500, f"hookd internal error: {type(exc).__name__}") from None
        return 200, reply.stdout

    @staticmethod
    async def _send(writer: asyncio.StreamWriter, status: int, body: bytes, *, keep_alive: bool) -> None:
        kind = "application/json" if status == 200 else "text/plain; charset=utf-8"
        lines = [
            f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}",
            f"Content-Type: {kind}",
            f"Content-Length: {len(body)}",
            "Connection: keep-alive" if keep_alive else "Connection: close",
        ]
        if status == 401:
            lines.append('WWW-Authenticate: Bearer realm="hookd"')
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        await writer.drain()


def peer_uid(peer: object, local: object) -> int | None:
    """The uid owning the client end of a loopback TCP connection, asked of the kernel over netlink
    (sock_diag, one exact lookup: there is no SO_PEERCRED over TCP, and /proc/net/tcp costs
    milliseconds on a busy box); None when it cannot be told. No pid: that would mean scanning every
    process's file descriptors."""
    if not (isinstance(peer, tuple) and isinstance(local, tuple)):
        return None
    try:
        family = socket.AF_INET6 if ":" in peer[0] else socket.AF_INET
        sockid = (
            struct.pack("!HH", peer[1], local[1])  # the client's socket: its port is the source
            + _address(family, peer[0])
            + _address(family, local[0])
            + struct.pack("=III", 0, _NO_COOKIE, _NO_COOKIE)
        )
        request = struct.pack("=BBBBI", family, socket.IPPROTO_TCP, 0, 0, 0xFFFFFFFF) + sockid
        header = struct.pack("=IHHII", 16 + len(request), _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST, 1, 0)
        with socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, _NETLINK_SOCK_DIAG) as link:
            link.settimeout(0.5)
            link.sendto(header + request, (0, 0))
            reply = link.recv(8192)
    except (OSError, ValueError, struct.error):
        return None
    if len(reply) < 16 + 72 or struct.unpack_from("=H", reply, 4)[0] != _SOCK_DIAG_BY_FAMILY:
        return None  # NLMSG_ERROR: no such socket (it closed) or no sock_diag
    uid: int = struct.unpack_from("=I", reply, 16 + 64)[0]
    return uid


_NETLINK_SOCK_DIAG = 4
_SOCK_DIAG_BY_FAMILY = 20
_NLM_F_REQUEST = 1
_NO_COOKIE = 0xFFFFFFFF  # INET_DIAG_NOCOOKIE: match the socket by its addresses alone


def _address(family: int, host: str) -> bytes:
    return socket.inet_pton(family, host).ljust(16, b"\0")


def _loop_time(monotonic_at: float) -> float:
    """A time.monotonic() instant on the event loop's clock (the same clock, but kept explicit)."""
    loop = asyncio.get_running_loop()
    return loop.time() + (monotonic_at - time.monotonic())


def _loopback_host(host: str) -> bool:
    """A Host header that names this machine: a page on a rebound DNS name sends that name instead."""
    if host.startswith("["):
        name, _, port = host[1:].partition("]")
        port = port.removeprefix(":")
    else:
        name, _, port = host.partition(":")
    return bool(name) and (not port or port.isdigit()) and is_loopback(name)


def _parse_head(head: bytes) -> tuple[str, str, dict[str, str]]:
    try:
        text = head.decode("latin-1")
        request_line, *header_lines = text[:-4].split("\r\n")
        method, path, version = request_line.split(" ")
    except ValueError:
        raise HttpError(400, "malformed request line") from None
    if not version.startswith("HTTP/1."):
        raise HttpError(400, f"unsupported protocol {version!r}")
    headers: dict[str, str] = {}
    for line in header_lines:
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise HttpError(400, "malformed header line")
        headers[name.lower()] = value.strip()
    return method, path, headers
