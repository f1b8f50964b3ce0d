"""The hook server writes each reply in the step that decides it, before anything the decision woke runs
(the decision log's writer is woken by every decision and must never delay the reply)."""

from __future__ import annotations

import asyncio
import json
import shutil
import socket
import tempfile
from pathlib import Path

import uvloop

from hookd import wire
from hookd.transport.hook_server import HookServer
from hookd.types import HookRequest, Reply


def test_the_reply_is_on_the_socket_before_work_the_decision_woke_runs() -> None:
    seen: list[bytes | None] = []

    async def scenario() -> None:
        base = Path(tempfile.mkdtemp(prefix="hkdt", dir="/tmp"))  # short: a socket path fits in 107 bytes
        path = base / "run" / "hook.sock"
        woken = asyncio.Event()
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)

        async def log_writer() -> None:  # what DecisionLog's task does: wait, then run when a decision wakes it
            await woken.wait()
            try:
                seen.append(client.recv(65536, socket.MSG_DONTWAIT))
            except BlockingIOError:
                seen.append(None)  # the reply was not written yet

        async def handler(request: HookRequest) -> Reply:
            woken.set()  # as Daemon.record's sink.put_nowait does
            return Reply(stdout=b'{"decision":"allow"}', stderr=b"", exit_code=0)

        server = HookServer(path, handler, limits=wire.Limits(), request_timeout=5, max_concurrency=8)
        await server.start()
        writer = asyncio.get_running_loop().create_task(log_writer())
        try:
            client.connect(str(path))
            client.sendall(wire.encode_request({"client": "gemini", "event": "BeforeTool"}, json.dumps({}).encode()))
            await asyncio.wait_for(writer, 5)
        finally:
            client.close()
            await server.stop()
            shutil.rmtree(base, ignore_errors=True)

    uvloop.run(scenario())
    assert seen and seen[0] is not None and seen[0].startswith(wire.REPLY_MAGIC), seen
