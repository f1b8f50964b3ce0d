"""hookd.enrich.shell.words: what bash leaves out of brace expansion (quotes, escapes, expansions) is found in one
pass over a word, with the answers the patterns it replaced gave (they were quadratic in a word of many unclosed
`${` or `$(`, or a brace list with many commas and no closing brace)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookd.enrich.shell.words import _mark_braces, _quoted_pieces, has_brace_list

# The patterns replaced, kept as the reference: right on every input, slow on some
_QUOTED_PIECE = re.compile(
    r"'[^']*'|\$?\"(?:[^\"\\]|\\.)*\"|\$'(?:[^'\\]|\\.)*'|\\.|\$\{[^}]*\}|\$\([^)]*\)+|`[^`]*`|\$[A-Za-z_0-9@*#?$!-]+"
)
_BRACE = re.compile(r"\{[^{}\s]*(,|\.\.)[^{}\s]*\}")

# every character either pattern treats apart, a few of each
_WORD = st.text(alphabet=st.sampled_from(list("'\"\\$`{}(),. \n\tax@-")), max_size=40)


@settings(max_examples=3000, deadline=None)
@given(_WORD)
def test_the_pieces_and_the_rest_are_those_the_pattern_found(raw: str) -> None:
    assert _quoted_pieces(raw) == (_QUOTED_PIECE.findall(raw), _QUOTED_PIECE.sub("_", raw))


@settings(max_examples=3000, deadline=None)
@given(_WORD)
def test_a_brace_list_is_found_where_the_pattern_found_one(text: str) -> None:
    assert has_brace_list(text) is (_BRACE.search(text) is not None)


@pytest.mark.parametrize(
    ("raw", "pieces", "bare"),
    [
        ('{cat,"$HOME"/.netrc}', ['"$HOME"'], "{cat,_/.netrc}"),
        ("a$'x\\'y'b${c}d$(e))f`g`$h-i\\ j", ["$'x\\'y'", "${c}", "$(e))", "`g`", "$h-i", "\\ "], "a_b_d_f___j"),
        ("'a \"b ${c $(d `e \\", [], "'a \"b ${c $(d `e \\"),  # none closes
    ],
)
def test_each_kind_of_piece(raw: str, pieces: list[str], bare: str) -> None:
    assert _quoted_pieces(raw) == (pieces, bare)


BIG = 1 << 20  # a word of a mebibyte: a quadratic scan of it takes hours (pytest's timeout fails it)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "raw",
    [
        "{a,b}" + "${" * (BIG // 2),
        "{a,b}" + "$(" * (BIG // 2),
        "{a,b}" + "$'\\\n" * (BIG // 4),
        "{a,b}\"" + "\\\\\"" * (BIG // 3),
        "{a,b}" + "'$\"" * (BIG // 3),
        "{" + "a," * (BIG // 2),
        "{a,b}$\"" + "a," * (BIG // 2),
    ],
    ids=["unclosed-parameters", "unclosed-substitutions", "unclosed-ansi", "escapes", "unclosed-quotes",
         "brace-list-unclosed", "open-quote-and-commas"],
)  # fmt: skip
def test_a_word_of_a_mebibyte_of_unclosed_forms_is_read_in_one_pass(raw: str) -> None:
    marked = _mark_braces(raw, raw)
    assert marked in (raw, "\x00{" + raw)
