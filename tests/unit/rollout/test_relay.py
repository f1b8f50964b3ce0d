"""What a worker process sends the daemon for monitor, shadow and the replay store (hookd.rollout.relay): the
observation's tally adds up in the daemon's counters exactly as counting it there would, and the replay
line reaches the daemon's one store, or is counted when it is too long for the channel."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

from hookd.audit.record import Pending
from hookd.config import Config, ReplayConfig
from hookd.rollout.observe import LayerVerdict, Observed, RolloutCounters, ShadowVerdict
from hookd.rollout.relay import WorkerRollout, receive
from hookd.rollout.store import ReplayStore, read_entries

from .test_store import handled

OBSERVED = [
    Observed(skipped="load"),
    Observed(
        monitor=(LayerVerdict("m", "deny", ("hookd.m:r",)), LayerVerdict("n", "", (), error="boom")),
        shadow=ShadowVerdict("cand", "deny", "allow", (), ("hookd.d:r",)),
    ),
    Observed(monitor=(LayerVerdict("m", "allow", ()),), shadow=ShadowVerdict("cand", "allow", "allow", ())),
    Observed(shadow=ShadowVerdict("cand", "allow", "", (), error="gone")),
]


def counted(counters: RolloutCounters) -> tuple[object, ...]:
    c = counters
    return (c.monitor, c.shadow_evaluated, c.disagreements, c.skipped, c.errors)


def test_a_tally_sent_as_json_counts_in_the_daemon_as_the_observation_counts_where_it_was_made(
    tmp_path: Path,
) -> None:
    config = Config(replay=ReplayConfig(enabled=False))
    worker = WorkerRollout(config, lambda p: None, lambda n: False)
    here, daemon = RolloutCounters(), RolloutCounters()
    take = receive(daemon, None)
    for observed in OBSERVED:
        here.count(observed)
        pending = Pending(handled("ls"), 1.0, "socket", observed)
        take(json.loads(json.dumps(worker.fields(pending))))
    assert counted(daemon) == counted(here)
    assert counted(here) == ({("m", "deny"): 1, ("m", "allow"): 1}, 2, {"deny-to-allow": 1}, {"load": 1}, 2)


def test_a_worker_s_replay_line_is_written_by_the_daemon_s_store_unless_too_long(tmp_path: Path) -> None:
    replay = ReplayConfig(enabled=True, path=tmp_path / "replay")
    config = Config(replay=replay)
    worker = WorkerRollout(config, lambda p: None, lambda n: False)
    small = replace(config, daemon=replace(config.daemon, max_payload_bytes=256))
    tight = WorkerRollout(small, lambda p: None, lambda n: False)
    store = ReplayStore(replay, config.log)
    take = receive(RolloutCounters(), store)
    sent = [worker.fields(Pending(handled("ls", n), 1.0, "socket")) for n in range(3)]
    too_long = tight.fields(Pending(handled("x" * 2000, 9), 1.0, "socket"))
    assert "p" not in too_long and too_long["pd"] == 1 and tight.too_large == 1

    async def main() -> None:
        store.start()
        for fields in [*sent, too_long]:
            take(json.loads(json.dumps(fields)))
        await store.close()

    asyncio.run(main())
    assert [line["id"] for _, line in read_entries(replay.path)] == ["id0", "id1", "id2"]
    assert store.sink.dropped == 1
