"""Strict JSON for what others send hookd, and JSON out that a strict reader accepts. No I/O.

Python's json reads `NaN`, `Infinity` and `-Infinity` (not JSON) and writes them back, and reads a
number too large for a double (`1e999`) as infinity; a strict consumer downstream (a log collector,
OPA, an agent's JSON.parse) then refuses the whole document.
And its decoder raises RecursionError on deep nesting, which is no ValueError: callers that catch
only ValueError let it escape as a crash. Here both are one ValueError with a one-line message.

A JSON string may also hold a lone surrogate (`"caf\\ud83d"`, an emoji cut in half: valid JSON, but no
Unicode text), and Python's decoder makes it a str that no UTF-8 encoder takes: native code handed one
crashes the process (regorus's `set_input` and `add_data` segfault). `loads` replaces each with U+FFFD,
as a UTF-8 encoder that replaces does (Node's, which every JS agent writes files and runs commands with),
so the text is still decided rather than refused (a refused AfterModel chunk would fail open, unchecked);
`well_formed` does the same for a value built elsewhere (a path read from the file system holds
surrogates for bytes that are not UTF-8) before it reaches native code. An integer beyond what a double
holds is refused like `1e999` (the engine cannot take it).
"""

from __future__ import annotations

import hashlib
import json
import marshal
import math
import re
import sys
from collections.abc import Callable, Iterable
from typing import Any

from hookd.errors import StrictJsonError

NON_FINITE = (b"NaN", b"Infinity")  # -Infinity contains Infinity
REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")
_MAX_INT_DIGITS = len(str(int(sys.float_info.max)))


def _refuse_constant(name: str) -> Any:
    raise StrictJsonError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        shown = text if len(text) <= 24 else text[:21] + "..."
        raise StrictJsonError(f"{shown} is out of range for a JSON number")
    return value


def _bounded_int(text: str) -> int:
    digits = len(text) - text.startswith("-")
    value = int(text) if digits <= _MAX_INT_DIGITS else None
    if value is None or abs(value) > sys.float_info.max:
        shown = text if len(text) <= 24 else text[:21] + "..."
        raise StrictJsonError(f"{shown} is out of range for a JSON number")
    return value


def loads(
    data: bytes | str,
    *,
    parse_int: Callable[[str], Any] | None = None,
    parse_float: Callable[[str], Any] | None = None,
) -> Any:
    """json.loads without NaN/Infinity (nor a number that reads as infinity or an integer beyond a double,
    unless `parse_int`/`parse_float` read numbers their own way); nesting too deep for the decoder is a
    StrictJsonError. Bytes must be UTF-8 (json.loads would also take UTF-16/32, and decode surrogates
    encoded as bytes); every string of the value is well formed (a lone surrogate becomes U+FFFD)."""
    text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data  # a tuple: no union a call
    try:
        if parse_int is None and parse_float is None and not text.startswith("\ufeff"):
            value = _STRICT.decode(text)  # json.loads with options would build a decoder for every call
        else:
            value = json.loads(
                text,
                parse_int=parse_int or _bounded_int,
                parse_float=parse_float or _finite_float,
                parse_constant=_refuse_constant,
            )
    except RecursionError:
        raise StrictJsonError("nested too deeply") from None
    if not _may_hold_surrogates(text):
        return value
    if isinstance(value, str):
        return _SURROGATE.sub(REPLACEMENT, value)
    _replace_surrogates(value)
    return value


_STRICT = json.JSONDecoder(parse_float=_finite_float, parse_int=_bounded_int, parse_constant=_refuse_constant)


def _may_hold_surrogates(text: str) -> bool:
    """False means no string decoded from `text` holds a surrogate, for sure (a substring search: only an
    escape of D800-DFFF makes one, hex digits in either case, or text that holds one already)."""
    return "\\ud" in text or "\\uD" in text or (not text.isascii() and _SURROGATE.search(text) is not None)


