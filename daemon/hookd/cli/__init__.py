"""The `hookd` command line. Each command imports what it needs only when it runs.

Exit codes: 0 success, 1 the command ran and found failures (tests failed, daemon already running),
2 usage or input errors.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from hookd import __version__
from hookd.dialects.registry import AGENTS, DEFAULT_AGENT
from hookd.errors import HookdError

CLIENTS = tuple(AGENTS)
SCOPES = tuple(dict.fromkeys(scope for spec in AGENTS.values() for scope in spec.install.scopes))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hookd", description="Policy decisions for AI coding agents' hooks.")
    parser.add_argument("--version", action="version", version=f"hookd {__version__}")
    parser.add_argument("--config", help="TOML config file (default: $HOOKD_CONFIG, then ~/.config/hookd/config.toml)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="run the daemon")
    serve.add_argument("--policies", help="policy directory (default: the bundled policies/)")
    serve.add_argument("--runtime-dir", help="directory for the sockets (default: $XDG_RUNTIME_DIR/hookd)")
    serve.add_argument("--log-level", choices=("debug", "info", "warning", "error"))

    ev = sub.add_parser("eval", help="decide one payload from stdin without a daemon")
    ev.add_argument("--event", help="the client's hook event name (default: the payload's hook_event_name)")
    ev.add_argument("--client", default=DEFAULT_AGENT, choices=CLIENTS)
    ev.add_argument("--policies", help="policy directory (default: the configured one)")
    ev.add_argument("--interactive", action="store_true", help="treat the session as interactive (ask is kept)")
    ev.add_argument("--json", action="store_true", help="print one JSON object")
    ev.add_argument("--daemon", action="store_true", help="ask the running daemon (its policies, its pipeline)")
    ev.add_argument("--runtime-dir", help="with --daemon: the daemon's socket directory (default: the configured one)")

    test = sub.add_parser("test", help="run a policy directory's test_ rules and case files")
    test.add_argument("dir", nargs="?", help="policy directory (default: the configured one)")
    test.add_argument("-v", "--verbose", action="store_true", help="list passing tests too")
    test.add_argument(
        "--engine", choices=("embedded", "opa"), help="who evaluates the Rego (default: daemon.engine of the config)"
    )
    test.add_argument(
        "--opa-url", help="with --engine opa: this OPA server (default: a private `opa run --server` on 127.0.0.1)"
    )

    from hookd.cli import doctor  # the whole set-up, one line per problem

    doctor.register(sub)

    from hookd.cli.control import add_control_parsers  # status, reload, policies, tail, log verify

    add_control_parsers(sub)

    from hookd.cli.bundle import add_bundle_parsers  # bundle build, sign, verify, inspect

    add_bundle_parsers(sub)

    from hookd.cli.replay import add_replay_parser  # replay recorded requests against a candidate

    add_replay_parser(sub)

    from hookd.cli import service  # service install, uninstall, status

    service.register(sub)

    for name, text in (
        ("install", "register hookd's shim as the agent's hook"),
        ("uninstall", "remove it again"),
    ):
        cmd = sub.add_parser(name, help=text)
        cmd.add_argument("--client", default=DEFAULT_AGENT, choices=CLIENTS)
        cmd.add_argument("--scope", default="user", choices=SCOPES, help="the scopes each agent has: docs/install.md")
        cmd.add_argument("--project-dir", default=".", help="project directory for --scope project")
        if name == "install":
            cmd.add_argument(
                "--managed-hooks-only",
                action="store_true",
                help="with --scope managed: let only managed hooks run (Claude Code, Codex CLI)",
            )
            cmd.add_argument(
                "--transport",
                default="command",
                choices=("command", "http"),
                help="http: the agent's http hooks to hookd's HTTP endpoint, where it has them (Claude Code)",
            )
            cmd.add_argument(
                "--shim",
                default="auto",
                choices=("auto", "native", "python"),
                help="the hook command: the native shim (hookd shim build), the Python one, or native when built",
            )
            cmd.add_argument(
                "--autostart",
                action="store_true",
                help="where no service manager runs: the shim starts `hookd serve` when no daemon answers",
            )

    shim = sub.add_parser("shim", help="build the native shim, or show where it is")
    shim_sub = shim.add_subparsers(dest="shim_command", required=True, metavar="SUBCOMMAND")
    shim_build = shim_sub.add_parser("build", help="compile client_shim/hookd_shim.c into the data directory")
    shim_build.add_argument("--cc", help="C compiler (default: $CC, then cc, gcc, clang)")
    shim_build.add_argument("--out", help="directory for hookd-shim (default: $XDG_DATA_HOME/hookd/bin)")
    shim_sub.add_parser("path", help="print where the native shim is (exit 1 when it is not built)")

    # every argument after `bench` (--help too) goes to bench/run.py: see main()
    sub.add_parser("bench", add_help=False, help="run bench/run.py from the source checkout (hookd bench --help)")
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
        if args.command == "serve":
            from hookd.cli.commands import cmd_serve

            return cmd_serve(args, config)
        run = getattr(args, "run", None)  # the commands of hookd.cli.control name their function
        if run is not None:
            return int(run(args, config))
        from hookd.cli import commands

        return int(getattr(commands, f"cmd_{args.command}")(args, config))
    except HookdError as exc:
        print(f"hookd: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
