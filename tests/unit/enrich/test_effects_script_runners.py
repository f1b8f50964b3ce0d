"""A script runner's command (`script -qc CMD`, `flock L -c CMD`) is walked by the shell builder as a command of its
own (shell.runners.SCRIPT_RUNNERS), so the effect model does not also take it for code handed to an unknown program
(asked); script(1)'s operand is the typescript it writes, its `-c` value no file."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, effects


@pytest.mark.parametrize(
    "line",
    [
        "script -qec 'git log -5' /dev/null",
        "script -q -c 'npm test' /dev/null",
        "script --command='make check' out.log",
        "flock /tmp/build.lock -c 'make -j2'",
        "flock -c 'git fetch' .git/fetch.lock",
    ],
)
def test_a_runners_command_is_not_unknown_code(line: str, tmp_path: Path) -> None:
    assert not [e for e in effects(line, tmp_path) if e["op"] == "exec" and not e.get("known", True)]


def test_the_command_is_judged_as_itself(tmp_path: Path) -> None:
    found = effects("script -qec 'rm -rf ~/Documents' /dev/null", tmp_path)
    assert [e["path"] for e in found if e["op"] == "delete"] == [f"{HOME}/Documents"]
    assert [e["path"] for e in found if e["op"] == "write"] == ["/dev/null"]


def test_a_typescript_and_logs_are_written(tmp_path: Path) -> None:
    found = effects("script -B io.log -c 'make test' session.txt", tmp_path)
    assert sorted(Path(e["path"]).name for e in found if e["op"] == "write") == ["io.log", "session.txt"]


@pytest.mark.parametrize(
    "line",
    ["parallel echo :::: ~/.ssh/id_ed25519", "parallel -a ~/.ssh/id_ed25519 ls -l ~/.ssh/id_ed25519"],
)
def test_a_word_handed_on_is_still_a_file_the_program_may_read(line: str, tmp_path: Path) -> None:
    read = [e["path"] for e in effects(line, tmp_path) if e["op"] == "read"]
    assert f"{HOME}/.ssh/id_ed25519" in read
