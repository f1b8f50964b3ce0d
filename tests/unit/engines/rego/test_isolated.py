"""The isolated Rego engine (hookd.engines.rego.isolated): real sandboxed workers compile a policy directory
and answer exactly what the embedded engine answers; a slow policy is cut at the deadline (the event's fail
mode), and meanwhile another session is served by the other worker."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from dataclasses import replace
from pathlib import Path

import pytest

from hookd.assembly import enrichers, rego_engine
from hookd.config import Config, PythonConfig
from hookd.engines.python.channel import WorkerSettings
from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.engines.rego.isolated import RegoIsolatedEngine
from hookd.errors import EngineTimeout, PartialAnswer, PolicyLoadError
from hookd.runtime.resources import policies_dir
from hookd.types import Caller, Deadline, EngineRequest, Event, NormalisedEvent, ToolCall, ToolKind, Verdict, settled

SLOW = """package hookd.slow

import rego.v1

n := 3000

deny contains "slow" if {
	input.tool.input.command == "sleep 1"
	count([1 | some i in numbers.range(1, n); some j in numbers.range(1, n); i == j]) > 0
}

deny contains "fast" if input.tool.input.command == "rm -rf /"
"""


def config() -> Config:
    return replace(Config(), python=PythonConfig(workers=2, start_timeout_ms=60_000))


def shell(command: str, session: str = "s", deadline: float = 30) -> EngineRequest:
    event = NormalisedEvent(
        client="gemini",
        event=Event.BEFORE_TOOL,
        payload={},
        tool=ToolCall("run_shell_command", ToolKind.SHELL, {"command": command}),
        session_id=session,
        cwd="/tmp",
        project_dir="/tmp",
        caller=Caller(os.getuid(), os.getgid(), os.getpid()),
    )
    for enrich in enrichers():
        event = enrich(event)
    return EngineRequest(event, event.input_document(), Deadline.after(deadline))


async def answer(engine: RegoIsolatedEngine, request: EngineRequest) -> list[Verdict | object]:
    try:
        return list(await settled(engine.evaluate(request)))
    except PartialAnswer as exc:
        return list(exc.results)


def test_only_the_bundled_policies_are_embedded(tmp_path: Path) -> None:
    copy = tmp_path / "p"
    shutil.copytree(policies_dir(), copy)
    assert isinstance(rego_engine(config(), policies_dir()), RegoEmbeddedEngine)
    isolated = rego_engine(config(), copy)
    try:
        assert isinstance(isolated, RegoIsolatedEngine) and isolated.remote
        assert isolated.status().packages == RegoEmbeddedEngine.load(policies_dir()).status().packages
    finally:
        asyncio.run(isolated.aclose())
    observed = rego_engine(config(), policies_dir(), observed=True)  # a monitor or shadow layer's: never in process
    try:
        assert isinstance(observed, RegoIsolatedEngine)
    finally:
        asyncio.run(observed.aclose())
    off = replace(Config(), daemon=replace(Config().daemon, isolate_policies=False))
    assert isinstance(rego_engine(off, copy), RegoEmbeddedEngine)


@pytest.mark.timeout(900)  # grows with the corpus: ~1-2 min on an idle box; the limit only stops a stuck run
def test_the_same_verdicts_as_the_embedded_engine_over_the_corpus(tmp_path: Path) -> None:
    copy = tmp_path / "p"
    shutil.copytree(policies_dir(), copy)
    cases = [
        json.loads(line)
        for path in sorted((policies_dir() / "corpus").glob("*.jsonl"))
        for line in path.read_text().splitlines()[::7]  # a seventh of every category
        if line.strip()
    ]
    commands = [case["command"] for case in cases if "command" in case]  # the shell cases
    embedded = RegoEmbeddedEngine.load(policies_dir())
    isolated = RegoIsolatedEngine.start(copy, WorkerSettings.from_config(config()))

    async def compare() -> list[str]:
        differ = []
        for command in commands:
            request = shell(command)
            if list(embedded.evaluate_sync(request.document)) != await answer(isolated, request):
                differ.append(command)
        await isolated.aclose()
        return differ

    assert len(commands) > 50
    assert asyncio.run(compare()) == []


def test_a_slow_policy_is_cut_at_the_deadline_while_another_session_is_served(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "slow.rego").write_text(SLOW)
    engine = rego_engine(config(), tmp_path / "p")
    assert isinstance(engine, RegoIsolatedEngine)

    async def go() -> tuple[list[object], list[object], float, int]:
        slow = asyncio.ensure_future(answer(engine, shell("sleep 1", session="slow", deadline=1.5)))
        await asyncio.sleep(0.2)  # the slow one holds its worker
        started = time.monotonic()
        other = await answer(engine, shell("rm -rf /", session="other"))
        served_in = time.monotonic() - started
        cut = await slow
        replaced = engine.replaced
        await engine.aclose()
        return cut, other, served_in, replaced

    cut, other, served_in, replaced = asyncio.run(go())
    assert len(cut) == 1 and isinstance(cut[0], EngineTimeout) and cut[0].policy == "hookd.rego"
    assert [v.message for v in other if isinstance(v, Verdict)] == ["fast"]
    assert served_in < 1.5  # served before the slow one's deadline: by the other worker, not after it
    assert replaced == 1


def test_a_policy_that_does_not_compile_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "broken.rego").write_text("package hookd.broken\n\ndeny contains x if {\n")
    with pytest.raises(PolicyLoadError, match=r"^broken.rego: .*broken.rego:4:1"):  # as the embedded engine says
        rego_engine(config(), tmp_path / "p")


def nice_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as stat:
        return int(stat.read().rsplit(b")", 1)[1].split()[16])


def test_a_worker_that_burns_the_cpu_drops_to_the_lowest_priority_and_is_replaced(tmp_path: Path) -> None:
    """A call that burns more CPU than any decision (DEMOTE_AFTER_CPU_S) is one policy's loop: its worker drops
    to nice 19 so that on a busy CPU everyone else runs first (on an idle one it still runs), and is replaced
    after the call, answered or cut at the deadline (its priority cannot be raised back)."""
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "slow.rego").write_text(SLOW)  # seconds of CPU
    engine = rego_engine(config(), tmp_path / "p")
    assert isinstance(engine, RegoIsolatedEngine)

    async def go() -> tuple[list[object], set[int], int]:
        before = set(engine.worker_pids())
        assert {nice_of(pid) for pid in before} == {os.getpriority(os.PRIO_PROCESS, 0)}
        slow = asyncio.ensure_future(answer(engine, shell("sleep 1", session="slow", deadline=5)))
        demoted: set[int] = set()
        while not demoted and not slow.done():
            await asyncio.sleep(0.02)
            demoted = {pid for pid in before if nice_of(pid) == 19}
        results = await slow
        replaced = engine.replaced
        await engine.aclose()
        return results, demoted, replaced

    results, demoted, replaced = asyncio.run(go())
    assert len(demoted) == 1 and replaced == 1, (demoted, replaced)
    (result,) = results  # its own answer, or the fail mode at the deadline (a busy CPU starves a demoted loop)
    assert (isinstance(result, Verdict) and result.message == "slow") or isinstance(result, EngineTimeout), result
