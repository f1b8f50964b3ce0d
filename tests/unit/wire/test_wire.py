"""Framing of the hook-socket protocol (docs/protocol.md)."""

from __future__ import annotations

import json
import struct

import pytest

from hookd import wire
from hookd.errors import FrameError

LIMITS = wire.Limits(max_header_bytes=100, max_payload_bytes=1000)


class TestRequestPrefix:
    def test_valid_prefix_gives_lengths(self) -> None:
        frame = wire.encode_request({"client": "gemini", "event": "BeforeTool"}, b"{}")
        assert wire.parse_request_prefix(frame[: wire.REQUEST_PREFIX_SIZE], LIMITS) == (
            len(b'{"client":"gemini","event":"BeforeTool"}'),
            2,
        )

    @pytest.mark.parametrize(
        ("prefix", "code"),
        [
            (b"HKDQ\x01", "truncated"),
            (struct.pack("!4sBxII", b"XXXX", 1, 1, 1), "bad-magic"),
            (struct.pack("!4sBxII", b"HKDQ", 2, 1, 1), "bad-version"),
            (struct.pack("!4sBxII", b"HKDQ", 1, 101, 1), "header-too-large"),
            (struct.pack("!4sBxII", b"HKDQ", 1, 1, 1001), "payload-too-large"),
        ],
    )
    def test_broken_prefixes_name_the_problem(self, prefix: bytes, code: str) -> None:
        with pytest.raises(FrameError) as info:
            wire.parse_request_prefix(prefix, LIMITS)
        assert info.value.code == code
        assert "\n" not in str(info.value)


class TestHeader:
    def test_round_trip(self) -> None:
        header = wire.parse_header(b'{"client":"gemini","event":"AfterTool","cwd":"/p","ppid":7,"env":{"HOME":"/h"}}')
        assert header == wire.RequestHeader("gemini", "AfterTool", "/p", 7, {"HOME": "/h"})

    def test_a_forwarded_request_carries_its_sender_and_deadline(self) -> None:
        forwarded = {"uid": 5, "gid": 6, "pid": 7, "received_at": 10.5, "deadline": 13.0, "via": "http"}
        raw = json.dumps({"client": "gemini", "event": "BeforeTool", "forwarded": forwarded}).encode()
        header = wire.parse_header(raw)
        assert header.forwarded == wire.Forwarded(5, 6, 7, 10.5, 13.0, "http")

    @pytest.mark.parametrize(
        "raw",
        [
            b"not json",
            b"[]",
            b'{"event":"BeforeTool"}',
            b'{"client":"gemini"}',
            b'{"client":"gemini","event":"BeforeTool","ppid":"7"}',
            b'{"client":"gemini","event":"BeforeTool","env":{"A":1}}',
            b'{"client":"gemini","event":"BeforeTool","ppid":true}',
            b'{"client":"gemini","event":"BeforeTool","forwarded":{"uid":0,"gid":0,"pid":1}}',
            b'{"client":"g","event":"e","forwarded":{"uid":0,"gid":0,"pid":1,"received_at":1,"deadline":2.0,"via":""}}',
            b'{"client":"g","event":"e","forwarded":{"uid":0,"gid":0,"pid":true,"received_at":1.0,"deadline":2.0,"via":""}}',
            b'{"client":"gemini","event":"BeforeTool","forwarded":[]}',
        ],
    )
    def test_bad_headers_are_refused(self, raw: bytes) -> None:
        with pytest.raises(FrameError) as info:
            wire.parse_header(raw)
        assert info.value.code == "bad-header"

    @pytest.mark.parametrize(
        ("raw", "why"),
        [(b"[" * 50_000 + b"]" * 50_000, "nested too deeply"), (b'{"client":"g","event":"e","ppid":NaN}', "NaN")],
    )
    def test_deep_or_non_finite_headers_are_bad_headers(self, raw: bytes, why: str) -> None:
        with pytest.raises(FrameError, match=why) as caught:
            wire.parse_header(raw)
        assert caught.value.code == "bad-header"

    @pytest.mark.parametrize("number", [b"NaN", b"Infinity", b"-Infinity", b"[NaN]"])
    def test_payloads_with_non_finite_numbers_are_refused(self, number: bytes) -> None:
        with pytest.raises(FrameError, match="is not a JSON number") as caught:
            wire.check_payload(b'{"tool_input":{"n":' + number + b"}}")
        assert caught.value.code == "bad-payload"

    @pytest.mark.parametrize("depth", [101, 500, 100_000])
    def test_payloads_nested_past_the_limit_are_refused(self, depth: int) -> None:
        with pytest.raises(FrameError, match="nested") as caught:
            wire.check_payload(b'{"a":' + b"[" * (depth - 1) + b"]" * (depth - 1) + b"}")
        assert caught.value.code == "bad-payload"

    @pytest.mark.parametrize(
        "payload",
        [
            b'{"s":"NaN Infinity"}',
            b"{not json NaN",
            b'{"n":1e999}',
            b"",
            b'{"a":' + b"[" * 99 + b"]" * 99 + b"}",  # at the limit
            b'{"s":"' + b"[" * 5000 + b'"}',  # brackets in a string are not nesting
            b'{"a":[' + b"{}," * 5000 + b"{}]}",  # many, side by side
        ],
    )
    def test_payloads_the_check_leaves_to_the_dialect(self, payload: bytes) -> None:
        wire.check_payload(payload)  # the words in strings, or not JSON at all (the dialect's error)

    def test_too_many_env_entries(self) -> None:
        env = ",".join(f'"K{i}":"v"' for i in range(wire.MAX_ENV_ENTRIES + 1))
        with pytest.raises(FrameError):
            wire.parse_header(b'{"client":"g","event":"e","env":{' + env.encode() + b"}}")


class TestReply:
    def test_ok_reply_round_trip(self) -> None:
        frame = wire.encode_reply(b'{"decision":"deny"}', b"warn", 2)
        assert wire.decode_reply(frame) == wire.DecodedReply(wire.Status.OK, 2, b'{"decision":"deny"}', b"warn")

    def test_error_reply_carries_message_and_code(self) -> None:
        reply = wire.decode_reply(wire.encode_error("deadline", "too slow"))
        assert (reply.status, reply.stdout, reply.stderr) == (wire.Status.ERROR, b"too slow", b"deadline")

    def test_an_error_message_is_one_line_whatever_it_quotes(self) -> None:
        # A dialect's message can quote the sender's text (an event name with a newline, found by the fuzzer).
        reply = wire.decode_reply(wire.encode_error("bad-payload", "event 'a\nb\u2028c'\r\n  not known"))
        assert reply.stdout == b"event 'a b c' not known"

    def test_truncated_reply_is_refused(self) -> None:
        with pytest.raises(FrameError):
            wire.decode_reply(wire.encode_reply(b"abc")[:-1])
