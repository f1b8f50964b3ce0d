"""Load the daemon directly over its socket, one connection per request as a shim does.

Used by bench/run.py in a process of its own (so the load generator and the daemon each have a core):

  load.py SOCKET PAYLOADS.json fixed RATE SECONDS      open loop at RATE req/s: p50/p99 latency, errors
  load.py SOCKET PAYLOADS.json max CONCURRENCY SECONDS closed loop: sustained decisions/s, p99, errors

Prints one JSON object. Latency is from the connect to the last byte of the reply.
"""

from __future__ import annotations

import asyncio
import json
import struct
import sys
import time

REQUEST = struct.Struct("!4sBxII")
REPLY = struct.Struct("!4sBBBxII")


def frames(payloads: list[bytes]) -> list[bytes]:
    header = json.dumps({"client": "gemini", "event": "BeforeTool", "cwd": "/", "ppid": 1, "env": {}}).encode()
    return [REQUEST.pack(b"HKDQ", 1, len(header), len(p)) + header + p for p in payloads]


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


def main() -> int:
    path, payload_file, mode, param, seconds = sys.argv[1:6]
    with open(payload_file, encoding="utf-8") as handle:
        payload_frames = frames([p.encode() for p in json.load(handle)])
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
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
