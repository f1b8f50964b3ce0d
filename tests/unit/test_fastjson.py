"""hookd.fastjson answers exactly as the standard library does: same values, same refusals, same bytes class."""

from __future__ import annotations

import enum
import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookd import fastjson

EDGES = [
    '{"a":1,"a":2}',  # duplicate keys: the last wins
    "[123456789012345678901234567890]",  # orjson would make this a float
    "[-9223372036854775809, 18446744073709551616]",
    "[1e400, -1e400]",  # out of a double's range: inf, as json.loads gives
    "[NaN, Infinity, -Infinity]",
    '["\\ud800", "\\udfff x"]',  # lone surrogates
    '{"k": "caf\\u00e9 \\u2028 é"}',
    "[1.0, -0.0, 1e-7, 5e-324]",
    "[" * 2000 + "]" * 2000,  # deeper than either parser goes
    "",
    "[1,]",
    '{"a": 1} x',
    "\ufeff{}",
]


@pytest.mark.parametrize("text", EDGES)
def test_loads_accepts_refuses_and_parses_as_json_loads(text: str) -> None:
    for given_text in (text, text.encode("utf-8", "surrogatepass")):
        expected, got = outcome(json.loads, given_text), outcome(fastjson.loads, given_text)
        assert same(got, expected), (given_text[:60], got, expected)


def outcome(fn: Any, value: Any) -> Any:
    try:
        return fn(value)
    except RecursionError:
        return "RecursionError"
    except ValueError:  # JSONDecodeError and UnicodeDecodeError both are
        return "ValueError"


def same(a: Any, b: Any) -> bool:
    """Equal, with NaN equal to NaN and ints told from floats."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_loads_of_any_document_is_json_loads(value: Any) -> None:
    text = json.dumps(value, ensure_ascii=False)
    assert same(fastjson.loads(text), json.loads(text))


@given(json_values)
def test_dumps_ascii_is_compact_ascii_json_that_reads_back_the_same(value: Any) -> None:
    out = fastjson.dumps_ascii(value)
    assert isinstance(out, bytes) and out.isascii()
    assert same(json.loads(out), json.loads(json.dumps(value)))


class Colour(enum.StrEnum):
    RED = "red"


def test_dumps_ascii_falls_back_where_orjson_would_differ() -> None:
    stdlib = lambda v: json.dumps(v, separators=(",", ":"), allow_nan=False).encode("ascii")  # noqa: E731
    for value in ({"a": "é"}, {1: "int key"}, {"big": 2**70}, {"c": Colour.RED}, {"t": (1, 2)}, {"n": None}):
        assert fastjson.dumps_ascii(value) == stdlib(value), value
    with pytest.raises(ValueError):
        fastjson.dumps_ascii({"x": math.nan})  # as allow_nan=False: the caller maps it to null
