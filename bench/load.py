"""Load the daemon directly over its socket, one connection per request as a shim does.

Used by bench/run.py and bench/breakdown.py in a process of their own:

  load.py SOCKETS PAYLOADS.json fixed RATE SECONDS     open loop at RATE req/s: p50/p99 latency, errors
  load.py SOCKET PAYLOADS.json max CONCURRENCY SECONDS closed loop: sustained decisions/s, p99, errors
  load.py SOCKETS TRACE.json trace SCALE 0             open loop at a recorded trace's pacing (times SCALE)

SOCKETS is one path or several joined by commas: the open loop then sends each request to every socket in
turn, and the JSON has one result per socket under "targets" (the C generator only). PAYLOADS.json is a
list of Gemini BeforeTool payloads (strings); TRACE.json a recorded trace (bench/trace.py): a list of calls,
each with its offset_ms, client, event, cwd, env and payload.

Prints one JSON object; its "generator" says which load generator ran. The C one (bench/loadgen.c,
compiled on first use into .cache/bin/hookd-loadgen) is the default: the daemon and the load generator
share the machine's two cores, and a Python asyncio client spends more CPU per request than the daemon's
transport, so with it the figures were partly the client's. Without a C compiler the asyncio loop below
runs instead. In the open loop, the C generator counts latency from when a request was due (a generator
that falls behind shows in the figures); the asyncio one from its connect.
"""

from __future__ import annotations

import asyncio
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LOADGEN_SOURCE = ROOT / "bench" / "loadgen.c"
LOADGEN = ROOT / ".cache" / "bin" / "hookd-loadgen"
REQUEST = struct.Struct("!4sBxII")
REPLY = struct.Struct("!4sBBBxII")


def frames(payloads: list[bytes]) -> list[bytes]:
    header = json.dumps({"client": "gemini", "event": "BeforeTool", "cwd": "/", "ppid": 1, "env": {}}).encode()
    return [REQUEST.pack(b"HKDQ", 1, len(header), len(p)) + header + p for p in payloads]


def trace_frames(calls: list[dict[str, Any]]) -> list[bytes]:
    """One frame per recorded call, with the client, event, cwd and forwarded environment it was made with."""
    result = []
    for call in calls:
        header = json.dumps(
            {"client": call["client"], "event": call["event"], "cwd": call["cwd"], "ppid": 1, "env": call["env"]}
        ).encode()
        body = call["payload"].encode()
        result.append(REQUEST.pack(b"HKDQ", 1, len(header), len(body)) + header + body)
    return result


async def one(path: str, frame: bytes) -> tuple[float, bool]:
    start = time.perf_counter()
    try:
        reader, writer = await asyncio.open_unix_connection(path)
        writer.write(frame)
        prefix = await asyncio.wait_for(reader.readexactly(REPLY.size), 5)
        _, _, status, _, out_len, err_len = REPLY.unpack(prefix)
        await reader.readexactly(out_len + err_len)
        writer.close()
        ok = status == 0
    except (OSError, asyncio.IncompleteReadError, TimeoutError):
        ok = False
    return (time.perf_counter() - start) * 1000, ok


def summary(samples: list[tuple[float, bool]], seconds: float) -> dict[str, float]:
    latencies = sorted(s for s, ok in samples if ok)
    errors = sum(1 for _, ok in samples if not ok)

    def pct(q: float) -> float:
        return latencies[min(len(latencies) - 1, round(q * (len(latencies) - 1)))] if latencies else float("nan")

    return {
        "requests": len(samples),
        "errors": errors,
        "per_second": len(latencies) / seconds,
        "p50_ms": pct(0.50),
        "p90_ms": pct(0.90),
        "p99_ms": pct(0.99),
        "max_ms": latencies[-1] if latencies else float("nan"),
    }


async def fixed_rate(path: str, payload_frames: list[bytes], rate: float, seconds: float) -> dict[str, float]:
    total = int(rate * seconds)
    start = time.perf_counter()
    tasks = []
    for i in range(total):
        delay = start + i / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.ensure_future(one(path, payload_frames[i % len(payload_frames)])))
    samples = await asyncio.gather(*tasks)
    return {"rate": rate, **summary(list(samples), time.perf_counter() - start)}


