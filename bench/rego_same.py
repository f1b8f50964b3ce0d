"""Whether two policy directories decide alike: each package's verdicts (ids and reasons), where the router sends
a call, for every payload of policies/corpus/*.jsonl (as `hookd test` sends it, without its world; the project
beside the home and inside it) and every call of the recorded trace, on documents enriched once by this tree.
For a change to the Rego that is to keep every decision (a first test, a lookup instead of a walk): exit 1 and
the differences printed when any differs.

  .cache/venv/bin/python bench/rego_same.py BEFORE_DIR [--policies DIR]
      # BEFORE_DIR e.g. `git archive REV policies | tar -x -C /tmp/x` then /tmp/x/policies
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rego_packages import ROOT, Subject, corpus_calls, trace_documents  # bench/ holds no package

from hookd.wire import jsonstrict


def documents(policies: Path) -> list[dict[str, Any]]:
    """The enriched documents: the corpus beside and under the home, and the trace."""
    every = [*corpus_calls(1), *corpus_calls(1, under_home=True)]
    return [jsonstrict.well_formed(d) for d in [*trace_documents(policies, every), *trace_documents(policies)]]


def verdicts_of(subject: Subject, probe: str, document: dict[str, Any]) -> object:
    return subject.evaluate(document, subject.probes[probe])


def differences(before: Subject, after: Subject, docs: list[dict[str, Any]]) -> tuple[int, list[str]]:
    """How many (payload, package) verdict sets were compared, and a line for each that differs."""
    compared, differ = 0, []
    sides = (before, after)
    for probe in sorted(set(before.probes) | set(after.probes)):
        for i, document in enumerate(docs):
            routed = [probe in s.probes and s.routes[probe][i] for s in sides]
            verdicts = [verdicts_of(s, probe, document) if r else None for s, r in zip(sides, routed, strict=True)]
            compared += any(routed)
            if verdicts[0] != verdicts[1]:
                differ.append(f"{probe} {json.dumps(document.get('tool'))[:160]}: {verdicts[0]} → {verdicts[1]}")
    return compared, differ


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("--policies", type=Path, default=ROOT / "policies")
    args = parser.parse_args()
    policies = args.policies.resolve()
    docs = documents(policies)
    before, after = (Subject(p, docs, [], False) for p in (args.before.resolve(), policies))
    compared, differ = differences(before, after, docs)
    print("\n".join(differ))
    print(f"{len(docs)} documents, {compared} (payload, package) verdict sets compared, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
