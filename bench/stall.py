"""Does one pathological request stall the other sessions? A real `hookd serve` (default policies, one
process) answers a light session (`git status`, 50 requests/s, one connection per request as a shim
does) while, in alternate phases, a second client sends one pathological request after another: a
`rm -rf` with 20,000 arguments (60 KB) or 100 nested `$(`. The same run does it twice, with the
`[limits]` caps (the default) and with them lifted (as before issue 13), phases interleaved.

Prints, per configuration, the light session's p50/p99 latency alone and beside the pathological
client, and what the pathological requests got. Usage:
  .cache/venv/bin/python bench/stall.py [--seconds 5] [--rounds 3]
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "daemon"))

from hookd import wire  # noqa: E402

HEADER = {"client": "gemini", "event": "BeforeTool", "cwd": "/tmp", "ppid": 1, "env": {}}
LIFTED = "[limits]\nmax_command_bytes = 100000000\nmax_command_tokens = 100000000\n"
LIFTED += "max_command_substitutions = 100000000\nmax_command_words = 100000000\n"
PATHOLOGICAL = {
    "rm -rf x 20,000": "rm -rf " + " ".join(["ab"] * 20_000),
    "100 nested $(": "echo " + "$(" * 100 + "id" + ")" * 100,
}


def frame(command: str) -> bytes:
    payload = {"session_id": "s", "cwd": "/tmp", "hook_event_name": "BeforeTool", "tool_name": "run_shell_command"}
    payload["tool_input"] = {"command": command}
    return wire.encode_request(HEADER, json.dumps(payload).encode())


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
    data, latencies, start = frame("git status"), [], time.perf_counter()
    tasks = []
    for i in range(int(seconds * rate)):
        await asyncio.sleep(max(0.0, start + i / rate - time.perf_counter()))
        tasks.append(asyncio.ensure_future(ask(path, data)))
    for latency, _ in await asyncio.gather(*tasks):
        latencies.append(latency)
    return latencies


async def hostile(path: str, command: str, stop: asyncio.Event, got: list[str]) -> None:
    data = frame(command)
    while not stop.is_set():
        ms, reply = await ask(path, data)
        got.append(f"{'error' if reply is None or reply.status else reply.stdout[:60].decode()} ({ms:.0f} ms)")


async def phase(path: str, seconds: float, command: str | None) -> tuple[list[float], list[str]]:
    stop, got = asyncio.Event(), []
    side = asyncio.ensure_future(hostile(path, command, stop, got)) if command else None
    latencies = await light(path, seconds)
    stop.set()
    if side is not None:
        await side
    return latencies, got


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        daemons = {"caps (default)": start("", Path(tmp, "a")), "caps lifted": start(LIFTED, Path(tmp, "b"))}
        try:
            for name, (_, path) in daemons.items():
                for label, command in [("alone", None), *PATHOLOGICAL.items()]:
                    p50s, p99s, seen = [], [], []
                    for _ in range(args.rounds):
                        latencies, got = asyncio.run(phase(path, args.seconds, command))
                        p50s.append(pct(latencies, 0.5))
                        p99s.append(pct(latencies, 0.99))
                        seen += got
                    what = f"; pathological: {len(seen)} answered, e.g. {seen[0]}" if seen else ""
                    print(f"{name:15} {label:18} light p50 {statistics.median(p50s):7.1f} ms  "
                          f"p99 {statistics.median(p99s):7.1f} ms{what}")  # fmt: skip
        finally:
            for proc, _ in daemons.values():
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
