"""The isolation layers a worker puts itself under before it runs any policy code, in this order:
resource limits, a new network namespace, Landlock (writes only to the scratch dir) or its fallback, an
unprivileged uid, no new processes, seccomp. Each layer is reported as in force only when the kernel
said yes; a layer that could not be set up is reported unavailable with the reason, never claimed."""

from __future__ import annotations

import ctypes
import os
import resource
from collections.abc import Mapping
from typing import Any

from hookd.sandbox import landlock, seccomp

CLONE_NEWNET = 0x40000000
CLONE_NEWUSER = 0x10000000
MIB = 1024 * 1024
LAYER_NAMES = (
    "resource-limits",
    "network-namespace",
    "seccomp",
    "write-restriction",
    "unprivileged-uid",
    "clean-environment",
)


def _layer(name: str, active: bool, detail: str) -> dict[str, Any]:
    return {"name": name, "active": active, "detail": detail}


def _errno_text() -> str:
    return os.strerror(ctypes.get_errno())


def set_limits(limits: Mapping[str, int]) -> str:
    cpu, memory = limits["cpu_seconds"], limits["memory_mb"]
    files, file_size = limits["open_files"], limits["file_size_mb"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (memory * MIB, memory * MIB))
    resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_size * MIB, file_size * MIB))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return f"cpu {cpu} s, address space {memory} MiB, {files} open files, file size {file_size} MiB"


def new_network_namespace() -> dict[str, Any]:
    libc = ctypes.CDLL(None, use_errno=True)
    if os.geteuid() == 0:
        if libc.unshare(CLONE_NEWNET) == 0:
            return _layer("network-namespace", True, "a new network namespace with no interfaces up")
        return _layer("network-namespace", False, f"unavailable: unshare(CLONE_NEWNET): {_errno_text()}")
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
        return _layer("network-namespace", False, f"unavailable: unshare(CLONE_NEWUSER|CLONE_NEWNET): {_errno_text()}")
    for path, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{path}", "w") as handle:
            handle.write(text)
    return _layer("network-namespace", True, "a new user and network namespace with no interfaces up")


def restrict_writes(scratch: str) -> dict[str, Any]:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(seccomp.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        reason = f"prctl(PR_SET_NO_NEW_PRIVS): {_errno_text()}"
    else:
        try:
            return _layer("write-restriction", True, landlock.restrict_writes(scratch))
        except landlock.LandlockUnavailable as exc:
            reason = f"landlock: {exc}"
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    return _layer("write-restriction", False, f"partial: file size limit 0 everywhere ({reason})")


def drop_uid(uid: int | None, gid: int | None) -> dict[str, Any]:
    if os.geteuid() != 0:
        return _layer("unprivileged-uid", False, f"unavailable: the daemon does not run as root (uid {os.getuid()})")
    if uid is None or gid is None or uid == 0:
        return _layer("unprivileged-uid", False, "unavailable: no unprivileged user configured (python.user)")
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    return _layer("unprivileged-uid", True, f"uid {uid}, gid {gid}, no supplementary groups")


def no_new_processes(limits_detail: str) -> dict[str, Any]:
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))
    if os.geteuid() == 0:  # root keeps CAP_SYS_RESOURCE: the limit does not bind it (seccomp still refuses fork)
        return _layer("resource-limits", True, f"{limits_detail}; process limit not binding for root")
    return _layer("resource-limits", True, f"{limits_detail}, no new processes")


def apply(init: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Put this process under every layer; returns the report, one entry per LAYER_NAMES."""
    scratch = str(init["scratch"])
    limits = set_limits(init["limits"])
    network = new_network_namespace()
    writes = restrict_writes(scratch)
    uid = drop_uid(init.get("uid"), init.get("gid"))
    limited = no_new_processes(limits)
    try:
        filtered = _layer("seccomp", True, seccomp.install())
    except seccomp.SeccompUnavailable as exc:
        filtered = _layer("seccomp", False, f"unavailable: {exc}")
    os.chdir(scratch)
    names = ", ".join(sorted(os.environ)) or "nothing"
    environment = _layer("clean-environment", True, f"only {names} (nothing inherited from the daemon)")
    return [limited, network, filtered, writes, uid, environment]
