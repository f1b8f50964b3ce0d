"""Records built from what the hot path hands over."""

from __future__ import annotations

import asyncio
import json

from hookd.assembly import build_pipeline
from hookd.audit.mask import Masker
from hookd.audit.record import Pending, build_record, gap_record, rfc3339
from hookd.config import Config, LogConfig
from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.types import Caller, Deadline, Handled, HookRequest
from support import DEMO_POLICIES, gemini_payload

CALLER = Caller(uid=1000, gid=1001, pid=4242, ppid=4241)


def handled(file_path: str, content: str = "hi") -> Handled:
    pipeline, _ = build_pipeline(Config(), RegoEmbeddedEngine.load(DEMO_POLICIES), probe=lambda _pid: False)
    payload = gemini_payload(
        "BeforeTool", tool_name="write_file", tool_input={"file_path": file_path, "content": content}
    )
    request = HookRequest(
        "gemini", "BeforeTool", json.dumps(payload).encode(), {"HOME": "/home/a"}, "/tmp", CALLER, Deadline.after(5)
    )
    return asyncio.run(pipeline.handle(request))


class TestBuildRecord:
    def test_a_deny(self) -> None:
        done = handled("secret.txt", "AKIAIOSFODNN7EXAMPLE")
        record = build_record(Pending(done, 1_800_000_000.25, "socket"), Masker.from_config(LogConfig()))
        assert record["type"] == "decision"
        assert record["id"] == done.decision_id
        assert record["time"] == "2027-01-15T08:00:00.250000Z"
        assert (record["client"], record["event"], record["tool"], record["decision"]) == (
            "gemini",
            "BeforeTool",
            "write_file",
            "deny",
        )
        assert (
            record["reason"]
            == f"writing secret.txt is not allowed [hookd.demo:no-secret] (decision {done.decision_id})"
        )
        assert record["verdicts"] == [
            {
                "kind": "deny",
                "policy": "hookd.demo",
                "rule": "no-secret",
                "message": "writing secret.txt is not allowed",
            }
        ]
        assert record["revisions"] == {"default": RegoEmbeddedEngine.load(DEMO_POLICIES).revision}
        assert record["caller"] == {"uid": 1000, "gid": 1001, "pid": 4242, "ppid": 4241}
        assert record["session"] == "3f0c2a9e-8b7d-4c1e-9f5a-2d6b1e7c4a10"
        assert record["via"] == "socket"
        assert record["latency_ms"] == round(done.latency_ms, 3)
        assert record["input"]["raw"]["tool_input"]["content"] == "[REDACTED:aws_access_key]"
        assert record["input"]["tool"]["name"] == "write_file"
        assert record["input"]["paths"][0]["path"] == "/tmp/secret.txt"
        json.dumps(record, allow_nan=False)  # plain JSON

    def test_a_rewrite_keeps_its_patch_masked(self) -> None:
        done = handled("shout.txt", "quiet")
        record = build_record(Pending(done, 0.0, "grpc"), Masker(max_string_length=3))
        assert record["verdicts"] == [
            {
                "kind": "rewrite",
                "policy": "hookd.demo",
                "rule": "shout",
                "message": "",
                "patch": {"tool_input": {"content": "QUI…[+2 chars]"}},
            }
        ]
        assert record["reason"] == ""
        assert record["via"] == "grpc"


def test_gap_record() -> None:
    assert gap_record(3, 0.0) == {"type": "gap", "time": "1970-01-01T00:00:00.000000Z", "dropped": 3}


def test_rfc3339_rounds_microseconds() -> None:
    assert rfc3339(1.9999999) == "1970-01-01T00:00:02.000000Z"
