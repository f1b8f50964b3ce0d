"""hookd.jsonc: an OpenCode or Kilo config read as jsonc-parser reads it (comments, trailing commas, the last of a
key given twice), and refused where jsonc-parser reports an error."""

from __future__ import annotations

import pytest

from hookd.jsonc import loads, strict_loads


def test_comments_and_trailing_commas_are_trivia() -> None:
    text = '{\n  // project config\n  "mcp": {}, /* servers */\n  "model": "x",\n}\n'
    assert loads(text) == {"mcp": {}, "model": "x"}
    assert loads('{"list": [1, 2,],}') == {"list": [1, 2]}


def test_a_comment_marker_inside_a_string_is_the_string() -> None:
    assert loads('{"url": "https://x.example/a", "c": "/* no */"}') == {"url": "https://x.example/a", "c": "/* no */"}


def test_a_key_given_twice_takes_the_last_value_as_the_agent_does() -> None:
    assert loads('{"plugin": [], // first\n "plugin": ["x"]}') == {"plugin": ["x"]}


@pytest.mark.parametrize(
    "text",
    [
        "[,]",  # a comma after an opener is no trailing comma
        '{"a": 1,,}',
        '{"a": 1 /* never closed',
        '{"a": NaN}',
        '{"a": "split\nline"}',
        "{/*/}",
    ],
)
def test_what_the_agent_refuses_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        loads(text)


@pytest.mark.parametrize("text", ['{"n": NaN}', '{"n": Infinity}', '{"n": [-Infinity]}'])
def test_strict_json_refuses_what_javascripts_json_parse_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        strict_loads(text)
    assert strict_loads('{"n": 1.5e3}') == {"n": 1500.0}
