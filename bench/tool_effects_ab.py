"""The file tools' enrichment in process (`enrich_paths` then `enrich_tool_effects`: what a Write, an Edit, a Read
and a web fetch cost before the engine), this tree against a git revision: five agent tool calls, warm, best of
7 passes of 200 each; the sides alternate, in fresh interpreters, for `--rounds` rounds (µs a call, CPU time).
Warm CPU only: the daemon's figures are `bench/phases.py` and `bench/ab.py`.

  .cache/venv/bin/python bench/tool_effects_ab.py [--base main] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CALLS = (
    ("claude", "Write", {"file_path": "src/app.py", "content": "x = 2\n"}),
    ("claude", "Write", {"file_path": ".env", "content": "A=1\n"}),
    ("claude", "Read", {"file_path": "README.md"}),
    ("claude", "Edit", {"file_path": "src/app.py", "old_string": "x = 1", "new_string": "x = 3"}),
    ("gemini", "web_fetch", {"prompt": "Summarise https://docs.python.org/3/library/pathlib.html"}),
)
TIMED = r"""
import json, sys, tempfile, time
from pathlib import Path
from hookd.dialects.registry import AGENTS
from hookd.enrich.paths import enrich_paths
from hookd.enrich.tool_effects import enrich_tool_effects
from hookd.types import Caller, Deadline, HookRequest
tmp = Path(tempfile.mkdtemp())
proj, home = tmp / "proj", tmp / "home"
(proj / "src").mkdir(parents=True)
(proj / "src" / "app.py").write_text("x = 1\n")
(proj / "README.md").write_text("r\n")
home.mkdir()
(home / ".bashrc").write_text("")
out = []
for client, tool, tool_input in json.loads(sys.argv[1]):
    event = "BeforeTool" if client == "gemini" else "PreToolUse"
    payload = {"session_id": "s", "transcript_path": "", "cwd": str(proj), "hook_event_name": event,
               "tool_name": tool, "tool_input": tool_input}
    request = HookRequest(client=client, event=event, payload=json.dumps(payload).encode(), cwd=str(proj),
                          env={"HOME": str(home), AGENTS[client].project_dir_env: str(proj)},
                          caller=Caller(uid=0, gid=0, pid=1), deadline=Deadline.after(600))
    parsed = AGENTS[client].dialect.parse(request)
    best = float("inf")
    for _ in range(7):
        start = time.process_time_ns()
        for _ in range(200):
            enrich_tool_effects(enrich_paths(parsed))
        best = min(best, (time.process_time_ns() - start) / 200 / 1000)
    out.append(round(best, 1))
print(json.dumps(out))
"""


def _side(src: Path) -> list[float]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-c", TIMED, json.dumps(CALLS)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return [float(x) for x in json.loads(done.stdout)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "base.tar"
        subprocess.run(["git", "-C", str(ROOT), "archive", "-o", str(archive), args.base, "daemon"], check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(tmp, filter="data")
        print("call:", " | ".join(f"{c[0]} {c[1]}" for c in CALLS))
        for _ in range(args.rounds):
            print(f"{args.base}: {_side(Path(tmp) / 'daemon')}")
            print(f"this: {_side(ROOT / 'daemon')}")


if __name__ == "__main__":
    main()
