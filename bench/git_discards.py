"""What a git discard's decision costs (gitidx40): the shell analysis of `git reset --hard` in a repository whose
files all match HEAD (read whole: the index, every work-tree entry's stat data, HEAD's trees), against the same
line's `git status` (no discard); and the reading alone (`worktree.nothing_uncommitted`). Repositories of 200 and
5,000 files, their objects loose and then packed by `git gc` (deltas). Warm, best of `--passes` runs (ms a call).

  .cache/venv/bin/python bench/git_discards.py [--passes 20] [--worst]

`--worst` (gitfix41): what one request may be made to cost, the median and slowest of `--passes` runs: a line
repeating `git restore .` sixteen times in the 5,000-file repository; a repository of MAX_ENTRIES files; its
files all touched after the index (each hashed, up to the line's bound); a pack index of two million names
(53 MiB, the review's) holding the repository's own objects among made-up ones; a 14 MiB `packed-refs`
(past 16 MiB: unknown).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "daemon"))

from hookd.enrich.effects.worktree import MAX_ENTRIES, nothing_uncommitted  # noqa: E402
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
    _git(repo, "-c", "gc.auto=0", "commit", "-qm", "bench")  # (no gc in the background: the bench runs its own)
    return repo


def _best(call: Callable[[], object], passes: int) -> float:
    times = []
    for _ in range(passes):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def _line(line: str, repo: Path, lost: bool = False) -> Callable[[], object]:
    def analysed() -> object:
        found = analyse_shell(line, home="/home/u", base_dir=str(repo), project_dir=str(repo))[1]
        if line.startswith(("git reset --hard", "git restore .")):
            deletes = [e for e in found if e["op"] == "delete"]
            assert bool(deletes) == lost, "the discard should lose nothing" if not lost else "past the bounds: a loss"
        return found

    return analysed


def _reading(repo: Path) -> Callable[[], object]:
    return lambda: nothing_uncommitted(str(repo), str(repo / ".git"), str(repo))


def _worst(call: Callable[[], object], passes: int) -> str:
    times = []
    for _ in range(passes):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return f"median {statistics.median(times) * 1000:.0f} ms, slowest {max(times) * 1000:.0f} ms"


def _big_idx(repo: Path, names: int) -> None:
    """The pack's index rewritten with `names` made-up object names among its own (each made-up one at offset
    12): a lookup must find the real ones by the fanout and a binary search."""
    pack = repo / ".git" / "objects" / "pack"
    (idx,) = pack.glob("*.idx")
    data = idx.read_bytes()
    count = struct.unpack_from(">I", data, 8 + 255 * 4)[0]
    own = [(data[1032 + 20 * k : 1052 + 20 * k], struct.unpack_from(">I", data, 1032 + 24 * count + 4 * k)[0])
           for k in range(count)]  # fmt: skip
    rows = sorted({*own, *((os.urandom(20), 12) for _ in range(names))})
    fanout = [0] * 256
    for name, _ in rows:
        fanout[name[0]] += 1
    total, table = 0, []
    for n in fanout:
        total += n
        table.append(total)
    body = b"\377tOc\0\0\0\2" + struct.pack(">256I", *table) + b"".join(name for name, _ in rows)
    body += b"\0" * 4 * len(rows) + b"".join(struct.pack(">I", offset) for _, offset in rows)
    body += data[-40:-20]
    idx.chmod(0o644)
    idx.write_bytes(body + hashlib.sha1(body).digest())


def worst(passes: int) -> None:
    repo = _repository(5000)
    _git(repo, "gc", "-q")
    line = "; ".join(["git restore ."] * 16)
    print(f"16 x restore, 5,000 files: {_worst(_line(line, repo), passes)}")
    big = _repository(MAX_ENTRIES - 100)
    _git(big, "gc", "-q")
    print(f"reset, {MAX_ENTRIES - 100} files packed: {_worst(_line('git reset --hard', big), passes)}")
    for path in big.rglob("*.py"):
        os.utime(path)  # racy: each file is hashed
    racy = _worst(_line("git reset --hard HEAD", big, lost=True), passes)  # hashed up to MAX_HASHED_FILES
    print(f"reset, every file touched (a loss past the files hashed): {racy}")
    _big_idx(repo, 2_000_000)
    size = next((repo / ".git" / "objects" / "pack").glob("*.idx")).stat().st_size >> 20
    print(f"reset, a {size} MiB pack index: {_worst(_line('git reset --hard', repo), passes)}")
    refs = repo / ".git" / "packed-refs"
    tags = b"".join(b"%040x refs/tags/t%d\n" % (n, n) for n in range(250_000))  # under MAX_PACKED_REFS
    refs.write_bytes(tags + refs.read_bytes())  # the branch `git gc` packed, last
    cost = _worst(_line("git reset --hard", repo), passes)
    print(f"reset, a {refs.stat().st_size >> 20} MiB packed-refs: {cost}")
    shutil.rmtree(repo)
    shutil.rmtree(big)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--passes", type=int, default=20)
    parser.add_argument("--worst", action="store_true")
    arguments = parser.parse_args()
    passes = arguments.passes
    if arguments.worst:
        worst(passes)
        return
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
        shutil.rmtree(repo)


if __name__ == "__main__":
    main()
