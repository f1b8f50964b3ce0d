"""The control socket: an owner-only Unix socket in front of a grpc.aio server, on the daemon's own loop.

`control.sock` (0600, in the 0700 runtime dir) is accepted by hookd's asyncio server, which reads the
caller's SO_PEERCRED, registers it in the `PeerTable` under a fresh name in the runtime dir, connects to
the gRPC server's private socket (`grpc.sock`, 0600, beside it) from a socket bound to that name, and
splices bytes both ways. Every call then passes `AuthInterceptor`, which maps `context.peer()` back to
the caller and applies `authorize` (hookd.control.peers explains why gRPC cannot do this itself).
Besides hookd's services the server carries the standard health service (grpc.health.v1) and
reflection.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from hookd.control.peers import CONTROL_SERVICE, HOOK_SERVICE, PeerTable, authorize, current_caller
from hookd.errors import DaemonError
from hookd.transport.hook_server import peer_credentials
from hookd.v1 import hookd_pb2_grpc

log = structlog.get_logger("hookd.control")
MAX_CONNECTIONS = 128
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

    async def start(self, inherited: socket.socket | None = None) -> None:
        """Start listening on control.sock, or on `inherited` (bound to it by a service manager, whose path
        stays in place at stop). The runtime dir must be prepared and locked (the hook server does both),
        so sockets left in it are stale."""
        self._inherited = inherited is not None
        longest_peer = self.path.with_name(f"peer-{2**64}")  # the names PeerTable binds, one per connection
        if len(os.fsencode(longest_peer)) > 107:
            raise DaemonError(f"runtime dir {self.path.parent} is too long for the control plane's socket names")
        for path in (self.backend_path,) if inherited else (self.path, self.backend_path):
            if len(os.fsencode(path)) > 107:
                raise DaemonError(f"socket path {path} is longer than the 107 bytes a Unix socket allows")
            with contextlib.suppress(FileNotFoundError):
                path.unlink()  # stale
        options = [
            ("grpc.max_receive_message_length", self._max_message_bytes),
            ("grpc.max_send_message_length", self._max_message_bytes),
        ]
        server = grpc.aio.server(interceptors=[AuthInterceptor(self.peers, self.owner_uid)], options=options)
        hookd_pb2_grpc.add_ControlServicer_to_server(self._control, server)
        hookd_pb2_grpc.add_HookServicer_to_server(self._hook, server)
        self._health = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self._health, server)
        for name in ("", CONTROL_SERVICE, HOOK_SERVICE):
            await self._health.set(name, health_pb2.HealthCheckResponse.SERVING)
        services = (CONTROL_SERVICE, HOOK_SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME)
        reflection.enable_server_reflection(services, server)
        old_umask = os.umask(0o177)
        try:
            server.add_insecure_port(f"unix:{self.backend_path}")
            await server.start()
            self._grpc = server
            if inherited is not None:
                self._front = await asyncio.start_unix_server(self._on_connection, sock=inherited, backlog=64)
            else:
                self._front = await asyncio.start_unix_server(self._on_connection, path=str(self.path), backlog=64)
        finally:
            os.umask(old_umask)
        os.chmod(self.backend_path, 0o600)
        if inherited is None:
            os.chmod(self.path, 0o600)

    async def stop(self, grace: float = 2.0) -> None:
        if self._front is not None:
            self._front.close()
        if self._health is not None:
            await self._health.enter_graceful_shutdown()
        if self._grpc is not None:
            await self._grpc.stop(grace)
            self._grpc = None
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=grace)
        for path in (self.backend_path,) if self._inherited else (self.path, self.backend_path):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    async def _on_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        if len(self._tasks) > MAX_CONNECTIONS:
            log.warning("control_connection_refused", reason="too many connections", limit=MAX_CONNECTIONS)
            writer.close()
            return
        try:
            caller = peer_credentials(writer.get_extra_info("socket"))
        except OSError:
            writer.close()
            return
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
