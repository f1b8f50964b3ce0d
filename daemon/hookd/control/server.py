"""The control socket: an owner-only Unix socket in front of a grpc.aio server, on the daemon's own loop.

`control.sock` (0600, in the 0700 runtime dir) is accepted by hookd's asyncio server, which reads the
caller's SO_PEERCRED, registers it in the `PeerTable` under a fresh name in the runtime dir, connects to
the gRPC server's private socket (`grpc.sock`, 0600, beside it) from a socket bound to that name, and
splices bytes both ways. Every call then passes `AuthInterceptor`, which maps `context.peer()` back to
the caller and applies `authorize` (hookd.control.peers explains why gRPC cannot do this itself).
Besides hookd's services the server carries the standard health service (grpc.health.v1) and
reflection.

The gRPC server (the backend) runs only while it is used: the first connection to control.sock starts it,
and it stops IDLE_STOP_S after the last one ended, grpc.sock and gRPC core's threads going with it (idle,
those threads cost CPU every second: docs/performance.md, "An idle daemon uses no CPU").
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import socket
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from hookd.control.peers import CONTROL_SERVICE, HOOK_SERVICE, PeerTable, authorize, current_caller
from hookd.errors import DaemonError
from hookd.transport.peers import peer_credentials
from hookd.types import Caller
from hookd.v1 import hookd_pb2_grpc

log = structlog.get_logger("hookd.control")
MAX_CONNECTIONS = 128
# Where an admin opens control.sock up (docs/control.md), another uid could hold every connection and lock
# the owner out: each uid but the owner's and root's may hold at most MAX_PER_UID, and all of them together
# leave OWNER_RESERVED connections to the owner and root.
MAX_PER_UID = 16
OWNER_RESERVED = 32
IDLE_STOP_S = 10.0  # the gRPC backend stops this long after its last control connection ended
IDLE_GRACE_S = 1.0  # for that stop (no call is in flight: every connection has ended)
_CHUNK = 1 << 16


class AuthInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Checks the caller of every call (every service, health and reflection included) and makes it
    available to the servicer as `current_caller`."""

    def __init__(self, peers: PeerTable, owner_uid: int) -> None:
        self._peers = peers
        self._owner_uid = owner_uid

    async def intercept_service(self, continuation: Callable[[Any], Awaitable[Any]], handler_call_details: Any) -> Any:
        handler = await continuation(handler_call_details)
        if handler is None:
            return None
        return _guarded(handler, handler_call_details.method, self._admit)

    async def _admit(self, method: str, context: Any) -> Any:
        caller = self._peers.lookup(context.peer())
        if caller is None:
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED, "no verified peer: connect through hookd's control.sock"
            )
            raise AssertionError("unreachable: abort raises")
        refusal = authorize(method, caller, self._owner_uid)
        if refusal is not None:
            log.warning("control_call_refused", method=method, uid=caller.uid, pid=caller.pid)
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, refusal)
        return current_caller.set(caller)


