"""Fixtures of the end-to-end tests: the network namespace every real agent runs in (tests/confine.py), and
the fake model server, daemon, Copilot cache and marker directory that test_agents.py, test_switches.py
and test_subagents.py share. They are defined here, once, so that the session starts each of them once:
a session-scoped fixture a test module imports from another is a second fixture of that module, which
would start a second server and daemon and make Copilot unpack itself (235 MB) again."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confine import Netns, close_shared_netns, shared_netns
from e2e.test_agents import FAKE_LLM, POLICIES, Server

from support import RunningDaemon, start_daemon

# Modules whose module fixtures are costly (a release build and its installs; one daemon and model turns that
# several tests read): ./dev test runs tests/e2e on several xdist workers, and sends every test of one of these
# modules to the same worker, so that each such fixture is made once. Every other test of tests/e2e is
# scheduled alone; a module from outside tests/e2e that ./dev runs in the same parallel phase (its
# parallel_modules) goes whole to one worker, so that its module fixtures (a daemon, installs) start once too.
# (xdist's own xdist_group mark does nothing under pytest 9.2: it renames item._nodeid, which pytest 9 no
# longer reads.)
ONE_WORKER = ("tests/e2e/test_gemini_cli.py", "tests/e2e/test_claude_code.py", "tests/e2e/test_installed_wheel.py")
# integration modules whose tests share nothing, each its own long run: spread over the workers like e2e tests
APART = ("tests/integration/test_corpus_verdicts.py",)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    from xdist.scheduler import LoadScopeScheduling

    class ModulesTogether(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            together = module in ONE_WORKER or not (module.startswith("tests/e2e/") or module in APART)
            return module if together else nodeid

    return ModulesTogether(config, log)


@pytest.fixture(scope="session")
def netns() -> Netns:
    """The session's own network namespace, only `lo` up: fake model servers listen there, agents run there."""
    return shared_netns()


def pytest_sessionfinish() -> None:
    """The namespace's holder ends with the session, not only at exit: an xdist worker may leave without
    running atexit handlers, and the holder must not outlive the test run."""
    close_shared_netns()


@pytest.fixture(scope="session")
def server(netns: Netns, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The fake model server of test_agents.py (tests/fake_llm.py), in the session's network namespace."""
    log = tmp_path_factory.mktemp("fake-llm") / "requests.jsonl"
    argv = ["nsenter", "-t", str(netns.pid), "-n", "--", sys.executable, str(FAKE_LLM), "0", str(log), "-"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()  # "READY <port>", printed once it listens
    assert line.startswith("READY "), line
    yield Server(proc, int(line.split()[1]), log, netns)
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="session")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    """The daemon of test_agents.py's policies (fixtures/agents-policies) the agents' installs talk to."""
    root = tmp_path_factory.mktemp("hookd")
    runtime_dir = Path(tempfile.mkdtemp(prefix="hkd", dir="/tmp")) / "run"
    running = start_daemon(root, POLICIES, f'[daemon]\nruntime_dir = "{runtime_dir}"\n', runtime_dir)
    yield running
    running.stop()


@pytest.fixture(scope="session")
def copilot_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("copilot-cache")  # Copilot unpacks 235 MB on its first start: once


@pytest.fixture
def target() -> Iterator[Path]:
    """A fresh directory for the markers a test's agent runs leave (or must not leave)."""
    directory = Path(tempfile.mkdtemp(prefix="hookd-agents-"))
    yield directory
    shutil.rmtree(directory, ignore_errors=True)
