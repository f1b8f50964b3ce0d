"""The carried-secret search (hookd.enrich.carried_secrets: a web or MCP tool's text searched for this machine's
secret values, whole, folded, base64-decoded at any alignment, and in pieces), this tree against a git revision:
the search alone (`_Haystack`: 30 values in the decoded text, "search") and the whole `carried_secrets` of a
Slack-like MCP call carrying the text, the values in the home's and project's stores ("call"), for four 8 KiB
texts: mixed-case words, base64 of random bytes, code, and prose. The sides alternate, each round in
fresh interpreters, and the report gives each side's median of the rounds' medians (µs a call), warm. On a box
other work loads, `--clock thread_time` times the calls in the thread's own CPU time (what the box's other
processes take from it left out).

  .cache/venv/bin/python bench/carried_secrets_ab.py [--base HEAD~1] [--rounds 7] [--clock perf_counter|thread_time]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMED = r"""
import base64, json, random, string, sys, tempfile, time
from pathlib import Path
from hookd.dialects.registry import AGENTS
from hookd.enrich.carried_secrets import _Haystack, _decoded, carried_secrets
from hookd.enrich.paths import enrich_paths
from hookd.types import Caller, Deadline, HookRequest
root = Path(sys.argv[1])
clock = getattr(time, sys.argv[2])
rng = random.Random(7)
alphabet = string.ascii_letters + string.digits
values = ["".join(rng.choice(alphabet) for _ in range(rng.randint(20, 48))) for _ in range(30)]
words = ["Foo", "Bar", "x1", "Z9q", " ", "(", "=", "Http", "get", "\n"]
texts = {
    "mixed-case": "".join(rng.choice(words) for _ in range(4000))[:8192],
    "base64": base64.b64encode(rng.randbytes(6144)).decode()[:8192],
    "code": (root / "daemon/hookd/pipeline.py").read_text()[:8192],
    "prose": (root / "policies/README.md").read_text()[100000:108192],
}
def median(call):
    for _ in range(20):
        call()
    times = []
    for _ in range(101):
        start = clock()
        call()
        times.append(clock() - start)
    return sorted(times)[len(times) // 2] * 1e6
def search(haystack):
    if hasattr(_Haystack, "carries"):  # blindtools41's: each value searched alone
        found = _Haystack(haystack)
        return [v for v in values if found.carries(v)]
    return _Haystack(haystack).carried(frozenset(values))
out = {}
with tempfile.TemporaryDirectory() as tmp:
    home, proj = Path(tmp, "home"), Path(tmp, "proj")
    (home / ".aws").mkdir(parents=True)
    proj.mkdir()
    lines = [f"aws_secret_access_key = {v}" for v in values[:15]]
    (home / ".aws" / "credentials").write_text("[default]\n" + "\n".join(lines) + "\n")
    (proj / ".env").write_text("".join(f"TOKEN_{i}={v}\n" for i, v in enumerate(values[15:])))
    for name, text in texts.items():
        payload = {"session_id": "s", "transcript_path": "", "cwd": str(proj), "hook_event_name": "PreToolUse",
                   "tool_name": "mcp__slack__post_message", "tool_input": {"channel": "C1", "text": text}}
        request = HookRequest(client="claude", event="PreToolUse", payload=json.dumps(payload).encode(),
                              cwd=str(proj), env={"HOME": str(home), "CLAUDE_PROJECT_DIR": str(proj)},
                              caller=Caller(uid=1000, gid=1000, pid=1), deadline=Deadline.after(60))
        event = enrich_paths(AGENTS["claude"].dialect.parse(request))
        haystack = "\n".join(_decoded(text))
        out[f"{name} search"] = median(lambda: search(haystack))
        out[f"{name} call"] = median(lambda: carried_secrets(event))
print(json.dumps(out))
"""


def _tree(base: str, into: Path) -> Path:
    archive = into / "base.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "archive", base, "daemon"], cwd=ROOT, stdout=out, check=True, timeout=120)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "base", filter="data")
    return into / "base" / "daemon"


def _run(daemon: Path, clock: str) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", TIMED, str(ROOT), clock], env={"PYTHONPATH": str(daemon)},
                          capture_output=True, text=True, check=True, timeout=600)  # fmt: skip
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD~1")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--clock", choices=("perf_counter", "thread_time"), default="perf_counter")
    args = parser.parse_args()
    rounds: dict[str, list[dict[str, float]]] = {"base": [], "tree": []}
    with tempfile.TemporaryDirectory() as tmp:
        base = _tree(args.base, Path(tmp))
        for _ in range(args.rounds):
            rounds["base"].append(_run(base, args.clock))
            rounds["tree"].append(_run(ROOT / "daemon", args.clock))
    print(f"{'text':<18} {args.base + ' µs':>14} {'this tree µs':>14}")
    for name in rounds["base"][0]:
        before = statistics.median(r[name] for r in rounds["base"])
        after = statistics.median(r[name] for r in rounds["tree"])
        print(f"{name:<18} {before:>14.0f} {after:>14.0f}")


if __name__ == "__main__":
    main()
