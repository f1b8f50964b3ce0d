"""What Rego routing saves: each bench payload's routed rule against every package evaluated, in CPU µs.

The embedded engine evaluates one generated router rule per (event, tool kind, tool name), holding only the
packages whose `routing` lets them apply. This evaluates the bench's five BeforeTool payloads and an AfterModel
chunk both ways on the same engine, interleaved, in rounds, and prints the medians.

  .cache/venv/bin/python bench/rego_levers.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from breakdown import LABELS, cpu_us, handled_samples  # bench/ holds no package: its scripts import each other

from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.engines.rego.policyset import ROUTER_PACKAGE, load_policy_set

ROOT = Path(__file__).resolve().parents[1]
VERDICTS = ("deny", "ask", "context", "rewrite", "message", "stop")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    policies = (ROOT / "policies").resolve()
    with tempfile.TemporaryDirectory(prefix="hookd-rego-") as name:
        documents: list[dict[str, Any]] = [
            dict(h.event.input_document()) for h in handled_samples(policies, Path(name))
        ]
    documents.append({"event": "AfterModel", "client": "gemini", "tool": None, "raw": {"llm_response": {"text": "hi"}}})
    labels = [*LABELS, "AfterModel chunk"]
    routed = RegoEmbeddedEngine.load(policies)
    engine = routed._engine  # the same regorus engine, with one more rule that holds every package
    every = ",".join(
        f'"{p.name}": {{'
        + ",".join(f'"{r}": [m | some m in data.{p.name}.{r}]' for r in p.rules if r in VERDICTS)
        + "}"
        for p in load_policy_set(policies).packages
    )
    engine.add_policy("<every-package>", f"package hookd_every\n\nall := {{{every}}}\n")

    def evaluate(document: dict[str, Any], rule: str) -> object:
        if not rule:
            return None  # the engine answers at once when no package applies
        engine.set_input(document)
        return engine.eval_rule_as_json(rule)

    rules = [routed._router.rule_for(d) for d in documents]
    routed_rules = [f"data.{ROUTER_PACKAGE}.{r}" if r else "" for r in rules]
    samples: dict[str, list[list[float]]] = {"routed": [], "every package": []}
    for _ in range(args.rounds):
        samples["routed"].append(
            [cpu_us(lambda d=d, r=r: evaluate(d, r), 600) for d, r in zip(documents, routed_rules, strict=True)]
        )
        samples["every package"].append(
            [cpu_us(lambda d=d: evaluate(d, "data.hookd_every.all"), 600) for d in documents]
        )
    print(f"{'payload':48} {'routed µs':>10} {'every package µs':>17}")
    for i, label in enumerate(labels):
        medians = [statistics.median(r[i] for r in samples[k]) for k in samples]
        print(f"{label[:48]:48} {medians[0]:10.0f} {medians[1]:17.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
