"""A/B of two versions of the daemon in one run: this working tree against a git revision, side by side.

Both sides are snapshotted the same way into a temporary directory each (`daemon/`, `policies/`,
`client_shim/`: the revision's by `git archive`, this tree's as `git ls-files` lists them, uncommitted
and untracked files included) and each daemon runs from its own snapshot, its code first on its
PYTHONPATH; its workers, its lane and their sandboxed evaluators import the package their parent
imported (hookd.runtime.isolated), and the run stops if a process of one side names the other's tree.
Both serve the same policies (this tree's; with --base-policies, each its own; with --shared-base-policies,
both the revision's), each from its own snapshot's `policies/`: the daemon evaluates in process only the
policies it ships, so a daemon serving another tree's directory would pay for sandboxed Rego workers the
other does not. Each round drives both at a fixed rate with the C load generator, request by request in
turn (A B A B …, which one first alternating between rounds), then each at its maximum, one after the
other in two halves (A B B A, in that round's order) added up. Per round: p50 and p99 at the fixed rate,
CPU per decision (schedstat over the daemon's whole process tree, the decision log's writing included)
at both, and the maximum rate; the report gives the median over the rounds of each new/base ratio (below
1.00 is less), so the box's drift hits both sides alike. `--base HEAD` is an A/A: its ratios show the tool's own
noise. A base that cannot load this tree's policies (older than the traits or engines they use) serves its
own, and the report's last line, "policies:", says which policies were served.

  .cache/venv/bin/python bench/ab.py [--base main] [--rounds 5] [--rate 50] [--seconds 5] [--max-seconds 3]
      [--base-policies | --shared-base-policies] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import PAYLOADS, ROOT, Target, daemon_target, load, payload, settled, start_daemon

FIGURES = (
    ("p50 at the rate", "rate", "p50_ms"),
    ("p99 at the rate", "rate", "p99_ms"),
    ("CPU/decision at the rate", "rate", "cpu_ms_per_request"),
    ("CPU/decision at the maximum", "max", "cpu_ms_per_request"),
    ("decisions/s at the maximum, log written", "max", "with_log_per_second"),
)


SNAPSHOT = ("daemon", "policies", "client_shim")  # client_shim: the daemon checks its shims at start


def extract(revision: str, into: Path) -> Path:
    """The revision's daemon/, policies/ and client_shim/, extracted under `into`; returns `into`."""
    into.mkdir()
    archive = into / "snapshot.tar"
    subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", "-o", str(archive), revision, *SNAPSHOT],
        check=True,
        timeout=60,
    )
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    archive.unlink()
    return into


