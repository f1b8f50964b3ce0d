"""The isolation layers a worker puts itself under before it runs any policy code, in this order:
resource limits, a new network namespace, Landlock (writes only to the scratch dir) or its fallback, an
unprivileged uid, no new processes, seccomp. Each layer is reported as in force only when the kernel
said yes; a layer that could not be set up is reported unavailable with the reason, never claimed."""

from __future__ import annotations

import ctypes
import os
import resource
import sys
from collections.abc import Callable, Mapping
from typing import Any

from hookd.errors import LandlockUnavailable, SeccompUnavailable
from hookd.sandbox import landlock, seccomp

CLONE_NEWNET = 0x40000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 32, 4096, 16384, 1 << 18
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
    """Writes only to the scratch dir: Landlock, else every other mount read-only in a private mount
    namespace, else (partial) a file size limit of 0 everywhere."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(seccomp.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        reason = f"prctl(PR_SET_NO_NEW_PRIVS): {_errno_text()}"
    else:
        try:
            return _layer("write-restriction", True, landlock.restrict_writes(scratch))
        except LandlockUnavailable as exc:
            reason = f"landlock: {exc}"
    try:
        return _layer("write-restriction", True, f"{read_only_mounts(scratch)} ({reason})")
    except OSError as exc:
        reason += f"; mount namespace: {exc.strerror or exc}"
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    return _layer("write-restriction", False, f"partial: file size limit 0 everywhere ({reason})")


_MOUNT_FLAGS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": 8, "noatime": 1024, "nodiratime": 2048,
                "relatime": 1 << 21}  # fmt: skip


def _mount_points() -> list[tuple[str, int]]:
    """This namespace's mount points with the per-mount flags a read-only remount must keep."""
    points = []
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            fields = line.split()
            path = fields[4].encode().decode("unicode_escape")  # \040 and friends
            flags = sum(_MOUNT_FLAGS.get(option, 0) for option in fields[5].split(","))
            points.append((path, flags))
    return points


def read_only_mounts(scratch: str) -> str:
    """In a private mount namespace, remount everything read-only except a bind of the scratch dir.
    Raises OSError when the kernel refuses any step (the layer then is not claimed)."""
    libc = ctypes.CDLL(None, use_errno=True)

    def mount(source: str | None, target: str, flags: int) -> None:
        if libc.mount(source.encode() if source else None, target.encode(), None, flags, None) != 0:
            code = ctypes.get_errno()
            raise OSError(code, f"mount {target}: {os.strerror(code)}")

    if libc.unshare(CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), f"unshare(CLONE_NEWNS): {_errno_text()}")
    mount(None, "/", MS_REC | MS_PRIVATE)
    mount(scratch, scratch, MS_BIND | MS_REC)
    for path, flags in _mount_points():
        if path != scratch and not path.startswith(scratch + os.sep):
            mount(None, path, MS_BIND | MS_REMOUNT | MS_RDONLY | flags)
    return "a private mount namespace: every mount read-only but the worker's scratch dir"


def expose_import_paths(scratch: str) -> str:
    """Make the interpreter's import paths readable after the uid drop, whatever the directories above them
    allow (a pyenv under /root is 0700): bind them read-only below the scratch dir in a private mount
    namespace and import from there. Returns what was done; raises OSError when the kernel refuses."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNS) != 0 or libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        raise OSError(ctypes.get_errno(), f"private mount namespace: {_errno_text()}")
    base = os.path.join(scratch, ".python")
    os.mkdir(base, 0o755)
    exposed = []
    for index, path in enumerate(p for p in sys.path if os.path.isdir(p)):
        target = os.path.join(base, str(index))
        os.mkdir(target, 0o755)
        for flags, source in (
            (MS_BIND | MS_REC, path.encode()),
            (MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None),
        ):
            if libc.mount(source, target.encode(), None, flags, None) != 0:
                raise OSError(ctypes.get_errno(), f"bind {path}: {_errno_text()}")
        exposed.append(target)
    moved = dict(zip((p for p in sys.path if os.path.isdir(p)), exposed, strict=True))
    sys.path[:] = exposed
    sys.path_importer_cache.clear()
    for module in list(sys.modules.values()):  # packages already imported (encodings, json…) find submodules there
        search = getattr(module, "__path__", None)
        if isinstance(search, list):
            search[:] = [_moved(entry, moved) for entry in search]
    return "import paths bound read-only in a private mount namespace"


def _moved(path: str, moved: Mapping[str, str]) -> str:
    for old, new in moved.items():
        if path == old or path.startswith(old + os.sep):
            return new + path[len(old) :]
    return path


def prepare_uid_drop(uid: int | None, gid: int | None, scratch: str) -> Callable[[], dict[str, Any]]:
    """Check that the uid can be dropped and bind the import paths now (mounts must precede Landlock);
    the returned step drops it (after Landlock, which root sets up more easily)."""
    if os.geteuid() != 0:
        reason = f"unavailable: the daemon does not run as root (workers keep its uid {os.getuid()})"
        return lambda: _layer("unprivileged-uid", False, reason)
    if uid is None or gid is None or uid == 0:
        return lambda: _layer("unprivileged-uid", False, "unavailable: no unprivileged user configured (python.user)")
    exposed = expose_import_paths(scratch)

    def drop() -> dict[str, Any]:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        return _layer("unprivileged-uid", True, f"uid {uid}, gid {gid}, no supplementary groups; {exposed}")

    return drop


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
    # Mounts come before Landlock, which forbids them; the uid goes after it, as root can still open dirs.
    prepared = prepare_uid_drop(init.get("uid"), init.get("gid"), scratch)
    writes = restrict_writes(scratch)
    uid = prepared()
    limited = no_new_processes(limits)
    try:
        filtered = _layer("seccomp", True, seccomp.install())
    except SeccompUnavailable as exc:
        filtered = _layer("seccomp", False, f"unavailable: {exc}")
    os.chdir(scratch)
    names = ", ".join(sorted(os.environ)) or "nothing"
    environment = _layer("clean-environment", True, f"only {names} (nothing inherited from the daemon)")
    return [limited, network, filtered, writes, uid, environment]
