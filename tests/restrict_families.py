"""RestrictAddressFamilies= without systemd: the seccomp filter systemd installs for it (socket() with a family
outside the list fails with EAFNOSUPPORT; socketpair is not filtered, as in systemd), as classic BPF through
prctl. `python restrict_families.py AF_UNIX[,AF_INET…] COMMAND…` runs COMMAND under it (x86_64)."""

from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys

FAMILIES = {"AF_UNIX": 1, "AF_INET": 2, "AF_INET6": 10, "AF_NETLINK": 16}
SYS_SOCKET_X86_64 = 41


def install_filter(allowed: list[int]) -> None:
    """What RestrictAddressFamilies= installs: socket(family ∉ allowed) → EAFNOSUPPORT; a foreign ABI is killed."""

    def insn(code: int, jt: int, jf: int, k: int) -> bytes:
        return struct.pack("HBBI", code, jt, jf, k)

    load, jeq, ret = 0x20, 0x15, 0x06
    prog = [insn(load, 0, 0, 4), insn(jeq, 1, 0, 0xC000003E), insn(ret, 0, 0, 0x80000000),
            insn(load, 0, 0, 0), insn(jeq, 0, len(allowed) + 2, SYS_SOCKET_X86_64), insn(load, 0, 0, 16)]  # fmt: skip
    prog += [insn(jeq, len(allowed) - i, 0, family) for i, family in enumerate(allowed)]
    prog += [insn(ret, 0, 0, 0x00050000 | errno.EAFNOSUPPORT), insn(ret, 0, 0, 0x7FFF0000)]
    code = ctypes.create_string_buffer(b"".join(prog))

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(Program(len(prog), ctypes.addressof(code))),
                                                       0, 0) != 0:  # fmt: skip
        raise OSError(ctypes.get_errno(), "cannot install the seccomp filter")


if __name__ == "__main__":
    install_filter([FAMILIES[f] for f in sys.argv[1].split(",")])
    os.execvp(sys.argv[2], sys.argv[2:])
