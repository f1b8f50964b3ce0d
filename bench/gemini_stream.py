"""What a streamed answer costs with the real Gemini CLI (0.61.0, offline): the per-chunk cost of hookd's
AfterModel hook over a no-op hook, at 1 KB and 100 KB of conversation, and the decision log's bytes per answer.

Gemini awaits the AfterModel hook once per streamed chunk before it goes on, so a streamed answer of N chunks
runs the hook N times in a row; every call carries the whole conversation (`llm_request`) beside its chunk.
Each run is one `gemini -p PROMPT --fake-responses SCRIPT --yolo` whose script streams one answer of
`--chunks` chunks (a few words each, no secret), the prompt padded to the conversation size. Only AfterModel
is registered (`hooksConfig.enabled`, one command hook), with one of:

  floor    `bash -c` of a static no-op that reads its stdin (bench/floor_noop.c): any hook's spawn cost
  socket   the C shim → bench/floor_server.py, a server that answers every frame with a fixed reply without
           reading it: what any hook that asks a process over a socket costs, hookd or not
  native   the C shim (`hookd shim build`) → the daemon, as `hookd install` registers it with the native shim
  python   the Python shim (`python -I -S`) → the daemon: what `hookd install` registers by default

The contenders run in turn, round after round (interleaved), in a fresh world each run (HOME, project, TMPDIR
under one scratch directory). Gemini runs confined as the e2e tests run agents: in a network namespace of its
own (`unshare -n`: no network at all; the model is the script) and a private mount namespace in which every
mount but the world is read-only. One `hookd serve` with the default policies (policies/: model_secrets
reads every chunk) serves every run.

Reported, per conversation size: the median wall time of a run for each contender, the per-chunk cost over
the floor ((a contender's run minus the floor's run in the same round) / chunks, the median over rounds), each
daemon contender's cost over the socket floor (the same, against `socket`'s run), the daemon's and lanes' CPU
per chunk (what they spent during the run less what they spent idle during the floor's run, per second of it),
and the decision log's bytes (decisions.log and decisions.kept.log) and records per answer.

With `--base DIR` (another checkout of hookd, e.g. `git archive main | tar -x -C DIR`), a second `hookd serve`
runs DIR's code (`PYTHONPATH=DIR/daemon`) with DIR's policies, and its shims (`native-base`, `python-base`)
run in the same rounds, interleaved with this tree's: each contender's CPU is its own daemon's and lane's.

Run (as root, for the namespaces): HOOKD_GEMINI_BIN=.cache/gemini-cli-0.61.0/node_modules/.bin/gemini \
    .cache/venv/bin/python bench/gemini_stream.py [--rounds 5] [--chunks 200] [--base DIR] [--json FILE]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import (  # bench/ holds no package: its scripts import each other
    BASE_PYTHON,
    ROOT,
    SHIM,
    children,
    cpu_seconds,
    find_native,
    floor_binary,
    floor_server,
    settled,
    start_daemon,
    wait_for_log,
)

SIZES = {"1KB": 1024, "100KB": 100 * 1024}
OFFLINE = {
    "general": {"enableAutoUpdate": False},
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "model": {"name": "gemini-3-flash-preview"},
}
TIMEOUT_S = 300.0
# Every mount but the world read-only, then Gemini: in the private mount namespace `unshare -m` made.
CONFINE = r"""
mount --bind "$WORLD" "$WORLD"
awk '{print $2}' /proc/self/mounts | sort -u | while read -r point; do
  case "$point" in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*|"$WORLD") continue ;; esac
  mount -o remount,bind,ro "$point" 2>/dev/null || true
