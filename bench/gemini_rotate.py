"""What a streamed chunk costs with the real Gemini CLI (0.61.0, offline), every contender in the same answer.

bench/gemini_stream.py runs each contender in an answer of its own and pairs it with the floor's answers before
and after it: a minute apart, and on a shared box Gemini's own handling of a chunk (6-8 ms of its CPU) drifts
between answers by more than the half millisecond the issue's target is about. Here one hook command takes
the contenders in turn, chunk after chunk, in one answer: `bench/rotor_shim.c`, the native shim itself with a
call counter, whose turn 0 reads its stdin and exits (the spawn floor: the same static binary, asking nobody)
and whose turn k is the shim sending the chunk to the k-th socket:

  socket       the socket floor's server (bench/floor_server.py: answers every frame with a fixed reply, unread)
  socket-c     the same in C (bench/floor_server.c: no Python, no event loop): hookd over it is what its Python
               and uvloop cost a chunk, what a hook server in native code could save at most
  native       this tree's `hookd serve` (default policies: model_secrets reads every chunk)
  native-base  with `--base DIR`, DIR's `hookd serve`

With `--quiet-library`, `native` serves its stream lane with the native quiet chunk (client_shim/hookd_quiet.c
built into its data directory: hookd.procs.native_lane) and `native-base` without it (an empty data directory):
with `--base` a copy of this tree, the two are the native quiet chunk and the Python path in the same rounds.

Each time between two chunks on Gemini's stdout is one hook's run plus Gemini's handling of a chunk, and each
contender's time is compared with the spawn floor's turns just before and after it, a few milliseconds away:
the drift of the box and of Gemini cancels, and an answer of 200 chunks gives some 50-65 such pairs a
contender. A run's figure is the median of its pairs; the order of the contenders in the rotation moves by one
every round, and the figures are the median over the rounds with the lowest and highest round. Each daemon's
CPU is divided by the chunks it answered (its idle ticks included: an upper bound).

What it cannot show: a daemon woken for every third or fourth chunk finds colder caches than one woken for
every chunk (a pessimistic figure for the daemons), and Gemini runs the same hook command for every chunk, so
no hook's cost of a different command line is in it (the floor, the shims, the rotor share one binary).

Run (as root, for the namespaces): HOOKD_GEMINI_BIN=.cache/gemini-cli-0.61.0/node_modules/.bin/gemini \
    .cache/venv/bin/python bench/gemini_rotate.py [--rounds 9] [--chunks 200] [--base DIR] [--json FILE] \
    [--sizes 1KB,100KB] [--hooks socket,socket-c,native,native-base] [--quiet-library]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gemini_stream as stream  # bench/ holds no package: its scripts import each other
from gemini_stream import SIZES, Run, summary
from load import compiled
from run import ROOT, children, cpu_seconds, floor_server, settled

ROTOR_SOURCE = ROOT / "bench" / "rotor_shim.c"
NATIVE_FLOOR_SOURCE = ROOT / "bench" / "floor_server.c"
CONTENDERS = ("socket", "socket-c", "native", "native-base")
C_FLAGS = ["-std=c11", "-D_GNU_SOURCE"]


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--chunks", type=int, default=200)
    parser.add_argument("--base", type=Path, help="another hookd checkout, its daemon a contender too")
    parser.add_argument("--json", type=Path, help="write the results here too")
    parser.add_argument("--quiet-library", action="store_true", help="native's stream lane with the native quiet chunk")
    parser.add_argument("--sizes", default=",".join(SIZES), help=f"conversation sizes (of {', '.join(SIZES)})")
    parser.add_argument(
        "--hooks",
        default=None,
        help="the contenders taking turns with the spawn floor (default: socket,native, and native-base with "
        "--base; a daemon woken for every second "
        "chunk, as with --hooks native, finds warmer caches than one woken for every fourth)",
    )
    args = parser.parse_args()
    args.hooks = (args.hooks or "socket,native" + (",native-base" if args.base else "")).split(",")
    if not args.hooks or not set(args.hooks) <= set(CONTENDERS):
        raise SystemExit(f"--hooks: of {', '.join(CONTENDERS)}")
    if "native-base" in args.hooks and args.base is None:
        raise SystemExit("--hooks native-base needs --base DIR")
    args.sizes = args.sizes.split(",")
    if not set(args.sizes) <= set(SIZES):
        raise SystemExit(f"--sizes: of {', '.join(SIZES)}")
    return args


def main() -> int:
    args = arguments()
    gemini = stream.confined_gemini()
    scratch = Path(tempfile.mkdtemp(prefix="hkdgr", dir="/tmp"))
    rotor = compiled(ROTOR_SOURCE, scratch / "hookd-rotor", [[*C_FLAGS, "-static"], C_FLAGS])
    if rotor is None:
        raise SystemExit("no C compiler for the rotor (bench/rotor_shim.c)")
    trees = {"native": ROOT, **({} if args.base is None else {"native-base": args.base.resolve()})}
    trees = {name: tree for name, tree in trees.items() if name in args.hooks}
    daemons: dict[str, subprocess.Popen[bytes]] = {}
    with contextlib.ExitStack() as servers:
        try:
            floor_dir = scratch / "socket-floor"
            floor_dir.mkdir(mode=0o700)
            servers.enter_context(floor_server(floor_dir / "stream.sock"))
            sockets = {"socket": floor_dir / "hook.sock"}
            if "socket-c" in args.hooks:
                sockets["socket-c"] = native_floor(servers, scratch)
            for name, tree in trees.items():
                runtime = scratch / f"run-{name}"
                with data_home(scratch / f"data-{name}", name == "native" and args.quiet_library):
                    daemons[name] = stream.daemon_of(tree, runtime, scratch / f"daemon-{name}.log")
                settled(daemons[name].pid)
                sockets[name] = runtime / "hook.sock"
            responses = scratch / "answer.responses"
            responses.write_text(stream.script(args.chunks))
            pids = {name: daemon.pid for name, daemon in daemons.items()}
            sockets = {name: sockets[name] for name in args.hooks}
            pids = {name: pid for name, pid in pids.items() if name in args.hooks}
            results = measure(gemini, scratch, rotor, sockets, pids, responses, args)
            results["trees"] = {name: str(tree) for name, tree in trees.items()}
        finally:
            for daemon in daemons.values():
                daemon.terminate()
                daemon.wait(timeout=30)
            shutil.rmtree(scratch, ignore_errors=True)
    report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


@contextlib.contextmanager
def data_home(where: Path, quiet: bool) -> Any:
    """XDG_DATA_HOME for a daemon started inside: `where`, holding the native quiet chunk's library when `quiet`
    (else none: its stream lane answers every chunk in Python)."""
    (where / "hookd" / "bin").mkdir(parents=True)
    if quiet:
        # as `hookd shim build` builds it: a library without this source's hash is not loaded
        from hookd.shims.build import build_quiet, find_compiler

        bin_dir = where / "hookd" / "bin"
        if build_quiet(find_compiler(), where, bin_dir) is None:
            raise SystemExit("the native quiet chunk's library did not compile")
    before = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(where)
    try:
        yield
    finally:
        if before is None:
            del os.environ["XDG_DATA_HOME"]
        else:
            os.environ["XDG_DATA_HOME"] = before


def native_floor(servers: contextlib.ExitStack, scratch: Path) -> Path:
    """bench/floor_server.c built and listening in a directory of its own (stopped with `servers`); its hook socket."""
    binary = compiled(NATIVE_FLOOR_SOURCE, scratch / "floor-server-c", [C_FLAGS])
    if binary is None:
        raise SystemExit("no C compiler for the native socket floor (bench/floor_server.c)")
    where = scratch / "socket-floor-c"
    where.mkdir(mode=0o700)
    servers.enter_context(floor_server(where / "stream.sock", [str(binary)]))
    return where / "hook.sock"


def measure(gemini: str, scratch: Path, rotor: Path, sockets: dict[str, Path], pids: dict[str, int],
            responses: Path, args: argparse.Namespace) -> dict[str, Any]:  # fmt: skip
    """One answer a round and size, every contender in it by turns; the rotation's order moves each round."""
    names = list(sockets)
    samples: dict[tuple[str, str], list[dict[str, float]]] = {}

    def spent_by() -> dict[int, float]:
        return {pid: cpu_seconds([pid, *children(pid)]) for pid in pids.values()}

    load = [os.getloadavg()[0]]
    for round_ in range(args.rounds):
        order = names[round_ % len(names) :] + names[: round_ % len(names)]
        for size in args.sizes:
            root = scratch / f"w-{round_}-{size}"
            counter = root / "calls"
            command = shlex.join([str(rotor), str(counter), "gemini", "AfterModel",
                                  *(str(sockets[name]) for name in order)])  # fmt: skip
            run = stream.run_gemini(gemini, root, command, stream.prompt(SIZES[size]), responses, args.chunks, spent_by)
            calls = int(counter.read_text())
            shutil.rmtree(root, ignore_errors=True)
            if calls != args.chunks:
                raise SystemExit(f"the rotor counted {calls} calls for {args.chunks} chunks: turns unknown")
            for name, sample in by_turn(run, order, pids).items():
                samples.setdefault((name, size), []).append(sample)
            load.append(os.getloadavg()[0])
        print(f"round {round_ + 1}/{args.rounds} done, load {load[-1]:.1f}", file=sys.stderr)
    rows = [{"contender": name, "conversation": size, **summary(rows)} for (name, size), rows in samples.items()]
    rows.sort(key=lambda row: (args.sizes.index(row["conversation"]), names.index(row["contender"])))
    return {"chunks": args.chunks, "rounds": args.rounds, "gemini": os.environ.get("HOOKD_GEMINI_BIN", ""),
            "load": [min(load), max(load)], "rows": rows,
            "samples": {f"{size}/{name}": rows for (name, size), rows in samples.items()}}  # fmt: skip


