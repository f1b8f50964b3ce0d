"""hookd.audit.streams: a streamed response is one decision record, written when it ends (or is left idle,
pushed out, or the process stops), with its chunk count, the chunks where the verdicts changed and a digest
of the text seen; its input holds no conversation. Decided by the real pipeline and default policies."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

from hookd.assembly import build_pipeline
from hookd.audit.mask import Masker
from hookd.audit.record import Pending, build_record
from hookd.audit.streams import MAX_CHANGES, StreamRecords
from hookd.config import Config, LogConfig
from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.types import Caller, Deadline, HookRequest
from support import ROOT, gemini_payload

CALLER = Caller(uid=1000, gid=1000, pid=7, ppid=6)
CONVERSATION = {"messages": [{"role": "user", "content": "the whole conversation " * 500}]}
PIPELINE, _ = build_pipeline(Config(), RegoEmbeddedEngine.load(ROOT / "policies"), probe=lambda _pid: False)
MASK = Masker.from_config(LogConfig())


def chunk(text: str, *, session: str = "s", finish: bool = False, request: Any = None) -> Pending:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": text}]}}
    if finish:
        candidate["finishReason"] = "STOP"
    payload = gemini_payload(
        "AfterModel", session_id=session, llm_request=request or CONVERSATION, llm_response={"candidates": [candidate]}
    )
    request_ = HookRequest("gemini", "AfterModel", json.dumps(payload).encode(), {}, "/tmp", CALLER, Deadline.after(5))
    return Pending(asyncio.run(PIPELINE.handle(request_)), 1_800_000_000.0, "socket")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_an_allowed_response_is_one_record_when_it_ends() -> None:
    records = StreamRecords()
    texts = [f"part {n} " for n in range(199)] + ["the end"]
    written = [p for n, text in enumerate(texts) for p in records.fold(chunk(text, finish=n == len(texts) - 1))]
    assert len(written) == 1 and len(records) == 0
    record = build_record(written[0], MASK)
    stream = record["stream"]
    assert (record["decision"], record["event"], stream["chunks"], stream["ended"]) == (
        "allow",
        "AfterModel",
        200,
        "end",
    )
    assert stream["chars"] == len("".join(texts))
    assert stream["sha256"] == hashlib.sha256("".join(texts).encode()).hexdigest()
    assert stream["changes"] == [{"chunk": 1, "id": stream["first_id"], "decision": "allow", "verdicts": []}]
    line = json.dumps(record)
    assert "the whole conversation" not in line and "part 5" not in line  # no conversation, no text so far
    assert len(line) < 2048


def test_a_halt_is_written_at_once_with_the_chunk_that_decided_it_masked() -> None:
    records = StreamRecords()
    assert records.fold(chunk("the key is AKIAIOSF")) == []
    (written,) = records.fold(chunk("ODNN7EXAMPLE, use it"))
    record = build_record(written, MASK)
    assert record["decision"] == "halt" and record["stream"]["ended"] == "halt"
    assert record["stream"]["chunks"] == 2 and record["id"] == record["stream"]["last_id"]
    assert [c["decision"] for c in record["stream"]["changes"]] == ["allow", "halt"]
    assert record["stream"]["changes"][1]["verdicts"] == ["halt:hookd.model_secrets:aws-access-key"]
    assert record["input"]["stream"]["tail"] == "the key is [REDACTED:aws_access_key], use it"  # masked whole
    assert "AKIAIOSF" not in json.dumps(record) and "ODNN7EXAMPLE" not in json.dumps(record)


def test_responses_apart_and_bounded_idle_and_stopped_ones_are_written() -> None:
    clock = Clock()
    records = StreamRecords(idle_s=60, max_open=2, clock=clock)
    assert records.fold(chunk("a", session="one")) == []
    assert records.fold(chunk("b", session="two")) == []
    clock.now = 30
    (evicted,) = records.fold(chunk("c", session="three"))  # a third open response: the least recent is written
    assert evicted.stream is not None and evicted.stream.ended == "evicted"
    assert evicted.handled.event.session_id == "one"
    assert records.next_expiry() == 30
    clock.now = 61
    (idle,) = records.expired()
    assert idle.handled.event.session_id == "two" and idle.stream is not None and idle.stream.ended == "idle"
    (stopped,) = records.close()
    assert stopped.stream is not None and stopped.stream.ended == "stopped" and len(records) == 0


def test_other_decisions_pass_through_and_changes_are_bounded() -> None:
    records = StreamRecords()
    done = PIPELINE  # a BeforeModel is no chunk: it is its own record
    payload = gemini_payload("BeforeModel", llm_request=CONVERSATION)
    request = HookRequest("gemini", "BeforeModel", json.dumps(payload).encode(), {}, "/tmp", CALLER, Deadline.after(5))
    pending = Pending(asyncio.run(done.handle(request)), 0.0, "socket")
    assert records.fold(pending) == [pending]
    assert MAX_CHANGES >= 2


def test_the_writer_chains_one_record_a_response_and_ships_it_in_opa_format(tmp_path: Path) -> None:
    from hookd.audit.chain import verify
    from hookd.audit.record import Logged
    from hookd.audit.ship import opa_event
    from hookd.audit.sink import Sink
    from hookd.audit.writer import DecisionLog, Queued

    config = LogConfig(path=tmp_path / "decisions.log")
    other = {"messages": [{"role": "user", "content": "the whole conversation, a turn later " * 500}]}
    chunks = [chunk(f"part {n} ", request=other) for n in range(50)]
    chunks += [chunk("the end", finish=True, request=other), chunk("still open", request=other)]
    shipped: list[Logged] = []

    async def main() -> None:
        sink: Sink[Queued] = Sink(config.queue_size)
        log = DecisionLog(config, sink)
        log.outlets.append(shipped.append)
        log.start()
        for pending in chunks:
            sink.put_nowait(pending)
        await log.close()  # the response left open is written at close

    asyncio.run(main())
    lines = (tmp_path / "decisions.log").read_text().splitlines()
    assert [json.loads(line)["stream"]["chunks"] for line in lines] == [51, 1]
    assert verify(tmp_path / "decisions.log").ok
    event = opa_event(shipped[0], {"app": "hookd"})
    assert event["result"]["stream"]["chunks"] == 51 and event["path"] == "hookd/gemini/AfterModel"  # type: ignore[index]
    assert "the whole conversation" not in json.dumps(event)


def test_the_writer_writes_a_response_left_idle_without_another_record_to_wake_it(tmp_path: Path) -> None:
    from hookd.audit.sink import Sink
    from hookd.audit.writer import DecisionLog, Queued

    config = LogConfig(path=tmp_path / "decisions.log")
    pending = chunk("a chunk, then nothing", request={"messages": [{"role": "user", "content": "left idle"}]})

    async def main() -> list[str]:
        sink: Sink[Queued] = Sink(config.queue_size)
        log = DecisionLog(config, sink)
        log.streams = StreamRecords(idle_s=0.2)
        log.start()
        try:
            sink.put_nowait(pending)
            for _ in range(200):  # waits on the file, not a fixed sleep: the writer wakes on its own
                text = (tmp_path / "decisions.log").read_text() if (tmp_path / "decisions.log").exists() else ""
                if text:
                    return text.splitlines()
                await asyncio.sleep(0.02)
            return []
        finally:
            await log.close()

    (line,) = asyncio.run(main())
    assert json.loads(line)["stream"]["ended"] == "idle"


def test_holding_the_chunks_it_can_writes_the_records_fold_alone_writes() -> None:
    """`hold` folds an allowed chunk of an open response at once (the stream lane, for nothing queued before it);
    whatever it declines goes through `fold`: the records are those of folding every chunk, in order."""
    request = {"messages": [{"role": "user", "content": "a conversation of this test alone"}]}

    def part(text: str, session: str, *, finish: bool = False) -> Pending:
        return chunk(text, session=f"hold-{session}", finish=finish, request=request)

    sequence = [
        part("a response ", "c"),
        part("another ", "b"),
        part("in parts ", "c"),
        part("a third, left open", "o"),
        part("streamed ", "b"),
        part("the key is AKIAIOSF", "c"),
        part("to its end", "b", finish=True),
        part("ODNN7EXAMPLE, use it", "c"),  # completes the key: halt
    ]
    folded, held = StreamRecords(), StreamRecords()
    expected = [p for c in sequence for p in folded.fold(c)]
    written, declined = [], []
    for c in sequence:
        if not held.hold(c):
            declined.append((c.handled.event.session_id, c.handled.event.facts["stream"]["index"]))
            written += held.fold(c)
    # each response's first chunk, the last, and the halt
    assert declined == [("hold-c", 1), ("hold-b", 1), ("hold-o", 1), ("hold-b", 3), ("hold-c", 4)]
    assert [build_record(p, MASK) for p in written] == [build_record(p, MASK) for p in expected]
    assert [(r.stream.ended, r.stream.chunks) for r in written if r.stream] == [("end", 3), ("halt", 4)]
    assert len(held) == len(folded) == 1
