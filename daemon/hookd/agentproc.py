"""Find out whether the agent behind a hook call can answer a question (an `ask`).

An agent in headless mode (a one-prompt run) may wait forever on an `ask`, and nothing in the hook
payload says whether the session is interactive. The shim is a child of the agent (bash execs a
single command in place, so usually its direct child), so hookd walks up from the shim's pid (from
SO_PEERCRED) to the agent's process (named by the agents' process_names, hookd.dialects.registry) and reads its
command line (the options each agent's module names headless or interactive) and its stdin.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from hookd.dialects.registry import AGENTS

_AGENT_NAMES = frozenset(name for spec in AGENTS.values() for name in spec.process_names)
_HEADLESS_FLAGS = frozenset(flag for spec in AGENTS.values() for flag in spec.headless_flags)
_INTERACTIVE_FLAGS = frozenset(flag for spec in AGENTS.values() for flag in spec.interactive_flags)
MAX_ANCESTORS = 8


def session_is_interactive(pid: int, proc: str = "/proc") -> bool | None:
    """True or False when the agent process was found among the ancestors of `pid`, else None."""
    current = pid
    for _ in range(MAX_ANCESTORS):
        current = _parent(current, proc)
        if current <= 1:
            return None
        argv = _cmdline(current, proc)
        if _is_agent(argv):
            return _interactive(current, argv, proc)
    return None


def _parent(pid: int, proc: str) -> int:
    try:
        with open(f"{proc}/{pid}/stat", "rb") as handle:
            stat = handle.read().decode(errors="replace")
    except OSError:
        return 0
    # The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    fields = stat[stat.rfind(")") + 2 :].split()
    return int(fields[1]) if len(fields) > 1 else 0


def _cmdline(pid: int, proc: str) -> list[str]:
    try:
        with open(f"{proc}/{pid}/cmdline", "rb") as handle:
            return [a.decode(errors="replace") for a in handle.read().split(b"\0") if a]
    except OSError:
        return []


def _is_agent(argv: Sequence[str]) -> bool:
    return any(os.path.basename(arg) in _AGENT_NAMES for arg in argv[:3])


def _option(arg: str) -> str:
    return arg.split("=", 1)[0] if arg.startswith("--") else arg


def _interactive(pid: int, argv: Sequence[str], proc: str) -> bool:
    if any(_option(a) in _INTERACTIVE_FLAGS for a in argv):
        return True
    if any(_option(a) in _HEADLESS_FLAGS for a in argv):
        return False
    try:
        stdin = os.readlink(f"{proc}/{pid}/fd/0")
    except OSError:
        return False
    return stdin.startswith(("/dev/pts/", "/dev/tty"))
