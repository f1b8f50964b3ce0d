"""Where a streamed chunk's CPU goes: the daemon's and the lane's CPU per AfterModel chunk, each apart, sent
straight over the hook socket (no agent, no shim: what hookd spends and nothing else).

One `hookd serve` of its own with the default policies (`policies/`, whose model_secrets reads every chunk);
answers of `--chunks` chunks (a few words each, the last with finishReason), each chunk carrying a
conversation of `--size` bytes (`llm_request`) serialised as Gemini CLI serialises it (no spaces: the
conversation read once per response, hookd.dialects.repeated), one request after the other as Gemini sends them.
Reported per answer: wall ms per chunk, and CPU ms per chunk of the daemon and of the lane (schedstat, exact).
`--no-lane` runs the daemon with `[daemon] lane = false` (every chunk decided in the daemon: the cost of one
process per chunk); `--direct` sends each chunk to the lane's socket as the shims do (a streamed event: no
relay through the daemon); `--tree DIR` runs another checkout's code and policies (`PYTHONPATH=DIR/daemon`).

`--gap-ms MS` pauses between two chunks, as Gemini does (its own handling of a chunk and its hook's spawn,
5-15 ms): a process woken every few milliseconds finds its caches cold, and a chunk costs about twice the
CPU it costs back to back (docs/performance.md).
`--floor` adds bench/floor_server.py, a server that reads each chunk and answers a fixed reply, to the
interleaved answers (with `--direct`): the socket floor's CPU a chunk.
`--against DIR` serves a second daemon of DIR's code beside --tree's and alternates the answers between them
(A B B A A B ...): a comparison on a busy box, each answer's CPU against the other's next to it.
`--quiet-library` serves --tree's stream lane with the native quiet chunk (client_shim/hookd_quiet.c built
into its data directory: hookd.procs.native_lane) and --against's without it.

Run: .cache/venv/bin/python bench/stream_cpu.py [--size 102400] [--chunks 200] [--answers 3]
     [--no-lane | --direct] [--tree DIR] [--against DIR] [--gap-ms 5] [--floor] [--quiet-library]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gemini_stream import prompt  # bench/ holds no package: its scripts import each other
from run import FLOOR_SERVER, ROOT, children, cpu_seconds, lanes_serving, settled

from hookd import wire

TIMEOUT_S = 10.0


def chunk(session: str, n: int, chunks: int, request: object) -> bytes:
    candidate: dict[str, object] = {"content": {"role": "model", "parts": [{"text": f"word{n} and more "}]}, "index": 0}
    if n == chunks - 1:
        candidate["finishReason"] = "STOP"
    payload = {
        "session_id": session,
        "hook_event_name": "AfterModel",
        "llm_request": request,
        "llm_response": {"candidates": [candidate]},
    }
    header = {"client": "gemini", "event": "AfterModel", "cwd": "/tmp", "ppid": os.getpid(), "env": {}}
    return wire.encode_request(header, json.dumps(payload, separators=(",", ":")).encode())


def ask(path: str, frame: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(TIMEOUT_S)
        sock.connect(path)
        sock.sendall(frame)
        reply = b""
        while data := sock.recv(65536):
            reply += data
    decoded = wire.decode_reply(reply)
    if decoded.status is not wire.Status.OK or b"continue" in decoded.stdout:
        raise SystemExit(f"not an allowed chunk: {reply[:300]!r}")
    return reply


def data_home(where: Path, quiet: bool) -> Path:
    """A data directory (XDG_DATA_HOME) holding the native quiet chunk's library when `quiet`, else none."""
    (where / "hookd" / "bin").mkdir(parents=True)
    if quiet:
        # as `hookd shim build` builds it: a library without this source's hash is not loaded
        from hookd.shims.build import build_quiet, find_compiler

        if build_quiet(find_compiler(), where, where / "hookd" / "bin") is None:
            raise SystemExit("the native quiet chunk's library did not compile")
    return where


