"""pkgsrc50: sysctl's operands are parameters of /proc/sys (effects/kernel_params.py, the catalogue's
`parameters`): a name alone is read, `NAME=VALUE`, `-w`, `-p FILE` and `--system` write; and less's `+cmd` is
read in less's command language (languages.json `less`): moving and searching are inert."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects


def _touched(command: str, proj: Path) -> list[tuple[str, str]]:
    return [
        (str(e["op"]), str(e["path"])) for e in effects(command, proj) if e["op"] in ("read", "write") and e["path"]
    ]


@pytest.mark.parametrize(
    ("command", "touched"),
    [
        ("sysctl vm.swappiness net.core.somaxconn", [("read", "/proc/sys/vm/swappiness"),
                                                      ("read", "/proc/sys/net/core/somaxconn")]),
        ("sysctl -n kernel.hostname", [("read", "/proc/sys/kernel/hostname")]),
        ("sysctl vm.swappiness=10", [("write", "/proc/sys/vm/swappiness")]),
        ("sysctl -w net.ipv4.ip_forward=1", [("write", "/proc/sys/net/ipv4/ip_forward")]),
        ("sysctl -q -w kernel.core_pattern='|/tmp/x %p'", [("write", "/proc/sys/kernel/core_pattern")]),
        ("sysctl -p /etc/sysctl.d/99-x.conf", [("read", "/etc/sysctl.d/99-x.conf"), ("write", "/proc/sys")]),
        ("sysctl --system", [("write", "/proc/sys")]),
        ("sysctl -n /../../etc/shadow", [("read", "/etc/shadow")]),  # GTFOBins' file-read
    ],
)  # fmt: skip
def test_sysctls_operands_are_parameters_read_or_written(
    command: str, touched: list[tuple[str, str]], proj: Path
) -> None:
    assert _touched(command, proj) == touched


def test_a_read_of_parameters_runs_nothing(proj: Path) -> None:
    """GTFOBins' `command` function of sysctl is a write of kernel.core_pattern, not any operand run."""
    assert not [e for e in effects("sysctl vm.swappiness net.core.somaxconn", proj) if e["op"] == "exec"]


def _pager_code_known(command: str, proj: Path) -> bool:
    return all(e["known"] for e in effects(command, proj) if e["op"] == "exec")


@pytest.mark.parametrize("command", ["less +G app.log", "less +F app.log", "less +/ERROR app.log", "less +120 a.log",
                                     "less +50% a.log", "more +100 a.log", "less '+?timeout' a.log"])  # fmt: skip
def test_a_pagers_moving_and_searching_commands_are_inert(command: str, proj: Path) -> None:
    assert _pager_code_known(command, proj)


@pytest.mark.parametrize(
    "command",
    ["less '+!id' a.log", "less '+s/tmp/out' a.log", "less +v a.log", "less '+:e ~/.ssh/id_rsa' a.log",
     "less '+-o/tmp/log' a.log", "less +E a.log"],
)  # fmt: skip
def test_a_pagers_commands_that_run_write_or_open_stay_unknown(command: str, proj: Path) -> None:
    assert not _pager_code_known(command, proj)
