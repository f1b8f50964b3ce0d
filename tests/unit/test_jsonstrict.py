"""hookd.jsonstrict: what others send hookd is read strictly, and what hookd writes a strict reader accepts."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from hookd import jsonstrict
from hookd.errors import StrictJsonError


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
