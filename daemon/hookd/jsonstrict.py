"""Strict JSON for what others send hookd, and JSON out that a strict reader accepts. No I/O.

Python's json reads `NaN`, `Infinity` and `-Infinity` (not JSON) and writes them back, and reads a
number too large for a double (`1e999`) as infinity; a strict consumer downstream (a log collector,
OPA, an agent's JSON.parse) then refuses the whole document.
And its decoder raises RecursionError on deep nesting, which is no ValueError: callers that catch
only ValueError let it escape as a crash. Here both are one ValueError with a one-line message.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from typing import Any

from hookd.errors import StrictJsonError

NON_FINITE = (b"NaN", b"Infinity")  # -Infinity contains Infinity


def _refuse_constant(name: str) -> Any:
    raise StrictJsonError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        shown = text if len(text) <= 24 else text[:21] + "..."
        raise StrictJsonError(f"{shown} is out of range for a JSON number")
    return value


def loads(
    data: bytes | str,
    *,
    parse_int: Callable[[str], Any] | None = None,
    parse_float: Callable[[str], Any] | None = None,
) -> Any:
    """json.loads without NaN/Infinity (nor a number that reads as infinity, unless `parse_float` reads
    numbers its own way); nesting too deep for the decoder is a StrictJsonError."""
    try:
        if parse_int is None and parse_float is None and isinstance(data, str) and not data.startswith("\ufeff"):
            return _STRICT.decode(data)  # json.loads with options would build a decoder for every call
        return json.loads(
            data, parse_int=parse_int, parse_float=parse_float or _finite_float, parse_constant=_refuse_constant
        )
    except RecursionError:
        raise StrictJsonError("nested too deeply") from None


_STRICT = json.JSONDecoder(parse_float=_finite_float, parse_constant=_refuse_constant)


def may_hold_non_finite(data: bytes) -> bool:
    """A cheap first look (a byte search): False means `data` holds no NaN/Infinity token for sure."""
    return any(token in data for token in NON_FINITE)


def check_document(data: bytes, max_depth: int) -> None:
    """Raise StrictJsonError when the JSON text `data` uses NaN or Infinity as a number (not inside a
    string) or nests arrays/objects more than `max_depth` levels. Costs a byte search and a bracket
    count unless a word appears or there are more brackets than levels allowed; then one strict parse.
    Text that is not JSON at all passes: the dialect says so in its own words."""
    words = may_hold_non_finite(data)
    if not words and data.count(b"[") + data.count(b"{") <= max_depth:
        return
    try:
        value = loads(data)
    except StrictJsonError:
        raise
    except (ValueError, UnicodeDecodeError):
        return
    if deeper_than(value, max_depth):
        raise StrictJsonError(f"nested more than {max_depth} levels deep")


def dumps(value: Any, **options: Any) -> str:
    """json.dumps that never writes NaN/Infinity: non-finite numbers become null."""
    return encoder(**options)(value)


def encoder(**options: Any) -> Callable[[Any], str]:
    """`dumps` with these options, built once: for a caller that encodes on every decision (json.dumps with
    options builds an encoder for each call)."""
    strict = json.JSONEncoder(allow_nan=False, **options)

    def encode(value: Any) -> str:
        try:
            return strict.encode(value)
        except ValueError:  # rare: a round trip that reads the non-finite numbers back as null
            return strict.encode(json.loads(json.dumps(value), parse_constant=lambda _name: None))

    return encode


_canonical = encoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True, check_circular=False)


def digest(value: Any) -> str:
    """A short digest of `value`'s canonical JSON: the same for equal values however they were spelled."""
    return hashlib.blake2b(_canonical(value).encode(), digest_size=12).hexdigest()


def deeper_than(value: Any, limit: int) -> bool:
    """True when arrays/objects in `value` nest more than `limit` levels (walked without recursion)."""
    stack = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if level >= limit:
            return True
        stack.extend((child, level + 1) for child in children)
    return False
