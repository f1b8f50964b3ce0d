"""The hook-socket wire protocol, version 1 (docs/protocol.md): framing only, no I/O.

Request:  "HKDQ" | version u8 | pad u8 | header_len u32 | payload_len u32 | header JSON | payload
Reply:    "HKDR" | version u8 | status u8 | exit_code u8 | pad u8 | stdout_len u32 | stderr_len u32
          | stdout | stderr
All integers are big-endian. On status ERROR the stdout bytes are a one-line UTF-8 message and the
stderr bytes an error code; the shim applies its fail mode.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from hookd.errors import FrameError
from hookd.wire import jsonstrict

VERSION = 1
REQUEST_MAGIC = b"HKDQ"
REPLY_MAGIC = b"HKDR"
_REQUEST_PREFIX = struct.Struct("!4sBxII")
_REPLY_PREFIX = struct.Struct("!4sBBBxII")
REQUEST_PREFIX_SIZE = _REQUEST_PREFIX.size
REPLY_PREFIX_SIZE = _REPLY_PREFIX.size
REPLY_STATUS_OFFSET = 5  # the status byte, after the magic and the version
MAX_ENV_ENTRIES = 64
# Beside the hook socket: the stream lane's, to which the shims send their streamed chunks (docs/protocol.md)
STREAM_SOCKET = "stream.sock"
MAX_PAYLOAD_DEPTH = 100  # arrays/objects; the embedded engine refuses input past 128


class Status(IntEnum):
    OK = 0
    ERROR = 1


@dataclass(frozen=True, slots=True)
class Limits:
    max_header_bytes: int = 64 * 1024
    max_payload_bytes: int = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Forwarded:
    """Who sent a request the daemon (or a worker) forwarded to the lane, and its clock: monotonic seconds,
    one clock for every process of the machine. Only the lane's socket takes a header that has it."""

    uid: int
    gid: int
    pid: int
    received_at: float
    deadline: float
    via: str


@dataclass(frozen=True, slots=True)
class RequestHeader:
    client: str
    event: str
    cwd: str
    ppid: int
    env: Mapping[str, str]
    forwarded: Forwarded | None = None


def parse_request_prefix(prefix: bytes, limits: Limits) -> tuple[int, int]:
    """Check the fixed prefix; return (header_len, payload_len)."""
    if len(prefix) != REQUEST_PREFIX_SIZE:
        raise FrameError("truncated", "truncated frame: the connection closed inside the frame prefix")
    magic, version, header_len, payload_len = _REQUEST_PREFIX.unpack(prefix)
    if magic != REQUEST_MAGIC:
        raise FrameError("bad-magic", "not a hookd request frame (bad magic)")
    if version != VERSION:
        raise FrameError("bad-version", f"unsupported protocol version {version}; this daemon speaks {VERSION}")
    if header_len > limits.max_header_bytes:
        raise FrameError(
            "header-too-large", f"header of {header_len} bytes exceeds the limit of {limits.max_header_bytes}"
        )
    if payload_len > limits.max_payload_bytes:
        raise FrameError(
            "payload-too-large",
            f"payload of {payload_len} bytes exceeds the limit of {limits.max_payload_bytes}",
        )
    return header_len, payload_len


def parse_header(raw: bytes) -> RequestHeader:
    try:
        doc = jsonstrict.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        raise FrameError("bad-header", f"frame header is not valid JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise FrameError("bad-header", "frame header must be a JSON object")
    client, event, cwd = doc.get("client"), doc.get("event"), doc.get("cwd", "")
    ppid, env = doc.get("ppid", 0), doc.get("env", {})
    if not isinstance(client, str) or not client:
        raise FrameError("bad-header", "frame header: 'client' must be a non-empty string")
    if not isinstance(event, str) or not (event or "forwarded" in doc):  # an HTTP hook's event is in its payload
        raise FrameError("bad-header", "frame header: 'event' must be a non-empty string")
    if not isinstance(cwd, str) or not isinstance(ppid, int) or isinstance(ppid, bool):
        raise FrameError("bad-header", "frame header: 'cwd' must be a string and 'ppid' an integer")
    if (
        not isinstance(env, dict)
        or len(env) > MAX_ENV_ENTRIES
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())
    ):
        raise FrameError("bad-header", f"frame header: 'env' must map at most {MAX_ENV_ENTRIES} strings to strings")
    forwarded = _forwarded(doc["forwarded"]) if "forwarded" in doc else None
    return RequestHeader(client=client, event=event, cwd=cwd, ppid=ppid, env=env, forwarded=forwarded)


