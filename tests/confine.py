"""The one way a test runs a real agent: confined, so that a hookd regression cannot reach the machine.

A real agent executes whatever its (fake) model asks for and whatever a hookd rewrite produces, as root.
A missed deny or a rewrite gone wrong must therefore land in the test's world, never on the machine:

* **files**: the agent runs in a private mount namespace where every mount is re-mounted read-only,
  except the directories the test names as its world (bind-mounted onto themselves first, so they stay
  writable). Device nodes still work (/dev/null), and Unix sockets outside the world can still be
  connected to (the hookd daemon's), since neither is a write to a file system;
* **network**: the agent joins a network namespace of the test session's own, with only `lo` up, so a
  fake model server on 127.0.0.1 there is all it can reach. In-process fake servers (and daemons that
  must listen there) are started inside it with `Netns.entered()`.

`confined(argv, ...)` is the argv to run; `tests/e2e/test_confine.py` proves the confinement holds (a
command that writes outside the world fails even when hookd allows it). The commands the tests' fake
models ask for are themselves harmless (`touch` a marker in the world).
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from support import require

CLONE_NEWNET = 0x40000000
# $1.. = overlays (target upper work)..., "--", writable dirs..., "--", the command. Every mount but the
# writable binds is re-mounted read-only; a mount that cannot be is an error (never run unconfined).
_SCRIPT = r"""set -eu
while [ "$1" != -- ]; do
  mount -t overlay overlay -o "lowerdir=$1,upperdir=$2,workdir=$3" "$1"; shift 3
done; shift
keep='
'
while [ "$1" != -- ]; do mount --bind "$1" "$1"; keep="$keep$1
"; shift; done; shift
for m in $(awk '{print $5}' /proc/self/mountinfo | sort -u); do
  m=$(printf '%b' "$m")
  case "$keep" in *"
$m
"*) continue ;; esac
  mount -o remount,bind,ro "$m" || { echo "confine: cannot make $m read-only" >&2; exit 125; }
done
exec "$@"
"""


@dataclass
class Netns:
    """A network namespace with only `lo` up, held open by a sleeping process."""

    proc: subprocess.Popen[str]

    @property
    def pid(self) -> int:
        return self.proc.pid

    @contextlib.contextmanager
    def entered(self) -> Iterator[None]:
        """This thread in the namespace: sockets it creates and processes it starts live there."""
        libc = ctypes.CDLL(None, use_errno=True)
        with open("/proc/thread-self/ns/net", "rb") as home, open(f"/proc/{self.pid}/ns/net", "rb") as there:
            if libc.setns(there.fileno(), CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns into the test network namespace")
            try:
                yield
            finally:
                if libc.setns(home.fileno(), CLONE_NEWNET) != 0:
                    raise OSError(ctypes.get_errno(), "setns back")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)


def require_confinement() -> None:
    tools = ("unshare", "nsenter", "mount", "ip")
    require(os.geteuid() == 0 and all(shutil.which(t) for t in tools), "root, unshare, nsenter, mount and ip")


def start_netns() -> Netns:
    require_confinement()
    proc = subprocess.Popen(
        ["unshare", "-n", "sh", "-c", "ip link set lo up && echo up && exec sleep 86400"],
        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stdout.readline().strip() == "up"
    return Netns(proc)


_SHARED: list[Netns] = []


def shared_netns() -> Netns:
    """The test process's one network namespace (started on first use, ended at exit)."""
    if not _SHARED or _SHARED[0].proc.poll() is not None:
        _SHARED[:] = [start_netns()]
        atexit.register(close_shared_netns)
    return _SHARED[0]


def close_shared_netns() -> None:
    """End the shared namespace's holder (the e2e session fixture does, before the process leaves)."""
    while _SHARED:
        netns = _SHARED.pop()
        if netns.proc.poll() is None:
            netns.close()


def world_paths(paths: Iterable[Path]) -> list[str]:
    """The writable directories as the mount table names them, plus bench/trace.py's recording dir."""
    out = [os.path.realpath(p) for p in paths]
    wrapper = os.environ.get("HOOKD_TRACE_WRAPPER")
    if wrapper:
        out.append(os.path.realpath(Path(wrapper).parent / "calls"))
    for path in out:
        assert os.path.isdir(path), f"a world directory must exist before the run: {path}"
        assert " " not in path and "\\" not in path, path
    return list(dict.fromkeys(out))


def confined(
    argv: Sequence[str], *, world: Iterable[Path], netns: Netns, overlays: Mapping[Path, Path] = {}
) -> list[str]:
    """`argv` in `netns`, with a read-only view of everything but the `world` directories. `overlays`:
    target -> an upper directory (in the world) over it, e.g. /etc -> a scratch /etc for managed settings."""
    layers: list[str] = []
    for target, upper in overlays.items():
        work = upper.parent / f"{upper.name}.work"
        work.mkdir(exist_ok=True)
        layers += [str(target), str(upper), str(work)]
    return ["nsenter", "-t", str(netns.pid), "-n", "--", "unshare", "-m", "--propagation", "private",
            "sh", "-c", _SCRIPT, "confine", *layers, "--", *world_paths(world), "--", *argv]  # fmt: skip


def run_confined(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], timeout: float) -> tuple[int, str, str]:
    """Run a confined agent's `argv` to its end: its exit code, stdout and stderr. It gets a process group of
    its own (Gemini relaunches itself once), all of which is killed, and the test failed, past `timeout`."""
    proc = subprocess.Popen(
        argv, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, errors="replace", start_new_session=True,
    )  # fmt: skip
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        pytest.fail(f"the agent did not finish within {timeout:.0f} s\n"
                    f"--- stdout\n{stdout}\n--- stderr\n{stderr}")  # fmt: skip
    return proc.returncode, stdout, stderr
