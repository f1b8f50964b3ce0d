"""The shell analysis and effect model in process, this tree against a git revision: `analyse_shell` plus the
argument facts (what `enrich_shell` computes) for the bench's shell payloads, a few longer lines, and every
command of `policies/corpus/*.jsonl`, warm, best of 7 passes; the sides alternate, in fresh interpreters,
for `--rounds` rounds, and the report gives each side's best per round (µs a command line). Warm CPU only:
the daemon's figures (cold caches, sandboxed syscalls) are `bench/phases.py` and `bench/ab.py`.

  .cache/venv/bin/python bench/enrich_ab.py [--base main] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINES = (
    "git status && ls -la src",  # bench/run.py PAYLOADS
    "rm -rf ~/",
    "find . -name '*.py' -exec grep -l foo {} + | xargs wc -l",
    "cd src && python3 -c 'import os; print(os.getcwd())' > out.txt 2>&1",
)
TIMED = r"""
import json, sys, tempfile, time
from pathlib import Path
from hookd.enrich.facts import add_arg_facts
from hookd.enrich.shell.analysis import analyse_shell
groups = json.loads(sys.argv[1])
with tempfile.TemporaryDirectory() as tmp:
    home, project = Path(tmp, "home"), Path(tmp, "project")
    (project / "src").mkdir(parents=True)
    home.mkdir()
    def run(lines):
        for line in lines:
            shell, _ = analyse_shell(line, home=str(home), base_dir=str(project), project_dir=str(project))
            add_arg_facts(shell, home=None, project_dir=str(project))
    out = []
    for lines in groups:
        for _ in range(max(1, 300 // len(lines))):
            run(lines)
        best = float("inf")
        for _ in range(7):
            start = time.perf_counter()
            for _ in range(max(1, 500 // len(lines))):
                run(lines)
            best = min(best, (time.perf_counter() - start) / max(1, 500 // len(lines)) / len(lines))
        out.append(best * 1e6)
print(json.dumps(out))
"""


def corpus() -> list[str]:
    lines = []
    for path in sorted(ROOT.glob("policies/corpus/*.jsonl")):
        for text in path.read_text(encoding="utf-8").splitlines():
            command = json.loads(text).get("command") if text.strip() else None
            if isinstance(command, str):
                lines.append(command)
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="main")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    groups = [[line] for line in LINES] + [corpus()]
    labels = [*LINES, f"the corpus ({len(groups[-1])} lines), a line on average"]
    with tempfile.TemporaryDirectory(prefix="hookd-enrich-ab-") as tmp:
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.base, "daemon"], capture_output=True, check=True, timeout=120
        ).stdout
        Path(tmp, "base.tar").write_bytes(archive)
        with tarfile.open(Path(tmp, "base.tar")) as tar:
            tar.extractall(tmp, filter="data")
        sides = {"new": str(ROOT / "daemon"), "base": str(Path(tmp, "daemon"))}
        seen: dict[str, list[list[float]]] = {name: [] for name in sides}
        for round_ in range(args.rounds):
            for name in sorted(sides, reverse=round_ % 2 == 1):
                done = subprocess.run(
                    [sys.executable, "-c", TIMED, json.dumps(groups)],
                    env={"PYTHONPATH": sides[name], "PATH": "/usr/bin:/bin"},
                    capture_output=True, text=True, check=True, timeout=900,
                )  # fmt: skip
                seen[name].append(json.loads(done.stdout))
    print(f"µs a line, warm, best of 7 passes; per round; this tree (new) against {args.base} (base)")
    for k, label in enumerate(labels):
        new = [r[k] for r in seen["new"]]
        base = [r[k] for r in seen["base"]]
        print(f"  {label[:60]:60s} new {min(new):7.1f}  base {min(base):7.1f}  new/base {min(new) / min(base):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
