"""The decision log writer: one task, the chain across batches, files and restarts, rotation, drops, fan-out."""

from __future__ import annotations

import asyncio
import io
import json
import stat
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from hookd.assembly import build_pipeline
from hookd.audit.chain import GENESIS, verify
from hookd.audit.mask import Masker
from hookd.audit.record import Pending, build_record
from hookd.audit.sink import Sink
from hookd.audit.writer import DecisionLog, Filters, Queued, RotatingFile
from hookd.config import Config, LogConfig
from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.errors import DaemonError
from hookd.pipeline import Pipeline
from hookd.types import Caller, Deadline, Handled, HookRequest
from support import DEMO_POLICIES, gemini_payload, settle

PIPELINE: Pipeline = build_pipeline(Config(), RegoEmbeddedEngine.load(DEMO_POLICIES), probe=lambda _pid: False)[0]


async def decide(file_path: str, event: str = "BeforeTool") -> Handled:
    fields: dict[str, Any] = {"prompt": "hi"}
    if event == "BeforeTool":
        fields = {"tool_name": "write_file", "tool_input": {"file_path": file_path, "content": "x" * 100}}
    payload = json.dumps(gemini_payload(event, **fields)).encode()
    request = HookRequest("gemini", event, payload, {}, "/tmp", Caller(1000, 1000, 42), Deadline.after(5))
    return await PIPELINE.handle(request)


