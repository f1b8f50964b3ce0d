"""The quiet chunk's short-cut (hookd.pipeline, `Pipeline.quiet_chunk`): a streamed chunk no policy can answer is
decided in the few steps its answer takes, and everything it leaves behind is what the whole path leaves: the
reply, the response's text and journal, its decision record and the metrics' counts."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import shutil
import socket
import tempfile
from collections.abc import Sequence
from pathlib import Path

import uvloop

from hookd import wire
from hookd.audit.chain import Encoded
from hookd.config import parse_config
from hookd.dialects.registry import STREAMED
from hookd.procs import journal as journal_files
from hookd.procs.child import WorkerProcess
from hookd.transport.hook_server import HookServer
from hookd.types import Caller, Deadline, HookRequest, Reply, settled

SECRETS = ["AKIAIOSFODNN7EXAMPLE", "ghp_" + "a1B2" * 9, "xoxb-1234567890-abcdefghij"]
WORDS = ["the", "model", "writes", "AKI", "xo", "gh", "p_", "\n", "é", "a_b", "x", "\U0001f600", '"q"']
_ID = re.compile(r"\b[0-9a-f]{16}\b")
Answer = tuple[str, object, list[str], bool]  # a session, the request, the chunks, whether the last ends it


class Channel:
    """The daemon's end of the worker's channel: the records it sends."""

    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data

    def writelines(self, lines: Sequence[bytes]) -> None:
        self.data += b"".join(lines)

    def records(self) -> list[object]:
        """The records, without their ids, times and latencies (each process makes its own)."""
        lines, found = self.data.decode().splitlines(), []
        for n, text in enumerate(lines):
            if json.loads(text).get("t") == "d":  # the record follows, encoded, in two lines
                record = Encoded(lines[n + 1], lines[n + 2]).record(1)
                kept = {k: v for k, v in record.items() if k not in ("time", "latency_ms")}
                found.append(json.loads(_ID.sub("ID", json.dumps(kept, sort_keys=True))))
        return found


def chunk(session: str, request: object, text: str, *, final: bool) -> HookRequest:
    candidate: dict[str, object] = {"content": {"role": "model", "parts": [{"text": text}]}, "index": 0}
    if final:
        candidate["finishReason"] = "STOP"
    payload = {"session_id": session, "hook_event_name": "AfterModel", "llm_request": request,
               "llm_response": {"candidates": [candidate]}}  # fmt: skip
    body = json.dumps(payload, separators=(",", ":")).encode()
    caller = Caller(os.getuid(), os.getgid(), os.getpid(), 1)
    return HookRequest("gemini", "AfterModel", body, {"HOME": "/home/u"}, "/p", caller, Deadline.after(30))


def responses(rng: random.Random, count: int) -> list[Answer]:
    """`count` answers: a session, the request, the chunks, and whether the last chunk ends the answer."""
    out = []
    for n in range(count):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 60)))
        if rng.random() < 0.4:
            where = rng.randint(0, len(text))
            text = text[:where] + rng.choice(SECRETS) + text[where:]
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(1, 30))))
        chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
        request = {"contents": [{"role": "user", "parts": [{"text": f"question {n} " * rng.randint(1, 200)}]}]}
        out.append((f"s{rng.randint(0, 3)}", request, chunks, rng.random() < 0.85))
    return out


async def through(
    worker: WorkerProcess, plan: list[tuple[int, int]], answers: list[Answer], channel: Channel
) -> list[Reply]:
    replies = []
    for answer, n in plan:
        session, request, chunks, ends = answers[answer]
        final = ends and n == len(chunks) - 1
        replies.append(await settled(worker.decider.handle(chunk(session, request, chunks[n], final=final))))
        worker._flush(channel)  # type: ignore[arg-type]  # what the record sender does once woken
        worker._unacked = 0  # the daemon took them
    worker._send_records(channel, worker._streams.close())  # type: ignore[arg-type]  # the lane stopping
    return replies


def interleaved(rng: random.Random, answers: list[Answer]) -> list[tuple[int, int]]:
    """Every chunk of every answer, in order within an answer, the answers interleaved."""
    left = dict.fromkeys(range(len(answers)), 0)
    plan = []
    while left:
        answer = rng.choice(sorted(left)[:3])  # a few answers streamed at once
        plan.append((answer, left[answer]))
        left[answer] += 1
        if left[answer] == len(answers[answer][2]):
            del left[answer]
    return plan


def test_the_short_cut_leaves_what_the_whole_path_leaves() -> None:
    """Random answers (a secret in some: a halt, then a new record), several streamed at once, some never ended:
    through a stream lane with the short-cut and one without it, the same replies, records, journal and counts."""
    rng = random.Random(30)
    answers = responses(rng, 60)
    plan = interleaved(rng, answers)
    journals = journal_files.create([]), journal_files.create([])
    try:
        fast, whole = (WorkerProcess(parse_config({}), 2, lane=True, journal=journal) for journal in journals)
        whole.open_records = lambda: None  # type: ignore[method-assign]  # every chunk through the whole path
        folded = []
        fold = fast.fold_quiet
        fast.fold_quiet = lambda quiet: (folded.append(quiet), fold(quiet))[-1]  # type: ignore[method-assign]
        channels = Channel(), Channel()
        replies = [asyncio.run(through(w, plan, answers, c)) for w, c in zip((fast, whole), channels, strict=True)]
        assert [_ID.sub("ID", r.stdout.decode()) for r in replies[0]] == [
            _ID.sub("ID", r.stdout.decode()) for r in replies[1]
        ]
        assert any(b"continue" in r.stdout for r in replies[0])  # some chunks halted
        assert channels[0].records() == channels[1].records()
        assert len(channels[0].records()) >= len(answers)
        assert [c[:2] + c[3:] for c in fast._chunk_counts] == [c[:2] + c[3:] for c in whole._chunk_counts]
        assert journal_files.read(journals[0]) == journal_files.read(journals[1])
        sizes = [os.fstat(fd).st_size for fd in (journals[0][0], journals[1][0])]
        assert os.pread(journals[0][0], sizes[0], 0) == os.pread(journals[1][0], sizes[1], 0)  # byte for byte
        assert len(plan) // 2 < len(folded) < len(plan)  # most chunks took the short-cut, not all
    finally:
        for journal in journals:
            journal_files.close(journal)


def exchange(path: str, frame: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(path)
        sock.sendall(frame)
        reply = b""
        while data := sock.recv(65536):
            reply += data
    return reply


async def over_the_socket(
    worker: WorkerProcess, plan: list[tuple[int, int]], answers: list[Answer], channel: Channel, *, raw: bool
) -> list[wire.DecodedReply]:
    """`through`, each chunk sent over the stream lane's socket as a shim sends it, the server on `raw` sockets
    (hookd.transport.raw) or on uvloop's transports."""
    base = Path(tempfile.mkdtemp(prefix="hkq", dir="/tmp"))
    base.joinpath("run").mkdir(mode=0o700)
    server = HookServer(base / "run" / "stream.sock", worker.decider.handle, limits=wire.Limits(),
                        request_timeout=30, max_concurrency=8, lane=True, direct=STREAMED)  # fmt: skip
    server.raw, worker.server = raw, server
    await server.start()
    header = {"client": "gemini", "event": "AfterModel", "cwd": "/p", "ppid": 1, "env": {"HOME": "/home/u"}}
    replies = []
    try:
        for answer, n in plan:
            session, request, chunks, ends = answers[answer]
            payload = chunk(session, request, chunks[n], final=ends and n == len(chunks) - 1).payload
            frame = wire.encode_request(header, payload)
            got = await asyncio.get_running_loop().run_in_executor(None, exchange, str(server.path), frame)
            replies.append(wire.decode_reply(got))
            worker._flush(channel)  # type: ignore[arg-type]
            worker._unacked = 0
        worker._send_records(channel, worker._streams.close())  # type: ignore[arg-type]
    finally:
        await server.stop()
        shutil.rmtree(base, ignore_errors=True)
    return replies


