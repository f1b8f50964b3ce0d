"""`hookd eval`: decide one payload from stdin without a daemon (or, with --daemon, on the running one)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from hookd.cli.output import print_evaluation
from hookd.config import Config
from hookd.dialects.registry import AGENTS, DEFAULT_AGENT
from hookd.errors import DialectError, HookdError
from hookd.types import Caller, Deadline, HookRequest


def register(sub: Any) -> None:
    ev = sub.add_parser("eval", help="decide one payload from stdin without a daemon")
    ev.set_defaults(run=cmd_eval)
    ev.add_argument("--event", help="the client's hook event name (default: the payload's hook_event_name)")
    ev.add_argument("--client", default=DEFAULT_AGENT, choices=tuple(AGENTS))
    ev.add_argument("--policies", help="policy directory (default: the configured one)")
    ev.add_argument("--interactive", action="store_true", help="treat the session as interactive (ask is kept)")
    ev.add_argument("--json", action="store_true", help="print one JSON object")
    ev.add_argument("--daemon", action="store_true", help="ask the running daemon (its policies, its pipeline)")
    ev.add_argument("--runtime-dir", help="with --daemon: the daemon's socket directory (default: the configured one)")


def cmd_eval(args: argparse.Namespace, config: Config) -> int:
    from hookd.dialects.registry import forwarded_env

    forwarded = forwarded_env()
    env = {k: v for k, v in os.environ.items() if k in forwarded}
    if getattr(args, "daemon", False):
        if args.policies:
            raise HookdError("--policies and --daemon do not go together: the daemon serves its own policies")
        from hookd.cli.control import eval_on_daemon

        return eval_on_daemon(args, config, sys.stdin.buffer.read(), env)
    from hookd.assembly import build_pipeline, enrichers, in_process, load_engine
    from hookd.runtime.logs import quiet_logging

    quiet_logging()
    raw = sys.stdin.buffer.read()
    event = args.event or _event_of(raw)
    policies = Path(args.policies).resolve() if args.policies else config.daemon.policies
    interactive = bool(args.interactive)
    config = in_process(config)
    engine = load_engine(config, policies)  # before the deadline starts: Python workers take a moment to start
    steps = enrichers(config)  # a dry run: a daemon's stream texts are left alone
    pipeline, _ = build_pipeline(config, engine, probe=lambda _pid: interactive, steps=steps)
    request = HookRequest(
        client=args.client,
        event=event,
        payload=raw,
        env=env,
        cwd=os.getcwd(),
        caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid(), ppid=os.getppid()),
        deadline=Deadline.after(config.daemon.request_timeout_ms / 1000),
    )

    async def decide() -> Any:
        try:
            return await pipeline.handle(request)
        finally:
            await engine.aclose()

    handled = asyncio.run(decide())
    decision, reply = handled.decision, handled.reply
    print_evaluation(
        {
            "decision": decision.outcome.name.lower(),
            "stdout": reply.stdout.decode(),
            "stderr": reply.stderr.decode(),
            "exit_code": reply.exit_code,
            "verdicts": [v.as_json() for v in decision.verdicts],
            "notes": list(decision.notes),
            "decision_id": decision.decision_id,
        },
        as_json=args.json,
    )
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
