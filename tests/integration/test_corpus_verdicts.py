"""The default policies' whole corpus, decided by the embedded engine (`hookd test`), in PARTS parts that the
parallel phase runs on separate workers (tests/e2e/conftest.py `APART`): run whole on one worker, it was the
phase's long pole (1,033 s at 13,600 cases; past its 1,200 s limit at 14,000 beside the agents' tests). Each part
also runs the policies' Rego tests and case files; a met gap fails, so every part passing is every case's verdict
as policies/README.md records it (`./dev hookd test -v policies` prints the whole table)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from support import ROOT

PARTS = 3
CORPUS = ROOT / "policies" / "corpus"


def parts() -> list[list[str]]:
    """The corpus files' names in PARTS parts of about as many bytes each (the largest file first to the part with
    fewest so far): a case's time goes with its size (the tamper batches' worlds), not with the count of cases."""
    sizes = {path.name: path.stat().st_size for path in CORPUS.glob("*.jsonl")}
    split: list[tuple[int, list[str]]] = [(0, []) for _ in range(PARTS)]
    for name in sorted(sizes, key=lambda n: (-sizes[n], n)):
        index = min(range(PARTS), key=lambda i: split[i][0])
        split[index] = (split[index][0] + sizes[name], [*split[index][1], name])
    return [sorted(names) for _, names in split]


def test_the_parts_hold_every_corpus_file_once() -> None:
    names = [name for part in parts() for name in part]
    assert sorted(names) == sorted(path.name for path in CORPUS.glob("*.jsonl")) and len(set(names)) == len(names)
    assert all(parts())


# The limit only keeps a stuck run from hanging the suite: the whole corpus took 1,033 s on one worker.
@pytest.mark.timeout(1260)
@pytest.mark.parametrize("part", range(PARTS))
def test_each_case_of_the_corpus_gets_its_verdict(part: int) -> None:
    chosen = [arg for name in parts()[part] for arg in ("--corpus", name)]
    env = {**os.environ, "HOOKD_CONFIG": ""}
    argv = [sys.executable, "-m", "hookd", "test", *chosen, str(ROOT / "policies")]
    done = subprocess.run(argv, capture_output=True, timeout=1200, env=env, check=False, text=True)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    last = done.stdout.strip().splitlines()[-1]
    found = re.fullmatch(r"(\d+) passed, 0 failed(, \d+ known gaps)?(, \d+ outside the aims)?", last)
    assert found and int(found[1]) > 2000, last  # a part of the corpus, not an empty one