def copy_working_tree(into: Path) -> Path:
    """This tree's daemon/, policies/ and client_shim/ as they are now (the files git would see: tracked,
    changed or untracked, not ignored ones such as __pycache__), copied under `into`; returns `into`."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *SNAPSHOT],
        check=True,
        capture_output=True,
        timeout=60,
    ).stdout.decode()
    into.mkdir()
    for relative in sorted(set(filter(None, listed.split("\0")))):
        source = ROOT / relative
        if source.is_file():  # a tracked file deleted in the tree is not part of it
            (into / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / relative)
    return into


def serve_same_policies(snapshot: Path, policies: Path) -> None:
    """Replace the snapshot's policies/ with a copy of `policies`: served from the snapshot, they are the
    policies its daemon ships (evaluated in process), as they are for the other side."""
    shutil.rmtree(snapshot / "policies")
    shutil.copytree(policies, snapshot / "policies")


def start(snapshot: Path, runtime: Path, name: str, stack: ExitStack) -> Target:
    """A daemon running the hookd package of `snapshot` with the policies of `snapshot`, idle once started."""
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(snapshot / "daemon")
    try:
        daemon = start_daemon(runtime, snapshot / "policies", runtime.with_suffix(".log"))
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = saved
    stack.callback(daemon.wait, 10)
    stack.callback(daemon.terminate)
    settled(daemon.pid)
    target = daemon_target(daemon, runtime)
    return Target(name, target.socket, target.pids, target.log)


def foreign_processes(target: Target, own: Path, others: list[Path]) -> list[str]:
    """The processes of `target` whose argv or environment names another snapshot, or whose code path (a
    child's `-c` code that sets sys.path, else PYTHONPATH) names this tree's daemon/ ahead of `own`, or
    not `own` at all, as `pid argv`; empty when every one runs `own`'s code."""
    found = []
    for pid in target.pids():
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
            environ = Path(f"/proc/{pid}/environ").read_bytes().decode(errors="replace").split("\0")
        except OSError:  # gone meanwhile
            continue
        python_path = next((v.partition("=")[2] for v in environ if v.startswith("PYTHONPATH=")), "")
        code = argv[argv.index("-c") + 1] if "-c" in argv[:-1] else python_path
        mine, tree = code.find(f"{own}/"), code.find(f"{ROOT / 'daemon'}")
        named = "\0".join(argv + environ)
        if mine < 0 or 0 <= tree < mine or any(f"{other}/" in named for other in others):
            found.append(f"{pid} {' '.join(argv)[:300]}")
    return found


def one_round(a: Target, b: Target, payload_file: Path, args: argparse.Namespace, flip: bool) -> dict[str, Any]:
    first, second = (b, a) if flip else (a, b)
    rate = load([first, second], payload_file, "fixed", args.rate, args.seconds)
    halves: dict[str, list[dict[str, Any]]] = {a.name: [], b.name: []}
    for target in (first, second, second, first):  # A B B A: a drift of the box's load over the round cancels
        halves[target.name].append(load([target], payload_file, "max", 4, args.max_seconds / 2)[target.name])
    return {name: {"rate": rate[name], "max": combined(halves[name])} for name in (a.name, b.name)}


def combined(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One maximum from the phases it was measured in: decisions and their CPU, time and log drain added up."""
    answered = [p["requests"] - p["errors"] for p in parts]
    elapsed = sum(n / p["per_second"] if p["per_second"] else 0.0 for n, p in zip(answered, parts, strict=True))
    drain = sum(p["log_drain_s"] for p in parts)
    cpu_ms = sum(p["cpu_ms_per_request"] * n for n, p in zip(answered, parts, strict=True) if n)
    return {
        "requests": sum(p["requests"] for p in parts),
        "errors": sum(p["errors"] for p in parts),
        "per_second": sum(answered) / elapsed if elapsed else 0.0,
        "log_drain_s": round(drain, 3),
        "with_log_per_second": sum(answered) / (elapsed + drain) if elapsed + drain else 0.0,
        "cpu_ms_per_request": cpu_ms / sum(answered) if sum(answered) else float("nan"),
        "parts": parts,
    }


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
    parser.add_argument(
        "--shared-base-policies",
        action="store_true",
        help="both daemons serve the revision's policies/ (a code A/B against a base that cannot load this tree's)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hookd-ab-") as name, ExitStack() as stack:
        tmp = Path(name)
        project = tmp / "project"
        project.mkdir()
        payload_file = tmp / "payloads.json"
        payload_file.write_text(json.dumps([payload(i, project).decode() for i in range(len(PAYLOADS))]))
        new_code, base_code = copy_working_tree(tmp / "new"), extract(args.base, tmp / "base")
        if args.shared_base_policies:
            serve_same_policies(new_code, base_code / "policies")
        new = start(new_code, tmp / "new-daemon", "new", stack)
        base_code, base, policies = start_base(args, new_code, base_code, stack)
        for target, own, other in ((new, new_code, base_code), (base, base_code, new_code)):
            if foreign := foreign_processes(target, own, [other]):
                raise SystemExit(f"{target.name} runs code from outside {own}:\n" + "\n".join(foreign))
        for target in (new, base):  # warm-up: first decisions compile regexes, fill memos and caches
            load([target], payload_file, "max", 4, 1.0)
        rounds = [one_round(new, base, payload_file, args, flip=i % 2 == 1) for i in range(args.rounds)]
    report(rounds, args)
    print(f"policies: {policies}")
    if args.json:
        record = {"args": vars(args), "policies": policies, "rounds": rounds}
        Path(args.json).write_text(json.dumps(record, indent=2) + "\n")
    return 0


def start_base(args: argparse.Namespace, new_code: Path, base_code: Path, stack: ExitStack) -> tuple[Path, Target, str]:
    """The base's snapshot, its running daemon and which policies the two serve: this tree's unless told
    otherwise, or unless the base cannot load them (a revision older than the traits or engines they use):
    then each side serves its own, as with --base-policies, and the report says so."""
    runtime = base_code.parent / "base-daemon"
    if args.base_policies or args.shared_base_policies:
        told = "the base's, on both sides" if args.shared_base_policies else "each side its own"
        return base_code, start(base_code, runtime, "base", stack), told
    serve_same_policies(base_code, new_code / "policies")
    try:
        return base_code, start(base_code, runtime, "base", stack), "this tree's, on both sides"
    except SystemExit as refused:  # start_daemon's: the daemon exited or never served
        reason = str(refused).strip().splitlines()[-1] if str(refused).strip() else "it did not start"
    shutil.rmtree(base_code)
    base_code = extract(args.base, base_code)
    base = start(base_code, runtime.with_name("base-daemon-own"), "base", stack)
    return base_code, base, f"each side its own: the base refused this tree's ({reason})"


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
