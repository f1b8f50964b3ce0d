"""`hookd shim build` and `hookd shim path`: the native shim."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from hookd.config import Config


def register(sub: Any) -> None:
    shim = sub.add_parser("shim", help="build the native shim, or show where it is")
    shim.set_defaults(run=cmd_shim)
    shim_sub = shim.add_subparsers(dest="shim_command", required=True, metavar="SUBCOMMAND")
    shim_build = shim_sub.add_parser("build", help="compile client_shim/hookd_shim.c into the data directory")
    shim_build.add_argument("--cc", help="C compiler (default: $CC, then cc, gcc, clang)")
    shim_build.add_argument("--out", help="directory for hookd-shim (default: $XDG_DATA_HOME/hookd/bin)")
    shim_sub.add_parser("path", help="print where the native shim is (exit 1 when it is not built)")


def cmd_shim(args: argparse.Namespace, config: Config) -> int:
    from hookd.errors import ShimBuildError
    from hookd.shims.build import build, is_usable, native_shim_path

    if args.shim_command == "path":
        native = native_shim_path()
        print(native)
        if not is_usable(native):
            print("hookd: the native shim is not built there yet: run `hookd shim build`", file=sys.stderr)
            return 1
        return 0
    try:
        built = build(Path(args.out) if args.out else None, args.cc)
    except ShimBuildError as exc:
        print(f"hookd: {exc}", file=sys.stderr)
        return 1
    linked = "static" if built.static else "dynamically linked"
    print(f"built the native shim: {built.path} ({linked}, {built.compiler})")
    if built.quiet is not None:
        print(f"built the native quiet chunk: {built.quiet} (the stream lane loads it when it starts)")
    else:
        print("hookd: the native quiet chunk did not compile: the stream lane answers every chunk in Python")
    return 0
