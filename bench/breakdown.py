"""Where a decision's CPU time goes: each step of the hook path measured on its own, in CPU µs.

  transport   the hook socket server alone (a handler that returns a fixed reply), driven by
              bench/load.py from a second process: accept, peer credentials, framing, reply, close
  pipeline    hookd's pipeline in-process (parse → enrich → evaluate → combine → render), first with an
              empty policy directory (no Rego evaluated), then with the default policies
  rego        the embedded engine alone on each bench payload's enriched input document
  log         building one decision log record (masking) and sealing it into the hash chain
  daemon      a real `hookd serve` at its maximum rate: CPU of the daemon process per decision

and the glue and the decision log split step by step, in process (`steps`): the dialect's parse, combine,
render, a decision id, masking the input, building the record (masking included), sealing it (canonical
JSON, sha256), and the writer's whole work per record (build, structlog, seal, write) over a batch.

CPU time (not wall time) so that a busy machine inflates the figures less; still, run it on a quiet
machine. Run: .cache/venv/bin/python bench/breakdown.py [--seconds 4] [--json FILE]

`--base REV [--rounds 5]` measures only the in-process steps, of this tree and of a git revision (its
`daemon/` extracted and first on PYTHONPATH), in turn in each round (the order alternating), and prints the
median of each step on each side and of the rounds' new/base ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import LOAD, PAYLOADS, ROOT, TRACE, payload, start_daemon, wait_for_log

from hookd import wire
from hookd.assembly import build_pipeline, load_engine
from hookd.audit.chain import GENESIS, seal
from hookd.audit.ids import DecisionIds
from hookd.audit.mask import Masker
from hookd.audit.record import Pending, build_record
from hookd.audit.sink import Sink
from hookd.audit.writer import DecisionLog
from hookd.config import Config, LogConfig
from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.pipeline import Handled
from hookd.policy.combine import combine
from hookd.transport.hook_server import HookServer, ServerStats
from hookd.types import Caller, Deadline, HookRequest, Reply

LABELS = [str(p["tool_input"]) for p in PAYLOADS]


def cpu_us(fn: Callable[[], object], calls: int) -> float:
    for _ in range(calls // 10):
        fn()
    start = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - start) / calls * 1e6


def request(i: int, project: Path) -> HookRequest:
    return HookRequest(
        client="gemini",
        event="BeforeTool",
        payload=payload(i, project),
        env={"GEMINI_PROJECT_DIR": str(project)},
        cwd=str(project),
        caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid()),
        deadline=Deadline.after(60),
    )


def pipeline_us(policies: Path, project: Path, calls: int) -> dict[str, float]:
    pipeline, _ = build_pipeline(Config(), load_engine(Config(), policies), probe=lambda _pid: False)

    async def timed(i: int) -> float:
        for _ in range(calls // 10):
            await pipeline.handle(request(i, project))
        start = time.process_time()
        for _ in range(calls):
            await pipeline.handle(request(i, project))
        return (time.process_time() - start) / calls * 1e6

    return {LABELS[i]: asyncio.run(timed(i)) for i in range(len(PAYLOADS))}


def handled_samples(policies: Path, project: Path) -> list[Handled]:
    pipeline, _ = build_pipeline(Config(), load_engine(Config(), policies), probe=lambda _pid: False)
    loop = asyncio.new_event_loop()
    try:
        return [loop.run_until_complete(pipeline.handle(request(i, project))) for i in range(len(PAYLOADS))]
    finally:
        loop.close()


def rego_us(engine: RegoEmbeddedEngine, samples: list[Handled], calls: int) -> dict[str, float]:
    documents = [h.event.input_document() for h in samples]
    return {LABELS[i]: cpu_us(lambda d=doc: engine.evaluate_sync(d), calls) for i, doc in enumerate(documents)}


def log_us(samples: list[Handled], calls: int) -> dict[str, float]:
    mask = Masker.from_config(LogConfig())

    def one(h: Handled) -> None:
        record = build_record(Pending(h, time.time(), "socket"), mask)
        record["seq"] = 1
        seal(record, GENESIS)

    return {LABELS[i]: cpu_us(lambda h=h: one(h), calls) for i, h in enumerate(samples)}


def steps_us(policies: Path, project: Path, tmp: Path, calls: int) -> dict[str, float]:
    """The glue and the decision log, step by step: CPU µs per call, mean over the bench payloads."""
    pipeline, _ = build_pipeline(Config(), load_engine(Config(), policies), probe=lambda _pid: False)
    samples = handled_samples(policies, project)
    requests = [request(i, project) for i in range(len(PAYLOADS))]
    dialect = pipeline.dialect("gemini")
    mask = Masker.from_config(LogConfig())
    ids = DecisionIds()
    pendings = [Pending(h, time.time(), "socket") for h in samples]
    records = [build_record(p, mask) | {"seq": 1} for p in pendings]
    per_payload = {
        "parse": [cpu_us(lambda r=r: dialect.parse(r), calls) for r in requests],
        "combine": [cpu_us(lambda h=h: combine(h.decision.verdicts), calls) for h in samples],
        "render": [cpu_us(lambda h=h: dialect.render(h.event, h.decision), calls) for h in samples],
        "mask": [cpu_us(lambda h=h: mask(h.event.input_document()), calls) for h in samples],
        "record": [cpu_us(lambda p=p: build_record(p, mask), calls) for p in pendings],
        "seal": [cpu_us(lambda r=r: seal(r, GENESIS), calls) for r in records],
    }
    reasons = [h.decision.reason for h in samples if h.decision.reason]
    fresh = iter(range(1 << 62))  # a reason quotes its decision id: each is new to the masker's memo
    per_payload["reason"] = [cpu_us(lambda r=r: mask.text(f"{r[:-17]}{next(fresh):016x})"), calls) for r in reasons]
    result = {step: statistics.fmean(values) for step, values in per_payload.items()}
    result["id"] = cpu_us(ids, calls)
    result["with_facts"] = cpu_us(lambda: samples[0].event.with_facts(bench=True), calls)
    result["writer"] = writer_us(pendings, tmp, calls)
    result |= trace_us(pipeline)
    return result


def trace_us(pipeline: Any) -> dict[str, float]:
    """The recorded e2e sessions (bench/trace): the record of each call built and sealed by a new masker, as in
    a daemon that just started (first pass: cold memos, patterns compiled on first use), and again (warm); and
    the glue of each call (parse, combine, render). CPU µs a call."""
    calls = json.loads(TRACE.read_text())["calls"]
    caller = Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid())
    requests = [
        HookRequest(c["client"], c["event"], c["payload"].encode(), c["env"], c["cwd"], caller, Deadline.after(600))
        for c in calls
    ]
    loop = asyncio.new_event_loop()
    try:
        handled = [loop.run_until_complete(pipeline.handle(r)) for r in requests]
    finally:
        loop.close()
    pendings = [Pending(h, time.time(), "socket") for h in handled]
    mask = Masker.from_config(LogConfig())

    def log_pass() -> float:
        start = time.process_time()
        for p in pendings:
            seal(build_record(p, mask) | {"seq": 1}, GENESIS)
        return (time.process_time() - start) / len(pendings) * 1e6

    def glue_pass() -> float:
        start = time.process_time()
        for r, h in zip(requests, handled, strict=True):
            dialect = pipeline.dialect(r.client)
            dialect.parse(r)
            combine(h.decision.verdicts)
            dialect.render(h.event, h.decision)
        return (time.process_time() - start) / len(requests) * 1e6

    cold = log_pass()
    return {
        "trace_log_cold": cold,
        "trace_log": statistics.fmean(log_pass() for _ in range(10)),
        "trace_glue": statistics.fmean(glue_pass() for _ in range(10)),
    }


def writer_us(pendings: list[Pending], tmp: Path, calls: int) -> float:
    """The decision log's writer per record: one batch of `calls` records, built, sealed and written."""
    path = tmp / f"steps-{os.getpid()}-{time.monotonic_ns()}" / "decisions.log"

    async def run() -> float:
        log = DecisionLog(LogConfig(path=path), Sink(calls * 2))
        log.start()
        batch = [pendings[i % len(pendings)] for i in range(calls)]
        await log._write_batch(batch[: calls // 10])  # warm-up
        start = time.process_time()
        await log._write_batch(batch)
        spent = time.process_time() - start
        await log.close()
        return spent / calls * 1e6

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(run())


def transport_us(tmp: Path, payload_file: Path, seconds: float) -> dict[str, float]:
    fixed = Reply(stdout=b'{"decision":"allow"}')

    async def handler(_request: HookRequest) -> Reply:
        return fixed

    async def run() -> dict[str, float]:
        sock = tmp / "transport" / "hook.sock"
        server = HookServer(
            sock,
            handler,
            limits=wire.Limits(1 << 16, 1 << 24),
            request_timeout=5,
            max_concurrency=256,
            stats=ServerStats(),
        )
        await server.start()
        before = resource.getrusage(resource.RUSAGE_SELF)
        proc = await asyncio.create_subprocess_exec(
            sys.executable, str(LOAD), str(sock), str(payload_file), "max", "4", str(seconds), stdout=subprocess.PIPE
        )
        out, _ = await asyncio.wait_for(proc.communicate(), seconds + 60)
        after = resource.getrusage(resource.RUSAGE_SELF)
        await server.stop()
        result = json.loads(out)
        n = max(1, result["requests"])
        return {
            "cpu_us": ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) / n * 1e6,
            "per_second": result["per_second"],
            "errors": result["errors"],
        }

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(run())


def process_cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def daemon_us(tmp: Path, policies: Path, payload_file: Path, seconds: float) -> dict[str, float]:
    runtime = tmp / "daemon"
    env_log = tmp / "daemon.log"
    proc = start_daemon(runtime, policies, env_log)
    try:
        before = process_cpu_seconds(proc.pid)
        done = subprocess.run(
            [sys.executable, str(LOAD), str(runtime / "hook.sock"), str(payload_file), "max", "4", str(seconds)],
            capture_output=True,
            timeout=seconds + 60,
            check=True,
        )
        wait_for_log(runtime / "state" / "hookd" / "decisions.log")  # the log's writing counts too
        after = process_cpu_seconds(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    result = json.loads(done.stdout)
    n = max(1, result["requests"])
    return {"cpu_us": (after - before) / n * 1e6, "per_second": result["per_second"], "errors": result["errors"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="duration of each load phase")
    parser.add_argument("--calls", type=int, default=2000, help="calls per in-process measurement")
    parser.add_argument("--policies", default=str(ROOT / "policies"))
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--base", help="A/B of the in-process steps: this tree against this git revision")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of the --base A/B")
    parser.add_argument("--steps-only", action="store_true", help="only the in-process steps (as JSON with --json)")
    args = parser.parse_args()
    policies = Path(args.policies).resolve()
    if args.base:
        return steps_ab(args, policies)
    with tempfile.TemporaryDirectory(prefix="hookd-breakdown-") as name:
        tmp = Path(name)
        project, empty = tmp / "project", tmp / "empty-policies"
        project.mkdir()
        empty.mkdir()
        if args.steps_only:
            result: dict[str, Any] = {"steps": steps_us(policies, project, tmp, args.calls)}
        else:
            payload_file = tmp / "payloads.json"
            payload_file.write_text(json.dumps([payload(i, project).decode() for i in range(len(PAYLOADS))]))
            samples = handled_samples(policies, project)
            result = {
                "transport": transport_us(tmp, payload_file, args.seconds),
                "pipeline_empty": pipeline_us(empty, project, args.calls),
                "pipeline": pipeline_us(policies, project, args.calls),
                "rego": rego_us(RegoEmbeddedEngine.load(policies), samples, args.calls),
                "log": log_us(samples, args.calls),
                "steps": steps_us(policies, project, tmp, args.calls),
                "daemon": daemon_us(tmp, policies, payload_file, args.seconds),
            }
    if args.steps_only:
        report_steps({"new": [result["steps"]]}, ("new",))
    else:
        report(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0


def steps_ab(args: argparse.Namespace, policies: Path) -> int:
    """The in-process steps of this tree and of `args.base`, each side in its own process, in turn."""
    from ab import extract

    with tempfile.TemporaryDirectory(prefix="hookd-breakdown-ab-") as name:
        tmp = Path(name)
        sides = {"new": ROOT / "daemon", "base": extract(args.base, tmp / "base")}
        rounds: dict[str, list[dict[str, float]]] = {"new": [], "base": []}
        for i in range(args.rounds):
            for side in ("base", "new") if i % 2 else ("new", "base"):
                out = tmp / f"{side}-{i}.json"
                env = {**os.environ, "PYTHONPATH": str(sides[side])}
                command = [sys.executable, __file__, "--steps-only", "--calls", str(args.calls), "--json", str(out)]
                subprocess.run([*command, "--policies", str(policies)], env=env, check=True, timeout=900,
                               stdout=subprocess.DEVNULL)  # fmt: skip
                rounds[side].append(json.loads(out.read_text())["steps"])
    print(f"this tree (new) against {args.base} (base), {args.rounds} rounds, load average {os.getloadavg()}")
    report_steps(rounds, ("new", "base"))
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "rounds": rounds}, indent=2) + "\n")
    return 0


