"""Length-prefixed JSON frames between the daemon and a worker: a 4-byte big-endian length, then UTF-8 JSON."""

from __future__ import annotations

import json
import os
import struct
from collections.abc import Mapping
from typing import Any

from hookd.errors import SandboxFrameError

HEADER = struct.Struct(">I")
MAX_FRAME = 64 * 1024 * 1024


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def encode(message: Mapping[str, Any]) -> bytes:
    body = json.dumps(message, separators=(",", ":"), default=_plain).encode()
    if len(body) > MAX_FRAME:
        raise SandboxFrameError(f"frame of {len(body)} bytes is over the {MAX_FRAME} byte limit")
    return HEADER.pack(len(body)) + body


def decode_length(header: bytes) -> int:
    length: int = HEADER.unpack(header)[0]
    if length > MAX_FRAME:
        raise SandboxFrameError(f"frame of {length} bytes is over the {MAX_FRAME} byte limit")
    return length


def read_exactly(fd: int, size: int) -> bytes | None:
    """Blocking read of exactly `size` bytes; None at end of file before the first byte."""
    chunks, have = [], 0
    while have < size:
        chunk = os.read(fd, size - have)
        if not chunk:
            if have == 0:
                return None
            raise SandboxFrameError("the channel closed in the middle of a frame")
        chunks.append(chunk)
        have += len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> dict[str, Any] | None:
    header = read_exactly(fd, HEADER.size)
    if header is None:
        return None
    body = read_exactly(fd, decode_length(header))
    if body is None:
        raise SandboxFrameError("the channel closed in the middle of a frame")
    value = json.loads(body)
    if not isinstance(value, dict):
        raise SandboxFrameError("a frame must hold a JSON object")
    return value


def write_frame(fd: int, message: Mapping[str, Any]) -> None:
    data = memoryview(encode(message))
    while data:
        data = data[os.write(fd, data) :]
