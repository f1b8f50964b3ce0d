"""The `hookd` commands that work on this machine: serve, eval, test, install, uninstall."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import sys
from dataclasses import replace
from pathlib import Path

from hookd.config import DEFAULT_FAIL_MODES, Config
from hookd.errors import DaemonError, DialectError, HookdError
from hookd.types import Caller, Deadline, Event, HookRequest


def cmd_serve(args: argparse.Namespace, config: Config) -> int:
    from hookd.app import serve

    daemon = config.daemon
    if args.policies:
        daemon = replace(daemon, policies=Path(args.policies).resolve())
    if args.runtime_dir:
        daemon = replace(daemon, runtime_dir=Path(args.runtime_dir).resolve())
    if args.log_level:
        daemon = replace(daemon, log_level=args.log_level)
    try:
        return serve(replace(config, daemon=daemon))
    except DaemonError as exc:
        print(f"hookd: {exc}", file=sys.stderr)
        return 1


def cmd_eval(args: argparse.Namespace, config: Config) -> int:
    from hookd.assembly import build_pipeline
    from hookd.engines.rego_embedded import RegoEmbeddedEngine

    raw = sys.stdin.buffer.read()
    event = args.event or _event_of(raw)
    policies = Path(args.policies).resolve() if args.policies else config.daemon.policies
    interactive = bool(args.interactive)
    pipeline, _ = build_pipeline(config, RegoEmbeddedEngine.load(policies), probe=lambda _pid: interactive)
    request = HookRequest(
        client=args.client,
        event=event,
        payload=raw,
        env={k: v for k, v in os.environ.items() if k in ("GEMINI_PROJECT_DIR", "GEMINI_SESSION_ID", "HOME")},
        cwd=os.getcwd(),
        caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid(), ppid=os.getppid()),
        deadline=Deadline.after(config.daemon.request_timeout_ms / 1000),
    )
    handled = asyncio.run(pipeline.handle(request))
    decision, reply = handled.decision, handled.reply
    if args.json:
        print(
            json.dumps(
                {
                    "decision": decision.outcome.name.lower(),
                    "stdout": reply.stdout.decode(),
                    "stderr": reply.stderr.decode(),
                    "exit_code": reply.exit_code,
                    "verdicts": [v.as_json() for v in decision.verdicts],
                    "notes": list(decision.notes),
                },
                indent=2,
            )
        )
        return 0
    print(f"decision: {decision.outcome.name.lower()}")
    print(f"stdout:   {reply.stdout.decode() or '(nothing)'}")
    print(f"exit:     {reply.exit_code}")
    print("verdicts:" + ("" if decision.verdicts else " none"))
    for v in decision.verdicts:
        print(f"  {v.kind.value:8} {v.policy_id}:{v.rule_id}  {v.message}")
    for note in decision.notes:
        print(f"note:     {note}")
    return 0


def _event_of(raw: bytes) -> str:
    try:
        payload = json.loads(raw)
    except ValueError as exc:
        raise DialectError(f"stdin is not valid JSON: {exc}") from None
    name = payload.get("hook_event_name") if isinstance(payload, dict) else None
    if not isinstance(name, str):
        raise DialectError("the payload has no hook_event_name: pass --event")
    return name


def cmd_test(args: argparse.Namespace, config: Config) -> int:
    from hookd.policytest import run_case_files, run_rego_tests, summarise

    policy_dir = Path(args.dir).resolve() if args.dir else config.daemon.policies
    results = run_rego_tests(policy_dir) + run_case_files(policy_dir, config)
    for result in results:
        if result.status in ("FAIL", "ERROR") or args.verbose:
            print(f"{result.status:5} {result.name}" + (f": {result.detail}" if result.detail else ""))
    passed, failed = summarise(results)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def shim_path() -> Path:
    path = Path(__file__).resolve().parents[3] / "client_shim" / "hookd_shim.py"
    if not path.is_file():
        raise HookdError(f"the Python shim is missing at {path}")
    return path


def shim_command(config: Config, event: Event, client: str = "gemini") -> str:
    parts = [
        config.shim_python, "-I", "-S", str(shim_path()), client, event.value,
        "--socket", str(config.hook_socket), "--deadline-ms", str(config.shim.deadline_ms),
    ]  # fmt: skip
    mode = config.shim.fail_modes.get(event)
    if mode is not None and mode is not DEFAULT_FAIL_MODES[event]:
        parts += ["--fail", mode.value]
    return shlex.join(parts)


def _settings_path(args: argparse.Namespace) -> Path:
    from hookd.install import settings_path

    # Gemini CLI reads $GEMINI_CLI_HOME/.gemini/settings.json when that is set.
    home = Path(os.environ.get("GEMINI_CLI_HOME") or Path.home())
    return settings_path(args.client, args.scope, home=home, project_dir=Path(args.project_dir).resolve())


def cmd_install(args: argparse.Namespace, config: Config) -> int:
    from hookd.install import InstallPlan, install

    path = _settings_path(args)
    commands = {event.value: shim_command(config, event, args.client) for event in Event}
    result = install(InstallPlan(settings_path=path, commands=commands, timeout_ms=config.shim.hook_timeout_ms))
    if not result.changed:
        print(f"hookd is already installed in {path}; nothing changed")
        return 0
    print(f"installed hookd for {len(result.added)} events in {path}")
    print(f"hook command: {commands[Event.BEFORE_TOOL.value]}")
    if result.backup_path:
        print(f"backup of the previous file: {result.backup_path}")
    return 0


def cmd_uninstall(args: argparse.Namespace, config: Config) -> int:
    from hookd.install import uninstall

    result = uninstall(_settings_path(args))
    if not result.changed:
        print(f"hookd is not installed in {result.settings_path}; nothing changed")
        return 0
    print(f"removed hookd from {len(result.removed)} events in {result.settings_path}")
    if result.backup_path:
        print(f"backup of the previous file: {result.backup_path}")
    return 0
