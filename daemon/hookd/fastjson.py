"""JSON on the hot path (owned by the fast path): orjson where its answer is exactly the standard library's.

orjson decodes and encodes several times faster than `json`, but it differs at the edges: it refuses NaN
and Infinity literals, numbers out of a double's range, lone surrogate escapes and nesting beyond 1024
levels, and it turns integers of 20 digits or more into floats. `loads` therefore gives the text to the
standard library whenever orjson refuses it or it holds a run of 19 digits, so what is accepted, what it
parses to and which error is raised stay `json.loads`'s. `dumps_ascii` is compact, pure-ASCII JSON as
`json.dumps(separators=(",", ":"))` writes it; it falls back to the standard library when orjson's output
is not ASCII or orjson cannot encode the value (non-string keys, integers beyond 64 bits).
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

_LONG_DIGITS = re.compile(rb"\d{19}")


def loads(text: str | bytes) -> Any:
    """`json.loads(text)`, faster for the common case."""
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if not _LONG_DIGITS.search(raw):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


def dumps_ascii(value: Any) -> bytes:
    """Compact JSON in ASCII bytes; raises ValueError on NaN or Infinity, as `allow_nan=False` does."""
    try:
        out = orjson.dumps(value, option=orjson.OPT_PASSTHROUGH_SUBCLASS)
    except TypeError:
        return json.dumps(value, separators=(",", ":"), allow_nan=False).encode("ascii")
    if out.isascii() and b"null" not in out:
        return out
    return json.dumps(value, separators=(",", ":"), allow_nan=False).encode("ascii")
