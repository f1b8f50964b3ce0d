"""Does one pathological request stall the other sessions? A real `hookd serve` (default policies, one
process) answers a light session (`git status`, 50 requests/s, one connection per request as a shim
does) while a second client, in a process of its own, sends one pathological request after another: every shape of
tests/pathological.py (at or over each `[limits]` cap, and large fields no cap covers). Phases are
interleaved: for each shape, the light session alone, then beside it, in every round; with --lifted a
second daemon with the caps lifted (as before issue 13) runs the same phases in the same rounds, and with
--without-lane one that decides heavy requests itself (`[daemon] lane = false`, as before the lane).

Prints, per daemon and shape, the light session's p50/p99 alone and beside (medians over the rounds),
their ratio, and what the pathological requests got and cost each (median). With --cpu instead, the
CPU time of one decision of each shape in process (hookd's pipeline on the default policies, each
call's command new to the parse cache; the median of 5). Usage:
  .cache/venv/bin/python bench/stall.py [--seconds 3] [--rounds 3] [--lifted] [--without-lane] [--only TEXT]
  .cache/venv/bin/python bench/stall.py --cpu [--only TEXT]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "daemon"))
sys.path.insert(0, str(ROOT / "tests"))

from pathological import SHAPES, Shape  # noqa: E402

from hookd import wire  # noqa: E402

LIFTED = "[limits]\nmax_command_bytes = 100000000\nmax_command_tokens = 100000000\n"
LIFTED += "max_command_substitutions = 100000000\nmax_command_words = 100000000\nmax_tool_paths = 100000000\n"
NO_LANE = "[daemon]\nlane = false\n"
LIGHT = Shape("git status", "BeforeTool", {"tool_name": "run_shell_command", "tool_input": {"command": "git status"}},
              "allow", "")  # fmt: skip


def frame(shape: Shape) -> bytes:
    header = {"client": "gemini", "event": shape.event, "cwd": "/tmp", "ppid": 1, "env": {}}
    payload: dict[str, Any] = {"session_id": "s", "cwd": "/tmp", "hook_event_name": shape.event, **shape.fields}
    return wire.encode_request(header, json.dumps(payload).encode())


async def ask(path: str, data: bytes) -> tuple[float, wire.DecodedReply | None]:
    start = time.perf_counter()
    try:
        reader, writer = await asyncio.open_unix_connection(path)
        writer.write(data)
        reply = wire.decode_reply(await asyncio.wait_for(reader.read(), 30))
        writer.close()
    except (OSError, TimeoutError, ValueError):
        reply = None
    return (time.perf_counter() - start) * 1000, reply


async def light(path: str, seconds: float, rate: float = 50) -> list[float]:
    data, start, tasks = frame(LIGHT), time.perf_counter(), []
    for i in range(int(seconds * rate)):
        await asyncio.sleep(max(0.0, start + i / rate - time.perf_counter()))
        tasks.append(asyncio.ensure_future(ask(path, data)))
    return [latency for latency, _ in await asyncio.gather(*tasks)]


def answer(reply: wire.DecodedReply | None) -> str:
    if reply is None:
        return "no answer"
    if reply.status:
        return f"error {reply.stderr.decode()}"
    text = reply.stdout.decode()
    rule = text.rsplit("[hookd", 1)[-1].split("]", 1)[0].split(":")[-1] if "[hookd" in text else ""
    return ("deny " + rule) if '"deny"' in text or '"block"' in text else "allow"


async def hostile(path: str, shape: Shape, seconds: float) -> list[tuple[float, str]]:
    """The attacker, in a process of its own (as a prompt-injected agent is): one request after another."""
    data, got, end = frame(shape), [], time.monotonic() + seconds
    while time.monotonic() < end:
        ms, reply = await ask(path, data)
        got.append((ms, answer(reply)))
    return got


async def phase(path: str, seconds: float, shape: Shape | None) -> tuple[list[float], list[tuple[float, str]]]:
    if shape is None:
        return await light(path, seconds), []
    side = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--hostile", path, str(SHAPES.index(shape)), str(seconds + 0.5),
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert side.stdout is not None
    await side.stdout.readline()  # it has started sending
    latencies = await light(path, seconds)
    got = json.loads(await asyncio.wait_for(side.stdout.read(), 120))
    await side.wait()
    return latencies, [(ms, what) for ms, what in got]


def run_hostile(path: str, index: int, seconds: float) -> None:
    async def run() -> list[tuple[float, str]]:
        first = await ask(path, frame(SHAPES[index]))
        print("started", flush=True)
        rest = await hostile(path, SHAPES[index], seconds)
        return [(first[0], answer(first[1])), *rest]

    print(json.dumps(asyncio.run(run())), flush=True)


def start(config: str, work: Path) -> tuple[subprocess.Popen[bytes], str]:
    work.mkdir()
    (work / "config.toml").write_text(config)
    runtime = Path(tempfile.mkdtemp(prefix="hkdb", dir="/tmp")) / "run"
    env = {**os.environ, "XDG_STATE_HOME": str(work / "state")}
    cmd = [sys.executable, "-m", "hookd", "--config", str(work / "config.toml"), "serve", "--runtime-dir", str(runtime)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.monotonic() + 60
    while not (runtime / "hook.sock").exists():
        if time.monotonic() > end or proc.poll() is not None:
            raise SystemExit("the daemon did not start")
        time.sleep(0.05)
    return proc, str(runtime / "hook.sock")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def cpu(shapes: list[Shape]) -> None:
    from hookd.assembly import build_pipeline
    from hookd.config import parse_config
    from hookd.types import Caller, Deadline, HookRequest

    pipeline = build_pipeline(parse_config({}), probe=lambda _pid: False)[0]
    for shape in [LIGHT, *shapes]:
        costs, outcome = [], ""
        for salt in range(5):
            fields = json.loads(json.dumps(shape.fields))
            if "command" in fields.get("tool_input", {}):
                fields["tool_input"]["command"] += " " * (salt + 1)  # new to the parse cache
            payload = {"session_id": "s", "cwd": "/work/project", "hook_event_name": shape.event, **fields}
            request = HookRequest(
                client="gemini", event=shape.event, payload=json.dumps(payload).encode(), env={"HOME": "/home/u"},
                cwd="/work/project", caller=Caller(uid=0, gid=0, pid=1), deadline=Deadline.after(120),
            )  # fmt: skip
            begin = time.process_time()
            handled = asyncio.run(pipeline.handle(request))
            costs.append((time.process_time() - begin) * 1000)
            rules = sorted({v.rule_id for v in handled.decision.verdicts})
            outcome = f"{handled.decision.outcome.name.lower()} {' '.join(rules[:2])}"
        print(f"{shape.name:42} {statistics.median(costs):8.1f} ms CPU  {outcome}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--lifted", action="store_true", help="also a daemon with the caps lifted")
    parser.add_argument("--without-lane", action="store_true", help="also a daemon deciding heavy requests itself")
    parser.add_argument("--only", default="", help="the shapes whose name contains this text")
    parser.add_argument("--cpu", action="store_true", help="each shape's decision CPU in process, no daemon")
    parser.add_argument("--hostile", nargs=3, metavar=("SOCKET", "SHAPE", "SECONDS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.hostile:
        run_hostile(args.hostile[0], int(args.hostile[1]), float(args.hostile[2]))
        return 0
    shapes = [shape for shape in SHAPES if args.only in shape.name]
    if args.cpu:
        cpu(shapes)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        daemons = {"caps": start("", Path(tmp, "a"))}
        if args.lifted:
            daemons["lifted"] = start(LIFTED, Path(tmp, "b"))
        if args.without_lane:
            daemons["nolane"] = start(NO_LANE, Path(tmp, "c"))
        seen: dict[tuple[str, str, str], list[Any]] = {}
        try:
            for _ in range(args.rounds):
                for shape in shapes:
                    for name, (_, path) in daemons.items():
                        for label, side in (("alone", None), ("beside", shape)):
                            latencies, got = asyncio.run(phase(path, args.seconds, side))
                            entry = seen.setdefault((name, shape.name, label), [])
                            entry.append((pct(latencies, 0.5), pct(latencies, 0.99), got))
            for name in daemons:
                for shape in shapes:
                    alone, beside = seen[(name, shape.name, "alone")], seen[(name, shape.name, "beside")]
                    p50a, p99a = (statistics.median(r[i] for r in alone) for i in (0, 1))
                    p50b, p99b = (statistics.median(r[i] for r in beside) for i in (0, 1))
                    got = [g for r in beside for g in r[2]]
                    cost = statistics.median(ms for ms, _ in got) if got else 0.0
                    answers = sorted({a for _, a in got})
                    print(f"{name:6} {shape.name:42} light p50 {p50a:6.1f} → {p50b:7.1f} ms  p99 {p99a:6.1f} → "
                          f"{p99b:7.1f} ms (x{p99b / p99a:4.1f})  pathological: {len(got)} x {cost:6.1f} ms "
                          f"{', '.join(answers)}", flush=True)  # fmt: skip
        finally:
            for proc, _ in daemons.values():
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