def test_the_stream_lanes_raw_socket_answers_and_leaves_what_uvloops_transport_does() -> None:
    """The same answers sent over the stream lane's socket served raw and served by uvloop: the same replies,
    records, journal bytes and counts, and the replies those of the whole path."""
    rng = random.Random(35)
    answers = responses(rng, 30)
    plan = interleaved(rng, answers)
    journals = journal_files.create([]), journal_files.create([]), journal_files.create([])
    try:
        lanes = [WorkerProcess(parse_config({}), 2, lane=True, journal=journal) for journal in journals]
        lanes[2].open_records = lambda: None  # type: ignore[method-assign]  # the whole path, in the call
        folded = []
        fold = lanes[0].fold_quiet
        lanes[0].fold_quiet = lambda quiet: (folded.append(quiet), fold(quiet))[-1]  # type: ignore[method-assign]
        channels = Channel(), Channel(), Channel()
        raw = uvloop.run(over_the_socket(lanes[0], plan, answers, channels[0], raw=True))
        uv = uvloop.run(over_the_socket(lanes[1], plan, answers, channels[1], raw=False))
        whole = asyncio.run(through(lanes[2], plan, answers, channels[2]))
        shown = [[(r.status, _ID.sub("ID", r.stdout.decode()), r.exit_code) for r in rs] for rs in (raw, uv)]
        assert shown[0] == shown[1] == [(wire.Status.OK, _ID.sub("ID", r.stdout.decode()), r.exit_code) for r in whole]
        assert any(b"continue" in r.stdout for r in raw)  # some chunks halted
        assert channels[0].records() == channels[1].records() == channels[2].records()
        counts = [[c[:2] + c[3:] for c in lane._chunk_counts] for lane in lanes]
        assert counts[0] == counts[1] == counts[2]
        texts = []
        for files in journals:
            size = os.fstat(files[0]).st_size
            texts.append(os.pread(files[0], size, 0))
        assert texts[0] == texts[1] == texts[2]  # byte for byte
        assert len(plan) // 2 < len(folded) < len(plan)  # most chunks sent raw took the short-cut, not all
    finally:
        for journal in journals:
            journal_files.close(journal)
