"""`hookd bench`: the side-by-side bench of the source checkout."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from hookd.config import Config
from hookd.errors import HookdError


def register(sub: Any) -> None:
    # every argument after `bench` (--help too) goes to bench/run.py: see main()
    bench = sub.add_parser(
        "bench", add_help=False, help="run bench/run.py from the source checkout (hookd bench --help)"
    )
    bench.set_defaults(run=cmd_bench)


def cmd_bench(args: argparse.Namespace, _config: Config) -> int:
    """`hookd bench`: the side-by-side bench lives in the checkout's bench/ (it spawns the shims, a
    per-call hook and `opa`), so run it with this interpreter; an installed wheel has no bench/."""
    import hookd

    runner = Path(hookd.__file__).resolve().parents[2] / "bench" / "run.py"
    if not runner.is_file():
        raise HookdError(f"hookd bench needs a source checkout: {runner} does not exist")
    argv = [sys.executable, str(runner), *args.bench_args]
    os.execv(sys.executable, argv)
    return 1  # not reached: execv replaces this process
