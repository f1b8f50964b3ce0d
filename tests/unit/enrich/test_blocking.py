"""hookd.enrich.blocking: a read that may block refuses on the event loop (the pipeline then enriches on its
reading threads), through the steps that turn any error into a fallback."""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
from pathlib import Path

import pytest

from hookd.enrich.blocking import READERS, NeedsBlockingRead, blocking_read, off_loop, on_loop
from hookd.enrich.effects.worktree import Readings
from hookd.enrich.shell.analysis import analyse_shell


def test_a_blocking_read_refuses_on_the_loop_only() -> None:
    blocking_read("x")  # outside: the CLI, tests, the reading threads
    with on_loop(), pytest.raises(NeedsBlockingRead):
        blocking_read("x")
    blocking_read("x")


def test_the_refusal_passes_the_steps_that_catch_every_error() -> None:
    with on_loop(), pytest.raises(NeedsBlockingRead):
        try:
            Readings().nothing("uncommitted", "/", "/nonexistent/.git", "/")
        except Exception:  # what the shell analysis and the parsers do with an error
            pytest.fail("caught as an error")


def test_a_repository_reading_in_a_command_refuses_on_the_loop(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True, timeout=60,
                   env={"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "PATH": os.defpath})  # fmt: skip
    place = {"home": "/home/u", "base_dir": str(tmp_path), "project_dir": str(tmp_path)}
    assert analyse_shell("git reset --hard", **place)[1]  # outside: read, a loss (an empty repository's HEAD)
    with on_loop(), pytest.raises(NeedsBlockingRead):
        analyse_shell("git reset --hard", **place)


def test_a_call_whose_time_passed_while_it_waited_never_starts() -> None:
    held, entered, started = threading.Event(), threading.Semaphore(0), []

    def holding() -> bool:
        entered.release()
        return held.wait(10)

    async def scenario() -> None:
        hold = [asyncio.ensure_future(off_loop(holding, 10)) for _ in range(READERS)]  # every reading thread
        assert await asyncio.to_thread(lambda: all(entered.acquire(timeout=10) for _ in range(READERS)))
        with pytest.raises(TimeoutError):
            await off_loop(lambda: started.append(1), 0.05)
        held.set()
        await asyncio.gather(*hold)

    asyncio.run(scenario())
    assert started == []