def _guarded(handler: Any, method: str, admit: Callable[[str, Any], Awaitable[Any]]) -> Any:
    """The same handler, with `admit` run before the behaviour (keeping its kind: unary or streaming,
    coroutine or async generator)."""
    for kind, factory in (
        ("unary_unary", grpc.unary_unary_rpc_method_handler),
        ("unary_stream", grpc.unary_stream_rpc_method_handler),
        ("stream_unary", grpc.stream_unary_rpc_method_handler),
        ("stream_stream", grpc.stream_stream_rpc_method_handler),
    ):
        inner = getattr(handler, kind)
        if inner is None:
            continue
        if inspect.isasyncgenfunction(inner):

            async def generator(request: Any, context: Any, inner: Any = inner) -> AsyncIterator[Any]:
                token = await admit(method, context)
                try:
                    async for response in inner(request, context):
                        yield response
                finally:
                    current_caller.reset(token)

            behaviour: Any = generator
        else:

            async def coroutine(request: Any, context: Any, inner: Any = inner) -> Any:
                token = await admit(method, context)
                try:
                    return await inner(request, context)
                finally:
                    current_caller.reset(token)

            behaviour = coroutine
        return factory(
            behaviour,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
    return handler


class ControlServer:
    def __init__(
        self,
        path: Path,
        control: hookd_pb2_grpc.ControlServicer,
        hook: hookd_pb2_grpc.HookServicer,
        *,
        max_message_bytes: int,
        owner_uid: int | None = None,
    ) -> None:
        self.path = path
        self.backend_path = path.with_name("grpc.sock")
        self.peers = PeerTable(path.parent)
        self.owner_uid = os.getuid() if owner_uid is None else owner_uid
        self._control = control
        self._hook = hook
        self._max_message_bytes = max_message_bytes
        self._grpc: Any = None
        self._health: Any = None
        self._front: asyncio.AbstractServer | None = None
        self._inherited = False  # control.sock was bound by a service manager: its path is not ours to remove
        self._tasks: set[asyncio.Task[None]] = set()
        self._by_uid: Counter[int] = Counter()  # front connections held, by the caller's uid
        # The gRPC backend runs only while control.sock has connections (and IDLE_STOP_S after the last):
        # idle, its core threads would cost CPU every second. The lock serialises its starts and stops.
        self._backend_lock = asyncio.Lock()
        self._users = 0  # front connections that hold the backend (or wait for it)
        self._idle_timer: asyncio.TimerHandle | None = None
        self._tasks_idle: set[asyncio.Task[None]] = set()
        self._closing = False
        self.backend_starts = 0

    async def start(self, inherited: socket.socket | None = None) -> None:
        """Start listening on control.sock, or on `inherited` (bound to it by a service manager, whose path
        stays in place at stop). The runtime dir must be prepared and locked (the hook server does both),
        so sockets left in it are stale. The gRPC backend starts with the first connection."""
        self._inherited = inherited is not None
        self._closing = False
        longest_peer = self.path.with_name(f"peer-{2**64}")  # the names PeerTable binds, one per connection
        if len(os.fsencode(longest_peer)) > 107:
            raise DaemonError(f"runtime dir {self.path.parent} is too long for the control plane's socket names")
        for path in (self.backend_path,) if inherited else (self.path, self.backend_path):
            if len(os.fsencode(path)) > 107:
                raise DaemonError(f"socket path {path} is longer than the 107 bytes a Unix socket allows")
            with contextlib.suppress(FileNotFoundError):
                path.unlink()  # stale
        if inherited is not None:
            self._front = await asyncio.start_unix_server(self._on_connection, sock=inherited, backlog=64)
        else:
            old_umask = os.umask(0o177)
            try:
                self._front = await asyncio.start_unix_server(self._on_connection, path=str(self.path), backlog=64)
            finally:
                os.umask(old_umask)
            os.chmod(self.path, 0o600)

    @property
    def backend_running(self) -> bool:
        return self._grpc is not None

    async def stop(self, grace: float = 2.0) -> None:
        self._closing = True  # a connection waiting for the backend is refused, not served by a new one
        if self._front is not None:
            self._front.close()
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
        if self._health is not None:
            await self._health.enter_graceful_shutdown()
        async with self._backend_lock:  # after an idle stop in progress
            await self._stop_backend(grace)
        if self._tasks_idle:
            await asyncio.wait(self._tasks_idle, timeout=grace)
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=grace)
        for path in (self.backend_path,) if self._inherited else (self.path, self.backend_path):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    async def _start_backend(self) -> None:
        """A new grpc.aio server on grpc.sock (0600) with everything it serves; called under the lock."""
        with contextlib.suppress(FileNotFoundError):
            self.backend_path.unlink()  # left by a backend that failed to start
        options = [
            ("grpc.max_receive_message_length", self._max_message_bytes),
            ("grpc.max_send_message_length", self._max_message_bytes),
        ]
        server = grpc.aio.server(interceptors=[AuthInterceptor(self.peers, self.owner_uid)], options=options)
        hookd_pb2_grpc.add_ControlServicer_to_server(self._control, server)
        hookd_pb2_grpc.add_HookServicer_to_server(self._hook, server)
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        services = (CONTROL_SERVICE, HOOK_SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME)
        reflection.enable_server_reflection(services, server)
        try:
            for name in ("", CONTROL_SERVICE, HOOK_SERVICE):
                await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
            # add_insecure_port binds grpc.sock then and there: the umask (process-wide) is narrowed for that
            # call alone, with no await in between for another coroutine to create a file under it.
            old_umask = os.umask(0o177)
            try:
                server.add_insecure_port(f"unix:{self.backend_path}")
            finally:
                os.umask(old_umask)
            os.chmod(self.backend_path, 0o600)
            await server.start()
        except BaseException:
            with contextlib.suppress(Exception):
                await server.stop(None)
            with contextlib.suppress(FileNotFoundError):
                self.backend_path.unlink()
            raise
        self._grpc, self._health = server, health_servicer
        self.backend_starts += 1
        log.info("control_backend_started", socket=str(self.backend_path))

    async def _stop_backend(self, grace: float | None) -> None:
        """Stop the grpc.aio server, if one runs (its threads end with it); called under the lock."""
        server, self._grpc, self._health = self._grpc, None, None
        if server is None:
            return
        try:
            await server.stop(grace)
        finally:
            with contextlib.suppress(FileNotFoundError):
                self.backend_path.unlink()
        log.info("control_backend_stopped", socket=str(self.backend_path))

    async def _acquire_backend(self) -> None:
        """Count a connection in and make sure the backend serves (starting it, or a new one after an idle
        stop in progress). Raises what starting it raised, with the connection counted out again."""
        self._users += 1
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
        try:
            async with self._backend_lock:
                if self._closing:
                    raise DaemonError("the control server is stopping")
                if self._grpc is None:
                    await self._start_backend()
        except BaseException:
            self._release_backend()
            raise

    def _release_backend(self) -> None:
        self._users -= 1
        if self._users == 0 and not self._closing and self._idle_timer is None:
            loop = asyncio.get_running_loop()
            self._idle_timer = loop.call_later(IDLE_STOP_S, self._on_idle)

    def _on_idle(self) -> None:
        self._idle_timer = None
        task = asyncio.get_running_loop().create_task(self._stop_when_idle())
        self._tasks_idle.add(task)
        task.add_done_callback(self._tasks_idle.discard)

    async def _stop_when_idle(self) -> None:
        async with self._backend_lock:
            if self._users != 0 or self._closing:  # a connection came since the timer fired
                return
            try:
                await self._stop_backend(IDLE_GRACE_S)
            except Exception as exc:  # the next connection starts a new one
                log.error("control_backend_stop_failed", error=str(exc))

    async def _on_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        try:
            caller = peer_credentials(writer.get_extra_info("socket"))
        except OSError:
            writer.close()
            return
        if refusal := self._over_limit(caller.uid):
            log.warning("control_connection_refused", reason=refusal, uid=caller.uid)
            writer.close()
            return
        self._by_uid[caller.uid] += 1
        try:
            await self._serve(caller, reader, writer)
        finally:
            self._by_uid[caller.uid] -= 1
            if not self._by_uid[caller.uid]:
                del self._by_uid[caller.uid]

    def _over_limit(self, uid: int) -> str:
        """Why a connection of `uid` is refused now, or "" (the owner and root: only the total limit)."""
        held = sum(self._by_uid.values())
        if held >= MAX_CONNECTIONS:
            return f"too many connections (limit {MAX_CONNECTIONS})"
        if uid in (self.owner_uid, 0):
            return ""
        if self._by_uid[uid] >= MAX_PER_UID:
            return f"too many connections of uid {uid} (limit {MAX_PER_UID} a uid)"
        others = held - self._by_uid[self.owner_uid] - (self._by_uid[0] if self.owner_uid != 0 else 0)
        if others >= MAX_CONNECTIONS - OWNER_RESERVED:
            return f"too many connections of other uids (the last {OWNER_RESERVED} are the owner's)"
        return ""

    async def _serve(self, caller: Caller, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._acquire_backend()
        except asyncio.CancelledError:
            writer.close()
            raise
        except Exception as exc:  # this connection is refused; the next one tries again
            writer.close()
            if not self._closing:
                log.error("control_backend_unreachable", error=str(exc) or type(exc).__name__)
            return
        try:
            await self._splice(caller, reader, writer)
        finally:
            self._release_backend()

    async def _splice(self, caller: Caller, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        name = self.peers.add(caller)
        backend = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)  # left by a daemon that died: the dir is ours alone
            backend.bind(name)
            backend.setblocking(False)
            try:
                await asyncio.get_running_loop().sock_connect(backend, str(self.backend_path))
            finally:
                os.unlink(name)  # the kernel keeps the bound name for the peer address
            back_reader, back_writer = await asyncio.open_unix_connection(sock=backend)
        except OSError as exc:
            self.peers.remove(name)
            backend.close()
            writer.close()
            log.error("control_backend_unreachable", error=str(exc))
            return
        try:
            await asyncio.gather(_pump(reader, back_writer), _pump(back_reader, writer))
        finally:
            # Forget the name before its socket closes, so that it never names anyone else.
            self.peers.remove(name)
            for end in (back_writer, writer):
                end.close()


async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy until EOF, then half-close the other side; any error ends both directions."""
    try:
        while data := await reader.read(_CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof() and not writer.transport.is_closing():
            writer.write_eof()
    except (ConnectionError, OSError, RuntimeError):  # RuntimeError: the other end closed the transport first
        writer.close()
