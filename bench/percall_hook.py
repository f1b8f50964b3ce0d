"""The per-call baseline: a hook script that loads the Rego policies and decides on its own, every call.

It is what a user would run without a daemon: start Python, import the engine, load and compile the
policies, parse the payload, enrich, evaluate, render. It uses hookd's own pipeline so that its
decisions are byte-for-byte the daemon's. Usage: percall_hook.py POLICY_DIR < payload.json
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from hookd.assembly import build_pipeline
from hookd.config import Config
from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.types import Caller, Deadline, HookRequest


def main() -> int:
    policies = Path(sys.argv[1])
    pipeline, _ = build_pipeline(Config(), RegoEmbeddedEngine.load(policies))
    env = {k: v for k, v in os.environ.items() if k in ("GEMINI_PROJECT_DIR", "GEMINI_SESSION_ID", "HOME")}
    request = HookRequest(
        client="gemini",
        event="BeforeTool",
        payload=sys.stdin.buffer.read(),
        env=env,
        cwd=os.getcwd(),
        caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid(), ppid=os.getppid()),
        deadline=Deadline.after(5),
    )
    handled = asyncio.run(pipeline.handle(request))
    sys.stdout.buffer.write(handled.reply.stdout)
    return handled.reply.exit_code


if __name__ == "__main__":
    sys.exit(main())
