"""What each default package costs in regorus: per package and per verdict rule, in CPU µs.

Evaluates, on the embedded engine the daemon builds, each package's verdict rules on their own (the
router's entry for that package) for each of the bench's five payloads and summed over the recorded
trace (bench/trace/e2e-sessions.json, each call evaluated once per pass, only the packages the router
sends it to). Interleaved in rounds, medians printed. With --rules, each verdict rule of each package too.
With --shapes, the shell shapes of tests/pathological.py under the caps instead of the bench payloads
(the 250-path `rm -rf`, `find`, `curl | sh`, …; `--only TEXT` keeps the shapes whose name holds it). With
--corpus N, every Nth payload of policies/corpus/*.jsonl (as `hookd test` sends it, without its world) takes the
trace's place: the last column is then the sum over those payloads (`--under-home`: the project inside the home,
as a developer's is; the corpus' worlds keep them apart).

  .cache/venv/bin/python bench/rego_packages.py [--rounds 3] [--calls 300] [--rules] [--policies DIR]
      [--against DIR]    # before → after: DIR (e.g. `git archive REV policies | tar -x -C /tmp/x`) against --policies
      [--shapes [--only TEXT]] [--corpus N [--under-home]]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from breakdown import cpu_us, handled_samples  # bench/ holds no package: its scripts import each other
from run import TRACE

from hookd.assembly import build_pipeline, load_engine
from hookd.config import Config
from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.engines.rego.policyset import ROUTER_PACKAGE, VERDICT_RULES, PackageInfo
from hookd.types import Caller, Deadline, HookRequest

ROOT = Path(__file__).resolve().parents[1]
LABELS = ["git status&&ls", "rm -rf ~/", "write app.py", "write .env", "read README"]  # bench/run.py's PAYLOADS


def shape_calls(only: str) -> tuple[list[str], list[dict[str, Any]]]:
    """The shell shapes of tests/pathological.py that the policies evaluate (not over a cap), as trace calls."""
    sys.path.insert(0, str(ROOT / "tests"))
    from pathological import SHAPES

    chosen = [s for s in SHAPES if "command" in s.fields.get("tool_input", {}) and not s.rule.startswith("input")]
    chosen = [s for s in chosen if only in s.name]
    calls = [
        {"client": "gemini", "event": s.event, "env": {"HOME": "/home/u"}, "cwd": "/work/project",
         "payload": json.dumps({"session_id": "s", "cwd": "/work/project", "hook_event_name": s.event, **s.fields})}
        for s in chosen
    ]  # fmt: skip
    return [s.name[:14] for s in chosen], calls


def corpus_calls(every: int, under_home: bool = False) -> list[dict[str, Any]]:
    """Every `every`th payload of the corpus, as trace calls, its project and home under a directory that is not
    made (nor need be: no world is); the project beside the home, or `under_home` (where a developer's is)."""
    from hookd.policytest.corpus import _payload

    scratch = Path(tempfile.gettempdir()) / "rego-corpus"
    home = scratch / "home"
    project = home / "project" if under_home else scratch / "project"
    lines = [line for path in sorted((ROOT / "policies" / "corpus").glob("*.jsonl"))
             for line in path.read_text().splitlines() if line.strip()][::every]  # fmt: skip
    calls = []
    for line in lines:
        case = json.loads(line)
        body = _payload(case)
        text = json.dumps(body).replace("${PROJECT}", str(project)).replace("${HOME}", str(home))
        calls.append({"client": case.get("client", "gemini"), "event": body["hook_event_name"],
                      "env": {"HOME": str(home)}, "cwd": str(project), "payload": text})  # fmt: skip
    return calls


def trace_documents(policies: Path, calls: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """The enriched input document of every call of the recorded trace (or of `calls`)."""
    if calls is None:
        calls = json.loads(TRACE.read_text())["calls"]
    pipeline, _ = build_pipeline(Config(), load_engine(Config(), policies), probe=lambda _pid: False)
    caller = Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid())

    async def one(call: dict[str, Any]) -> dict[str, Any]:
        request = HookRequest(
            client=call["client"],
            event=call["event"],
            payload=call["payload"].encode(),
            env=call["env"],
            cwd=call["cwd"],
            caller=caller,
            deadline=Deadline.after(60),
        )
        handled = await pipeline.handle(request)
        return dict(handled.event.input_document())

    loop = asyncio.new_event_loop()
    try:
        return [loop.run_until_complete(one(c)) for c in calls]
    finally:
        loop.close()


def rule_body(package: PackageInfo, rule: str) -> str:
    ref = f"data.{package.name}.{rule}"
    return f"[m | some m in {ref}]" if package.rules[rule] == "Set" else f"[m | m := {ref}]"


def add_probes(engine: Any, packages: tuple[PackageInfo, ...], rules: bool) -> dict[str, str]:
    """One probe rule per package (all its verdict rules, as the router has them), and per verdict rule."""
    lines = ["package hookd_probe", ""]
    probes: dict[str, str] = {}
    for i, package in enumerate(packages):
        verdicts = sorted(r for r in package.rules if r in VERDICT_RULES)
        entries = "".join(f'\t"{r}": {rule_body(package, r)},\n' for r in verdicts)
        lines.append(f"p{i} := {{\n{entries}}}")
        probes[package.name] = f"data.hookd_probe.p{i}"
        if rules:
            for j, rule in enumerate(verdicts):
                lines.append(f"p{i}_{j} := {rule_body(package, rule)}")
                probes[f"{package.name}.{rule}"] = f"data.hookd_probe.p{i}_{j}"
    engine.add_policy("<probes>", "\n".join(lines) + "\n")
    return probes


class Subject:
    """One policy directory on its own engine, with its probes and which documents the router sends where."""

    def __init__(self, policies: Path, documents: list[dict[str, Any]], trace: list[dict[str, Any]], rules: bool):
        routed = RegoEmbeddedEngine.load(policies)
        self.router = routed._router
        self.engine = routed._engine
        self.probes = add_probes(self.engine, routed.packages, rules)
        names = {p.name for p in routed.packages}
        self.package_of = {p: p if p in names else p.rsplit(".", 1)[0] for p in self.probes}
        self.documents = documents
        self.routes = {p: [self.applies(d, self.package_of[p]) for d in documents] for p in self.probes}
        self.trace_routes = {p: [d for d in trace if self.applies(d, self.package_of[p])] for p in self.probes}
        self.samples: dict[str, list[list[float]]] = {p: [] for p in self.probes}

    def applies(self, document: dict[str, Any], package: str) -> bool:
        rule = self.router.rule_for(document)
        if not rule:
            return False
        self.engine.set_input(document)
        return package in json.loads(self.engine.eval_rule_as_json(f"data.{ROUTER_PACKAGE}.{rule}"))

    def evaluate(self, document: dict[str, Any], probe: str) -> object:
        self.engine.set_input(document)
        return self.engine.eval_rule_as_json(probe)

    def round(self, probe: str, calls: int) -> None:
        ref = self.probes[probe]
        row = [
            cpu_us(lambda d=d: self.evaluate(d, ref), calls) if self.routes[probe][i] else 0.0
            for i, d in enumerate(self.documents)
        ]
        chosen = self.trace_routes[probe]
        passes = max(1, calls // max(1, len(chosen)))
        row.append(cpu_us(lambda: [self.evaluate(d, ref) for d in chosen], passes) if chosen else 0.0)
        self.samples[probe].append(row)

    def medians(self, probe: str) -> list[float]:
        rows = self.samples[probe]
        return [statistics.median(r[i] for r in rows) for i in range(len(rows[0]))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=300, help="evaluations per payload and probe")
    parser.add_argument("--rules", action="store_true", help="each verdict rule on its own too")
    parser.add_argument("--policies", type=Path, default=ROOT / "policies")
    parser.add_argument("--against", type=Path, help="a second policy directory, measured interleaved (before/after)")
    parser.add_argument("--shapes", action="store_true", help="the pathological shell shapes, not the bench payloads")
    parser.add_argument("--only", default="", help="with --shapes: the shapes whose name holds this text")
    parser.add_argument("--corpus", type=int, default=0, help="every Nth corpus payload instead of the trace")
    parser.add_argument("--under-home", action="store_true", help="with --corpus: the project under the home")
    args = parser.parse_args()
    policies = args.policies.resolve()
    labels = LABELS
    if args.shapes:
        labels, calls = shape_calls(args.only)
        documents = trace_documents(policies, calls)
    else:
        # not under /tmp/hookd-*: protected_paths treats that prefix as hookd's runtime directory and runs its
        # whole path lists on every write there (a real project does not; bench/ab.py's project does)
        with tempfile.TemporaryDirectory(prefix="rego-packages-") as name:
            documents = [dict(h.event.input_document()) for h in handled_samples(policies, Path(name))]
    trace = trace_documents(policies, corpus_calls(args.corpus, args.under_home) if args.corpus else None)
    subjects = [Subject(policies, documents, trace, args.rules)]
    if args.against:
        subjects.insert(0, Subject(args.against.resolve(), documents, trace, args.rules))
    for _ in range(args.rounds):
        for probe in subjects[-1].probes:
            for subject in subjects:
                if probe in subject.probes:
                    subject.round(probe, args.calls)
    heads = [*labels, "trace"]
    print(f"{'package / rule (µs; 0 = not routed)':44}" + "".join(f"{h:>15}" for h in heads))
    for probe in subjects[-1].probes:
        last = subjects[-1]
        name = probe if probe == last.package_of[probe] else f"  .{probe.rsplit('.', 1)[1]}"
        if probe == last.package_of[probe]:
            name = f"{probe.removeprefix('hookd.')} ({len(last.trace_routes[probe])} trace calls)"
        cells = [subject.medians(probe) for subject in subjects if probe in subject.probes]
        text = [" → ".join(f"{c[i]:.0f}" for c in cells) for i in range(len(heads))]
        print(f"{name[:44]:44}" + "".join(f"{t:>15}" for t in text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
