"""The Python installations hookd's environments were made from (blind-tamper-14, policies/README.md).

A virtual environment holds hookd's package, but its interpreter is a link to the base installation its
`pyvenv.cfg` names (`home = BASE/bin`, PEP 405), and every start of the daemon and of the Python shim (`-I -S`
included) runs that installation's binary and imports its standard library (`encodings`, `os`, `json`'s
`lib-dynload` extension, a `sitecustomize` on that path). When the base lies in the caller's home (pyenv's
`~/.pyenv/versions/X`, uv's `~/.local/share/uv/python/cpython-X-…`), the agent can change it without any
privilege: it is one of hookd's places. A base outside the home (`/usr`) needs root to change, which the
privilege rules already ask.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

WHAT = "the Python installation hookd's environment was made from (its interpreter and standard library run hookd)"
_MAX_CFG_BYTES = 4096


def base_of(environment: str) -> str | None:
    """The base installation `ENV/pyvenv.cfg` names (`home = BASE/bin` gives BASE), or None."""
    try:
        with open(os.path.join(environment, "pyvenv.cfg"), encoding="utf-8", errors="replace") as fh:
            text = fh.read(_MAX_CFG_BYTES)
    except OSError:
        return None
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip().lower() == "home" and value.strip():
            home = value.strip().rstrip("/")
            return os.path.dirname(home) if os.path.basename(home) in ("bin", "Scripts") else home
    return None


def base_installations(home: str, environments: Iterable[str]) -> Iterator[str]:
    """The base installations of these environments (and of the running interpreter's) that lie in `home`."""
    bases = [base_of(env) for env in environments]
    if sys.prefix != sys.base_prefix:
        bases.append(sys.base_prefix)
    root = home.rstrip("/") + "/"
    for base in dict.fromkeys(b for b in bases if b):
        resolved = os.path.realpath(base)
        if resolved.startswith(root) and resolved != home.rstrip("/"):
            yield resolved


def base_places(home: str, environments: Iterable[str]) -> list[tuple[Path, str]]:
    """`base_installations` as protected places."""
    return [(Path(base), WHAT) for base in base_installations(home, environments)]
