"""What a git discard's decision costs (gitidx40): the shell analysis of `git reset --hard` in a repository whose
files all match HEAD (read whole: the index, every work-tree entry's stat data, HEAD's trees), against the same
line's `git status` (no discard); and the reading alone (`worktree.nothing_uncommitted`). Repositories of 200 and
5,000 files, their objects loose and then packed by `git gc` (deltas). Warm, best of `--passes` runs (ms a call).

  .cache/venv/bin/python bench/git_discards.py [--passes 20]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "daemon"))

from hookd.enrich.effects.worktree import nothing_uncommitted  # noqa: E402
from hookd.enrich.shell.analysis import analyse_shell  # noqa: E402

_GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "HOME": os.devnull, "PATH": os.defpath}


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@b", *args], cwd=repo, env=_GIT_ENV,
                   check=True, capture_output=True, timeout=600)  # fmt: skip


def _repository(files: int) -> Path:
    repo = Path(tempfile.mkdtemp(prefix="gitidx40-bench-"))
    for n in range(files):
        path = repo / f"d{n % 50}" / f"f{n}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"value = {n}\n" * 20)
    old = time.time() - 120
    for path in repo.rglob("*.py"):
        os.utime(path, (old, old))
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "bench")
    return repo


def _best(call: Callable[[], object], passes: int) -> float:
    times = []
    for _ in range(passes):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def _line(line: str, repo: Path) -> Callable[[], object]:
    def analysed() -> object:
        found = analyse_shell(line, home="/home/u", base_dir=str(repo), project_dir=str(repo))[1]
        if line == "git reset --hard":
            assert not [e for e in found if e["op"] == "delete"], "the discard should lose nothing"
        return found

    return analysed


def _reading(repo: Path) -> Callable[[], object]:
    return lambda: nothing_uncommitted(str(repo), str(repo / ".git"), str(repo))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--passes", type=int, default=20)
    passes = parser.parse_args().passes
    print(f"{'files':>6} {'objects':>7} {'status ms':>10} {'reset ms':>9} {'reading ms':>11}")
    for files in (200, 5000):
        repo = _repository(files)
        for objects in ("loose", "packed"):
            if objects == "packed":
                _git(repo, "gc", "-q")
            reading = _best(_reading(repo), passes)
            status = _best(_line("git status", repo), passes)
            reset = _best(_line("git reset --hard", repo), passes)
            print(f"{files:>6} {objects:>7} {status:>10.2f} {reset:>9.2f} {reading:>11.2f}")


if __name__ == "__main__":
    main()
