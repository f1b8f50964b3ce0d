"""hookd.wire.jsonstrict: what others send hookd is read strictly, and what hookd writes a strict reader accepts."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

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
