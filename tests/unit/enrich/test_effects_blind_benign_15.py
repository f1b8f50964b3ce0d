"""What blind-benign-15's first run showed (policies/README.md, "A fifteenth blind batch, benign only"): an unknown
program given a command substitution's output is guessed to read a file only when that output may name one
(hookd.enrich.effects.guessed), and the catch that had hidden behind it, a process's memory dumped, is judged as
the read it is (programs.json `gcore.reads_memory`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops


def _reads(command: str, proj: Path) -> list[str]:
    return [str(e.get("raw") or e["path"]) for e in ops(command, proj, "read")]


def test_a_package_name_in_a_device_command_is_no_file(proj: Path) -> None:
    assert _reads("adb logcat --pid=$(adb shell pidof -s com.acme.fieldnotes) -v time", proj) == []


@pytest.mark.parametrize(
    "command",
    ["mytool $(cat list.txt)", "mytool --in=$(foo)/x.txt", "mytool $(ls ~/.ssh)", "mytool $(basename id_rsa.pub)"],
)
def test_a_substitution_that_may_print_a_name_is_still_guessed(command: str, proj: Path) -> None:
    assert _reads(command, proj)


@pytest.mark.parametrize(("command", "dumped"), [("gcore -o /tmp/rw $(pgrep -f Runner)", 1), ("gcore 1234 5678", 2)])
def test_a_core_dump_reads_the_processs_memory(command: str, dumped: int, proj: Path) -> None:
    memory = [r for r in _reads(command, proj) if r.startswith("/proc/") and r.endswith("/mem")]
    assert len(memory) == dumped