def run(config: LogConfig, scenario: Callable[[DecisionLog, Sink[Queued]], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        sink: Sink[Queued] = Sink(config.queue_size)
        log = DecisionLog(config, sink)
        log.start()
        try:
            return await scenario(log, sink)
        finally:
            await log.close()

    return asyncio.run(main())


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


class TestWriting:
    def test_records_are_chained_in_order_and_flushed_at_close(self, tmp_path: Path) -> None:
        config = LogConfig(path=tmp_path / "state" / "decisions.log")

        async def scenario(log: DecisionLog, sink: Sink[Queued]) -> list[str]:
            ids = []
            for name in ("secret.txt", "a.txt", "shout.txt"):
                done = await decide(name)
                ids.append(done.decision_id)
                sink.put_nowait(Pending(done, time.time(), "socket"))
            return ids  # nothing awaited after the last put: close() must still write it

        ids = run(config, scenario)
        written = records(config.path)
        assert [r["id"] for r in written] == ids
        assert [r["seq"] for r in written] == [1, 2, 3]
        assert [r["decision"] for r in written] == ["deny", "allow", "rewrite"]
        assert written[0]["prev"] == GENESIS
        assert [r["prev"] for r in written[1:]] == [r["hash"] for r in written[:-1]]
        assert verify(config.path).ok

    def test_owner_only_file_in_an_owner_only_dir(self, tmp_path: Path) -> None:
        config = LogConfig(path=tmp_path / "state" / "decisions.log")
        run(config, lambda log, sink: asyncio.sleep(0))
        assert stat.S_IMODE(config.path.stat().st_mode) == 0o600
        assert stat.S_IMODE(config.path.parent.stat().st_mode) == 0o700

    def test_a_restart_continues_the_chain(self, tmp_path: Path) -> None:
        config = LogConfig(path=tmp_path / "decisions.log")

        async def two(log: DecisionLog, sink: Sink[Queued]) -> None:
            for _ in range(2):
                sink.put_nowait(Pending(await decide("a.txt"), time.time(), "socket"))

        run(config, two)
        run(config, two)
        written = records(config.path)
        assert [r["seq"] for r in written] == [1, 2, 3, 4]
        assert written[2]["prev"] == written[1]["hash"]
        assert verify(config.path).ok

    def test_a_torn_last_line_is_isolated_and_the_chain_goes_on_from_the_last_record(self, tmp_path: Path) -> None:
        config = LogConfig(path=tmp_path / "decisions.log")

        async def one(log: DecisionLog, sink: Sink[Queued]) -> None:
            sink.put_nowait(Pending(await decide("a.txt"), time.time(), "socket"))

        run(config, one)
        with config.path.open("a") as handle:
            handle.write('{"type":"decision","id":"01')  # a crash mid-write
        run(config, one)
        report = verify(config.path)
        assert report.problems == [
            "decisions.log:2: not JSON (Unterminated string starting at): a torn or damaged line"
        ]
        assert report.records == 2

    def test_a_second_writer_of_the_same_log_is_refused(self, tmp_path: Path) -> None:
        config = LogConfig(path=tmp_path / "decisions.log")

        async def scenario(log: DecisionLog, sink: Sink[Queued]) -> None:
            with pytest.raises(DaemonError, match="another hookd daemon writes the decision log"):
                DecisionLog(config, Sink(1)).start()

        run(config, scenario)

    def test_stdout_echo(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        out = io.StringIO()
        monkeypatch.setattr("sys.stdout", out)
        config = LogConfig(path=tmp_path / "decisions.log", stdout=True)

        async def one(log: DecisionLog, sink: Sink[Queued]) -> None:
            sink.put_nowait(Pending(await decide("a.txt"), time.time(), "socket"))

        run(config, one)
        assert out.getvalue() == config.path.read_text()


class TestRotation:
    def test_size_rotation_keeps_n_files_and_the_chain_runs_across_them(self, tmp_path: Path) -> None:
        config = LogConfig(path=tmp_path / "decisions.log", max_bytes=6000, keep=2)

        async def many(log: DecisionLog, sink: Sink[Queued]) -> None:
            for _ in range(30):
                sink.put_nowait(Pending(await decide("a.txt"), time.time(), "socket"))
                await asyncio.sleep(0)

        run(config, many)
        names = sorted(p.name for p in tmp_path.iterdir())
        assert names == ["decisions.log", "decisions.log.1", "decisions.log.2", "decisions.log.lock"]
        for path in (config.path, tmp_path / "decisions.log.1", tmp_path / "decisions.log.2"):
            assert 0 < path.stat().st_size <= 6000
        older, newer = records(tmp_path / "decisions.log.1"), records(config.path)
        assert newer[0]["prev"] == older[-1]["hash"]  # the first record of a file carries the last hash before it
        assert newer[-1]["seq"] == 30
        report = verify(config.path)
        assert report.ok, report.problems
        assert report.notes and "rotated away" in report.notes[0]


class TestDrops:
    def test_a_full_queue_drops_the_oldest_and_the_gap_is_written_into_the_chain(self, tmp_path: Path) -> None:
        config = LogConfig(path=tmp_path / "decisions.log", queue_size=3)

        async def burst(log: DecisionLog, sink: Sink[Queued]) -> None:
            made = [await decide(f"f{i}.txt") for i in range(5)]
            for done in made:  # no await in between: the writer cannot run
                sink.put_nowait(Pending(done, time.time(), "socket"))
            assert sink.dropped == 2

        run(config, burst)
        written = records(config.path)
        assert written[0]["type"] == "gap"
        assert written[0]["dropped"] == 2
        assert [r["input"]["tool"]["input"]["file_path"] for r in written[1:]] == ["f2.txt", "f3.txt", "f4.txt"]
        assert verify(config.path).ok

    def test_a_worker_processs_records_and_its_drops_join_the_chain(self, tmp_path: Path) -> None:
        """What a worker process sends: records it built and masked itself, and how many its queue dropped."""
        config = LogConfig(path=tmp_path / "decisions.log")

        async def worker(log: DecisionLog, sink: Sink[Queued]) -> None:
            built = build_record(Pending(await decide("w.txt"), time.time(), "socket"), Masker())
            sink.count_dropped(4)
            sink.put_nowait(json.loads(json.dumps(built)))  # as it arrives over the channel
            sink.count_dropped(0)  # nothing new: no second gap

        run(config, worker)
        written = records(config.path)
        assert [r["type"] for r in written] == ["gap", "decision"]
        assert written[0]["dropped"] == 4 and written[1]["input"]["tool"]["input"]["file_path"] == "w.txt"
        assert verify(config.path).ok

    def test_a_burst_does_not_hold_the_event_loop(self, tmp_path: Path) -> None:
        config = LogConfig(path=tmp_path / "decisions.log")

        async def burst(log: DecisionLog, sink: Sink[Queued]) -> int:
            done = await decide("a.txt")
            ticks = 0

            async def ticker() -> None:
                nonlocal ticks
                while True:
                    ticks += 1
                    await asyncio.sleep(0)

            task = asyncio.create_task(ticker())
            for _ in range(500):
                sink.put_nowait(Pending(done, time.time(), "socket"))
            while log.written < 500:
                await asyncio.sleep(0)
            task.cancel()
            return ticks

        assert run(config, burst) >= 500 // 32 - 1  # the writer yields every 32 records


class TestSubscribers:
    def test_filtered_fan_out_of_the_exact_lines(self, tmp_path: Path) -> None:
        config = LogConfig(path=tmp_path / "decisions.log")

        async def scenario(log: DecisionLog, sink: Sink[Queued]) -> tuple[list[str], list[str]]:
            every = log.subscribe(Filters())
            denies = log.subscribe(Filters(decisions=frozenset({"deny"}), events=frozenset({"BeforeTool"})))
            for name in ("secret.txt", "a.txt", "secret.txt"):
                sink.put_nowait(Pending(await decide(name), time.time(), "socket"))
            sink.put_nowait(Pending(await decide("", "BeforeAgent"), time.time(), "socket"))
            got_every = [(await asyncio.wait_for(every.next(), 5)) for _ in range(4)]
            got_denies = [(await asyncio.wait_for(denies.next(), 5)) for _ in range(2)]
            assert log.subscribers == 2
            log.unsubscribe(every)
            assert log.subscribers == 1
            return [item[0].line for item in got_every if item], [item[0].line for item in got_denies if item]

        every, denies = run(config, scenario)
        lines = config.path.read_text().splitlines()
        assert every == lines
        assert denies == [lines[0], lines[2]]

    def test_a_slow_reader_loses_its_oldest_and_is_told(self, tmp_path: Path) -> None:
        config = LogConfig(path=tmp_path / "decisions.log")

        async def scenario(log: DecisionLog, sink: Sink[Queued]) -> tuple[int, int]:
            slow = log.subscribe(Filters(), maxsize=2)
            for _ in range(5):
                sink.put_nowait(Pending(await decide("a.txt"), time.time(), "socket"))
            while log.written < 5:
                await asyncio.sleep(0)
            first = await slow.next()
            assert first is not None
            return first[0].seq, first[1]

        assert run(config, scenario) == (4, 3)

    def test_closing_ends_every_subscription(self, tmp_path: Path) -> None:
        config = LogConfig(path=tmp_path / "decisions.log")

        async def scenario(log: DecisionLog, sink: Sink[Queued]) -> object:
            subscription = log.subscribe(Filters())
            waiting = asyncio.create_task(subscription.next())
            await settle()
            log.end_subscriptions()
            return await asyncio.wait_for(waiting, 5)

        assert run(config, scenario) is None

    def test_records_that_come_after_the_streams_ended_are_still_written(self, tmp_path: Path) -> None:
        # At shutdown the control server (and with it the live streams) stops before the hook server, whose
        # requests in flight still record: ending the streams must not end the writer.
        config = LogConfig(path=tmp_path / "decisions.log")

        async def scenario(log: DecisionLog, sink: Sink[Queued]) -> None:
            log.end_subscriptions()
            for name in ("draining.txt", "last.txt"):
                sink.put_nowait(Pending(await decide(name), time.time(), "socket"))
                await settle()  # the writer writes it and, its queue empty, must keep waiting for the next

        run(config, scenario)
        written = [r["input"]["tool"]["input"]["file_path"] for r in records(config.path)]
        assert written == ["draining.txt", "last.txt"]


def test_rotating_file_rotates_before_passing_the_size(tmp_path: Path) -> None:
    out = RotatingFile(tmp_path / "x.log", max_bytes=10, keep=1)
    out.open()
    for text in ("aaaa", "bbbb", "cccc"):
        out.msg(text)
    out.close()
    assert (tmp_path / "x.log.1").read_text() == "aaaa\nbbbb\n"
    assert (tmp_path / "x.log").read_text() == "cccc\n"


class TestRetention:
    def test_filling_the_log_with_allows_never_drops_a_deny(self, tmp_path: Path) -> None:
        """Rotation drops the oldest file, whatever it holds; every record but an allow is also in the kept log,
        which allows never reach: a log filled with allows still holds every deny (docs/decision-log.md)."""
        from hookd.audit.chain import Encoded, kept_path, verify_kept

        path = tmp_path / "decisions.log"
        config = LogConfig(path=path, max_bytes=16 * 1024, keep=1, kept_max_bytes=1 << 20)
        mask = Masker.from_config(config)

        async def scenario(log: DecisionLog, sink: Sink[Queued]) -> list[str]:
            denies = []
            for n in range(600):
                done = await decide("secret.txt" if n % 60 == 0 else f"file-{n}.txt")
                if n % 60 == 0:
                    denies.append(done.decision_id)
                if n % 2:  # a worker's record, as the daemon gets it: encoded, and said to be kept or not
                    record = build_record(Pending(done, time.time(), "socket"), mask)
                    sink.put_nowait(Encoded.of(record))
                else:
                    sink.put_nowait(Pending(done, time.time(), "socket"))
                if n % 50 == 0:
                    await settle()
            allow = build_record(Pending(await decide("plain.txt"), time.time(), "socket"), mask)
            encoded = Encoded.of(allow)
            sink.put_nowait(Encoded(encoded.before, encoded.after, kept=False))
            return denies

        denies = run(config, scenario)
        main = [r for f in (path.with_name("decisions.log.1"), path) for r in records(f)]
        assert len(main) < 200 and not {r["id"] for r in main} >= set(denies)  # rotation dropped the early ones
        held = records(kept_path(path))
        assert [r["id"] for r in held if r["decision"] == "deny"] == denies
        assert all(r["decision"] != "allow" for r in held)
        assert verify_kept(path).ok and verify_kept(path).records == len(held)
        assert verify(path).ok
        held_text = kept_path(path).read_text().splitlines()
        held_text[0] = held_text[0].replace('"deny"', '"allow"')
        kept_path(path).write_text("\n".join(held_text) + "\n")
        assert not verify_kept(path).ok  # an edited kept record is found like an edited chain record
