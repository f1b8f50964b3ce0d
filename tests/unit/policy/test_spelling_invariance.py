"""Spelling invariance (issue 26): the default policies judge what a shell line does, so a re-spelling that
does the same must be judged the same. For every shell attack of policies/corpus/*.jsonl that the defaults
stop (and that is within their aims), each semantics-preserving rewrite of tests/spelling_rewrites.py
must still be stopped (deny or ask, never allow); for every benign line they allow, the rewrite must stay
allowed. Cases run through `hookd test`'s own runner (hookd.policytest), in-process, with the default policies.

Bounded: each rewrite is tried on a deterministic sample of the cases it applies to (SAMPLE_ATTACKS,
SAMPLE_BENIGN, chosen by a hash of rewrite and line). `python tests/unit/policy/test_spelling_invariance.py`
runs every case under every rewrite and prints the table policies/README.md quotes ("Spelling invariance").
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from spelling_encoded import ENCODED, HANDED
from spelling_rewrites import REWRITES, WIDER, sample_key, spell

from hookd.policytest import Case, case_runner
from hookd.policytest.corpus import find_corpus_files, run_line

ROOT = Path(__file__).resolve().parents[3]
POLICIES = ROOT / "policies"
SAMPLE_ATTACKS = 40
SAMPLE_BENIGN = 12
# The wider families (tests/spelling_rewrites.py's WIDER) take a smaller sample each, to keep the test bounded.
SAMPLE_WIDER_ATTACKS = 20
SAMPLE_WIDER_BENIGN = 8

# Rewrites whose failures are not closed yet, each with the mechanism that misses them (strict: the entry must
# go once the rewrite holds on the sample).
KNOWN: dict[str, str] = {}
HANDED_ALL = {**ENCODED, **HANDED}


@dataclass(frozen=True, slots=True)
class ShellCase:
    line: dict[str, Any]
    name: str

    @property
    def command(self) -> str:
        return str(self.line["command"])

    @property
    def attack(self) -> bool:
        return bool(self.line["attack"])


def shell_cases() -> list[ShellCase]:
    """The corpus's shell lines within the aims: no gap, not outside the aims."""
    found = []
    for path in find_corpus_files(POLICIES):
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not text.strip():
                continue
            line = json.loads(text)
            if "command" in line and not line.get("gap") and not line.get("outside_aims"):
                found.append(ShellCase(line, f"{path.name}:{number}"))
    return found


class Judge:
    """Runs a case, or a re-spelling of it, through the corpus runner; the originals' results are kept."""

    def __init__(self, case: Case) -> None:
        self.case = case
        self.met: dict[str, bool] = {}

    def meets(self, shell: ShellCase, command: str | None = None) -> bool:
        spelled = shell.line | ({"command": command} if command is not None else {})
        result = run_line(shell.name, json.dumps(spelled), self.case.run)
        return result.status == "PASS"

    def holds_before(self, shell: ShellCase) -> bool:
        if shell.name not in self.met:
            self.met[shell.name] = self.meets(shell)
        return self.met[shell.name]


@pytest.fixture(scope="module")
def judge() -> Iterator[Judge]:
    with case_runner(POLICIES) as case:
        yield Judge(case)


@cache
def _cases() -> tuple[ShellCase, ...]:
    return tuple(shell_cases())


def applicable(
    rewrite: str, cases: tuple[ShellCase, ...], attacks: int | None, benign: int | None
) -> list[tuple[ShellCase, str]]:
    found = []
    for shell in cases:
        given = shell.line.get("world")
        new = HANDED_ALL[rewrite](shell.command) if rewrite in HANDED_ALL else spell(rewrite, shell.command, given)
        if new is not None and new != shell.command:
            found.append((shell, new))
    found.sort(key=lambda pair: sample_key(rewrite, pair[0].command))
    return [p for p in found if p[0].attack][:attacks] + [p for p in found if not p[0].attack][:benign]