done
exec "$@"
"""


def script(chunks: int) -> str:
    """One streamed answer of `chunks` chunks, the last with finishReason."""
    parts = []
    for n in range(chunks):
        candidate: dict[str, Any] = {
            "content": {"role": "model", "parts": [{"text": f"word{n} and more "}]},
            "index": 0,
        }
        if n == chunks - 1:
            candidate["finishReason"] = "STOP"
        parts.append({"candidates": [candidate]})
    return json.dumps({"method": "generateContentStream", "response": parts}) + "\n"


def prompt(size: int) -> str:
    filler = "Here is some context about the project that the agent keeps in its conversation. "
    return ("Summarise this. " + filler * (size // len(filler) + 1))[:size]


def world(root: Path, command: str) -> dict[str, Path]:
    """A fresh HOME, project and TMPDIR with only AfterModel registered, running `command`."""
    home, project, tmp = root / "home", root / "project", root / "tmp"
    for directory in (home / ".gemini", project / ".gemini", tmp):
        directory.mkdir(parents=True)
    hooks = {"AfterModel": [{"hooks": [{"type": "command", "name": "bench", "command": command, "timeout": 10000}]}]}
    (home / ".gemini" / "settings.json").write_text(json.dumps({**OFFLINE, "hooksConfig": {"enabled": True},
                                                                "hooks": hooks}))  # fmt: skip
    (project / ".gemini" / "settings.json").write_text(json.dumps(OFFLINE))
    return {"home": home, "project": project, "tmp": tmp}


def run_gemini(gemini: str, root: Path, command: str, text: str, responses: Path) -> float:
    """One confined run; its wall time in seconds. Raises SystemExit when Gemini fails."""
    places = world(root, command)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(places["home"]), "TMPDIR": str(places["tmp"]),
           "GEMINI_API_KEY": "fake", "WORLD": str(root)}  # fmt: skip
    argv = ["unshare", "-m", "-n", "--propagation", "private", "sh", "-c", CONFINE, "sh",
            gemini, "-p", text, "--fake-responses", str(responses), "--yolo"]  # fmt: skip
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=places["project"], env=env, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, errors="replace", timeout=TIMEOUT_S, check=False)  # fmt: skip
    seconds = time.perf_counter() - start
    if done.returncode != 0 or "word0" not in done.stdout:
        raise SystemExit(
            f"gemini failed ({done.returncode}) with {command}:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
        )
    return seconds


def log_bytes(state: Path) -> int:
    return sum(p.stat().st_size for p in (state / "hookd").glob("decisions*.log*") if not p.name.endswith(".lock"))


def log_records(state: Path) -> int:
    path = state / "hookd" / "decisions.log"
    return len(path.read_text().splitlines()) if path.exists() else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--chunks", type=int, default=200)
    parser.add_argument("--native", help="the native shim (default: .cache/bin/hookd-shim if built)")
    parser.add_argument("--base", type=Path, help="another hookd checkout, run interleaved with this one")
    parser.add_argument("--json", type=Path, help="write the results here too")
    args = parser.parse_args()
    gemini = os.environ.get("HOOKD_GEMINI_BIN", "")
    if not gemini or not os.access(gemini, os.X_OK):
        raise SystemExit("HOOKD_GEMINI_BIN is not set to the Gemini CLI: run through ./dev")
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        raise SystemExit("needs root and unshare (the agent runs in its own network and mount namespaces)")
    floor = floor_binary()
    if floor is None:
        raise SystemExit("no C compiler for the floor (bench/floor_noop.c)")
    scratch = Path(tempfile.mkdtemp(prefix="hkdgs", dir="/tmp"))
    trees = {"": ROOT} if args.base is None else {"": ROOT, "-base": args.base.resolve()}
    daemons: dict[str, subprocess.Popen[bytes]] = {}
    servers = contextlib.ExitStack()
    try:
        contenders: dict[str, Contender] = {"floor": Contender(shlex.quote(str(floor)), 0, scratch)}
        native = find_native(args.native)
        if native is not None:
            contenders["socket"] = socket_floor(native, scratch, servers)
        for suffix, tree in trees.items():
            runtime = scratch / f"run{suffix}"
            daemon = daemons[suffix] = daemon_of(tree, runtime, scratch / f"daemon{suffix}.log")
            settled(daemon.pid)
            sock, state = str(runtime / "hook.sock"), runtime / "state"
            if native is not None:
                command = shlex.join([str(native), "gemini", "AfterModel", "--socket", sock])
                contenders["native" + suffix] = Contender(command, daemon.pid, state)
            shim = tree / SHIM.relative_to(ROOT)
            command = shlex.join([BASE_PYTHON, "-I", "-S", str(shim), "gemini", "AfterModel", "--socket", sock])
            contenders["python" + suffix] = Contender(command, daemon.pid, state)
        responses = scratch / "answer.responses"
        responses.write_text(script(args.chunks))
        results = measure(gemini, scratch, contenders, responses, args)
        results["trees"] = {name or "this": str(tree) for name, tree in trees.items()}
    finally:
        servers.close()
        for daemon in daemons.values():
            daemon.terminate()
            daemon.wait(timeout=30)
        shutil.rmtree(scratch, ignore_errors=True)
    report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


def socket_floor(native: Path, scratch: Path, servers: contextlib.ExitStack) -> Contender:
    """The native shim against the floor server, which listens where the stream lane would (the shim sends
    AfterModel there first)."""
    floor_dir = scratch / "socket-floor"
    floor_dir.mkdir(mode=0o700)
    servers.enter_context(floor_server(floor_dir / "stream.sock"))
    command = shlex.join([str(native), "gemini", "AfterModel", "--socket", str(floor_dir / "hook.sock")])
    return Contender(command, 0, scratch)


@dataclass(frozen=True)
class Contender:
    """A hook command, the daemon it reaches (0: none) and that daemon's state directory."""

    command: str
    daemon: int
    state: Path


