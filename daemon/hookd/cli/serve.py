"""`hookd serve`: run the daemon (hookd.app)."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from hookd.config import Config
from hookd.errors import DaemonError
from hookd.runtime import isolated


def register(sub: Any) -> None:
    serve = sub.add_parser("serve", help="run the daemon")
    serve.set_defaults(run=cmd_serve)
    serve.add_argument("--policies", help="policy directory (default: the bundled policies/)")
    serve.add_argument("--runtime-dir", help="directory for the sockets (default: $XDG_RUNTIME_DIR/hookd)")
    serve.add_argument("--log-level", choices=("debug", "info", "warning", "error"))


def cmd_serve(args: argparse.Namespace, config: Config) -> int:
    isolated.forget_working_directory()  # before the daemon imports the rest of itself
    from hookd.app import serve

    daemon = config.daemon
    if args.policies:
        daemon = replace(daemon, policies=Path(args.policies).resolve())
    if args.runtime_dir:
        # Not resolved: a symlink must reach the runtime-dir check as one (it is refused, never followed).
        daemon = replace(daemon, runtime_dir=Path(os.path.abspath(args.runtime_dir)))
    if args.log_level:
        daemon = replace(daemon, log_level=args.log_level)
    try:
        return serve(replace(config, daemon=daemon))
    except DaemonError as exc:
        print(f"hookd: {exc}", file=sys.stderr)
        return 1
