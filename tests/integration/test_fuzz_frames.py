"""The quick form of the hook-socket fuzzer (tests/fuzz_frames.py) against a real daemon: every case
gets a well-formed reply or a clear error frame within the deadline, and the daemon survives all of
them with its RSS bounded. The full form (10,000 cases) is one command: see docs/reliability.md."""

from __future__ import annotations

from pathlib import Path

import fuzz_frames

from support import start_daemon

QUICK_CASES = 1500
SEEDS = (1, 13)


def test_fuzzed_frames_get_a_reply_or_a_clear_error_and_the_daemon_lives(tmp_path: Path) -> None:
    daemon = start_daemon(tmp_path)
    try:
        for seed in SEEDS:
            tally = fuzz_frames.run(daemon.socket, daemon.proc.pid, QUICK_CASES // len(SEEDS), seed, 2.5)
            assert tally.failures == [], tally.summary()
            assert tally.ok > 0 and tally.errors, tally.summary()  # both paths were exercised
            assert tally.rss_peak_kb - tally.rss_start_kb < 100 * 1024, tally.summary()
        assert daemon.proc.poll() is None
        assert "Traceback" not in daemon.log()
    finally:
        daemon.stop()
