"""A classic-BPF seccomp filter, installed with prctl through ctypes (no libseccomp needed).

It checks the architecture first (any other ABI, x32 included, kills the process), then refuses with
EPERM: every socket (the worker talks over inherited pipes), new processes and programs (fork, clone,
execve), namespaces and mounts, ptrace and reading other processes' memory, prctl and seccomp (so a
policy cannot change its own privileges or filters), uid/gid changes, signals to other processes,
io_uring (its operations would bypass this filter), bpf, perf, keyrings, modules, kexec and reboot.
clone3 answers ENOSYS so that a C library falls back to clone, which is refused.

Calls that act on a process named by pid are refused unless that process is the worker itself (pid 0 or
its own pid, compared as the kernel reads a pid_t: the argument's low 32 bits): prlimit64, the
scheduler's setters (affinity, policy, parameters, attributes), setpriority and ioprio_set (which must
also target one process, not a process group or a user, which could hold the daemon), memory
migration, and pidfd_open. Under a non-root daemon the workers share its uid, so without this a policy
could lower the daemon's limits, pin it to a core, deprioritise it or kill it (issue 13).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct

from hookd.errors import SeccompUnavailable

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
OFFSET_NR, OFFSET_ARCH, OFFSET_ARGS = 0, 4, 16  # struct seccomp_data; each argument is 8 bytes, low word first

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
    "pidfd_send_signal": 424, "kcmp": 312,
}  # fmt: skip
# Allowed on this process only: the syscall's pid argument (by index) must be 0 or our own pid.
SELF_ONLY_X86_64 = {
    "prlimit64": (302, 0), "sched_setparam": (142, 0), "sched_setscheduler": (144, 0),
    "sched_setaffinity": (203, 0), "sched_setattr": (314, 0), "migrate_pages": (256, 0), "move_pages": (279, 0),
    "pidfd_open": (434, 0),
}  # fmt: skip
# Allowed on this process only, where argument 0 says what the pid argument 1 names: it must be one process.
SELF_ONLY_WHICH_X86_64 = {"setpriority": (141, 0), "ioprio_set": (251, 1)}  # PRIO_PROCESS, IOPRIO_WHO_PROCESS
NOT_IMPLEMENTED_X86_64 = {"clone3": 435}


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def _arg(index: int) -> bytes:
    return _insn(LD_W_ABS, 0, 0, OFFSET_ARGS + 8 * index)


def _self_only(number: int, pid_arg: int, own_pid: int, which: int | None = None) -> list[bytes]:
    """`number` is allowed when its pid argument is 0 or `own_pid` (and argument 0 is `which`, if given)."""
    refuse = _insn(RET_K, 0, 0, RET_ERRNO | errno.EPERM)
    check = [_arg(pid_arg), _insn(JEQ_K, 2, 0, 0), _insn(JEQ_K, 1, 0, own_pid), refuse, _insn(RET_K, 0, 0, RET_ALLOW)]
    if which is not None:
        check = [_arg(0), _insn(JEQ_K, 0, 3, which), *check]  # not one process: on to `refuse`
    return [_insn(JEQ_K, 0, len(check), number), *check]


def build_filter(own_pid: int | None = None) -> bytes:
    """The filter program for this machine's architecture, for the process `own_pid` (this one by default);
    SeccompUnavailable where hookd has no syscall table."""
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
    pid = os.getpid() if own_pid is None else own_pid
    for number, pid_arg in SELF_ONLY_X86_64.values():
        program += _self_only(number, pid_arg, pid)
    for number, which in SELF_ONLY_WHICH_X86_64.values():
        program += _self_only(number, 1, pid, which)
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
    return (
        "refuses sockets, fork/clone/exec, namespaces, mounts, ptrace, prctl, uid changes, signals, io_uring, "
        "and limits, scheduling, priority and I/O priority of other processes"
    )


def _errno_text() -> str:
    code = ctypes.get_errno()
    return f"{errno.errorcode.get(code, code)} ({os.strerror(code)})"
