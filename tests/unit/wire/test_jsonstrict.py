"""hookd.wire.jsonstrict: what others send hookd is read strictly, and what hookd writes a strict reader accepts."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.errors import StrictJsonError
from hookd.wire import jsonstrict


@pytest.mark.parametrize("text", ["1e999", "-1e999", "[2E+308]", '{"a":{"b":' + "9" * 400 + ".0}}"])
def test_a_number_too_large_for_a_double_is_refused_not_read_as_infinity(text: str) -> None:
    with pytest.raises(StrictJsonError, match="is out of range for a JSON number"):
        jsonstrict.loads(text)


@pytest.mark.parametrize("text", ["1e308", "-1.7976931348623157e308", "1e-999", "12345678901234567890123"])
def test_large_small_and_integer_numbers_are_read(text: str) -> None:
    assert math.isfinite(jsonstrict.loads(text))


def test_a_caller_that_reads_numbers_its_own_way_keeps_them() -> None:
    assert jsonstrict.loads("1e999", parse_float=Decimal) == Decimal("1e999")


def test_dumps_writes_non_finite_numbers_as_null() -> None:
    assert jsonstrict.dumps({"a": [math.inf, -math.inf, math.nan, 1.5]}) == '{"a": [null, null, null, 1.5]}'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"caf\\ud83d"', "caf\ufffd"),  # an emoji cut in half
        ('"\\udc00x"', "\ufffdx"),  # a low surrogate alone
        ('"\\uD83D\\uDE00"', "\U0001f600"),  # a pair is one character, kept
        ('"\\ude00\\ud83d"', "\ufffd\ufffd"),  # a pair the wrong way round is two lone ones
        ('"\\\\ud83d"', "\\ud83d"),  # an escaped backslash, not an escape
    ],
)
def test_a_lone_surrogate_escape_becomes_the_replacement_character(text: str, expected: str) -> None:
    assert jsonstrict.loads(text) == expected
    assert jsonstrict.loads(text.encode()) == expected


def test_surrogates_are_replaced_in_keys_and_at_any_depth_keeping_the_key_order() -> None:
    doc = jsonstrict.loads('{"a": 1, "k\\ud800": [{"x": ["\\udfff", 2]}], "z": 3}')
    assert list(doc) == ["a", "k\ufffd", "z"]
    assert doc["k\ufffd"] == [{"x": ["\ufffd", 2]}]
    assert not jsonstrict.holds_surrogates(doc)


def test_bytes_must_be_utf8_so_an_encoded_surrogate_is_refused() -> None:
    with pytest.raises(UnicodeDecodeError):
        jsonstrict.loads(b'"\xed\xa0\xbd"')  # json.loads would decode it as a surrogate (surrogatepass)
    with pytest.raises(UnicodeDecodeError):
        jsonstrict.loads('"x"'.encode("utf-16"))  # json.loads would detect UTF-16


@pytest.mark.parametrize("text", ["1" + "0" * 400, "-" + "9" * 309, "[" + "9" * 5000 + "]"])
def test_an_integer_beyond_a_double_is_refused_like_1e999(text: str) -> None:
    with pytest.raises(ValueError, match="out of range"):
        jsonstrict.loads(text)


def test_large_integers_a_double_holds_are_read_exactly() -> None:
    assert jsonstrict.loads(str(2**64)) == 2**64 and jsonstrict.loads("-0") == 0


def test_well_formed_leaves_a_clean_value_itself_and_copies_one_with_surrogates() -> None:
    clean = {"a": ["é", ("x", "\U0001f600")], "n": 2**63}
    assert jsonstrict.well_formed(clean) is clean
    dirty = {"path": "/tmp/\udcff/a", "t": ("ok", "\ud83d"), "k\udc80": 1}
    fixed = jsonstrict.well_formed(dirty)
    assert fixed == {"path": "/tmp/\ufffd/a", "t": ["ok", "\ufffd"], "k\ufffd": 1}
    assert dirty["path"] == "/tmp/\udcff/a"  # the caller's value is not changed
    assert jsonstrict.well_formed("a\udcff") == "a\ufffd"


class Text(str):
    pass


@pytest.mark.parametrize(
    "value",
    [{"k": Text("\ud800")}, [1, 2.5, None, True, ("x", ["\udcff"])], {"a\udc80": 1}, "\ud83d", (Text("ok"), "\ude00")],
)
def test_a_surrogate_is_found_anywhere(value: object) -> None:
    assert jsonstrict.holds_surrogates(value)


@pytest.mark.parametrize("value", [{"k": Text("é")}, [1, 2.5, None, True, ("x", ["\U0001f600"])], 5, None, "ok"])
def test_clean_values_hold_none(value: object) -> None:
    assert not jsonstrict.holds_surrogates(value)


class Doc(dict[str, object]):
    pass


def _nested(depth: int, leaf: object) -> object:
    value: object = leaf
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("value", "holds"),
    [
        ({"b": b"\xed\xa0\x80", "n": 0xA0ED, "f": 1.5}, False),  # the bytes of a surrogate outside any str
        ({"k": [b"\xed\xbf", "\udfff"]}, True),
        (Doc(path="/tmp/\udcff"), True),  # a subclass: marshal refuses it, the walk answers
        (Doc(path="/tmp/x"), False),
        (_nested(3000, "\ud800"), True),  # past marshal's nesting limit
        (_nested(3000, "ok"), False),
        ({"n": 2**200, "x": float("nan"), "t": (None, True)}, False),
        ({"repeated": ["é\ud800"] * 3}, True),  # a str marshal writes once and then refers to
    ],
)
def test_the_quick_pass_answers_as_the_walk(value: object, holds: bool) -> None:
    assert jsonstrict.holds_surrogates(value) is holds
    assert jsonstrict._walk_holds_surrogates(value) is holds


_PIECES = ("a", "é", "\U0001f600", "\x00", "\ud800", "\udcff", "\udfff", "\ued80", "\ua0ed")  # and near misses
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=5).map("".join)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.binary(max_size=4) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_holds_surrogates_is_the_walk_on_any_value(value: object) -> None:
    assert jsonstrict.holds_surrogates(value) is jsonstrict._walk_holds_surrogates(value)
