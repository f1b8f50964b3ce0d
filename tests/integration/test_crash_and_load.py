"""Reliability under crashes, load and time, each with the figures docs/reliability.md reports.

* Crash consistency: a loaded daemon (one process, and `workers = 2`) is sent SIGKILL or SIGTERM, again
  and again on the same decision log; each round counts the answered requests whose record is missing,
  checks that nothing answered after a kill and that the next daemon starts, and the chain stays intact.
* Load: 20,000 requests at concurrency 64: no errors, every one of them in the decision log.
* Soak: a steady load for HOOKD_SOAK_S seconds (20 in CI; 600 for the figures) with RSS and open
  descriptors of the daemon and its worker sampled each second: flat RSS, no descriptor growth.

Figures are printed (run with `-s`). The full form, for docs/reliability.md:
  HOOKD_CRASH_ROUNDS=5 HOOKD_LOAD_WORKERS="1 2" HOOKD_SOAK_S=600 ./dev test -s tests/integration/test_crash_and_load.py
(CI: 2 crash rounds, the load with `workers = 2`, a 20 s soak.)
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import statistics
import time
from pathlib import Path

import pytest
from load_support import (
    Load,
    logged_files,
    process_usage,
    requests,
    verify_chain,
    wait_for_lines,
    wait_until_gone,
    worker_pids,
)

from hookd import wire
from hookd.procs.child import UNACKED_LIMIT
from support import DEMO_POLICIES, RunningDaemon, start_daemon

CLIENTS = 16
ROUNDS = int(os.environ.get("HOOKD_CRASH_ROUNDS", "2"))
SOAK_S = float(os.environ.get("HOOKD_SOAK_S", "20"))
SOAK_RATE = 200  # requests per second
LOAD_REQUESTS, LOAD_CONCURRENCY = 20_000, 64
LOAD_WORKERS = [int(n) for n in os.environ.get("HOOKD_LOAD_WORKERS", "2").split()]  # "1 2" for the figures


def serve(tmp_path: Path, workers: int, previous: RunningDaemon | None = None) -> RunningDaemon:
    config = f"[daemon]\nworkers = {workers}\n"
    if previous is None:
        daemon = start_daemon(tmp_path, DEMO_POLICIES, config=config)
    else:
        env = {"XDG_STATE_HOME": str(previous.state_dir)}
        daemon = start_daemon(tmp_path, DEMO_POLICIES, config=config, runtime_dir=previous.runtime_dir, env=env)
    end = time.monotonic() + 30
    while len(worker_pids(daemon)) < workers - 1 or (workers > 1 and '"worker_serving"' not in daemon.log()):
        assert time.monotonic() < end, daemon.log()[-2000:]
        time.sleep(0.05)
    return daemon


def report(name: str, **figures: object) -> None:
    print(f"\nRELIABILITY {name} {json.dumps(figures)}")


@pytest.mark.timeout(120 + 60 * ROUNDS)
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_crash_consistency_under_load(tmp_path: Path, workers: int, sig: signal.Signals) -> None:
    daemon = serve(tmp_path, workers)
    lost_per_round, answered_total = [], 0
    for round_ in range(ROUNDS):
        pids = worker_pids(daemon)
        load = Load(daemon, CLIENTS, prefix=f"r{round_}c")
        try:
            wait_for_lines(daemon, (round_ + 1) * 400)
            daemon.stop(sig, timeout=30)
            ended = time.monotonic()
            wait_until_gone(pids)
            time.sleep(0.2)  # the clients keep asking meanwhile
        finally:
            load.stop()
        answered = load.answered()
        if sig is signal.SIGKILL:
            assert not [name for sent, name in answered if sent > ended], "answers after the daemon was killed"
        daemon = serve(tmp_path, workers, previous=daemon)  # the restart works, on the same socket and log
        logged = logged_files(daemon)
        lost_per_round.append(len([name for _, name in answered if name not in logged]))
        answered_total += len(answered)
    try:
        assert asyncio.run(requests(daemon.socket, ["after.txt"], 1)) == {"after.txt": wire.Status.OK}
        wait_for_lines(daemon, 1)
    finally:
        daemon.stop()
    chain = verify_chain(daemon)
    report(
        f"crash {sig.name} workers={workers}",
        rounds=ROUNDS,
        answered=answered_total,
        lost_per_round=lost_per_round,
        chain=chain.strip().splitlines()[-1],
    )
    if sig is signal.SIGTERM:  # a clean stop answers and records every request it took
        assert max(lost_per_round) == 0, lost_per_round
    else:
        assert max(lost_per_round) <= CLIENTS * workers + UNACKED_LIMIT * (workers - 1), lost_per_round


@pytest.mark.timeout(600)
@pytest.mark.parametrize("workers", LOAD_WORKERS)
def test_20000_requests_at_concurrency_64_lose_nothing(tmp_path: Path, workers: int) -> None:
    daemon = serve(tmp_path, workers)
    names = [f"load-{i}.txt" for i in range(LOAD_REQUESTS)]
    try:
        started = time.monotonic()
        answers = asyncio.run(requests(daemon.socket, names, LOAD_CONCURRENCY))
        seconds = time.monotonic() - started
        daemon.decisions(at_least=LOAD_REQUESTS, timeout=60)
    finally:
        daemon.stop()
    errors = [name for name, status in answers.items() if status is not wire.Status.OK]
    missing = set(names) - logged_files(daemon)
    report(
        f"load workers={workers}",
        requests=len(answers),
        concurrency=LOAD_CONCURRENCY,
        errors=len(errors),
        lost=len(missing),
        per_second=round(len(answers) / seconds),
    )
    assert not errors and not missing
    verify_chain(daemon)


@pytest.mark.timeout(SOAK_S + 180)
def test_soak_keeps_rss_flat_and_descriptors_constant(tmp_path: Path) -> None:
    daemon = serve(tmp_path, 2)
    pids = [daemon.proc.pid, *worker_pids(daemon)]
    samples: list[tuple[int, int]] = []

    async def soak() -> int:
        count = 0
        end = time.monotonic() + SOAK_S
        while time.monotonic() < end:
            names = [f"soak-{count + i}.txt" for i in range(SOAK_RATE)]
            answers = await requests(daemon.socket, names, 8, rate=SOAK_RATE)
            assert set(answers.values()) == {wire.Status.OK}
            count += len(names)
            samples.append(process_usage(pids))
        return count

    try:
        sent = asyncio.run(soak())
    finally:
        daemon.stop()
    quarter = max(1, len(samples) // 4)
    first = samples[quarter : 2 * quarter] or samples[:1]  # after the warm-up
    last = samples[-quarter:]
    rss_first, rss_last = statistics.median(s[0] for s in first), statistics.median(s[0] for s in last)
    fds = [s[1] for s in samples]
    report(
        "soak workers=2",
        seconds=SOAK_S,
        requests=sent,
        rss_kib_first=rss_first,
        rss_kib_last=rss_last,
        rss_kib_peak=max(s[0] for s in samples),
        fds_first=fds[quarter],
        fds_last=fds[-1],
        fds_max=max(fds),
    )
    assert rss_last - rss_first < 16 * 1024, (rss_first, rss_last)  # KiB
    assert max(fds[quarter:]) <= fds[quarter] + 4, fds
