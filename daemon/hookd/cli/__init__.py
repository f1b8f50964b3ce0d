"""The `hookd` command line. Each command imports what it needs only when it runs.

Exit codes: 0 success, 1 the command ran and found failures (tests failed, daemon already running),
2 usage or input errors.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from hookd import __version__
from hookd.errors import HookdError

# Every module here exposes `register(sub)`: it adds its commands' parsers, each with
# `set_defaults(run=cmd_…)`, the function `main` calls with (args, config).
# One module per command (install holds install and uninstall; control the commands that ask the daemon).
COMMAND_MODULES = (
    "serve", "eval", "test", "install", "shim", "bench", "doctor", "control", "bundle", "replay", "service",
)  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hookd", description="Policy decisions for AI coding agents' hooks.")
    parser.add_argument("--version", action="version", version=f"hookd {__version__}")
    parser.add_argument("--config", help="TOML config file (default: $HOOKD_CONFIG, then ~/.config/hookd/config.toml)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    for name in COMMAND_MODULES:
        importlib.import_module(f"hookd.cli.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command == "bench":
        args.bench_args = extra
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        from hookd.config import load_config

        config = load_config(args.config)
        return int(args.run(args, config))
    except HookdError as exc:
        print(f"hookd: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
