"""A classic-BPF seccomp filter, installed with prctl through ctypes (no libseccomp needed).

It checks the architecture first (any other ABI, x32 included, kills the process), then refuses with
EPERM: every socket (the worker talks over inherited pipes), new processes and programs (fork, clone,
execve), namespaces and mounts, ptrace and reading other processes' memory, prctl and seccomp (so a
policy cannot change its own privileges or filters), uid/gid changes, signals to other processes,
io_uring (its operations would bypass this filter), bpf, perf, keyrings, modules, kexec and reboot.
clone3 answers ENOSYS so that a C library falls back to clone, which is refused.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000
RET_ALLOW = 0x7FFF0000
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
LD_W_ABS = 0x20
JEQ_K = 0x15
JGE_K = 0x35
RET_K = 0x06
OFFSET_NR, OFFSET_ARCH = 0, 4

# x86_64 numbers (arch/x86/entry/syscalls/syscall_64.tbl).
DENIED_X86_64 = {
    "socket": 41, "socketpair": 53, "fork": 57, "vfork": 58, "clone": 56, "execve": 59, "execveat": 322,
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "pidfd_getfd": 438,
    "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161, "unshare": 272, "setns": 308,
    "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "mount_setattr": 442, "open_by_handle_at": 304, "name_to_handle_at": 303,
    "prctl": 157, "seccomp": 317, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "keyctl": 250, "add_key": 248, "request_key": 249,
    "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313, "delete_module": 176,
    "reboot": 169, "swapon": 167, "swapoff": 168, "acct": 163, "personality": 135,
    "setuid": 105, "setgid": 106, "setreuid": 113, "setregid": 114, "setresuid": 117, "setresgid": 119,
    "setgroups": 116, "setfsuid": 122, "setfsgid": 123, "capset": 126,
    "kill": 62, "tkill": 200, "tgkill": 234, "rt_sigqueueinfo": 129, "rt_tgsigqueueinfo": 297,
    "pidfd_send_signal": 424,
}  # fmt: skip
NOT_IMPLEMENTED_X86_64 = {"clone3": 435}


class SeccompUnavailable(Exception):
    pass


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def build_filter() -> bytes:
    """The filter program for this machine's architecture; SeccompUnavailable where hookd has no syscall table."""
    if platform.machine() != "x86_64":
        raise SeccompUnavailable(f"no syscall table for {platform.machine()} (hookd knows x86_64)")
    program = [
        _insn(LD_W_ABS, 0, 0, OFFSET_ARCH),
        _insn(JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
        _insn(RET_K, 0, 0, RET_KILL_PROCESS),
        _insn(LD_W_ABS, 0, 0, OFFSET_NR),
        _insn(JGE_K, 0, 1, X32_SYSCALL_BIT),
        _insn(RET_K, 0, 0, RET_KILL_PROCESS),
    ]
    for table, error in ((DENIED_X86_64, errno.EPERM), (NOT_IMPLEMENTED_X86_64, errno.ENOSYS)):
        for number in sorted(table.values()):
            program += [_insn(JEQ_K, 0, 1, number), _insn(RET_K, 0, 0, RET_ERRNO | error)]
    program.append(_insn(RET_K, 0, 0, RET_ALLOW))
    return b"".join(program)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install() -> str:
    """Set no_new_privs and install the filter; returns what it refuses. Raises SeccompUnavailable."""
    program = build_filter()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise SeccompUnavailable(f"prctl(PR_SET_NO_NEW_PRIVS): {_errno_text()}")
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        raise SeccompUnavailable(f"prctl(PR_SET_SECCOMP): {_errno_text()}")
    return "refuses sockets, fork/clone/exec, namespaces, mounts, ptrace, prctl, uid changes, signals, io_uring"


def _errno_text() -> str:
    import os

    code = ctypes.get_errno()
    return f"{errno.errorcode.get(code, code)} ({os.strerror(code)})"