def serve(tree: Path, runtime: Path, log: Path, lane: bool, data: Path) -> subprocess.Popen[bytes]:
    runtime.mkdir(parents=True, mode=0o700)
    config = runtime / "bench.toml"
    config.write_text(f"[daemon]\nworkers = 1\nlane = {'true' if lane else 'false'}\n")
    env = {**os.environ, "XDG_STATE_HOME": str(runtime / "state"), "PYTHONPATH": str(tree / "daemon"),
           "XDG_DATA_HOME": str(data)}  # fmt: skip
    cmd = [sys.executable, "-m", "hookd", "--config", str(config), "serve", "--policies", str(tree / "policies"),
           "--runtime-dir", str(runtime)]  # fmt: skip
    with log.open("wb") as out:
        daemon = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and daemon.poll() is None:
        text = log.read_text()
        if '"serving"' in text and (not lane or lanes_serving(text)):
            return daemon
        time.sleep(0.05)
    daemon.kill()
    raise SystemExit(f"daemon did not start:\n{log.read_text()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100 * 1024)
    parser.add_argument("--chunks", type=int, default=200)
    parser.add_argument("--answers", type=int, default=3)
    parser.add_argument("--no-lane", action="store_true")
    parser.add_argument("--direct", action="store_true")
    parser.add_argument("--tree", type=Path, default=ROOT)
    parser.add_argument("--floor", action="store_true", help="and bench/floor_server.py on a stream.sock of its own")
    parser.add_argument("--gap-ms", type=float, default=0.0, help="a pause between two chunks (Gemini's own work)")
    parser.add_argument("--against", type=Path, help="another checkout, its answers interleaved with --tree's")
    parser.add_argument("--quiet-library", action="store_true", help="--tree's stream lane with the native quiet chunk")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="hkdsc", dir="/tmp"))
    trees = {"tree": args.tree.resolve()}
    if args.against is not None:
        trees["against"] = args.against.resolve()
    daemons: dict[str, subprocess.Popen[bytes]] = {}
    if args.floor:
        trees["floor"] = FLOOR_SERVER
    results: dict[str, list[tuple[float, float, float, float]]] = {name: [] for name in trees}
    try:
        for name, tree in trees.items():
            if name == "floor":
                daemons[name] = floor(scratch / name / "run")
                continue
            data = data_home(scratch / name / "data", args.quiet_library and name == "tree")
            daemons[name] = serve(tree, scratch / name / "run", scratch / f"{name}.log", not args.no_lane, data)
        for daemon in daemons.values():
            settled(daemon.pid)
        for answer in range(args.answers):
            for name in trees if answer % 2 == 0 else reversed(trees):
                results[name].append(one_answer(daemons[name], scratch / name / "run", answer, args))
                wall, daemon_ms, lane_ms, trip = results[name][-1]
                print(f"{name} answer {answer + 1}: {wall:.2f} ms/chunk wall, round trip {trip:.3f} ms; CPU ms/chunk: "
                      f"daemon {daemon_ms:.3f}, lane {lane_ms:.3f}, both {daemon_ms + lane_ms:.3f}")  # fmt: skip
    finally:
        for daemon in daemons.values():
            daemon.terminate()
            daemon.wait(timeout=30)
    for name, rows in results.items():
        both, wall = [d + lane for _, d, lane, _ in rows], statistics.median(w for w, _, _, _ in rows)
        trips = [trip for *_, trip in rows]
        print(f"{name} ({trees[name]}): median of {len(rows)} answers: {wall:.2f} ms/chunk wall, round trip "
              f"{statistics.median(trips):.3f} [{min(trips):.3f}, {max(trips):.3f}] ms, "
              f"CPU ms/chunk both {statistics.median(both):.3f} [{min(both):.3f}, {max(both):.3f}]")  # fmt: skip
    if args.against is not None:  # each answer against the other tree's next to it
        ratios = [(t[1] + t[2]) / (a[1] + a[2]) for t, a in zip(results["tree"], results["against"], strict=True)]
        print(f"tree / against, CPU a chunk, paired answers: median {statistics.median(ratios):.3f} "
              f"[{min(ratios):.3f}, {max(ratios):.3f}]")  # fmt: skip
        if "floor" in results:  # the round trip over the floor server's, each answer's over the other's next to it
            over = [
                (t[3] - f[3]) / (a[3] - f[3])
                for t, a, f in zip(results["tree"], results["against"], results["floor"], strict=True)
            ]
            print(f"tree / against, round trip over the floor server's, paired answers: median "
                  f"{statistics.median(over):.3f} [{min(over):.3f}, {max(over):.3f}]")  # fmt: skip
    return 0


def floor(run: Path) -> subprocess.Popen[bytes]:
    """bench/floor_server.py answering on `run`/stream.sock: what any process that reads a chunk and answers it
    costs (its CPU is reported as the daemon's)."""
    run.mkdir(parents=True, mode=0o700)
    server = subprocess.Popen([sys.executable, str(FLOOR_SERVER), str(run / "stream.sock")], stdout=subprocess.PIPE)
    assert server.stdout is not None
    if server.stdout.readline() != b"listening\n":
        server.kill()
        raise SystemExit("the floor server did not start")
    return server


def one_answer(
    daemon: subprocess.Popen[bytes], run: Path, answer: int, args: argparse.Namespace
) -> tuple[float, float, float, float]:
    """One answer of `args.chunks` chunks: wall ms a chunk, CPU ms a chunk of the daemon and of its lanes, and the
    median round trip (connect to the reply's end) in ms."""
    stream = run / "stream.sock"  # a tree before the stream lane: the lane took them
    direct = stream if stream.exists() else run / "lane.sock"
    path = str(direct if args.direct else run / "hook.sock")
    request = {"model": "m", "contents": [{"role": "user", "parts": [{"text": prompt(args.size) + str(answer)}]}]}
    frames = [chunk(f"s{answer}", n, args.chunks, request) for n in range(args.chunks)]
    lanes = children(daemon.pid)
    before = cpu_seconds([daemon.pid]), cpu_seconds(lanes)
    start, trips = time.perf_counter(), []
    for frame in frames:
        sent = time.perf_counter()
        ask(path, frame)
        trips.append(time.perf_counter() - sent)
        if args.gap_ms:
            time.sleep(args.gap_ms / 1000)
    wall = time.perf_counter() - start - args.chunks * args.gap_ms / 1000
    spent = cpu_seconds([daemon.pid]) - before[0], cpu_seconds(lanes) - before[1]
    per_chunk = 1000 / args.chunks
    return wall * per_chunk, spent[0] * per_chunk, spent[1] * per_chunk, 1000 * statistics.median(trips)


if __name__ == "__main__":
    sys.exit(main())
