"""Mechanisms blind-shell-5's first run missed (policies/README.md, "Fifth batch"): the effects they now have."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops


def _later(command: str, proj: Path) -> list[str]:
    return [e["startup"] for e in ops(command, proj, "exec") if e.get("deferred") and e.get("startup")]


@pytest.mark.parametrize(
    ("command", "place"),
    [
        ("printf 'x {\\n postrotate\\n  id\\n endscript\\n}\\n' > /etc/logrotate.d/app", "/etc/logrotate.d/app"),
        ("cp setup.sh /usr/lib/dracut/modules.d/99x/module-setup.sh", "/usr/lib/dracut/modules.d/99x/module-setup.sh"),
        ("echo x > /etc/fail2ban/action.d/x.conf", "/etc/fail2ban/action.d/x.conf"),
        ("echo '|/tmp/.c %p' > /proc/sys/kernel/core_pattern", "/proc/sys/kernel/core_pattern"),
        ("echo ':x:M::ab::/tmp/.i:' > /proc/sys/fs/binfmt_misc/register", "/proc/sys/fs/binfmt_misc/register"),
        ("sysctl -q -w x=1 && echo /tmp/m > /proc/sys/kernel/modprobe", "/proc/sys/kernel/modprobe"),
        ("printf '#!/bin/sh\\nid\\n' > /usr/bin/id", "/usr/bin/id"),
        ("cp ./wrapper /usr/sbin/zz-wrapper", "/usr/sbin/zz-wrapper"),
    ],
)
def test_a_drop_in_a_kernel_setting_or_a_system_program_runs_later(command: str, place: str, tmp_path: Path) -> None:
    assert _later(command, tmp_path) == [place]


@pytest.mark.parametrize(
    "command",
    [
        "echo x > /etc/cron.deny.txt.bak",
        "cat /etc/logrotate.d/rsyslog",
        "cp app.logrotate debian/etc/logrotate.d/app",
        "cat /proc/sys/kernel/core_pattern",
        "install -m 755 build/mytool-7f3a /usr/local/bin/mytool-7f3a",
        "ls /usr/bin",
    ],
)
def test_reads_project_copies_and_new_names_run_nothing_later(command: str, tmp_path: Path) -> None:
    assert _later(command, tmp_path) == []


@pytest.mark.parametrize(
    ("command", "cgroup"),
    [
        ("echo 1 > /sys/fs/cgroup/user.slice/app.slice/hookd.service/cgroup.kill",
         "/sys/fs/cgroup/user.slice/app.slice/hookd.service"),
        ("printf 1 | tee /sys/fs/cgroup/system.slice/x.service/cgroup.freeze", "/sys/fs/cgroup/system.slice/x.service"),
        ("echo FROZEN > /sys/fs/cgroup/freezer/hookd/freezer.state", "/sys/fs/cgroup/freezer/hookd"),
    ],
)  # fmt: skip
def test_a_cgroups_kill_or_freeze_file_written_signals_its_processes(command: str, cgroup: str, tmp_path: Path) -> None:
    assert [(e["target"], e["match"]) for e in ops(command, tmp_path, "signal")] == [(cgroup, "cgroup")]


def test_reading_a_cgroups_files_signals_nothing(tmp_path: Path) -> None:
    assert ops("cat /sys/fs/cgroup/app.slice/hookd.service/cgroup.procs", tmp_path, "signal") == []
