"""fp48: a file read whose name is built only from numbers (a substitution that prints one, or a file holding one
the line did not write) is placed with the number's stand-in and judged as a known path; any other expansion
leaves it unknown (enrich/effects/bounded.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects


def _read(command: str, proj: Path) -> tuple[str, bool]:
    found = [e for e in effects(command, proj) if e["op"] == "read" and any(c in e.get("raw", "") for c in "$`")]
    assert len(found) == 1, found
    return found[0]["path"], found[0]["known"]


@pytest.mark.parametrize(
    ("command", "path"),
    [
        (
            'cat "/sys/fs/cgroup/user.slice/user-$(id -u).slice/memory.current"',
            "/sys/fs/cgroup/user.slice/user-N.slice/memory.current",
        ),
        ("cat /run/user/$(id -ru)/app.pid", "/run/user/N/app.pid"),
        ("cat /proc/`pidof node`/status", "/proc/PID/status"),
        ("cat /proc/$(pgrep -f 'gunicorn: master')/cmdline", "/proc/PID/cmdline"),
        ("cat /proc/$(pgrep -x sshd)/root/home/u/.ssh/id_rsa", "/proc/PID/root/home/u/.ssh/id_rsa"),
        ("cat /sys/devices/system/cpu/cpu$(nproc)/online", "/sys/devices/system/cpu/cpuN/online"),
    ],
)
def test_a_name_built_from_printed_numbers_is_placed(command: str, path: str, tmp_path: Path) -> None:
    assert _read(command, tmp_path) == (path, True)


@pytest.mark.parametrize(
    "command",
    [
        "cat /proc/$(pgrep -l hookd)/status",  # -l adds the name: `1 hookd` splits the word
        "cat /proc/$(pgrep -a hookd)/status",  # -a the whole command line, slashes too
        "cat /proc/$(id -un)/status",  # a name, not a number
        "cat /proc/$(pgrep x | sed s/1/../)/status",  # a pipeline's output is the last command's
        "cat /proc/$(pgrep x; echo ..)/status",
        "cat /proc/$(cat name.txt)/status",  # a file whose text is not a number (or absent)
        "grep -r x /proc/$(pgrep a)/status",  # recursive: an unquoted lookup printing two PIDs splits the word
        "cat /proc/$(pgrep $X)/status",
    ],
)
def test_other_expansions_stay_unknown(command: str, tmp_path: Path) -> None:
    (tmp_path / "name.txt").write_text("self/root/home/u/.ssh\n")
    assert _read(command, tmp_path) == ("", False)


def test_a_pid_file_is_read_for_its_number(tmp_path: Path) -> None:
    (tmp_path / ".dev-server.pid").write_text("424242\n")
    assert _read('grep -i vm "/proc/$(cat .dev-server.pid)/status"', tmp_path) == ("/proc/424242/status", True)
    assert _read("cat /proc/$(cat .dev-server.pid)/environ", tmp_path) == ("/proc/424242/environ", True)


def test_a_pid_file_the_line_writes_first_is_not_read_now(tmp_path: Path) -> None:
    (tmp_path / ".dev-server.pid").write_text("424242\n")
    written = "echo self/root/home/u > .dev-server.pid; cat /proc/$(cat .dev-server.pid)/status"
    assert _read(written, tmp_path) == ("", False)
    (tmp_path / "other.pid").write_text("self/root\n")
    assert _read("cat /proc/$(cat other.pid)/status", tmp_path) == ("", False)


@pytest.mark.parametrize(
    ("command", "path"),
    [
        ("cat /proc/$(pgrep -f 'node server.js' | head -n1)/status", "/proc/PID/status"),
        ("cat /proc/$(pidof node | sort -n | tail -n 1)/environ", "/proc/PID/environ"),
        ("cat /proc/$(pgrep node | head 1)/status", ""),  # head of the file `1`: its text
        ("cat /proc/$(pgrep node | xargs echo ..)/status", ""),
    ],
)
def test_a_lookup_passed_through_line_filters_still_prints_a_number(command: str, path: str, tmp_path: Path) -> None:
    assert _read(command, tmp_path) == (path, bool(path))
