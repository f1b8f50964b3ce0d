"""holes44: a tracer or debugger attached to a running process that prints its data reads its memory (/proc/PID/mem,
enrich/effects/traced.py): strace's long forms of the dump qualifiers (`--read=FD`, `--write=FD`, as `-e read=FD`)
and a gdb command handed by `-ex` that prints or copies memory (`x/s $rsp`, `print`, `dump`: `shows`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects


def _memory(command: str, proj: Path) -> bool:
    return any(e["op"] == "read" and str(e["path"]).endswith("/mem") for e in effects(command, proj))


@pytest.mark.parametrize(
    "command",
    [
        "strace -p 1234 --read=3",
        "strace -p 1234 --write=1 -o /tmp/t",
        "strace --attach=1234 --read=all",
        "strace -p 1234 --rea=0",  # an unambiguous prefix, as getopt_long takes it
        "gdb --pid 1234 --batch -ex 'x/s $rsp'",
        "gdb -p 1234 -batch -ex 'print (char*)getenv(\"AWS_SECRET_ACCESS_KEY\")'",
        "gdb -p 1234 -batch --eval-command='dump memory /tmp/m 0x1000 0x2000'",
        "gdb -p 1234 -batch -ex 'generate-core-file /tmp/core'",
    ],
)
def test_an_attached_process_whose_data_is_printed_is_read(command: str, proj: Path) -> None:
    assert _memory(command, proj)


@pytest.mark.parametrize(
    "command",
    [
        "strace -p 1234 -e trace=network",
        "strace -c -p 1234",
        "gdb -p 1234 -batch -ex bt",
        "gdb -p 1234 -batch -ex 'info threads' -ex 'thread apply all bt'",
        "gdb -batch -ex run -ex 'print x' ./build/app",  # the developer's own program, started by gdb
    ],
)
def test_attaching_without_printing_data_is_not(command: str, proj: Path) -> None:
    assert not _memory(command, proj)
