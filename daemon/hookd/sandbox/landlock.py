"""Landlock through raw syscalls (ctypes): writes only beneath the scratch directory, no TCP bind or
connect (ABI 4+), and no signals or abstract Unix sockets outside the worker's own domain (ABI 6+).
Reading and executing stay as the uid allows, so that a policy can read the project it judges."""

from __future__ import annotations

import ctypes
import errno
import os
import struct

from hookd.errors import LandlockUnavailable

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
# LANDLOCK_ACCESS_FS_*: everything but EXECUTE (1), READ_FILE (4) and READ_DIR (8) is a kind of write.
WRITE_ACCESS_BY_ABI = {1: 0x1FF2, 2: 0x3FF2, 3: 0x7FF2, 5: 0xFFF2}
NET_BIND_CONNECT_TCP = 0x3
SCOPE_ABSTRACT_UNIX_AND_SIGNAL = 0x3


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def abi_version() -> int:
    """The kernel's Landlock ABI, or LandlockUnavailable saying why there is none."""
    libc = _libc()
    version = libc.syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    if version < 0:
        code = ctypes.get_errno()
        why = {errno.ENOSYS: "the kernel has no Landlock", errno.EOPNOTSUPP: "Landlock is disabled at boot"}
        raise LandlockUnavailable(why.get(code, os.strerror(code)))
    return int(version)


def _write_access(abi: int) -> int:
    return WRITE_ACCESS_BY_ABI[max(level for level in WRITE_ACCESS_BY_ABI if level <= abi)]


def restrict_writes(scratch: str) -> str:
    """Restrict this process (no_new_privs must be set); returns what is in force."""
    abi = abi_version()
    libc = _libc()
    access = _write_access(abi)
    net = NET_BIND_CONNECT_TCP if abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_AND_SIGNAL if abi >= 6 else 0
    attr = ctypes.create_string_buffer(struct.pack("QQQ", access, net, scoped))
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    ruleset = libc.syscall(SYS_CREATE_RULESET, attr, ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise LandlockUnavailable(f"landlock_create_ruleset: {os.strerror(ctypes.get_errno())}")
    try:
        directory = os.open(scratch, os.O_PATH | os.O_DIRECTORY)
        try:
            beneath = ctypes.create_string_buffer(struct.pack("=Qi", access, directory))
            if libc.syscall(SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH), beneath, 0) != 0:
                raise LandlockUnavailable(f"landlock_add_rule: {os.strerror(ctypes.get_errno())}")
        finally:
            os.close(directory)
        if libc.syscall(SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            raise LandlockUnavailable(f"landlock_restrict_self: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(ruleset)
    extras = (", no TCP bind/connect" if net else "") + (", no signals outside the worker" if scoped else "")
    return f"landlock ABI {abi}: writes only beneath the worker's scratch dir{extras}"
