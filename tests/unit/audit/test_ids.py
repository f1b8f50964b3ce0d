"""Decision ids: 16 hex digits, time-ordered, unique."""

from __future__ import annotations

import time

import pytest

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

    def test_deciding_processes_never_make_the_same_id(self) -> None:
        makers = [DecisionIds(index, 64) for index in range(4)]
        made = [maker() for _ in range(3000) for maker in makers]  # several milliseconds' worth, interleaved
        assert len(set(made)) == len(made)
        for index, maker in enumerate(makers):
            assert all(int(i, 16) % 64 == index for i in made[index::4])
            later = maker()
            assert later > made[index::4][-1]

    @pytest.mark.parametrize(("index", "stride"), [(64, 64), (-1, 64), (0, 3)])
    def test_a_slot_outside_the_stride_is_refused(self, index: int, stride: int) -> None:
        with pytest.raises(ValueError, match="decision id slot"):
            DecisionIds(index, stride)
