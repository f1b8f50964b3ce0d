"""Where the files hookd ships beside its code are: the default policies, the Python shim and the C
shim's source.

A wheel (or sdist) carries them as package data under ``hookd/_data/`` (setup.py copies the checkout's
``policies/`` and ``client_shim/`` there at build time); a source checkout, and the editable install
`./dev` makes of it, has them at the top of the tree. Package data wins when both exist.
"""

from __future__ import annotations

from pathlib import Path

from hookd.errors import HookdError

_PACKAGE = Path(__file__).resolve().parents[1]
_LOCATIONS = (_PACKAGE / "_data", _PACKAGE.parents[1])  # installed package data, then the checkout


def shipped(relative: str) -> Path:
    """The first location that has `relative` (a file or a directory); the checkout's path when none
    has it, so that an error names where it was expected."""
    for base in _LOCATIONS:
        candidate = base / relative
        if candidate.exists():
            return candidate
    return _LOCATIONS[-1] / relative


def policies_dir() -> Path:
    """The default policy directory."""
    return shipped("policies")


def python_shim() -> Path:
    path = shipped("client_shim/hookd_shim.py")
    if not path.is_file():
        raise HookdError(f"the Python shim is missing at {path}")
    return path


def c_shim_source() -> Path:
    return shipped("client_shim/hookd_shim.c")
