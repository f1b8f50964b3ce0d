"""Decision ids: 16 hex digits, time-ordered, unique."""

from __future__ import annotations

import time

from hookd.audit.ids import DecisionIds, id_time_ms


class TestDecisionIds:
    def test_sixteen_lowercase_hex_digits(self) -> None:
        value = DecisionIds()()
        assert len(value) == 16
        assert value == value.lower()
        int(value, 16)

    def test_ids_say_when_they_were_made(self) -> None:
        before = time.time_ns() // 1_000_000
        value = DecisionIds()()
        after = time.time_ns() // 1_000_000
        assert before <= id_time_ms(value) <= after

    def test_many_in_one_millisecond_stay_unique_and_ordered(self) -> None:
        ids = DecisionIds()
        made = [ids() for _ in range(100_000)]  # far more than 65,536 per ms borrow from the next ms
        assert len(set(made)) == len(made)
        assert made == sorted(made)