async def max_rate(path: str, payload_frames: list[bytes], concurrency: int, seconds: float) -> dict[str, float]:
    samples: list[tuple[float, bool]] = []
    end = time.perf_counter() + seconds
    counter = iter(range(10**9))

    async def worker() -> None:
        while time.perf_counter() < end:
            samples.append(await one(path, payload_frames[next(counter) % len(payload_frames)]))

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return {"concurrency": concurrency, **summary(samples, time.perf_counter() - start)}


def c_generator() -> Path | None:
    """The compiled C load generator, (re)built when missing or older than its source; None without a compiler."""
    built = compiled(LOADGEN_SOURCE, LOADGEN, [[]])
    if built is None:
        sys.stderr.write(f"load.py: compiling {LOADGEN_SOURCE.name} failed; using the asyncio generator\n")
    return built


def compiled(source: Path, binary: Path, variants: list[list[str]]) -> Path | None:
    """`binary` built from `source` with -O2 and the first set of flags in `variants` that compiles, (re)built
    when missing or older than its source, and renamed into place whole; None without a working compiler."""
    if binary.is_file() and binary.stat().st_mtime >= source.stat().st_mtime:
        return binary
    from hookd.errors import ShimBuildError
    from hookd.shims.build import find_compiler

    try:
        compiler = find_compiler()
    except ShimBuildError:
        return None
    binary.parent.mkdir(parents=True, exist_ok=True)
    partial = binary.with_name(f".{binary.name}.{os.getpid()}")
    for flags in variants:
        command = [*compiler, "-O2", *flags, "-o", str(partial), str(source)]
        if subprocess.run(command, capture_output=True, timeout=120, check=False).returncode == 0:
            os.replace(partial, binary)
            return binary
    partial.unlink(missing_ok=True)
    return None


def run_c(generator: Path, path: str, payload_frames: list[bytes], mode: str, param: str, seconds: str) -> int:
    with tempfile.NamedTemporaryFile(prefix="hookd-frames.", suffix=".bin") as handle:
        for frame in payload_frames:
            handle.write(struct.pack("!I", len(frame)) + frame)
        handle.flush()
        done = subprocess.run(
            [str(generator), path, handle.name, mode, param, seconds], timeout=float(seconds) + 60, check=False
        )
    return done.returncode


def run_trace(generator: Path, path: str, trace_file: str, scale: str) -> int:
    """Replay a recorded trace at its pacing: the schedule file holds each call's offset in ms."""
    with open(trace_file, encoding="utf-8") as handle:
        calls = json.load(handle)["calls"]
    with tempfile.NamedTemporaryFile("w", prefix="hookd-schedule.", suffix=".txt") as schedule:
        schedule.write("".join(f"{call['offset_ms']}\n" for call in calls))
        schedule.flush()
        span = calls[-1]["offset_ms"] / 1000 * float(scale) if calls else 0
        with tempfile.NamedTemporaryFile(prefix="hookd-frames.", suffix=".bin") as handle:
            for frame in trace_frames(calls):
                handle.write(struct.pack("!I", len(frame)) + frame)
            handle.flush()
            done = subprocess.run(
                [str(generator), path, handle.name, "trace", schedule.name, scale], timeout=span + 120, check=False
            )
    return done.returncode


def main() -> int:
    path, payload_file, mode, param, seconds = sys.argv[1:6]
    generator = None if os.environ.get("HOOKD_BENCH_PY_LOAD") else c_generator()
    if generator is None and (mode == "trace" or "," in path):
        sys.stderr.write("load.py: a trace or several sockets need the C load generator (a C compiler)\n")
        return 2
    if generator is not None and mode == "trace":
        return run_trace(generator, path, payload_file, param)
    with open(payload_file, encoding="utf-8") as handle:
        payload_frames = frames([p.encode() for p in json.load(handle)])
    if generator is not None:
        return run_c(generator, path, payload_frames, mode, param, seconds)
    try:
        import uvloop

        runner = asyncio.Runner(loop_factory=uvloop.new_event_loop)
    except ImportError:
        runner = asyncio.Runner()
    with runner:
        if mode == "fixed":
            result = runner.run(fixed_rate(path, payload_frames, float(param), float(seconds)))
        else:
            result = runner.run(max_rate(path, payload_frames, int(param), float(seconds)))
    print(json.dumps({**result, "generator": "python"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
