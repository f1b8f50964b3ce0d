"""Python policy workers' scratch dirs: their names, and the sweep of those a dead daemon left behind.

Each worker gets `hookd-py-<daemon pid>-<random>` in the scratch base (the temporary directory unless
`[python] scratch_dir` says otherwise); a worker removes its own when it ends, but a daemon that was
SIGKILLed cannot. Each engine start sweeps the base: a dir whose daemon pid is gone is removed; an
older, untagged `hookd-py-<random>` only when no process still has it as its TMPDIR. Never a dir that
is in use, never through a symlink, and only what this uid may own (its own, or anyone's for root).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from pathlib import Path

import structlog

log = structlog.get_logger("hookd.python")
PREFIX = "hookd-py-"
_TAGGED = re.compile(r"hookd-py-(\d+)-[A-Za-z0-9_]+")
_UNTAGGED = re.compile(r"hookd-py-[A-Za-z0-9_]{8}")


def scratch_prefix() -> str:
    return f"{PREFIX}{os.getpid()}-"


def sweep(base: Path) -> list[Path]:
    """Remove the leftover scratch dirs in `base`; return what was removed."""
    try:
        names = [entry.name for entry in os.scandir(base) if entry.name.startswith(PREFIX)]
    except OSError:
        return []
    leftovers = [base / name for name in names if _left_over(base / name)]
    if any(_UNTAGGED.fullmatch(path.name) for path in leftovers):
        in_use = _tmpdirs_in_use()
        leftovers = [path for path in leftovers if str(path) not in in_use]
    removed = []
    for path in leftovers:
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists():
            removed.append(path)
    if removed:
        log.info("python_scratch_swept", base=str(base), removed=len(removed))
    return removed


def _left_over(path: Path) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or (os.getuid() != 0 and info.st_uid != os.getuid()):
        return False
    tagged = _TAGGED.fullmatch(path.name)
    if tagged:
        return not _alive(int(tagged.group(1)))
    return _UNTAGGED.fullmatch(path.name) is not None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _tmpdirs_in_use() -> set[str]:
    """The TMPDIR of every process this uid can see (workers run with TMPDIR = their scratch dir)."""
    found = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue
        for variable in environ.split(b"\0"):
            if variable.startswith(b"TMPDIR="):
                found.add(os.fsdecode(variable[7:]))
    return found