def by_turn(run: Run, order: list[str], pids: dict[str, int]) -> dict[str, dict[str, float]]:
    """Each contender's chunks in one answer against the spawn floor's turns on either side of each.

    `run.intervals[i]` ends with chunk i + 1's text, so it holds hook call i + 1 (calls count from 0, call 0
    being the first chunk's, before the first interval); call c took turn c % (1 + contenders), turn 0 the
    floor's."""
    turns = 1 + len(order)
    times = {call: run.intervals[call - 1] for call in range(1, len(run.intervals) + 1)}
    over: dict[str, list[float]] = {name: [] for name in order}
    for call, time_ms in times.items():
        turn = call % turns
        if turn == 0:
            continue
        before, after = times.get(call - turn), times.get(call - turn + turns)
        if before is not None and after is not None:
            over[order[turn - 1]].append(time_ms - (before + after) / 2)
    floor_times = [t for call, t in times.items() if call % turns == 0]
    samples = {}
    for turn, name in enumerate(order, start=1):
        answered = sum(1 for call in times if call % turns == turn)
        sample = {"pairs": float(len(over[name])), "over_floor_ms": statistics.median(over[name]),
                  "per_chunk_ms": statistics.median(t for c, t in times.items() if c % turns == turn),
                  "floor_per_chunk_ms": statistics.median(floor_times)}  # fmt: skip
        if name in pids:
            sample["daemon_cpu_ms"] = run.daemon_cpu[pids[name]] / answered * 1000
        samples[name] = sample
    for floor, key in (("socket", "over_socket_ms"), ("socket-c", "over_native_socket_ms")):
        for name, sample in samples.items():
            if floor in samples and name != floor:
                sample[key] = sample["over_floor_ms"] - samples[floor]["over_floor_ms"]
    return samples


def report(results: dict[str, Any]) -> None:
    low, high = results["load"]
    print(f"{results['chunks']}-chunk answers, {results['rounds']} rounds, load {low:.1f}-{high:.1f}; every contender "
          "in each answer by turns; medians over the rounds [lowest, highest round], ms a chunk")  # fmt: skip
    columns = [("floor_per_chunk_ms", "spawn floor"), ("per_chunk_ms", "ms/chunk"),
               ("over_floor_ms", "over spawn floor"), ("over_socket_ms", "over socket floor"),
               ("over_native_socket_ms", "over C socket floor"), ("daemon_cpu_ms", "daemon CPU/chunk")]  # fmt: skip
    print(f"{'conversation':<13}{'hook':<13}" + "".join(f"{title:>24}" for _, title in columns))
    for row in results["rows"]:
        cells = ""
        for key, _ in columns:
            low, high = row.get(key + "_range", (0, 0))
            cells += f"{row[key]:>8.2f} [{low:>5.2f},{high:>6.2f}]" if key in row else " " * 24
        print(f"{row['conversation']:<13}{row['contender']:<13}{cells}")


if __name__ == "__main__":
    sys.exit(main())
