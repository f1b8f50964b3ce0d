"""hookd.enrich.stream: AfterModel policies see the text streamed so far in the response, bounded."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from hookd.enrich.stream import FileTexts, MemoryTexts, ResponseStreams, chunk_text
from hookd.types import Caller, Event, NormalisedEvent


def event(kind: Event, text: str = "", *, session: str = "s", uid: int = 1000) -> NormalisedEvent:
    payload: dict[str, Any] = {}
    if kind is Event.AFTER_MODEL:
        payload["llm_response"] = {"candidates": [{"content": {"role": "model", "parts": [text]}}]}
    return NormalisedEvent(
        client="gemini", event=kind, payload=payload, tool=None, session_id=session, cwd="/p", project_dir="/p",
        caller=Caller(uid=uid, gid=uid, pid=1),
    )  # fmt: skip


def stream(streams: ResponseStreams, kind: Event, text: str = "", **kw: Any) -> Any:
    return streams(event(kind, text, **kw)).facts.get("stream")


def test_chunks_accumulate_until_the_next_request() -> None:
    streams = ResponseStreams()
    assert stream(streams, Event.AFTER_MODEL, "-----BEGIN PRIV") == {
        "text": "-----BEGIN PRIV", "chunk": "-----BEGIN PRIV", "truncated": False
    }  # fmt: skip
    assert stream(streams, Event.AFTER_MODEL, "ATE KEY-----")["text"] == "-----BEGIN PRIVATE KEY-----"
    assert stream(streams, Event.BEFORE_MODEL) is None
    assert stream(streams, Event.AFTER_MODEL, "next")["text"] == "next"


def test_sessions_and_users_are_apart() -> None:
    streams = ResponseStreams()
    stream(streams, Event.AFTER_MODEL, "a", session="one")
    stream(streams, Event.AFTER_MODEL, "b", session="one", uid=1001)
    assert stream(streams, Event.AFTER_MODEL, "c", session="two")["text"] == "c"
    assert stream(streams, Event.AFTER_MODEL, "d", session="one")["text"] == "ad"


def test_the_text_and_the_sessions_are_bounded() -> None:
    streams = ResponseStreams(MemoryTexts(max_text=10, max_sessions=2))
    stream(streams, Event.AFTER_MODEL, "0123456789")
    assert stream(streams, Event.AFTER_MODEL, "abc") == {"text": "3456789abc", "chunk": "abc", "truncated": True}
    stream(streams, Event.AFTER_MODEL, "x", session="t")
    stream(streams, Event.AFTER_MODEL, "y", session="u")  # the third session: the oldest ("s") goes
    assert stream(streams, Event.AFTER_MODEL, "z")["text"] == "z"


def test_other_events_pass_unchanged_and_odd_chunks_have_no_text() -> None:
    streams = ResponseStreams()
    before = event(Event.BEFORE_TOOL)
    assert streams(before) is before
    assert chunk_text(None) == "" and chunk_text({"candidates": []}) == ""
    assert chunk_text({"candidates": [{"content": {"parts": [{"text": "a"}, {"functionCall": {}}, "b"]}}]}) == "ab"


def test_processes_that_share_the_files_see_one_text(tmp_path: Path) -> None:
    """Two enrichers over one directory stand for two deciding processes (`workers = 2`)."""
    first = ResponseStreams(FileTexts(tmp_path / "streams"))
    second = ResponseStreams(FileTexts(tmp_path / "streams"))
    assert stream(first, Event.AFTER_MODEL, "-----BEGIN PRIV")["text"] == "-----BEGIN PRIV"
    assert stream(second, Event.AFTER_MODEL, "ATE KEY-----")["text"] == "-----BEGIN PRIVATE KEY-----"
    assert stream(second, Event.AFTER_MODEL, "x", session="other")["text"] == "x"
    assert stream(first, Event.BEFORE_MODEL) is None  # the next request: the file goes
    assert stream(second, Event.AFTER_MODEL, "next")["text"] == "next"
    assert (tmp_path / "streams").stat().st_mode & 0o777 == 0o700
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in (tmp_path / "streams").iterdir())


def test_shared_files_are_bounded_like_memory(tmp_path: Path) -> None:
    streams = ResponseStreams(FileTexts(tmp_path / "streams", max_text=10, max_sessions=2))
    stream(streams, Event.AFTER_MODEL, "0123456789é")
    assert stream(streams, Event.AFTER_MODEL, "abc") == {"text": "456789éabc", "chunk": "abc", "truncated": True}
    stream(streams, Event.AFTER_MODEL, "x", session="t")
    os.utime(next(iter(sorted((tmp_path / "streams").iterdir(), key=lambda p: p.stat().st_mtime))), (1, 1))
    stream(streams, Event.AFTER_MODEL, "y", session="u")  # the third response: the least recent ("s") goes
    assert len(list((tmp_path / "streams").iterdir())) == 2
    assert stream(streams, Event.AFTER_MODEL, "z")["text"] == "z"


def test_a_directory_others_can_enter_or_a_planted_link_is_refused(tmp_path: Path) -> None:
    open_dir = tmp_path / "open"
    open_dir.mkdir(mode=0o755)
    open_dir.chmod(0o755)
    with pytest.raises(PermissionError):
        ResponseStreams(FileTexts(open_dir))(event(Event.AFTER_MODEL, "a"))
    texts = FileTexts(tmp_path / "streams")
    texts.add((1000, "gemini", "s"), "a")
    target = tmp_path / "target"
    for path in (tmp_path / "streams").iterdir():
        path.unlink()
        path.symlink_to(target)
    with pytest.raises(OSError):
        texts.add((1000, "gemini", "s"), "b")
    assert not target.exists()
