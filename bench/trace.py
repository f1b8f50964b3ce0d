"""The recorded workload: hook calls from the real Gemini CLI and Claude Code sessions of the e2e tests.

  trace.py record [--out bench/trace/e2e-sessions.json]   run the e2e tests and record every shim call
  trace.py show [TRACE]                                   what a trace holds: calls per client and event

`record` runs tests/e2e/test_gemini_cli.py and tests/e2e/test_claude_code.py (real agent CLIs, offline
scripted models, a real daemon) with HOOKD_TRACE_WRAPPER set: the tests then register a small wrapper as
`[shim] python`, which saves each call's payload, client, event, cwd and forwarded environment with its
time, and runs the real Python shim on the same stdin. The calls are sorted by time and written with
their offsets; a pause longer than MAX_GAP_MS (pytest setting up the next session) is shortened to it, so
the replay keeps the pacing inside a session (AfterModel chunks, tool calls, prompts) without the minutes
of set-up between sessions. Calls that reach the daemon over Claude Code's http hooks are not recorded:
the trace is what comes through the socket. bench/run.py replays it (bench/load.py trace).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TRACE = ROOT / "bench" / "trace" / "e2e-sessions.json"
E2E_TESTS = ["tests/e2e/test_gemini_cli.py", "tests/e2e/test_claude_code.py"]
RECORD_COMMAND = "./dev test tests/e2e/test_gemini_cli.py tests/e2e/test_claude_code.py (via bench/trace.py record)"
MAX_GAP_MS = 1000.0
FORWARDED_ENV = (
    "GEMINI_PROJECT_DIR",
    "GEMINI_CWD",
    "GEMINI_SESSION_ID",
    "GEMINI_PLANS_DIR",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_CODE_SESSION_ID",
    "HOME",
    "USER",
)  # fmt: skip  (client_shim/hookd_shim.py's list)


def wrapper_script(calls_dir: Path, python: str) -> str:
    """Save the call (payload, then client, event, cwd and the forwarded environment), then run the shim."""
    names = " ".join(FORWARDED_ENV)
    return f"""#!/bin/bash
out={shlex.quote(str(calls_dir))}/$(date +%s%N)-$$
cat > "$out.payload"
{{ printf '%s\\n' "$4" "$5" "$PWD"; for k in {names}; do
  if [ -n "${{!k+x}}" ]; then printf '%s=%s\\n' "$k" "${{!k}}"; fi; done; }} > "$out.meta"
exec {shlex.quote(python)} "$@" < "$out.payload"
"""


def collect(calls_dir: Path) -> list[dict[str, Any]]:
    """The saved calls in time order, with offsets in ms (long pauses shortened to MAX_GAP_MS)."""
    calls, offset, last = [], 0.0, None
    for meta in sorted(calls_dir.glob("*.meta"), key=lambda p: int(p.name.split("-")[0])):
        at_ns = int(meta.name.split("-")[0])
        client, event, cwd, *env_lines = meta.read_text().splitlines()
        if last is not None:
            offset += min((at_ns - last) / 1e6, MAX_GAP_MS)
        last = at_ns
        env = dict(line.split("=", 1) for line in env_lines if "=" in line)
        payload = meta.with_suffix(".payload").read_bytes().decode("utf-8", "surrogateescape")
        calls.append({"offset_ms": round(offset, 3), "client": client, "event": event, "cwd": cwd, "env": env,
                      "payload": payload})  # fmt: skip
    return calls


def record(out: Path) -> int:
    with tempfile.TemporaryDirectory(prefix="hkdtrace", dir="/tmp") as tmp:
        calls_dir = Path(tmp) / "calls"
        calls_dir.mkdir()
        wrapper = Path(tmp) / "record-python"
        wrapper.write_text(wrapper_script(calls_dir, os.path.realpath(sys.executable)))
        wrapper.chmod(0o755)
        env = {**os.environ, "HOOKD_TRACE_WRAPPER": str(wrapper)}
        command = [str(ROOT / "dev"), "test", *E2E_TESTS, "-q", "-p", "no:cacheprovider"]
        done = subprocess.run(command, cwd=ROOT, env=env, timeout=1800, check=False)
        calls = collect(calls_dir)
    if not calls:
        print("trace.py: no hook call was recorded (are Gemini CLI and Claude Code set up? ./dev setup)")
        return 1
    out.parent.mkdir(parents=True, exist_ok=True)
    trace = {"recorded": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "command": RECORD_COMMAND,
             "max_gap_ms": MAX_GAP_MS, "e2e_exit_code": done.returncode, "calls": calls}  # fmt: skip
    out.write_text(json.dumps(trace, indent=1) + "\n")
    print(f"{len(calls)} calls, {calls[-1]['offset_ms'] / 1000:.1f} s of pacing: {out}")
    show(out)
    return 0


def summary(trace: dict[str, Any]) -> dict[str, int]:
    counts = collections.Counter(f"{c['client']} {c['event']}" for c in trace["calls"])
    return dict(sorted(counts.items()))


def show(path: Path) -> None:
    trace = json.loads(path.read_text())
    calls = trace["calls"]
    print(f"{path}: {len(calls)} calls over {calls[-1]['offset_ms'] / 1000:.1f} s, recorded {trace['recorded']}")
    for name, count in summary(trace).items():
        print(f"  {count:5}  {name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run the e2e tests and record every hook call that goes through the shim")
    rec.add_argument("--out", default=str(DEFAULT_TRACE))
    shw = sub.add_parser("show", help="calls per client and event")
    shw.add_argument("trace", nargs="?", default=str(DEFAULT_TRACE))
    args = parser.parse_args()
    if args.command == "record":
        return record(Path(args.out).resolve())
    show(Path(args.trace).resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
