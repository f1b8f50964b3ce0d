"""A PID spelled as a number (learnt in an earlier call) is named by what runs under it now: the guard's
processes, and what they started, are the guard (hookd.enrich.effects.processes; policies/protected_paths)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from effect_support import ops

from hookd.assembly import build_pipeline, engine_for_dir
from hookd.config import Config, bundled_policies_dir
from hookd.enrich.effects.processes import EVERY_NAME, _names, running_names
from hookd.types import Caller, Deadline, HookRequest, Outcome
from support import eventually


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["/usr/bin/python3.11", "-I", "-m", "hookd", "serve"], ["python3.11", "hookd"]),
        (["/home/u/.local/bin/hookd", "serve"], ["hookd"]),
        (["python3", "-c", "import hookd; hookd.main()"], ["python3"]),  # code is not a name
        (["node", "--inspect", "/srv/app/server.js", "hookd"], ["node", "server.js"]),
        (["vim", "daemon/hookd/pipeline.py"], ["vim"]),  # a file it has open is not its name
        ([], []),
    ],
)
def test_a_process_is_named_by_its_program_and_an_interpreters_module_or_script(
    argv: list[str], names: list[str]
) -> None:
    assert _names(argv) == names


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid`, from each one's /proc/N/stat (no kernel option needed)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if stat[stat.rfind(")") + 2 :].split()[1] == str(pid):
                found.append(int(entry.name))
    return found


def _wait_for_child(pid: int) -> int:
    return eventually(lambda: (_children(pid) or [0])[0], timeout=10, what=f"a child of process {pid}")


@pytest.fixture
def guard() -> Iterator[tuple[int, int, int]]:
    """(a process named hookd, a child it started, an unrelated process): real processes, killed after."""
    named = subprocess.Popen(["hookd", "-c", "sleep 30; :"], executable="/bin/sh")
    other = subprocess.Popen(["sleep", "30"])
    try:
        yield named.pid, _wait_for_child(named.pid), other.pid
    finally:
        for process in (named, other):
            process.kill()
            process.wait(timeout=10)


def test_the_guard_and_what_it_started_are_named_by_the_guards_name(guard: tuple[int, int, int]) -> None:
    named, child, other = guard
    assert "hookd" in running_names(str(named))
    assert "hookd" in running_names(str(child))  # a worker or evaluator is `python -c …`: its parent names it
    assert "hookd" in running_names(f"-{named}")  # a process group
    assert "hookd" not in running_names(str(other))
    assert running_names("999999999") == running_names("1") == running_names("x12") == []


def test_a_signal_or_attach_to_a_number_carries_what_runs_under_it(guard: tuple[int, int, int], tmp_path: Path) -> None:
    _, child, other = guard
    for command in (f"kill -STOP {child}", f"strace -p {child}", f"gdb -p {child} -batch", f"ionice -c3 -p {child}"):
        assert any("hookd" in e.get("running", ()) for e in ops(command, tmp_path, "signal")), command
    assert not any("hookd" in e.get("running", ()) for e in ops(f"kill {other}", tmp_path, "signal"))
    assert [e.get("running") for e in ops(f"strace -f -o trace.txt make -j{other}", tmp_path, "signal")] == []


def decide(commands: list[str], tmp_path: Path) -> list[Outcome]:
    """Each command's outcome under the default policies, as Gemini's shell call in a project of a home."""
    home = tmp_path / "home"
    project = home / "proj"
    project.mkdir(parents=True, exist_ok=True)

    def request(command: str) -> HookRequest:
        payload = {
            "session_id": "s",
            "cwd": str(project),
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": command},
        }
        return HookRequest(
            client="gemini",
            event="BeforeTool",
            payload=json.dumps(payload).encode(),
            env={"GEMINI_PROJECT_DIR": str(project), "HOME": str(home)},
            cwd=str(project),
            caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid()),
            deadline=Deadline.after(10),
        )

    async def handled() -> list[Outcome]:
        engine = engine_for_dir(Config(), bundled_policies_dir())
        try:
            pipeline, _ = build_pipeline(Config(), engine, probe=lambda _pid: True)
            return [(await pipeline.handle(request(c))).decision.outcome for c in commands]
        finally:
            await engine.aclose()

    return asyncio.run(handled())


def test_the_default_policies_deny_stopping_limiting_or_attaching_to_the_guard_by_number(
    guard: tuple[int, int, int], tmp_path: Path
) -> None:
    named, child, other = guard
    attacks = [
        f"kill -9 {named}",
        f"kill -STOP {child}",
        f"strace -fp {child} -e inject=all:error=EPERM",
        f"gdb -batch -ex 'call (void)exit(0)' -p {child}",
        f"prlimit --pid {child} --nofile=0:0",
        f"gcore -o core {named}",
    ]
    everyday = [f"kill {other}", f"strace -p {other}"]  # a dev server stopped or traced by its PID
    assert decide(attacks + everyday, tmp_path) == [Outcome.DENY] * len(attacks) + [Outcome.ALLOW] * len(everyday)


@pytest.mark.parametrize(
    "command",
    [
        "kill -9 $(ps -e -o pid=)",
        "for p in $(ps -eo pid=); do kill -9 $p; done",
        "kill $(ps aux)",
        "p=$(ps -A -o pid=); kill -STOP $p",
    ],
)
def test_a_pid_from_a_listing_of_every_process_looks_up_every_name(command: str, tmp_path: Path) -> None:
    """A listing of every process prints the guard's PID among the rest: the lookup matches every name."""
    assert [EVERY_NAME in e.get("lookup", []) for e in ops(command, tmp_path, "signal")] == [True]


