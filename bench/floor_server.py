"""The transport floor: a minimal uvloop server that reads hookd's request frames and answers a fixed reply.

bench/run.py drives it with the same load generator as the daemon, interleaved request by request in the
same run, so the daemon's latency reads as a ratio over what any Python server on this box pays to wake
up, accept, read a frame and answer. It reads each frame whole (prefix, header, payload), never parses
the JSON, and answers the same allow the daemon gives a plain read.

Usage: floor_server.py SOCKET   (serves until SIGTERM; prints "listening" once it accepts)
"""

from __future__ import annotations

import asyncio
import signal
import struct
import sys
from typing import cast

import uvloop

REQUEST = struct.Struct("!4sBxII")
REPLY = struct.Struct("!4sBBBxII")
ANSWER = b"{}\n"
FIXED_REPLY = REPLY.pack(b"HKDR", 1, 0, 0, len(ANSWER), 0) + ANSWER


class FloorProtocol(asyncio.Protocol):
    def __init__(self) -> None:
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's transports do not subclass asyncio's

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) < REQUEST.size:
            return
        _, _, header_len, payload_len = REQUEST.unpack_from(self.buffer)
        if len(self.buffer) >= REQUEST.size + header_len + payload_len and self.transport is not None:
            self.transport.write(FIXED_REPLY)
            self.transport.close()


async def serve(path: str) -> None:
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    loop.add_signal_handler(signal.SIGTERM, stop.set_result, None)
    server = await loop.create_unix_server(FloorProtocol, path, backlog=1024)
    print("listening", flush=True)
    await stop
    server.close()


if __name__ == "__main__":
    uvloop.run(serve(sys.argv[1]))