def daemon_of(tree: Path, runtime: Path, log: Path) -> subprocess.Popen[bytes]:
    """`hookd serve` of `tree`'s code and policies."""
    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(tree / "daemon")  # ahead of the venv's editable install of this tree
    try:
        return start_daemon(runtime, tree / "policies", log)
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before


def measure(gemini: str, scratch: Path, contenders: dict[str, Contender], responses: Path,
            args: argparse.Namespace) -> dict[str, Any]:  # fmt: skip
    walls: dict[tuple[str, str], list[float]] = {}
    over: dict[tuple[str, str], list[float]] = {}
    over_socket: dict[tuple[str, str], list[float]] = {}
    cpu: dict[tuple[str, str], list[float]] = {}
    log: dict[tuple[str, str], list[tuple[int, int]]] = {}
    daemons = {c.daemon for c in contenders.values() if c.daemon}

    def spent_by(daemon: int) -> float:
        return cpu_seconds([daemon, *children(daemon)])

    for round_ in range(args.rounds):
        for size, length in SIZES.items():
            text = prompt(length)
            order = list(contenders) if round_ % 2 == 0 else list(reversed(contenders))
            this_round: dict[str, float] = {}
            spent: dict[str, float] = {}
            idle: dict[int, float] = {}  # each daemon's CPU per second while the floor ran (it never reaches them)
            for name in order:
                contender = contenders[name]
                before = {d: spent_by(d) for d in daemons}
                state = contender.state
                before_bytes, before_records = log_bytes(state), log_records(state)
                root = scratch / f"w-{round_}-{size}-{name}"
                this_round[name] = run_gemini(gemini, root, contender.command, text, responses)
                shutil.rmtree(root, ignore_errors=True)
                if contender.daemon:
                    wait_for_log(state / "hookd" / "decisions.log")
                    spent[name] = spent_by(contender.daemon) - before[contender.daemon]
                    log.setdefault((name, size), []).append(
                        (log_bytes(state) - before_bytes, log_records(state) - before_records)
                    )
                elif name == "floor":
                    idle = {d: (spent_by(d) - before[d]) / this_round[name] for d in daemons}
                walls.setdefault((name, size), []).append(this_round[name])
            for name, seconds in this_round.items():
                if name != "floor":
                    over.setdefault((name, size), []).append((seconds - this_round["floor"]) / args.chunks * 1000)
                if name in spent:  # the daemon's CPU over what it spent idle during the floor's run
                    cpu.setdefault((name, size), []).append(spent[name] - idle[contenders[name].daemon] * seconds)
                    socket_run = this_round.get("socket", math.nan)  # nan: no native shim, no socket floor
                    over_socket.setdefault((name, size), []).append((seconds - socket_run) / args.chunks * 1000)
        print(f"round {round_ + 1}/{args.rounds} done", file=sys.stderr)
    rows = []
    for (name, size), samples in sorted(walls.items(), key=lambda item: (item[0][1], item[0][0])):
        row: dict[str, Any] = {"contender": name, "conversation": size, "run_s": statistics.median(samples)}
        if name != "floor":
            row["over_floor_ms_per_chunk"] = statistics.median(over[name, size])
        if (name, size) in cpu:
            row["over_socket_ms_per_chunk"] = statistics.median(over_socket[name, size])
            row["daemon_cpu_ms_per_chunk"] = statistics.median(cpu[name, size]) / args.chunks * 1000
            row["log_bytes_per_answer"] = statistics.median(b for b, _ in log[name, size])
            row["log_records_per_answer"] = statistics.median(r for _, r in log[name, size])
        rows.append(row)
    return {"chunks": args.chunks, "rounds": args.rounds, "gemini": os.environ.get("HOOKD_GEMINI_BIN", ""),
            "rows": rows}  # fmt: skip


def report(results: dict[str, Any]) -> None:
    print(f"{results['chunks']}-chunk answers, {results['rounds']} rounds, medians")
    print(f"{'conversation':<13}{'hook':<12}{'run s':>8}{'ms/chunk over floor':>22}{'over socket':>13}"
          f"{'daemon CPU ms/chunk':>22}{'log bytes/answer':>18}{'records':>9}")  # fmt: skip
    for row in results["rows"]:
        extra = ""
        if "over_floor_ms_per_chunk" in row:
            extra = f"{row['over_floor_ms_per_chunk']:>22.2f}"
        if "daemon_cpu_ms_per_chunk" in row:
            extra += (f"{row['over_socket_ms_per_chunk']:>13.2f}{row['daemon_cpu_ms_per_chunk']:>22.2f}"
                      f"{row['log_bytes_per_answer']:>18,.0f}{row['log_records_per_answer']:>9.0f}")  # fmt: skip
        print(f"{row['conversation']:<13}{row['contender']:<12}{row['run_s']:>8.2f}{extra}")


if __name__ == "__main__":
    sys.exit(main())