@pytest.mark.parametrize(
    "command", ["kill $(ps -C node -o pid=)", "kill $(ps -e | grep node | awk '{print $1}')", "kill $(cat app.pid)"]
)
def test_a_pid_from_a_narrowed_listing_does_not(command: str, tmp_path: Path) -> None:
    assert all(EVERY_NAME not in e.get("lookup", []) for e in ops(command, tmp_path, "signal"))


@pytest.mark.parametrize(
    "command",
    [
        "ps -eo pid= | xargs kill",  # the listing is what xargs reads
        "ps axo pid= | while read p; do kill -9 $p; done",  # and what the loop reads
        "ps aux | awk '{print $2}' | xargs kill",  # a column of every row is every PID still
        "ps aux | awk 'NR>1 {print $2}' | xargs kill",  # past the header
        "ps -A -o pid | tail -n +2 | xargs kill -9",
        "ps -eo pid | sed 1d | while read p; do kill $p; done",
        "ps -e -o pid= | grep -v 1234 | xargs kill",  # every row but one
    ],
)
def test_a_listing_of_every_process_piped_to_a_signal_looks_up_every_name(command: str, tmp_path: Path) -> None:
    assert [EVERY_NAME in e.get("lookup", []) for e in ops(command, tmp_path, "signal")] == [True]


@pytest.mark.parametrize(
    "command",
    [
        "ps aux | grep 'manage.py runserver' | awk '{print $2}' | xargs kill",  # rows kept by a name
        "ps -eo pid,comm | awk '$2 == \"node\" {print $1}' | xargs -r kill",  # by a pattern
        "ps -e -o pid= | head -3 | xargs kill",
        "pgrep node | xargs kill",
    ],
)
def test_a_listing_narrowed_before_the_signal_does_not(command: str, tmp_path: Path) -> None:
    assert all(EVERY_NAME not in e.get("lookup", []) for e in ops(command, tmp_path, "signal"))


def test_killall_of_a_users_processes_without_a_name_signals_every_process(tmp_path: Path) -> None:
    """killall(1): `-u USER` alone kills every process USER owns (the command names are optional); its options
    that take a value are the man page's (`--user`, `-s`, `-o`, `-y`, `-Z`, `-n`): `-g` takes none."""
    for command in ("killall -u root", "killall --user root", "killall --us root", "killall -u root -s KILL"):
        assert [e["match"] for e in ops(command, tmp_path, "signal")] == ["all"], command
    assert [e["match"] for e in ops("killall -u root node", tmp_path, "signal")] == ["name"]
    assert [e["target"] for e in ops("killall -g hookd", tmp_path, "signal")] == ["hookd"]


@pytest.mark.parametrize(
    "command",
    [
        "ps -eo pid= | tee /dev/null | xargs kill -9",  # tee passes every row on
        "for p in $(ps -eo pid= | tail -n +2); do kill $p; done",  # a substitution's pipe, read as a line's
        "ps -eo pid= | head -n -1 | xargs kill",  # all but the last
        "ps -eo pid= | " + "cat - | " * 70 + "xargs kill -9",  # past the lookup's 64 words: looked up first
    ],
)
def test_a_listing_of_every_process_through_more_pipes_looks_up_every_name(command: str, tmp_path: Path) -> None:
    assert [EVERY_NAME in e.get("lookup", []) for e in ops(command, tmp_path, "signal")] == [True]


@pytest.mark.parametrize(
    "command",
    [
        "ps -eo pid= --sort=start_time | tail -n 1 | xargs kill",  # the newest one
        "ps -eo pid= | head -5 | xargs kill",
        "ps -e -o pid= | grep -evx 1 | xargs kill",  # `-e` takes `vx` as its pattern: not inverted
    ],
)
def test_a_listing_cut_to_a_few_rows_does_not(command: str, tmp_path: Path) -> None:
    assert all(EVERY_NAME not in e.get("lookup", []) for e in ops(command, tmp_path, "signal"))