def _forwarded(doc: object) -> Forwarded:
    ints = ("uid", "gid", "pid")
    if (
        not isinstance(doc, dict)
        or not all(isinstance(doc.get(k), int) and not isinstance(doc.get(k), bool) for k in ints)
        or not all(isinstance(doc.get(k), float) for k in ("received_at", "deadline"))
        or not isinstance(doc.get("via"), str)
    ):
        raise FrameError("bad-header", "frame header: 'forwarded' must give uid, gid, pid, received_at, deadline, via")
    return Forwarded(doc["uid"], doc["gid"], doc["pid"], doc["received_at"], doc["deadline"], doc["via"])


def check_payload(payload: bytes) -> None:
    """Refuse a payload that uses NaN or Infinity as a number (not JSON: it would reach the decision log
    and the shipped batch, which strict readers refuse whole) or nests more than MAX_PAYLOAD_DEPTH
    levels (no hook input does; the recursive steps after the parse, the decision log's masking among
    them, would fail on it). Costs a byte search and count unless one of those may be there (the
    dialect parses the payload itself)."""
    try:
        jsonstrict.check_document(payload, MAX_PAYLOAD_DEPTH)
    except ValueError as exc:
        raise FrameError("bad-payload", f"hook payload is not valid JSON: {exc}") from None


def encode_request(header: Mapping[str, Any], payload: bytes) -> bytes:
    return request_head(header, len(payload)) + payload


def request_head(header: Mapping[str, Any], payload_len: int) -> bytes:
    """A request frame up to its payload (to send a large payload after it without copying it)."""
    head = json.dumps(header, separators=(",", ":")).encode()
    return _REQUEST_PREFIX.pack(REQUEST_MAGIC, VERSION, len(head), payload_len) + head


def encode_reply(stdout: bytes, stderr: bytes = b"", exit_code: int = 0) -> bytes:
    return _REPLY_PREFIX.pack(REPLY_MAGIC, VERSION, Status.OK, exit_code, len(stdout), len(stderr)) + stdout + stderr


def encode_error(code: str, message: str) -> bytes:
    """An ERROR reply. The message is made one line here, for every error: it can quote the sender's
    own text (an event name, a JSON error), and the shims put it into a one-line reason."""
    text, tag = " ".join(message.split()).encode("utf-8", "replace"), code.encode()
    return _REPLY_PREFIX.pack(REPLY_MAGIC, VERSION, Status.ERROR, 0, len(text), len(tag)) + text + tag


@dataclass(frozen=True, slots=True)
class DecodedReply:
    status: Status
    exit_code: int
    stdout: bytes
    stderr: bytes


def decode_reply(frame: bytes) -> DecodedReply:
    """Decode a whole reply (used by tests, the bench and `hookd` clients; the shims have their own)."""
    if len(frame) < REPLY_PREFIX_SIZE:
        raise FrameError("truncated", "truncated reply")
    magic, version, status, exit_code, out_len, err_len = _REPLY_PREFIX.unpack_from(frame)
    if magic != REPLY_MAGIC or version != VERSION or status not in (0, 1):
        raise FrameError("bad-reply", "not a hookd reply frame")
    if len(frame) != REPLY_PREFIX_SIZE + out_len + err_len:
        raise FrameError("truncated", "reply length does not match its prefix")
    body = frame[REPLY_PREFIX_SIZE:]
    return DecodedReply(Status(status), exit_code, body[:out_len], body[out_len:])
