"""`hookd install` and `hookd uninstall`: register hookd's shim as the agent's hook, and remove it (the file
logic is hookd.install's)."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Callable, Collection
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookd.config import Config
from hookd.dialects.registry import AGENTS, DEFAULT_AGENT
from hookd.dialects.spec import InstallSpec
from hookd.errors import DaemonError, HookdError
from hookd.types import Event

if TYPE_CHECKING:
    from hookd.install import InstallPlan


CLIENTS = tuple(AGENTS)
SCOPES = tuple(dict.fromkeys(scope for spec in AGENTS.values() for scope in spec.install.scopes))


def _titles(has: Callable[[InstallSpec], bool]) -> str:
    return ", ".join(spec.title for spec in AGENTS.values() if has(spec.install))


def register(sub: Any) -> None:
    for name, text in (
        ("install", "register hookd's shim as the agent's hook"),
        ("uninstall", "remove it again"),
    ):
        cmd = sub.add_parser(name, help=text)
        cmd.set_defaults(run=cmd_install if name == "install" else cmd_uninstall)
        cmd.add_argument("--client", default=DEFAULT_AGENT, choices=CLIENTS)
        cmd.add_argument("--scope", default="user", choices=SCOPES, help="the scopes each agent has: docs/install.md")
        cmd.add_argument("--project-dir", default=".", help="project directory for --scope project")
        if name == "install":
            cmd.add_argument(
                "--managed-hooks-only",
                action="store_true",
                help="with --scope managed: let only managed hooks run "
                f"({_titles(lambda i: bool(i.managed_only_key))})",
            )
            cmd.add_argument(
                "--transport",
                default="command",
                choices=("command", "http"),
                help=f"http: the agent's http hooks to hookd's HTTP endpoint, where it has them "
                f"({_titles(lambda i: 'http' in i.transports)})",
            )
            cmd.add_argument(
                "--shim",
                default="auto",
                choices=("auto", "native", "python"),
                help="the hook command: the native shim (hookd shim build), the Python one, or native when built",
            )
            cmd.add_argument(
                "--all-events",
                action="store_true",
                help="register every event the agent has, not only those the policy set needs (docs/install.md)",
            )
            cmd.add_argument(
                "--autostart",
                action="store_true",
                help="where no service manager runs: the shim starts `hookd serve` when no daemon answers",
            )


def install_plan(
    config: Config,
    client: str,
    path: Path,
    native: Path | None,
    transport: str = "command",
    autostart: bool = False,
    events: Collection[str] | None = None,
) -> tuple[InstallPlan, str]:
    """What `hookd install` writes into `path` for this client, and the line that describes it."""
    from hookd.install import command_plan

    return command_plan(config, client, path, native, transport, autostart, events)


def policy_needs(config: Config) -> frozenset[Event] | None:
    """The events the configured policy set needs (every layer: the kept bundles, the user's directory, the
    opted-in projects', a shadow candidate), loaded as the daemon loads it; None when it does not load
    (then every event is registered: leaving one out on a guess could drop a rule)."""
    import asyncio

    from hookd.assembly import load_engine
    from hookd.errors import PolicyLoadError
    from hookd.policy.needs import needed_events
    from hookd.runtime.logs import quiet_logging

    quiet_logging()
    try:
        # The routing is the same whoever evaluates the Rego: read it in process, never start an OPA server for it.
        engine = load_engine(replace(config, daemon=replace(config.daemon, engine="embedded")))
    except (PolicyLoadError, HookdError) as exc:
        print(f"note: the policy set does not load ({exc}): every event counts as needed", file=sys.stderr)
        return None
    try:
        return needed_events(engine.packages)
    finally:
        asyncio.run(engine.aclose())


def _settings_path(args: argparse.Namespace) -> Path:
    from hookd.install import settings_path

    project_dir = Path(args.project_dir).resolve()
    return settings_path(args.client, args.scope, home=Path.home(), project_dir=project_dir, env=os.environ)


def _trust_path(args: argparse.Namespace) -> Path | None:
    from hookd.install import trust_path

    project_dir = Path(args.project_dir).resolve()
    return trust_path(args.client, args.scope, home=Path.home(), project_dir=project_dir, env=os.environ)


def cmd_install(args: argparse.Namespace, config: Config) -> int:
    from hookd.install import install
    from hookd.shims.build import choose

    path = _settings_path(args)
    native, fallback = choose(getattr(args, "shim", "auto"))
    transport = getattr(args, "transport", "command")
    autostart = bool(getattr(args, "autostart", False))
    events = None
    if not getattr(args, "all_events", False):
        from hookd.install import registered_events

        events = registered_events(args.client, policy_needs(config))
    plan, described = install_plan(config, args.client, path, native, transport, autostart, events)
    if getattr(args, "managed_hooks_only", False):
        if args.scope != "managed":
            raise HookdError("--managed-hooks-only goes with --scope managed")
        from hookd.install import managed_only_path

        plan = replace(plan, managed_hooks_only=True, managed_only_path=managed_only_path(args.client, path))
    trust = _trust_path(args)
    if trust is not None:
        project = Path(args.project_dir).resolve() if args.scope == "project" else None
        plan = replace(plan, trust_path=trust, project_dir=project)
    _guard_socket_dir(config)
    if args.scope == "managed":  # a machine-wide settings directory may not exist yet
        path.parent.mkdir(parents=True, exist_ok=True)
    result = install(plan)
    _record(config, args, plan, result.changed)
    if fallback:
        print(fallback, file=sys.stderr)
    if transport == "http":
        _print_http_setup(config)
    if not result.changed:
        print(f"hookd is already installed in {path}; nothing changed")
        return 0
    print(f"installed hookd for {len(result.added)} events in {path}")
    if events is not None:
        print(f"registered events: {', '.join(plan.commands)} (those the policies need; --all-events for every one)")
    print(f"hook command: {described}")
    if plan.project_dir is not None:  # trusting the project loads every hook and server it configures
        print(f"trusted {plan.project_dir} in {plan.trust_path}: the agent loads all of this project's hooks")
    if result.backup_path:
        print(f"backup of the previous file: {result.backup_path}")
    return 0


def _guard_socket_dir(config: Config) -> None:
    """A socket in a directory others can write to (/tmp) is registered only once its runtime dir is
    ours and 0700: made now if missing, refused if another user got there first (docs/protocol.md)."""
    from hookd.config.runtime_dir import in_shared_dir, prepare_runtime_dir

    runtime = config.hook_socket.parent
    if in_shared_dir(runtime):
        try:
            prepare_runtime_dir(runtime)
        except DaemonError as exc:
            raise HookdError(f"not installing: the hook socket's directory is unsafe: {exc}") from None


def _print_http_setup(config: Config) -> None:
    """The token file is created now (0600) if needed; Claude reads the token from the environment."""
    from hookd.transport.http_hooks import load_token

    load_token(config.http.token_file)
    if not config.http.enabled:
        print("note: the HTTP hook endpoint is off: set `[http] enabled = true` in hookd's config", file=sys.stderr)
    print(f"the HTTP hooks send the token in ${config.http.token_env}; start Claude Code with it set:")
    print(f'  export {config.http.token_env}="$(cat {shlex.quote(str(config.http.token_file))})"')


def cmd_uninstall(args: argparse.Namespace, config: Config) -> int:
    from hookd.install import uninstall

    result = uninstall(_settings_path(args), client=args.client, trust_path=_trust_path(args))
    _forget(config, args, result.settings_path)
    if not result.changed:
        print(f"hookd is not installed in {result.settings_path}; nothing changed")
        return 0
    print(f"removed hookd from {len(result.removed)} events in {result.settings_path}")
    if result.backup_path:
        print(f"backup of the previous file: {result.backup_path}")
    return 0


def _record(config: Config, args: argparse.Namespace, plan: InstallPlan, changed: bool) -> None:
    """Note the install in hookd's ledger (hookd.install.ledger), for doctor to find a hook file removed
    later. The settings are written by then: a ledger that cannot be written is said, never undoes them."""
    from hookd.install.ledger import Install, LedgerError, ledger_path, now, record

    files = tuple(p for p in (plan.settings_path, plan.trust_path, plan.managed_only_path) if p is not None)
    project = Path(args.project_dir).resolve() if args.scope == "project" else None
    entry = Install(args.client, args.scope, plan.settings_path, files, now(), project)
    try:
        record(ledger_path(config), entry, keep_time=not changed)
    except LedgerError as exc:
        print(f"warning: this install is not in hookd's ledger, doctor cannot tell if its file is removed: {exc}",
              file=sys.stderr)  # fmt: skip


def _forget(config: Config, args: argparse.Namespace, hook_file: Path) -> None:
    from hookd.install.ledger import LedgerError, forget, ledger_path

    try:
        forget(ledger_path(config), args.client, args.scope, hook_file)
    except LedgerError as exc:
        print(f"warning: hookd's ledger still lists this install: {exc}", file=sys.stderr)