def _sample(rewrite: str) -> tuple[int, int]:
    if rewrite in ENCODED:  # attack lines only: a decoded line fed to a shell may be asked whatever it holds
        return SAMPLE_WIDER_ATTACKS, 0
    if rewrite in HANDED:
        return SAMPLE_WIDER_ATTACKS, SAMPLE_WIDER_BENIGN
    return (SAMPLE_WIDER_ATTACKS, SAMPLE_WIDER_BENIGN) if rewrite in WIDER else (SAMPLE_ATTACKS, SAMPLE_BENIGN)


@dataclass(slots=True)
class Tally:
    attacks_before: int = 0
    attacks_after: int = 0
    benign_before: int = 0
    benign_after: int = 0


def measure(judge: Judge, rewrite: str, attacks: int | None, benign: int | None) -> tuple[Tally, list[str]]:
    tally, misses = Tally(), []
    for shell, new in applicable(rewrite, _cases(), attacks, benign):
        if not judge.holds_before(shell):
            continue
        held = judge.meets(shell, new)
        if shell.attack:
            tally.attacks_before += 1
            tally.attacks_after += held
        else:
            tally.benign_before += 1
            tally.benign_after += held
        if not held:
            misses.append(f"{shell.name} {'attack' if shell.attack else 'benign'}: {new!r}")
    return tally, misses


@pytest.mark.parametrize("rewrite", sorted({*REWRITES, *HANDED_ALL}))
def test_a_rewrite_keeps_the_decision(judge: Judge, rewrite: str) -> None:
    if rewrite in KNOWN:
        pytest.xfail(KNOWN[rewrite])  # kept honest by test_known_failures_are_still_failures
    tally, misses = measure(judge, rewrite, *_sample(rewrite))
    assert tally.attacks_before + tally.benign_before > 0, f"{rewrite} applies to no case of the corpus"
    assert not misses, "\n".join(misses)


def test_known_failures_are_still_failures(judge: Judge) -> None:
    # one test over KNOWN (empty now: every family holds), so that no run reports an empty parameter set skipped;
    # over every case a rewrite applies to, up to the first miss: a sample can lose its misses to new corpus
    # lines (the sample is the lowest keys), while the rewrite still fails on the lines it failed on
    held = [
        rewrite
        for rewrite in sorted(KNOWN)
        if not any(
            judge.holds_before(shell) and not judge.meets(shell, new)
            for shell, new in applicable(rewrite, _cases(), None, None)
        )
    ]
    assert not held, f"{held} hold now: take them out of KNOWN"


def main() -> None:
    # attacks per rewrite (a quarter as many benign; `CAP:BENIGN` gives both, the encoded families a benign half too)
    cap_text, _, benign_text = (sys.argv[1] if len(sys.argv) > 1 else "").partition(":")
    cap = int(cap_text) if cap_text else None
    with case_runner(POLICIES) as case:
        judge = Judge(case)
        print(f"{'rewrite':20} {'attacks stopped':>24} {'benign allowed':>22}")
        only = sys.argv[2:]  # rewrites to run (all when none are named)
        for rewrite in [r for r in [*REWRITES, *HANDED_ALL] if not only or r in only]:
            benign = int(benign_text) if benign_text else 0 if rewrite in ENCODED else cap // 4 if cap else None
            tally, misses = measure(judge, rewrite, cap, benign)
            a = f"{tally.attacks_after}/{tally.attacks_before}"
            b = f"{tally.benign_after}/{tally.benign_before}"
            print(f"{rewrite:20} {a:>24} {b:>22}", flush=True)
            for miss in misses:
                print(f"    {miss}", file=sys.stderr)


if __name__ == "__main__":
    main()  # `PYTHONPATH=daemon:tests python tests/unit/policy/test_spelling_invariance.py [CAP[:BENIGN]] [FAMILY…]`
