"""A/B of two versions of the daemon in one run: this working tree against a git revision, side by side.

Both daemons serve the same policies (this tree's; with --base-policies, each its own) with their own code:
the revision's `daemon/` is extracted into a temporary directory and put first on its daemon's PYTHONPATH.
Each round drives both at a fixed rate
with the C load generator, request by request in turn (A B A B …), then each at its maximum, one after the
other in an order that alternates between rounds. Per round: p50 and p99 at the fixed rate, CPU per decision
(schedstat, the decision log's writing included) at both, and the maximum rate; the report gives the median
over the rounds of each new/base ratio (below 1.00 is less), so the box's drift hits both sides alike.

  .cache/venv/bin/python bench/ab.py [--base main] [--rounds 5] [--rate 50] [--seconds 5] [--max-seconds 3]
      [--base-policies]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import PAYLOADS, ROOT, Target, daemon_target, load, payload, start_daemon

FIGURES = (
    ("p50 at the rate", "rate", "p50_ms"),
    ("p99 at the rate", "rate", "p99_ms"),
    ("CPU/decision at the rate", "rate", "cpu_ms_per_request"),
    ("CPU/decision at the maximum", "max", "cpu_ms_per_request"),
    ("decisions/s at the maximum, log written", "max", "with_log_per_second"),
)


def extract(revision: str, into: Path) -> Path:
    """The revision's daemon/, policies/ and client_shim/ (the daemon checks its shims at start), extracted under
    `into`; returns its daemon/."""
    into.mkdir()
    archive = into / "daemon.tar"
    subprocess.run(
        [
            "git",
            "-C",
            str(ROOT),
            "archive",
            "--format=tar",
            "-o",
            str(archive),
            revision,
            "daemon",
            "policies",
            "client_shim",
        ],
        check=True,
        timeout=60,
    )
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    return into / "daemon"


def start(code: Path, policies: Path, runtime: Path, name: str, stack: ExitStack) -> Target:
    """A daemon running the hookd package under `code` with the policies in `policies`."""
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(code)
    try:
        daemon = start_daemon(runtime, policies, runtime.with_suffix(".log"))
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = saved
    stack.callback(daemon.wait, 10)
    stack.callback(daemon.terminate)
    target = daemon_target(daemon, runtime)
    return Target(name, target.socket, target.pids, target.log)


def one_round(a: Target, b: Target, payload_file: Path, args: argparse.Namespace, flip: bool) -> dict[str, Any]:
    rate = load([a, b], payload_file, "fixed", args.rate, args.seconds)
    tops: dict[str, Any] = {}
    for target in (b, a) if flip else (a, b):
        tops[target.name] = load([target], payload_file, "max", 4, args.max_seconds)[target.name]
    return {name: {"rate": rate[name], "max": tops[name]} for name in (a.name, b.name)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default="main", help="the git revision to compare this working tree against")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rate", type=float, default=50.0, help="requests a second to each daemon")
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of each fixed-rate phase")
    parser.add_argument("--max-seconds", type=float, default=3.0, help="duration of each maximum phase")
    parser.add_argument("--json", help="also write every round here")
    parser.add_argument(
        "--base-policies", action="store_true", help="the base daemon serves the revision's policies/ (a policy A/B)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hookd-ab-") as name, ExitStack() as stack:
        tmp = Path(name)
        project = tmp / "project"
        project.mkdir()
        payload_file = tmp / "payloads.json"
        payload_file.write_text(json.dumps([payload(i, project).decode() for i in range(len(PAYLOADS))]))
        base_code = extract(args.base, tmp / "base")
        base_policies = base_code.parent / "policies" if args.base_policies else ROOT / "policies"
        new = start(ROOT / "daemon", ROOT / "policies", tmp / "new", "new", stack)
        base = start(base_code, base_policies, tmp / "base-daemon", "base", stack)
        for target in (new, base):  # warm-up: first decisions compile regexes, fill memos and caches
            load([target], payload_file, "max", 4, 1.0)
        rounds = [one_round(new, base, payload_file, args, flip=i % 2 == 1) for i in range(args.rounds)]
    report(rounds, args)
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "rounds": rounds}, indent=2) + "\n")
    return 0


def report(rounds: list[dict[str, Any]], args: argparse.Namespace) -> None:
    print(f"this tree (new) against {args.base} (base): {args.rounds} rounds, {args.rate:g} req/s to each, and the")
    print("maximum of each in turn; medians over the rounds (ms, decisions/s) and of each round's new/base ratio\n")
    print(f"{'figure':42} {'new':>9} {'base':>9} {'new/base':>9}  per round")
    for label, phase, key in FIGURES:
        new = [r["new"][phase][key] for r in rounds]
        base = [r["base"][phase][key] for r in rounds]
        ratios = [n / b if b else float("nan") for n, b in zip(new, base, strict=True)]
        per_round = " ".join(f"{r:.2f}" for r in ratios)
        print(
            f"{label:42} {statistics.median(new):9.3f} {statistics.median(base):9.3f} "
            f"{statistics.median(ratios):9.2f}  {per_round}"
        )
    errors = sum(r[side][phase]["errors"] for r in rounds for side in ("new", "base") for phase in ("rate", "max"))
    steal = [r["new"]["rate"]["steal_pct"] for r in rounds]
    print(f"\nerrors: {errors}; steal per round (%): {' '.join(f'{s:.1f}' for s in steal)}")


if __name__ == "__main__":
    sys.exit(main())
