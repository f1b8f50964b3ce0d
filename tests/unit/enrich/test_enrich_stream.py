"""hookd.enrich.stream: AfterModel policies see the text streamed so far in the response, bounded."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hookd.enrich.stream import RESPONSE_FACT, MemoryTexts, ResponseStreams, chunk_text, finished
from hookd.types import Caller, Event, NormalisedEvent


def event(
    kind: Event, text: str = "", *, session: str = "s", uid: int = 1000, request: Any = None, finish: str = ""
) -> NormalisedEvent:
    payload: dict[str, Any] = {"llm_request": request or {"messages": [{"role": "user", "content": "hi"}]}}
    if kind is Event.AFTER_MODEL:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [text]}}
        if finish:
            candidate["finishReason"] = finish
        payload["llm_response"] = {"candidates": [candidate]}
    return NormalisedEvent(
        client="gemini", event=kind, payload=payload, tool=None, session_id=session, cwd="/p", project_dir="/p",
        caller=Caller(uid=uid, gid=uid, pid=1),
    )  # fmt: skip


def stream(streams: ResponseStreams, kind: Event, text: str = "", **kw: Any) -> Any:
    return streams(event(kind, text, **kw)).facts.get("stream")


def test_chunks_accumulate_until_the_response_ends() -> None:
    streams = ResponseStreams()
    first = stream(streams, Event.AFTER_MODEL, "-----BEGIN PRIV")
    assert (first["text"], first["chunk"], first["truncated"], first["index"], first["final"]) == (
        "-----BEGIN PRIV", "-----BEGIN PRIV", False, 1, False
    )  # fmt: skip
    last = stream(streams, Event.AFTER_MODEL, "ATE KEY-----", finish="STOP")
    assert (last["text"], last["index"], last["final"]) == ("-----BEGIN PRIVATE KEY-----", 2, True)
    assert last["response"] == first["response"]
    assert stream(streams, Event.AFTER_MODEL, "next")["text"] == "next"  # the finished response was forgotten


def test_a_new_request_is_a_new_response_and_two_at_once_stay_apart() -> None:
    streams = ResponseStreams()
    one, two = {"messages": [{"content": "one"}]}, {"messages": [{"content": "two"}]}
    stream(streams, Event.AFTER_MODEL, "AKIA", request=one)
    assert stream(streams, Event.AFTER_MODEL, "b", request=two)["text"] == "b"
    assert stream(streams, Event.AFTER_MODEL, "IOSF", request=one)["text"] == "AKIAIOSF"


def test_the_parse_steps_response_id_is_used_when_given() -> None:
    streams = ResponseStreams()
    given = event(Event.AFTER_MODEL, "a").with_facts(**{RESPONSE_FACT: "r1"})
    assert streams(given).facts["stream"]["response"] == "r1"  # type: ignore[index,call-overload]


def test_sessions_and_users_are_apart() -> None:
    streams = ResponseStreams()
    stream(streams, Event.AFTER_MODEL, "a", session="one")
    stream(streams, Event.AFTER_MODEL, "b", session="one", uid=1001)
    assert stream(streams, Event.AFTER_MODEL, "c", session="two")["text"] == "c"
    assert stream(streams, Event.AFTER_MODEL, "d", session="one")["text"] == "ad"


def test_the_kept_text_and_the_responses_are_bounded() -> None:
    streams = ResponseStreams(MemoryTexts(max_text=10, max_responses=2))
    stream(streams, Event.AFTER_MODEL, "0123456789")
    assert stream(streams, Event.AFTER_MODEL, "abc")["text"] == "0123456789abc"  # the kept tail, then the chunk
    third = stream(streams, Event.AFTER_MODEL, "d")
    assert (third["text"], third["chunk"], third["truncated"], third["index"]) == ("3456789abcd", "d", True, 3)
    stream(streams, Event.AFTER_MODEL, "x", session="t")
    stream(streams, Event.AFTER_MODEL, "y", session="u")  # the third response: the oldest ("s") goes
    assert stream(streams, Event.AFTER_MODEL, "z")["text"] == "z"


def test_a_secret_that_a_long_chunk_completes_is_seen_whole() -> None:
    streams = ResponseStreams(MemoryTexts(max_text=10))
    stream(streams, Event.AFTER_MODEL, "key AKIAIOSF")
    seen = stream(streams, Event.AFTER_MODEL, "ODNN7EXAMPLE" + "x" * 100)["text"]
    assert "AKIAIOSFODNN7EXAMPLE" in seen


def test_other_events_pass_unchanged_and_odd_chunks_have_no_text() -> None:
    streams = ResponseStreams()
    before = event(Event.BEFORE_MODEL)
    assert streams(before) is before
    assert chunk_text(None) == "" and chunk_text({"candidates": []}) == ""
    assert chunk_text({"candidates": [{"content": {"parts": [{"text": "a"}, {"functionCall": {}}, "b"]}}]}) == "ab"
    assert not finished({"candidates": [{}]}) and finished({"candidates": [{"finishReason": "STOP"}]})


def test_a_rewritten_chunk_decided_again_replaces_the_chunk_and_leaves_the_kept_text() -> None:
    streams = ResponseStreams()
    stream(streams, Event.AFTER_MODEL, "AKIA")
    decided = streams(event(Event.AFTER_MODEL, "safe"))
    rewritten = replace(decided, payload={**decided.payload, "llm_response": event(Event.AFTER_MODEL, "IOSF").payload[
        "llm_response"]})  # fmt: skip
    again = streams(rewritten).facts["stream"]
    assert (again["text"], again["chunk"], again["index"]) == ("AKIAIOSF", "IOSF", 2)  # as the user reads it
    assert stream(streams, Event.AFTER_MODEL, "x")["text"] == "AKIAsafex"  # what the model sent is kept
