"""tests/confine.py holds: a confined command writes only in its world and reaches only its own network."""

from __future__ import annotations

import socket
import subprocess
from pathlib import Path

import pytest
from confine import Netns, confined

pytestmark = pytest.mark.e2e
TIMEOUT = 30


def run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT, check=False, stdin=subprocess.DEVNULL)


def test_writes_outside_the_world_fail_and_inside_succeed(netns: Netns, tmp_path: Path) -> None:
    world, outside = tmp_path / "world", tmp_path / "outside"
    world.mkdir()
    outside.mkdir()
    script = (f"touch {world}/in && echo x > /dev/null && echo inside-ok; "
              f"for p in {outside}/out /etc/hookd-confine-probe /root/hookd-confine-probe /dev/shm/hookd-probe "
              f"/usr/local/hookd-confine-probe; do touch $p 2>/dev/null && echo ESCAPED $p; done; "
              "echo 1 > /proc/sys/vm/drop_caches 2>/dev/null && echo ESCAPED proc; true")  # fmt: skip
    done = run(confined(["sh", "-c", script], world=[world], netns=netns))
    assert done.returncode == 0, done.stderr
    assert "inside-ok" in done.stdout and "ESCAPED" not in done.stdout, done.stdout
    assert (world / "in").exists() and not (outside / "out").exists()


def test_overlays_are_seen_but_not_written_through(netns: Netns, tmp_path: Path) -> None:
    world, upper = tmp_path / "world", tmp_path / "world" / "etc"
    upper.mkdir(parents=True)
    (upper / "hookd-overlay-probe").write_text("seen\n")
    done = run(confined(["sh", "-c", "cat /etc/hookd-overlay-probe; touch /etc/x 2>/dev/null && echo ESCAPED"],
                        world=[world], netns=netns, overlays={Path("/etc"): upper}))  # fmt: skip
    assert done.stdout == "seen\n", done.stdout + done.stderr
    assert not Path("/etc/hookd-overlay-probe").exists() and not (upper / "x").exists()


def test_only_loopback_and_not_the_machines(netns: Netns, tmp_path: Path) -> None:
    """The namespace has `lo` alone, and a server on the machine's own 127.0.0.1 is out of reach."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        probe = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3); print('REACHED')"
        done = run(confined(["python3", "-c", probe], world=[tmp_path], netns=netns))
        assert "REACHED" not in done.stdout and "ConnectionRefusedError" in done.stderr, done.stdout + done.stderr
    links = run(confined(["ip", "-o", "link"], world=[tmp_path], netns=netns))
    assert [line.split(":")[1].strip() for line in links.stdout.splitlines()] == ["lo"], links.stdout
