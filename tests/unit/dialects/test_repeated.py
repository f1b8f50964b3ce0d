"""hookd.dialects.repeated: the request every AfterModel chunk carries is read once, and only where the
field really is; anything else is read whole, as before."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hookd.dialects.repeated import RepeatedField
from hookd.wire import jsonstrict


def payload(request: Any, text: str = "chunk", *, raw_request: str | None = None) -> bytes:
    response = json.dumps({"candidates": [{"content": {"parts": [{"text": text}]}}]})
    body = raw_request if raw_request is not None else json.dumps(request, separators=(",", ":"))
    return (
        f'{{"session_id":"s","hook_event_name":"AfterModel","llm_request":{body},"llm_response":{response}}}'.encode()
    )


REQUEST = {"model": "m", "messages": [{"role": "user", "content": "hello " * 1000}]}


def test_the_repeated_request_is_read_once_and_the_result_is_the_whole_parse() -> None:
    field = RepeatedField("llm_request", "llm_response")
    for n in range(3):
        data = payload(REQUEST, f"chunk {n}")
        loaded = field.load(1000, data)
        assert loaded is not None
        assert loaded == (json.loads(data), jsonstrict.digest(REQUEST))
    assert (field.misses, field.hits) == (1, 2)
    field.load(1001, payload(REQUEST))  # another uid reads it afresh
    assert field.misses == 2


@pytest.mark.parametrize(
    "data",
    [
        # the key first met is nested: the placeholder lands there, the top-level field is another value
        b'{"a":{"llm_request":{"x":1}},"llm_request":{"y":2},"llm_response":{}}',
        # the top-level field named twice: the last one counts, as the whole parse says
        b'{"llm_request":{"x":1},"llm_request":{"y":2},"llm_response":{}}',
        # the follower met inside the chunk: what lies between is no one value
        b'{"llm_request":{"x":1},"llm_response":{"a":[{"b":1,"llm_response":2}]}}',
    ],
)
def test_a_field_found_anywhere_but_at_the_top_is_read_whole(data: bytes) -> None:
    loaded = RepeatedField("llm_request", "llm_response").load(1000, data)
    assert loaded is None or loaded[0] == json.loads(data)


@pytest.mark.parametrize(
    "request_text",
    ['{"x":NaN}', '{"x":1e999}', "[" * 100 + "]" * 100, '{"x":1} , {"y":2}', '{"x":"\\ud83d"'],
)
def test_a_request_the_parse_step_refuses_is_read_whole(request_text: str) -> None:
    """None: the pipeline then parses the payload whole and answers its ordinary error."""
    assert RepeatedField("llm_request", "llm_response").load(1000, payload(None, raw_request=request_text)) is None


def test_what_is_kept_is_bounded() -> None:
    field = RepeatedField("llm_request", "llm_response", slots=2, max_bytes=1000)
    for n in range(4):
        field.load(1000, payload({"n": n}))
    field.load(1000, payload({"n": 0}))
    assert field.misses == 5  # the oldest were forgotten
    field.load(1000, payload(REQUEST))  # alone over max_bytes: read, not kept
    field.load(1000, payload(REQUEST))
    assert field.misses == 7


@pytest.mark.parametrize(
    "chunk", ['{"x":NaN}', '{"x":1e999}', '{"x":' + "[" * 100 + "]" * 100 + "}", '{"x":-Infinity}', '"\xff"']
)
def test_a_rest_of_the_payload_the_parse_step_refuses_is_read_whole(chunk: str) -> None:
    """The payload without the repeated field is refused where wire.check_payload or the dialect's read would refuse
    it: None, and the pipeline reads the payload whole and answers its ordinary error."""
    data = payload(REQUEST).replace(
        b'"hook_event_name":', b'"other":' + chunk.encode("latin-1") + b',"hook_event_name":'
    )
    assert RepeatedField("llm_request", "llm_response").load(1000, data) is None
    deep_but_allowed = payload(REQUEST).replace(
        b'"hook_event_name":', b'"o":' + b"[" * 98 + b"]" * 98 + b',"hook_event_name":'
    )
    assert RepeatedField("llm_request", "llm_response").load(1000, deep_but_allowed) is not None
