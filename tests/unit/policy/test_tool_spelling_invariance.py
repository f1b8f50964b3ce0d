"""Spelling invariance of agents' own tools (issue 26): the default policies judge which file a tool call
touches, so a path argument spelled another way the tool resolves to the same file (relative or absolute,
`./`, `//`, `/./`, `d/../d`, a trailing `/` on a directory, a symbolic link the case's world makes, a glob
filter with a letter in brackets, another spelling of a patch header's file) must be judged the same. For
every file, search, edit and patch tool case of policies/corpus/*.jsonl within the aims that the defaults meet,
each rewrite of tests/tool_spelling_rewrites.py that applies must keep it: an attack stopped, a benign call
allowed. Cases run through `hookd test`'s own runner (hookd.policytest).

Bounded: each rewrite runs on a deterministic sample of the cases it applies to (by a hash of rewrite and
case). `python tests/unit/policy/test_tool_spelling_invariance.py [CAP]` prints the table policies/README.md
quotes ("Spelling invariance").
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
from spelling_rewrites import sample_key
from tool_spelling_rewrites import TOOL_REWRITES, default_tool, tool_spec

from hookd.policytest import Case, case_runner
from hookd.policytest.corpus import find_corpus_files, run_line
from hookd.types import ToolKind

ROOT = Path(__file__).resolve().parents[3]
POLICIES = ROOT / "policies"
SAMPLE_ATTACKS = 25
SAMPLE_BENIGN = 10

# Rewrites whose failures are not closed yet, each with the mechanism that misses them (strict: the entry must
# go once the rewrite holds on the sample).
KNOWN: dict[str, str] = {}

_KINDS = {ToolKind.READ, ToolKind.WRITE, ToolKind.EDIT}


@dataclass(frozen=True, slots=True)
class ToolCase:
    line: dict[str, Any]
    name: str

    @property
    def attack(self) -> bool:
        return bool(self.line["attack"])


def tool_cases() -> list[ToolCase]:
    """The corpus's file, search, edit and patch tool cases within the aims (no gap, not outside the aims)."""
    found = []
    for path in find_corpus_files(POLICIES):
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not text.strip():
                continue
            line = json.loads(text)
            if "command" in line or line.get("gap") or line.get("outside_aims"):
                continue
            spec = tool_spec(default_tool(line))
            if spec is not None and spec.kind in _KINDS:
                found.append(ToolCase(line, f"{path.name}:{number}"))
    return found


class Judge:
    def __init__(self, case: Case) -> None:
        self.case = case
        self.met: dict[str, bool] = {}

    def meets(self, line: dict[str, Any], name: str) -> bool:
        return run_line(name, json.dumps(line), self.case.run).status == "PASS"

    def holds_before(self, tool: ToolCase) -> bool:
        if tool.name not in self.met:
            self.met[tool.name] = self.meets(tool.line, tool.name)
        return self.met[tool.name]


@pytest.fixture(scope="module")
def judge() -> Iterator[Judge]:
    with case_runner(POLICIES) as case:
        yield Judge(case)


@cache
def _cases() -> tuple[ToolCase, ...]:
    return tuple(tool_cases())


def applicable(rewrite: str, attacks: int | None, benign: int | None) -> list[tuple[ToolCase, dict[str, Any]]]:
    found = []
    for tool in _cases():
        new = TOOL_REWRITES[rewrite](tool.line)
        if new is not None:
            found.append((tool, new))
    found.sort(key=lambda pair: sample_key(rewrite, pair[0].name))
    return [p for p in found if p[0].attack][:attacks] + [p for p in found if not p[0].attack][:benign]


@dataclass(slots=True)
class Tally:
    attacks_before: int = 0
    attacks_after: int = 0
    benign_before: int = 0
    benign_after: int = 0


def measure(judge: Judge, rewrite: str, attacks: int | None, benign: int | None) -> tuple[Tally, list[str]]:
    tally, misses = Tally(), []
    for tool, new in applicable(rewrite, attacks, benign):
        if not judge.holds_before(tool):
            continue
        held = judge.meets(new, tool.name)
        if tool.attack:
            tally.attacks_before += 1
            tally.attacks_after += held
        else:
            tally.benign_before += 1
            tally.benign_after += held
        if not held:
            shown = {k: new[k] for k in ("client", "tool_name", "tool_input", "cwd", "world") if k in new}
            misses.append(f"{tool.name} {'attack' if tool.attack else 'benign'}: {json.dumps(shown)[:400]}")
    return tally, misses


@pytest.mark.parametrize("rewrite", sorted(TOOL_REWRITES))
def test_a_tool_path_spelling_keeps_the_decision(judge: Judge, rewrite: str) -> None:
    if rewrite in KNOWN:
        pytest.xfail(KNOWN[rewrite])  # kept honest by test_known_failures_are_still_failures
    tally, misses = measure(judge, rewrite, SAMPLE_ATTACKS, SAMPLE_BENIGN)
    assert tally.attacks_before + tally.benign_before > 0, f"{rewrite} applies to no tool case of the corpus"
    assert not misses, "\n".join(misses)


def test_known_failures_are_still_failures(judge: Judge) -> None:
    # one test over KNOWN (empty now: every tool family holds), so that no run reports an empty parameter set skipped
    held = [rewrite for rewrite in sorted(KNOWN) if not measure(judge, rewrite, SAMPLE_ATTACKS, SAMPLE_BENIGN)[1]]
    assert not held, f"{held} hold now: take them out of KNOWN"


def main() -> None:
    cap = int(sys.argv[1]) if len(sys.argv) > 1 else None  # attacks per rewrite (a quarter as many benign)
    with case_runner(POLICIES) as case:
        judge = Judge(case)
        print(f"{'rewrite':20} {'attacks stopped':>24} {'benign allowed':>22}")
        for rewrite in TOOL_REWRITES:
            tally, misses = measure(judge, rewrite, cap, cap if cap else None)
            a = f"{tally.attacks_after}/{tally.attacks_before}"
            b = f"{tally.benign_after}/{tally.benign_before}"
            print(f"{rewrite:20} {a:>24} {b:>22}", flush=True)
            for miss in misses:
                print(f"    {miss}", file=sys.stderr)


if __name__ == "__main__":
    main()  # run as `PYTHONPATH=daemon:tests python tests/unit/policy/test_tool_spelling_invariance.py [CAP]`
