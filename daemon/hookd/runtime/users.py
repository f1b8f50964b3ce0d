"""The caller's home directory, looked up once a minute per uid: `pwd.getpwuid` reads /etc/passwd
(and NSS) on every call, ~50 µs, which is a tenth of a decision."""

from __future__ import annotations

import pwd
import time

_TTL_SECONDS = 60.0
_homes: dict[int, tuple[float, str]] = {}


def home_of(uid: int) -> str:
    """The home directory of `uid`, or "" when it has no passwd entry."""
    now = time.monotonic()
    cached = _homes.get(uid)
    if cached is not None and now - cached[0] < _TTL_SECONDS:
        return cached[1]
    try:
        home = pwd.getpwuid(uid).pw_dir
    except KeyError:
        home = ""
    if len(_homes) > 1024:
        _homes.clear()
    _homes[uid] = (now, home)
    return home
