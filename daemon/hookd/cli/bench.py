"""`hookd bench`: the side-by-side bench of the source checkout.

The bench spawns the shims, a per-call hook, `opa` and a C load generator from the checkout's `bench/`, so it is
offered only where that checkout is: an installed package (wheel, pipx, uv tool) does not list the command.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from hookd.config import Config
from hookd.errors import HookdError


def runner() -> Path:
    """The checkout's bench/run.py beside this package (absent from an installed wheel)."""
    import hookd

    return Path(hookd.__file__).resolve().parents[2] / "bench" / "run.py"


def register(sub: Any) -> None:
    if not runner().is_file():
        return
    # every argument after `bench` (--help too) goes to bench/run.py: see main()
    bench = sub.add_parser(
        "bench", add_help=False, help="run bench/run.py from the source checkout (hookd bench --help)"
    )
    bench.set_defaults(run=cmd_bench)


def cmd_bench(args: argparse.Namespace, _config: Config) -> int:
    """`hookd bench`: the side-by-side bench lives in the checkout's bench/ (it spawns the shims, a
    per-call hook and `opa`), so run it with this interpreter; an installed wheel has no bench/."""
    script = runner()
    if not script.is_file():
        raise HookdError(f"hookd bench needs a source checkout: {script} does not exist")
    argv = [sys.executable, str(script), *args.bench_args]
    os.execv(sys.executable, argv)
    return 1  # not reached: execv replaces this process
