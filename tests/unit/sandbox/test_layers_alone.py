"""Each sandbox layer on its own, in a fresh interpreter, so that every layer is proven to hold by itself
(the hostile-policy tests in tests/unit/engines prove them together)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookd.engines.python.channel import PACKAGE_PARENT
from hookd.errors import LandlockUnavailable, SeccompUnavailable
from hookd.sandbox import landlock, seccomp
from support import require

PROBES = """
import json, os, socket
def attempt(what, action):
    try:
        action()
        results[what] = "allowed"
    except OSError as exc:
        results[what] = f"refused {exc.errno}"
results = {}
"""


def run_isolated(setup: str, probes: str) -> dict[str, str]:
    code = f"import sys; sys.path.insert(0, {PACKAGE_PARENT!r})\n{PROBES}\n{textwrap.dedent(setup)}\n"
    code += textwrap.dedent(probes) + "\nprint(json.dumps(results))\n"
    done = subprocess.run(
        [os.path.realpath(sys.executable), "-I", "-S", "-c", code], capture_output=True, timeout=30, check=False
    )
    assert done.returncode == 0, done.stderr.decode()
    return dict(json.loads(done.stdout))


def under_seccomp(probes: str) -> dict[str, str]:
    try:
        seccomp.build_filter()
    except SeccompUnavailable as exc:
        require(False, f"seccomp ({exc})")
    return run_isolated("from hookd.sandbox import seccomp; seccomp.install()", probes)


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    server = socket.create_server(("127.0.0.1", 0))
    yield server
    server.close()


def test_seccomp_alone_refuses_sockets_processes_and_namespaces() -> None:
    results = under_seccomp(
        """
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        def call(rc):
            if rc != 0:
                raise OSError(ctypes.get_errno(), "refused")
        attempt("unix socket", lambda: socket.socket(socket.AF_UNIX))
        attempt("inet socket", lambda: socket.socket(socket.AF_INET))
        attempt("socketpair", lambda: socket.socketpair())
        attempt("fork", lambda: os.fork())
        attempt("exec", lambda: os.execv("/bin/true", ["true"]))
        attempt("unshare", lambda: call(libc.unshare(0x40000000)))
        attempt("prctl", lambda: call(libc.prctl(4, 1, 0, 0, 0)))
        attempt("kill", lambda: os.kill(os.getppid(), 0))
        attempt("read", lambda: open("/etc/hostname").read())
        """,
    )
    refused = {name for name, result in results.items() if result == "refused 1"}
    assert refused == {"unix socket", "inet socket", "socketpair", "fork", "exec", "unshare", "prctl", "kill"}
    assert results["read"] == "allowed"


def test_landlock_alone_confines_writes_tcp_and_signals(tmp_path: Path, listener: socket.socket) -> None:
    try:
        abi = landlock.abi_version()
    except LandlockUnavailable as exc:
        require(False, f"Landlock ({exc})")
        return
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    outside = tmp_path / "outside.txt"
    port = listener.getsockname()[1]
    results = run_isolated(
        f"""
        import ctypes
        ctypes.CDLL(None).prctl(38, 1, 0, 0, 0)  # no_new_privs, as the worker sets it
        from hookd.sandbox import landlock; landlock.restrict_writes({str(scratch)!r})
        """,
        f"""
        attempt("write scratch", lambda: open({str(scratch / "ok")!r}, "w").write("x"))
        attempt("write outside", lambda: open({str(outside)!r}, "w").write("x"))
        attempt("tcp connect", lambda: socket.create_connection(("127.0.0.1", {port}), timeout=2))
        attempt("signal parent", lambda: os.kill(os.getppid(), 0))
        """,
    )
    assert results["write scratch"] == "allowed"
    assert results["write outside"] == "refused 13" and not outside.exists()
    if abi >= 4:
        assert results["tcp connect"] == "refused 13"
    if abi >= 6:
        assert results["signal parent"] == "refused 1"


def test_a_network_namespace_alone_has_no_route_to_localhost(listener: socket.socket) -> None:
    require(os.geteuid() == 0, "root (a network namespace without a user namespace)")
    port = listener.getsockname()[1]
    results = run_isolated(
        "from hookd.sandbox import layers; layer = layers.new_network_namespace(); assert layer['active'], layer",
        f'attempt("tcp connect", lambda: socket.create_connection(("127.0.0.1", {port}), timeout=2))',
    )
    assert results["tcp connect"].startswith("refused")


def test_resource_limits_alone_stop_a_4_gb_allocation() -> None:
    limits = {"cpu_seconds": 5, "memory_mb": 512, "open_files": 16, "file_size_mb": 1}
    results = run_isolated(
        f"from hookd.sandbox import layers; layers.set_limits({limits!r})",
        """
        try:
            bytearray(4 * 1024 ** 3)
            results["allocate"] = "allowed"
        except MemoryError:
            results["allocate"] = "refused"
        attempt("many files", lambda: [open("/dev/null") for _ in range(64)])
        """,
    )
    assert results == {"allocate": "refused", "many files": "refused 24"}


def test_without_landlock_a_read_only_mount_namespace_confines_writes(tmp_path: Path) -> None:
    require(os.geteuid() == 0, "root (a mount namespace without a user namespace)")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    outside = tmp_path / "outside.txt"
    results = run_isolated(
        f"""
        from hookd.errors import LandlockUnavailable
        from hookd.sandbox import landlock, layers

        def no_landlock(scratch):
            raise LandlockUnavailable("switched off for this test")

        landlock.restrict_writes = no_landlock
        results["layer"] = layers.restrict_writes({str(scratch)!r})
        """,
        f"""
        attempt("write scratch", lambda: open({str(scratch / "ok")!r}, "w").write("x"))
        attempt("write outside", lambda: open({str(outside)!r}, "w").write("x"))
        attempt("write tmp", lambda: open("/tmp/hookd-ro-probe-{os.getpid()}", "w").write("x"))
        """,
    )
    layer = results.pop("layer")
    assert layer["active"] is True and "read-only" in layer["detail"] and "switched off" in layer["detail"]
    assert results == {"write scratch": "allowed", "write outside": "refused 30", "write tmp": "refused 30"}
    assert not outside.exists() and (scratch / "ok").read_text() == "x"


def test_seccomp_alone_keeps_other_processes_limits_scheduling_and_priorities_out_of_reach() -> None:
    """Under a non-root daemon a worker shares the daemon's uid: each of these worked on the daemon (its
    parent here) before; on the worker itself they still work."""
    results = under_seccomp(
        """
        import ctypes, resource
        libc = ctypes.CDLL(None, use_errno=True)
        def ioprio(which, who):
            if libc.syscall(251, which, who, (3 << 13) | 0) != 0:  # ioprio_set: class idle
                raise OSError(ctypes.get_errno(), "refused")
        parent, me = os.getppid(), os.getpid()
        cpu = resource.getrlimit(resource.RLIMIT_CPU)
        for target, pid in (("parent", parent), ("self", me), ("self 0", 0)):
            attempt(f"prlimit {target}", lambda: resource.prlimit(pid, resource.RLIMIT_CPU, cpu))
            attempt(f"affinity {target}", lambda: os.sched_setaffinity(pid, os.sched_getaffinity(pid)))
            attempt(f"nice {target}", lambda: os.setpriority(os.PRIO_PROCESS, pid, 0))
            attempt(f"scheduler {target}", lambda: os.sched_setscheduler(pid, os.SCHED_OTHER, os.sched_param(0)))
            attempt(f"sched_param {target}", lambda: os.sched_setparam(pid, os.sched_param(0)))
            attempt(f"ioprio {target}", lambda: ioprio(1, pid))
        attempt("nice process group", lambda: os.setpriority(os.PRIO_PGRP, 0, 0))
        attempt("nice user", lambda: os.setpriority(os.PRIO_USER, 0, 0))
        attempt("ioprio process group", lambda: ioprio(2, 0))
        attempt("kill parent", lambda: os.kill(parent, 0))
        """,
    )
    refused = {name for name, result in results.items() if result == "refused 1"}
    calls = ("prlimit", "affinity", "nice", "scheduler", "sched_param", "ioprio")
    assert refused == {f"{c} parent" for c in calls} | {
        "nice process group", "nice user", "ioprio process group", "kill parent"
    }, results  # fmt: skip
    assert all(results[f"{c} {who}"] == "allowed" for c in calls for who in ("self", "self 0")), results
