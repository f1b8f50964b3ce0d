"""The quick form of the hook-socket fuzzer (tests/fuzz_frames.py) against a real daemon with the shipped
policies, a worker and the lane: every case gets a well-formed reply or a clear error frame within the
deadline, and the daemon and its child processes survive all of them with its RSS bounded. The full form
(100,000 cases over 5 seeds) is one command: see docs/reliability.md."""

from __future__ import annotations

from pathlib import Path

import fuzz_frames

from hookd import wire
from support import FIXTURES, ROOT, eventually, send_frame, start_daemon

QUICK_CASES = 2000  # for each seed
SEEDS = (1, 2, 7, 13, 29)  # 2 and 7 crashed the daemon before issue 25 (their frames are kept in FIXTURES/fuzz)


def test_fuzzed_frames_get_a_reply_or_a_clear_error_and_no_process_dies(tmp_path: Path) -> None:
    daemon = start_daemon(tmp_path, ROOT / "policies", "[daemon]\nworkers = 2\n")
    try:
        serving = ('"worker_serving"', '"lane_serving"')
        eventually(lambda: all(s in daemon.log() for s in serving), timeout=30, what="the worker and the lane serving")
        for seed in SEEDS:
            tally = fuzz_frames.run(daemon.socket, daemon.proc.pid, QUICK_CASES, seed, 2.5)
            assert tally.failures == [], tally.summary()
            assert tally.ok > 0 and tally.errors, tally.summary()  # both paths were exercised
            assert tally.rss_peak_kb - tally.rss_start_kb < 100 * 1024, tally.summary()
        assert daemon.proc.poll() is None
        assert fuzz_frames.children_exited(daemon.log()) == []
        assert "Traceback" not in daemon.log()
    finally:
        daemon.stop()


def test_the_frames_that_crashed_the_daemon_are_answered(tmp_path: Path) -> None:
    # Seed 7 case 4,289 and seed 2 case 8,983 of the fuzzer before issue 25: payloads whose lone surrogate
    # escapes (a flipped byte split a pair) segfaulted regorus's set_input.
    daemon = start_daemon(tmp_path, ROOT / "policies")
    try:
        for frame in sorted((FIXTURES / "fuzz").glob("*.frame")):
            for _ in range(3):
                verdict = fuzz_frames.judge(send_frame(daemon.socket, frame.read_bytes(), timeout=20, shut_write=True))
                assert verdict == "ok" or verdict.startswith("error:"), (frame.name, verdict)
        assert daemon.proc.poll() is None
        reply = wire.decode_reply(send_frame(daemon.socket, (FIXTURES / "fuzz" / "seed7-case4289.frame").read_bytes()))
        assert reply.status == wire.Status.OK
    finally:
        daemon.stop()
