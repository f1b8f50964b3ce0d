"""The caller's homes (part of the effect model's tool effects, enrich/tool_effects.py): its home as its environment
says, and as the password database does. An agent run with a `HOME` of its own still writes the user's real
`~/.bashrc`, which the user's next login shell runs."""

from __future__ import annotations

import functools
import pwd

from hookd.enrich.paths import realpath


def caller_homes(home: str, uid: int) -> tuple[str, ...]:
    """`home` (the environment's) first, then the password database's when it is another."""
    recorded = _recorded_home(uid)
    return (home,) if recorded in ("", home) else (home, recorded)


@functools.lru_cache(maxsize=64)
def _recorded_home(uid: int) -> str:
    """The uid's home in the password database, canonical ("" when it has none): looked up once per uid."""
    try:
        recorded = pwd.getpwuid(uid).pw_dir.rstrip("/")
    except (KeyError, OverflowError):
        return ""
    return realpath(recorded) if recorded else ""
