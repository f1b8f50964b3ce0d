"""hookd.policytest.run_rego_tests: the policies' own `test_` rules, run on one shared engine (a fresh clone
after an error), each judged as if it ran alone. They run in name order: each `with` comes before the test
that would see it kept."""

from __future__ import annotations

from pathlib import Path

from hookd.policytest import run_rego_tests

MODULE = """package hookd.p

import rego.v1

limit := 3

_twice := 1 if true

_twice := 2 if true

big if input.n > limit

test_a_with_input if big with input as {"n": 5}
test_b_input_is_not_kept if not big
test_c_with_data if not big with input as {"n": 5} with data.hookd.p.limit as 9
test_d_data_is_not_kept if big with input as {"n": 4}
test_e_conflict_errs if _twice == 1
test_f_after_an_error if big with input as {"n": 4}
test_g_fails if big
todo_test_later if false
"""


def test_each_test_is_judged_alone_on_the_shared_engine(tmp_path: Path) -> None:
    (tmp_path / "p.rego").write_text(MODULE)
    results = {r.name.rsplit(".", 1)[1]: r.status for r in run_rego_tests(tmp_path)}
    assert results == {
        "test_a_with_input": "PASS",
        "test_b_input_is_not_kept": "PASS",  # the input a `with` gave the test before is gone
        "test_c_with_data": "PASS",
        "test_d_data_is_not_kept": "PASS",  # and so is a `with data`
        "test_e_conflict_errs": "ERROR",
        "test_f_after_an_error": "PASS",
        "test_g_fails": "FAIL",
        "todo_test_later": "SKIP",
    }
