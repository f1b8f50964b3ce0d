"""How hookd starts a Python process, so that nothing planted runs as hookd (issue 25).

`python -m hookd` looks for `hookd` in the working directory first (`-m` puts it on sys.path), then on
PYTHONPATH, in the user's site directory and wherever a .pth file points: an agent that can write one
of those (a repository's `hookd/__main__.py`, `~/hookd/` where a user unit starts, a PYTHONPATH entry)
would be started as the daemon. So every process hookd starts runs `python -I` (no PYTHON* variable, no
user site, neither the working directory nor a script's directory on sys.path) from `/`, with the
interpreter named by an absolute path: the daemon (`serve_command`: the units, the launchd agent; the
shims build the same argv) and its workers and lane (`module_command`: this very package, found on the
path this process found it on). `hookd doctor` reports what would still shadow it (hookd.doctor.shadows).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SAFE_CWD = "/"
PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])  # the directory that holds this hookd package


def serve_command(python: str, *flags: str) -> list[str]:
    """`python -I [FLAGS] -m hookd`: the daemon's command, to run from SAFE_CWD; `python` is an absolute path
    (a venv's interpreter, not the base one: it finds the venv's packages, which -I keeps). -I ignores
    every PYTHON* variable: what one would set is a flag here (`-B` for PYTHONDONTWRITEBYTECODE)."""
    return [python, "-I", *flags, "-m", "hookd"]


def module_command(module: str) -> list[str]:
    """argv (its arguments to be appended) running `module` of this hookd in an isolated interpreter: the path is
    this process's own, with the package's directory first and without the working directory, which
    `python -m` put there (a child started in `/` must import what its parent imported, and nothing from
    where the daemon was started)."""
    here = _working_directory()
    path = [PACKAGE_ROOT, *(p for p in sys.path if os.path.isabs(p) and p not in (PACKAGE_ROOT, here))]
    run = "runpy.run_module(sys.argv.pop(1), run_name='__main__', alter_sys=True)"  # the module, named in argv
    flags = ["-B"] if sys.flags.dont_write_bytecode else []  # as its parent: the unit's code is read-only
    code = f"import sys, runpy; sys.path[:] = {path!r}; {run}"
    return [os.path.abspath(sys.executable), "-I", *flags, "-c", code, module]


def forget_working_directory() -> None:
    """For a daemon started by hand (`python -m hookd serve` puts the working directory first on sys.path):
    take it off before the daemon imports the rest of itself and its dependencies, so that a `yaml.py` or
    `grpc/` where it was started is not imported as one of them; relative entries are made absolute. (If
    `hookd` itself came from there, this is already that code: `hookd doctor` reports it.)"""
    here = _working_directory()
    kept = [os.path.abspath(p) for p in sys.path if p not in ("", ".") and os.path.abspath(p) != here]
    sys.path[:] = kept if here != PACKAGE_ROOT else [PACKAGE_ROOT, *kept]


def _working_directory() -> str:
    try:
        return os.getcwd()
    except OSError:  # removed under it: nothing to leave out
        return ""
