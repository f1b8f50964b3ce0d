"""A decision's CPU in process, warm and cold: the pipeline (hookd.assembly's, over one policy directory) deciding the
bench's five payloads, each timed by the thread's CPU clock, either in a row (warm) or each after a 16 MB buffer
was touched and some unrelated Python ran (cold: what a served decision at an agent's pace pays, within ~10% of
bench/phases.py's figures, without a daemon, a socket or the log). Another revision is measured with its snapshot
first on the path: `git archive REV daemon policies | tar -x -C SNAP`, then `PYTHONPATH=SNAP/daemon … --policies
SNAP/policies` (fc2bbfc's `Pipeline.handle_now` is used where `decide` is missing). With `--split`, each payload's
time is split over the steps that a policy set can make the pipeline run or skip (the shell's facts, a file tool's
paths, its effects and the protected places, made only when the policies read them) and the Rego evaluation; the
rest (parse, combine, render) is what is left: the policies' own cost is the Rego row, what their facts cost the
enrichers' rows (one policy directory against another, e.g. fc2bbfc's `policies/` on this tree).

  .cache/venv/bin/python bench/cold_pipeline.py [--policies DIR] [--decisions 1000] [--warm] [--payload N] [--split]
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import PAYLOADS, ROOT, payload  # bench/ holds no package: its scripts import each other

EVICT_BYTES = 16 * 1024 * 1024
# The steps `--split` times (hookd.assembly's names; a snapshot without one leaves its row out)
STEPS = {"enrich_shell": "shell facts", "enrich_paths": "file paths", "enrich_tool_effects": "tool effects",
         "ProtectedSet": "protected places", "ProtectedPlaces": "protected places"}  # fmt: skip


class Split:
    """Thread CPU ns per (payload, step) of the steps wrapped, for the payload being decided (`current`)."""

    def __init__(self) -> None:
        self.spent: collections.Counter[tuple[int, str]] = collections.Counter()
        self.current = -1

    def timed(self, name: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            started = time.thread_time_ns()
            try:
                return call(*args, **kwargs)
            finally:
                self.spent[self.current, name] += time.thread_time_ns() - started

        return wrapped

    def install(self) -> None:
        """Wraps the enrichers hookd.assembly builds the pipeline from, and the embedded engine's evaluation."""
        from hookd import assembly
        from hookd.engines.rego.embedded import RegoEmbeddedEngine

        for attribute, name in STEPS.items():
            step = getattr(assembly, attribute, None)
            if step is None:
                continue
            if isinstance(step, type):  # built with the config: time each instance's calls
                made = step
                setattr(assembly, attribute, lambda *a, made=made, name=name, **k: self.timed(name, made(*a, **k)))
            else:
                setattr(assembly, attribute, self.timed(name, step))
        if hasattr(RegoEmbeddedEngine, "evaluate_sync"):  # this tree's and recent snapshots' entry
            RegoEmbeddedEngine.evaluate_sync = self.timed("Rego", RegoEmbeddedEngine.evaluate_sync)  # type: ignore[method-assign]

    def report(self, spent: collections.Counter[int], decisions: float) -> None:
        """Each step's µs a decision per payload, and what no step took (parse, combine, render)."""
        taken: collections.Counter[int] = collections.Counter()
        for name in [*dict.fromkeys(STEPS.values()), "Rego"]:  # two names of one step: a row once
            row = {k: round(self.spent[k, name] / decisions / 1000, 1) for k in sorted(spent)}
            taken.update({k: self.spent[k, name] for k in spent})
            print(f"  {name:17} {row}  mean {sum(row.values()) / len(row):.1f}")
        rest = {k: round((spent[k] - taken[k]) / decisions / 1000, 1) for k in sorted(spent)}
        print(f"  {'the rest':17} {rest}  mean {sum(rest.values()) / len(rest):.1f}")


def decider(policies: Path, project: Path) -> Callable[[int], object]:
    """A function deciding the bench's payload `i` with the hookd on the path (this tree's or a snapshot's)."""
    from hookd import assembly
    from hookd.config import Config
    from hookd.types import Caller, Deadline, HookRequest

    config = Config()
    if hasattr(assembly, "in_process"):  # Rego in process, as `hookd eval` decides (no sandboxed workers)
        config = assembly.in_process(config)
    pipeline: Any = assembly.build_pipeline(config, assembly.load_engine(config, policies), probe=lambda _pid: False)[0]
    caller = Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid())
    bodies = [payload(i, project) for i in range(len(PAYLOADS))]
    home = os.environ.get("HOME", "/")

    def decide(i: int) -> object:
        request = HookRequest(client="gemini", event="BeforeTool", payload=bodies[i], env={"HOME": home},
                              cwd=str(project), caller=caller, deadline=Deadline.after(5))  # fmt: skip
        if hasattr(pipeline, "decide"):
            return pipeline.decide(request)
        return pipeline.handle_now(request, pipeline.parse(request))  # fc2bbfc's

    return decide


def evict(buffer: bytearray) -> None:
    """Push the decision's code and data out of the caches, as the other processes between two calls do."""
    for offset in range(0, len(buffer), 64):
        buffer[offset] ^= 1
    junk = {str(n): [n] * 3 for n in range(3000)}
    junk.clear()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policies", default=str(ROOT / "policies"))
    parser.add_argument("--decisions", type=int, default=1000)
    parser.add_argument("--warm", action="store_true", help="decide in a row, nothing evicted between decisions")
    parser.add_argument("--payload", type=int, help="only this one of the five payloads (from 0)")
    parser.add_argument("--split", action="store_true", help="each payload's µs by step: enrichers, Rego, the rest")
    args = parser.parse_args()
    split = Split()
    if args.split:
        split.install()
    with tempfile.TemporaryDirectory(prefix="hookd-cold-") as scratch:
        project = Path(scratch) / "project"
        (project / "src").mkdir(parents=True)
        decide = decider(Path(args.policies).resolve(), project)
        order = [args.payload] if args.payload is not None else list(range(len(PAYLOADS)))
        for n in range(200):  # compiled policies, caches and the parse's memo filled
            decide(order[n % len(order)])
        buffer = bytearray(EVICT_BYTES)
        spent: collections.Counter[int] = collections.Counter()
        for n in range(args.decisions):
            if not args.warm:
                evict(buffer)
            which = split.current = order[n % len(order)]
            started = time.thread_time_ns()
            decide(which)
            spent[which] += time.thread_time_ns() - started
    each = {k: round(v / (args.decisions / len(order)) / 1000, 1) for k, v in sorted(spent.items())}
    mode = "warm" if args.warm else "cold"
    print(f"{mode}: {sum(spent.values()) / args.decisions / 1000:.1f} µs a decision; per payload {each}")
    if args.split:
        split.report(spent, args.decisions / len(order))
    return 0


if __name__ == "__main__":
    sys.exit(main())