def report_steps(rounds: dict[str, list[dict[str, float]]], sides: tuple[str, ...]) -> None:
    print("CPU µs per call, in process, mean over the five bench payloads; medians over the rounds\n")
    print(
        f"{'step':15}" + "".join(f"{side:>9}" for side in sides) + ("  new/base  per round" if len(sides) > 1 else "")
    )
    for step in rounds[sides[0]][0]:
        medians = "".join(f"{statistics.median(r[step] for r in rounds[side]):9.1f}" for side in sides)
        line = f"{step:15}{medians}"
        if len(sides) > 1:
            ratios = [n[step] / b[step] for n, b in zip(rounds["new"], rounds["base"], strict=True)]
            line += f"  {statistics.median(ratios):8.2f}  " + " ".join(f"{r:.2f}" for r in ratios)
        print(line)


def report(result: dict[str, Any]) -> None:
    print("CPU µs per decision, by step (bench payload mix; mean over the five payloads)\n")
    print(f"{'payload':48} {'pipeline':>9} {'(empty)':>8} {'rego':>7} {'log':>7}")
    for label in LABELS:
        print(
            f"{label[:48]:48} {result['pipeline'][label]:9.0f} {result['pipeline_empty'][label]:8.0f} "
            f"{result['rego'][label]:7.0f} {result['log'][label]:7.0f}"
        )
    mean = {k: statistics.fmean(result[k].values()) for k in ("pipeline", "pipeline_empty", "rego", "log")}
    print(f"{'mean':48} {mean['pipeline']:9.0f} {mean['pipeline_empty']:8.0f} {mean['rego']:7.0f} {mean['log']:7.0f}")
    transport, daemon = result["transport"], result["daemon"]
    parts = transport["cpu_us"] + mean["pipeline"] + mean["log"]
    print(f"\ntransport alone: {transport['cpu_us']:.0f} µs/request ({transport['per_second']:.0f} req/s at most)")
    print(
        f"sum of the steps: {parts:.0f} µs  (transport {transport['cpu_us'] / parts:.0%}, "
        f"rego {mean['rego'] / parts:.0%}, rest of the pipeline {(mean['pipeline'] - mean['rego']) / parts:.0%}, "
        f"log {mean['log'] / parts:.0%})"
    )
    print(
        f"the daemon itself: {daemon['cpu_us']:.0f} µs/decision at {daemon['per_second']:.0f} decisions/s "
        f"({daemon['errors']} errors) → one core serves at most {1e6 / daemon['cpu_us']:.0f} decisions/s"
    )


if __name__ == "__main__":
    sys.exit(main())
