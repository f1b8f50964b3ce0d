"""`hookd service install|uninstall|status`: hookd under the machine's service manager (systemd units,
or a launchd agent on macOS), so that the first hook call finds a daemon. docs/service.md."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import pwd
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hookd.config import Config, load_config
from hookd.errors import HookdError


def register(sub: Any) -> None:
    service = sub.add_parser("service", help="run hookd under systemd (socket-activated) or launchd")
    service_sub = service.add_subparsers(dest="service_command", required=True, metavar="SUBCOMMAND")
    for name, text, run in (
        ("install", "write the units (hook and control sockets, service) and enable the sockets", cmd_install),
        ("uninstall", "stop and disable them and remove the units", cmd_uninstall),
        ("status", "show the units and what the service manager says of them", cmd_status),
    ):
        cmd = service_sub.add_parser(name, help=text)
        scope = cmd.add_mutually_exclusive_group()
        scope.add_argument("--user", dest="scope", action="store_const", const="user", help="a user service (default)")
        scope.add_argument("--system", dest="scope", action="store_const", const="system", help="a system service")
        cmd.set_defaults(scope="user", run=run)
        cmd.add_argument("--manager", choices=("systemd", "launchd"), help="default: launchd on macOS, else systemd")
        cmd.add_argument("--unit-dir", help="write the units here instead of the manager's directory")
        if name == "install":
            cmd.add_argument("--run-as", help="with --system: the user the daemon runs as (default: $SUDO_USER)")
            cmd.add_argument("--no-start", action="store_true", help="write the units only: no systemctl calls")
        if name == "status":
            cmd.add_argument("--json", action="store_true", help="print one JSON object")


def _manager(args: argparse.Namespace) -> str:
    return str(args.manager or ("launchd" if sys.platform == "darwin" else "systemd"))


def _run_as(args: argparse.Namespace) -> str:
    if args.scope != "system":
        return ""
    user = getattr(args, "run_as", None) or os.environ.get("SUDO_USER") or ""
    if not user:
        raise HookdError("--system needs --run-as USER: the daemon runs as one user, whose agents it serves")
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        raise HookdError(f"--run-as {user}: no such user") from None
    if entry.pw_uid in (0, 65534):
        raise HookdError(f"--run-as {user}: the daemon runs as the user whose agents it serves, not as {user}")
    return user


@contextlib.contextmanager
def _system_environment(user: str) -> Iterator[None]:
    """The environment a system unit gives the daemon: runtime under /run, state under /var/lib."""
    saved = dict(os.environ)
    os.environ.update(XDG_RUNTIME_DIR="/run", XDG_STATE_HOME="/var/lib", HOME=pwd.getpwnam(user).pw_dir)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _rendered(args: argparse.Namespace, config: Config) -> tuple[Any, list[Any]]:
    from hookd.service import systemd

    unit_dir = _dir(args)
    if args.scope == "system":
        user = _run_as(args)
        with _system_environment(user):
            config = load_config(str(config.source) if config.source else None)
            scope = systemd.system_scope(unit_dir)
            return scope, systemd.render(config, scope, systemd.default_exec_start(config), user)
    scope = systemd.user_scope(unit_dir)
    return scope, systemd.render(config, scope, systemd.default_exec_start(config))


def cmd_install(args: argparse.Namespace, config: Config) -> int:
    if _manager(args) == "launchd":
        from hookd.service import launchd

        path = launchd.install(config, _dir(args), start=not args.no_start)
        print(f"wrote {path}")
        return 0
    from hookd.service import systemd

    scope, units = _rendered(args, config)
    if args.scope == "system" and not args.unit_dir and os.geteuid() != 0:
        raise HookdError("--system writes into /etc/systemd/system: run it as root (or use --user)")
    _prepare_state_dirs(config, args.scope)
    written = systemd.write_units(scope.unit_dir, units)
    print(f"wrote {', '.join(str(p) for p in written)}")
    if args.no_start:
        return 0
    sockets = [name for name, _ in systemd.SOCKETS]
    reloaded = systemd.systemctl(scope, "daemon-reload")
    if reloaded is None:
        print(f"note: no {scope.name} service manager answers here; start the sockets later with: "
              f"{' '.join(scope.systemctl)} enable --now {' '.join(sockets)}", file=sys.stderr)  # fmt: skip
        return 0
    done = systemd.systemctl(scope, "enable", "--now", *sockets)
    if done is None or done.returncode != 0:
        reason = done.stderr.strip().splitlines()[-1] if done is not None and done.stderr.strip() else "no answer"
        print(f"hookd: the units are written but systemctl could not enable the sockets: {reason}", file=sys.stderr)
        return 1
    print(f"enabled and started {', '.join(sockets)}: the first hook call starts the daemon")
    return 0


def _prepare_state_dirs(config: Config, scope: str) -> None:
    """A user unit allows its state paths with ReadWritePaths=, which must exist when the daemon starts."""
    if scope != "user":
        return
    from hookd.service.needs import service_needs

    needs = service_needs(config, as_root=os.geteuid() == 0)
    for path in (*needs.writes, needs.temp):
        if not path.is_relative_to(Path(os.environ.get("XDG_RUNTIME_DIR") or "/nonexistent")):
            path.mkdir(mode=0o700, parents=True, exist_ok=True)


def cmd_uninstall(args: argparse.Namespace, config: Config) -> int:
    if _manager(args) == "launchd":
        from hookd.service import launchd

        agent = launchd.uninstall(_dir(args))
        print(f"removed {agent}" if agent else "no hookd launchd agent is installed; nothing changed")
        return 0
    from hookd.service import systemd

    scope = systemd.system_scope(_dir(args)) if args.scope == "system" else systemd.user_scope(_dir(args))
    if not args.unit_dir:
        systemd.systemctl(scope, "disable", "--now", systemd.SERVICE, *(name for name, _ in systemd.SOCKETS))
    removed = systemd.remove_units(scope.unit_dir)
    if not args.unit_dir and removed:
        systemd.systemctl(scope, "daemon-reload")
    print(f"removed {', '.join(str(p) for p in removed)}" if removed else f"no hookd units in {scope.unit_dir}")
    return 0


def _dir(args: argparse.Namespace) -> Path | None:
    return Path(args.unit_dir).resolve() if args.unit_dir else None


def service_state(args: argparse.Namespace, config: Config) -> dict[str, Any]:
    """Per unit: written?, current (the same as install would write now)?, and systemd's view of it."""
    from hookd.service import systemd

    scope, units = _rendered(args, config)
    state: dict[str, Any] = {"scope": scope.name, "unit_dir": str(scope.unit_dir), "manager": None, "units": {}}
    for unit in units:
        path = scope.unit_dir / unit.name
        text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
        entry: dict[str, Any] = {"path": str(path), "installed": text is not None, "current": text == unit.text}
        done = systemd.systemctl(scope, "show", "--property=ActiveState,SubState,UnitFileState", unit.name)
        if done is not None and done.returncode == 0:
            state["manager"] = True
            entry |= dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
        state["units"][unit.name] = entry
    return state


def cmd_status(args: argparse.Namespace, config: Config) -> int:
    if _manager(args) == "launchd":
        from hookd.service import launchd

        path = launchd.agent_path(_dir(args))
        print(f"{path}: {'installed' if path.is_file() else 'not installed'}")
        return 0 if path.is_file() else 1
    state = service_state(args, config)
    if args.json:
        print(json.dumps(state, indent=2, sort_keys=True))
    else:
        for name, unit in state["units"].items():
            written = ("current" if unit["current"] else "out of date: run `hookd service install` again") \
                if unit["installed"] else "not installed"  # fmt: skip
            running = f", {unit.get('ActiveState', '?')} ({unit.get('UnitFileState', '?')})" if state["manager"] else ""
            print(f"{name:22} {written}{running}")
        if not state["manager"]:
            print(f"no {state['scope']} service manager answers here")
    return 0 if all(u["installed"] and u["current"] for u in state["units"].values()) else 1
