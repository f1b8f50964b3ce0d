"""What a process given by its number runs now: the names a policy matches against the guard's.

A PID learnt in an earlier call (`pgrep hookd`, then `kill -STOP 4242` or `strace -p 4242` in the next) is a
lookup made earlier: its target is named only by what runs under that number now. hookd's own processes
are its daemon (`python -m hookd serve`, the `hookd` console script) and what the daemon starts (workers, lanes,
policy evaluators: `python -c …`, named by no word of their own), so the process and its ancestors are read:
a process under the guard is the guard's.
"""

from __future__ import annotations

import re

MAX_ANCESTORS = 8
_CMDLINE_BYTES = 4096
_INTERPRETER = re.compile(r"(?:python|pypy|node|nodejs|perl|ruby)[0-9.]*")
_INLINE_CODE = frozenset({"-c", "-e", "-E", "--eval", "-p", "--print"})


def running_names(target: str, proc: str = "/proc") -> list[str]:
    """For a PID spelled as a number (a process group as `-PID`), the names of what it and its ancestors run:
    each one's program and, for an interpreter, the module or script it was started with (`python3 -I -m
    hookd serve`: python3, hookd), never its operands (a file an editor has open is not its name). Empty when
    there is no such process (or for 0 and 1)."""
    digits = target[1:] if target.startswith("-") else target
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 10:
        return []
    pid, names = int(digits), []
    for _ in range(MAX_ANCESTORS + 1):
        if pid <= 1:
            break
        names.extend(_names(_cmdline(pid, proc)))
        pid = _parent(pid, proc)
    return list(dict.fromkeys(names))


def _names(argv: list[str]) -> list[str]:
    if not argv:
        return []
    program = argv[0].rsplit("/", 1)[-1]
    names = [program]
    if _INTERPRETER.fullmatch(program):
        rest = iter(argv[1:])
        for word in rest:
            if word == "-m":
                names.append(next(rest, ""))
                break
            if word in _INLINE_CODE:
                break  # the code is text, not the name of what runs
            if word and not word.startswith("-"):
                names.append(word.rsplit("/", 1)[-1])
                break
    return [name for name in names if name]


def _cmdline(pid: int, proc: str) -> list[str]:
    try:
        with open(f"{proc}/{pid}/cmdline", "rb") as handle:
            return handle.read(_CMDLINE_BYTES).decode(errors="replace").split("\0")
    except OSError:
        return []


def _parent(pid: int, proc: str) -> int:
    try:
        with open(f"{proc}/{pid}/stat", "rb") as handle:
            stat = handle.read().decode(errors="replace")
    except OSError:
        return 0
    fields = stat[stat.rfind(")") + 2 :].split()  # the command name may hold spaces and parentheses
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 0
