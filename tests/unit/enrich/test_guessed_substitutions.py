"""benign41 (blind-benign-15): a program the catalogue does not know given a command substitution's output
(hookd.enrich.effects.guessed): the substitution's own words are a command, not the operand's name."""

from __future__ import annotations

import pytest

from hookd.enrich.effects.guessed import may_name_a_file


@pytest.mark.parametrize(
    "value",
    [
        "$(adb shell pidof -s com.acme.fieldnotes)",  # was guessed a read: the package name's dots
        "$(pgrep -n app.server)",
        "$(date +%Y.%m.%d)",
        "$(foo bar)",
    ],
)
def test_a_substitution_that_names_no_place_names_no_file(value: str) -> None:
    assert not may_name_a_file(value)


@pytest.mark.parametrize(
    "value",
    [
        "x.pem",
        "$(foo)/x.txt",  # the word's own text outside the substitution
        "$(ls ~/.ssh)",  # a place: names from there
        "$(find . -name id_rsa)",
        "$(cat list.txt)",  # a program that reads its operands
        "$(realpath x.pem)",
        "$(printf x.pem)",  # it prints its own words
        "$(basename id_rsa.pub)",
        "$(python3 -c 'print(1)' x.pem)",  # an interpreter prints anything
        "$(ls *.pem)",
        "$(foo < list.txt)",
        "$(foo $X.pem)",
        "`echo x.pem`",
        "$(unterminated x.pem",
    ],
)
def test_a_substitution_that_may_print_a_name_may_name_a_file(value: str) -> None:
    assert may_name_a_file(value)
