"""SQL's comments read as the databases' lexers read them (languages.json `sql` `lexers`, languages.py
`_uncommented`): a comment marker inside a string literal is text, MySQL's `--` is a comment only before whitespace
or a control character, and what either MySQL or PostgreSQL leaves outside its comments is judged."""

from __future__ import annotations

import pytest

from hookd.enrich.effects.languages import follow_code


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1--1; DROP TABLE users",  # MySQL: `--1` is minus minus one, the drop runs
        "SELECT '--'; DROP TABLE users",
        "SELECT '/*'; DROP TABLE users; SELECT '*/'",
        "SELECT 'it''s /*'; TRUNCATE orders; SELECT '*/'",  # a doubled quote stays inside the literal
        'SELECT "--"; DROP TABLE users',
        "SELECT $$ -- $$; DROP TABLE users",  # PostgreSQL's dollar quotes
        "SELECT $q$ /* $q$; DROP TABLE users; SELECT $q$ */ $q$",
        "SELECT E'\\'--'; DROP TABLE users",  # an escape string's backslash keeps the quote inside
        "SELECT '\\'; DROP TABLE users; -- '",  # PostgreSQL: the backslash is text, the literal ends there
    ],
)
def test_a_comment_marker_in_a_string_hides_nothing(sql: str) -> None:
    assert follow_code("sql", sql).known is False


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1 -- DROP TABLE users",
        "SELECT 1 --\tdrop later",
        "SELECT count(*) FROM users /* DROP TABLE users */",
        "SELECT '--' AS dashes, '/* x */' AS stars FROM t WHERE id = 3",
        "SELECT 'it''s -- fine' FROM t WHERE id = 1",
    ],
)
def test_comments_and_strings_that_only_look_like_sql_stay_inert(sql: str) -> None:
    assert follow_code("sql", sql).known is True


def test_an_unterminated_comment_hides_nothing() -> None:
    assert follow_code("sql", "SELECT 1; /* DROP TABLE users").known is False