def _ill_formed(text: str) -> bool:
    return not text.isascii() and _SURROGATE.search(text) is not None


def _replace_surrogates(value: Any) -> None:
    """Replace the surrogates of every string in the containers of `value`, a value just decoded (its
    containers are its own: changed in place, keys in their order). Walked without recursion."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if any(_ill_formed(key) for key in item):
                pairs = [(_SURROGATE.sub(REPLACEMENT, key), child) for key, child in item.items()]
                item.clear()
                item.update(pairs)
            for key, child in item.items():
                if isinstance(child, str):
                    if _ill_formed(child):
                        item[key] = _SURROGATE.sub(REPLACEMENT, child)
                elif isinstance(child, dict | list):
                    stack.append(child)
        elif isinstance(item, list):
            for index, child in enumerate(item):
                if isinstance(child, str):
                    if _ill_formed(child):
                        item[index] = _SURROGATE.sub(REPLACEMENT, child)
                elif isinstance(child, dict | list):
                    stack.append(child)


def holds_surrogates(value: Any) -> bool:
    """Whether a string anywhere in `value` (dicts, lists, tuples, their keys) holds a surrogate: text no
    UTF-8 encoder takes. On every decision (the engine's input), so first one pass in C: `marshal` writes
    every str of a value it takes as UTF-8 with its surrogates kept (`surrogatepass`: bytes ED A0-BF ..), so
    output without such a pair holds no surrogate (2-4 µs for a decision's input, against 4-9 for the walk).
    Where that pass finds one (a surrogate, or the same bytes in a length or a number) or cannot take the
    value (a subclass, past its nesting limit, out of memory), the walk answers."""
    try:
        encoded = marshal.dumps(value)
    except (ValueError, RecursionError, MemoryError):
        return _walk_holds_surrogates(value)
    return _SURROGATE_UTF8.search(encoded) is not None and _walk_holds_surrogates(value)


_SURROGATE_UTF8 = re.compile(rb"\xed[\xa0-\xbf]")  # U+D800-U+DFFF in UTF-8 with surrogatepass


def _walk_holds_surrogates(value: Any) -> bool:
    """`holds_surrogates` by one walk, without recursion: a string is searched only when it is not ASCII, and
    exact types are tested first (the cheap common case)."""
    if not isinstance(value, _CONTAINERS):
        return isinstance(value, str) and _ill_formed(value)
    search = _SURROGATE.search
    stack = [value]
    pop, push = stack.pop, stack.append
    while stack:
        item = pop()
        if type(item) is dict or isinstance(item, dict):
            for key in item:
                if (type(key) is not str or not key.isascii()) and isinstance(key, str) and _ill_formed(key):
                    return True
            children: Iterable[Any] = item.values()
        else:
            children = item
        for child in children:
            kind = type(child)
            if kind is str:
                if not child.isascii() and search(child) is not None:
                    return True
            elif kind in _SCALARS:
                continue
            elif kind is dict or kind is list or kind is tuple or isinstance(child, _CONTAINERS):
                push(child)
            elif isinstance(child, str) and _ill_formed(child):  # a str subclass
                return True
    return False


_CONTAINERS = (dict, list, tuple)
_SCALARS = frozenset({int, float, bool, type(None)})


def well_formed(value: Any) -> Any:
    """`value` for native code: itself when no string in it holds a surrogate (the common case: one walk),
    else a copy (as JSON) whose strings hold U+FFFD in their place. Raises StrictJsonError when `value` is
    nested too deeply to copy."""
    if not holds_surrogates(value):
        return value
    if isinstance(value, str):
        return _SURROGATE.sub(REPLACEMENT, value)
    try:
        text = json.dumps(value, ensure_ascii=False, check_circular=False)
    except RecursionError:
        raise StrictJsonError("nested too deeply") from None
    return json.loads(_SURROGATE.sub(REPLACEMENT, text))


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
