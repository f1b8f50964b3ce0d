"""Reading a payload whose one field repeats byte for byte from request to request, without reading it again.

Gemini CLI calls AfterModel once per streamed chunk, and every call carries the request the response
answers (`llm_request`: the whole conversation, 100 KB and more in a long session) beside the chunk. The
parse step would parse and check the same conversation again for every chunk; this keeps what it made of it.

How one payload is read: the field's value is found by its key and the key after it (`"llm_request":` …
`,"llm_response":`), without parsing. When the same bytes were read before (for the same uid), their parsed
value is taken; otherwise they are checked and parsed on their own (once). The rest of the payload, with the
value replaced by a placeholder string that holds a random nonce of this process, is then checked and parsed
(it is small): only when the placeholder is the top-level value of the field was the value found where the
field is, and the payload is the rest with the value put back. Anything else (the key not found, JSON that
does not parse, the placeholder elsewhere) answers None: the caller reads the payload whole, as any other,
and its errors are the ordinary ones.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from dataclasses import dataclass

from hookd import wire
from hookd.dialects.common import load_payload
from hookd.errors import DialectError, FrameError
from hookd.types import JSON
from hookd.wire import jsonstrict

SLOTS = 64  # values kept, the least recently read forgotten first
MAX_KEPT_BYTES = 64 * 1024 * 1024  # and at most this many bytes of them
_TAIL = 32  # bytes of a value's end that, with its length and the uid, name it in the cache


@dataclass(frozen=True, slots=True)
class _Kept:
    raw: bytes
    value: JSON
    digest: str


class RepeatedField:
    """One field (`name`, followed by `follower` in the payload) of one client event."""

    def __init__(self, name: str, follower: str, slots: int = SLOTS, max_bytes: int = MAX_KEPT_BYTES) -> None:
        self.name = name
        self._key = f'"{name}":'.encode()
        self._follower = f',"{follower}":'.encode()
        self._placeholder = f"hookd-repeated-{secrets.token_hex(16)}"
        self._quoted = f'"{self._placeholder}"'.encode()
        self._slots = slots
        self._max_bytes = max_bytes
        self._kept: OrderedDict[tuple[int, int, bytes], _Kept] = OrderedDict()
        self._kept_bytes = 0
        self.hits = self.misses = 0

    def load(self, uid: int, payload: bytes) -> tuple[dict[str, JSON], str] | None:
        """The payload parsed and the digest of the field's value (jsonstrict.digest); None when it is to be
        read whole."""
        start = payload.find(self._key)
        end = payload.rfind(self._follower)
        if start < 0 or end <= start:
            return None
        start += len(self._key)
        kept = self._value(uid, payload, start, end)
        if kept is None:
            return None
        rest = b"".join((payload[:start], self._quoted, payload[end:]))
        try:
            loaded = load_payload(rest)  # as the dialect reads a payload: whatever it refuses, refused here too
        except DialectError:
            return None
        if _deeper_than_a_payload(rest, loaded):  # the rest of what wire.check_payload refuses (NaN: loads did)
            return None
        if loaded.get(self.name) != self._placeholder:
            return None  # the key found was not the top-level field's
        loaded[self.name] = kept.value
        return loaded, kept.digest

    def raw_of(self, uid: int, digest: str) -> bytes | None:
        """The bytes of a value kept for `uid` whose digest is `digest`; None when none is kept."""
        return next(
            (kept.raw for (owner, _, _), kept in self._kept.items() if owner == uid and kept.digest == digest), None
        )

    def _value(self, uid: int, payload: bytes, start: int, end: int) -> _Kept | None:
        key = (uid, end - start, payload[end - _TAIL : end])
        kept = self._kept.get(key)
        if kept is not None and payload.startswith(kept.raw, start):
            self._kept.move_to_end(key)
            self.hits += 1
            return kept
        raw = payload[start:end]
        try:
            wire.check_payload(raw)  # every check the whole payload gets, and one level deeper:
            jsonstrict.check_document(raw, wire.MAX_PAYLOAD_DEPTH - 1)
            value = load_payload(raw)  # one JSON object (a request always is), read as the dialect reads one
        except (FrameError, DialectError, ValueError):
            return None
        self.misses += 1
        kept = _Kept(raw, value, jsonstrict.digest(value))  # as hookd.enrich.stream names it when not given
        self._keep(key, kept)
        return kept

    def _keep(self, key: tuple[int, int, bytes], kept: _Kept) -> None:
        old = self._kept.pop(key, None)
        if old is not None:
            self._kept_bytes -= len(old.raw)
        self._kept[key] = kept
        self._kept_bytes += len(kept.raw)
        while self._kept and (len(self._kept) > self._slots or self._kept_bytes > self._max_bytes):
            _, dropped = self._kept.popitem(last=False)
            self._kept_bytes -= len(dropped.raw)


def _deeper_than_a_payload(raw: bytes, value: JSON) -> bool:
    """`value`, read from `raw`, nests more than wire.MAX_PAYLOAD_DEPTH levels (a bracket count first: no more
    brackets than levels cannot be deeper)."""
    limit = wire.MAX_PAYLOAD_DEPTH
    return raw.count(b"[") + raw.count(b"{") > limit and jsonstrict.deeper_than(value, limit)
