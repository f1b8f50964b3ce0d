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

Each run is timed from Gemini's stdout: a chunk's text is printed once its AfterModel hook has answered,
so the time between two chunks is one hook's run plus Gemini's own handling of a chunk, and Gemini's start
and exit (seconds, which on a shared box vary by more than an answer's 200 hooks cost) are left out. A run's
figure is the median of its 199 times between chunks (a stall of the box moves a few of them, not it).

The contenders run interleaved with the floor: in each round and size, floor A floor B floor ... (the order
of A, B, ... reversed every other round), in a fresh world each run (HOME, project, TMPDIR under one scratch
directory), and each contender's run is paired with the floor's runs just before and after it. Gemini runs
confined as the e2e tests run agents: in a network namespace of its own (`unshare -n`: no network at all;
the model is the script) and a private mount namespace in which every mount but the world is read-only. One
`hookd serve` with the default policies (policies/: model_secrets reads every chunk) serves every run.

Reported, per conversation size and contender, as the median over the rounds with the lowest and highest
round: ms a chunk (the run's median time between chunks); over the floor (that less the mean of its two
floor runs'); over the socket floor (the daemon contenders': their figure over the floor less the socket's
in the same round); the agent's CPU a chunk over the floor's (Gemini's processes and the hooks they ran,
from the first chunk to the last, /proc/PID/stat); the daemon's and lanes' CPU a chunk over the same span
(less what they spent idle while the floor ran); the two CPU figures together (what a chunk costs the
machine over a no-op hook); and the decision log's bytes (decisions.log and decisions.kept.log) and records
per answer. The load average is printed with them: on a box whose load is above its cores, the wall
figures are the load's (read the CPU columns then).

With `--base DIR` (another checkout of hookd, e.g. `git archive main | tar -x -C DIR`), a second `hookd serve`
runs DIR's code (`PYTHONPATH=DIR/daemon`) with DIR's policies, and its shims (`native-base`, `python-base`)
run in the same rounds, interleaved with this tree's: each contender's CPU is its own daemon's and lane's.

Run (as root, for the namespaces): HOOKD_GEMINI_BIN=.cache/gemini-cli-0.61.0/node_modules/.bin/gemini \
    .cache/venv/bin/python bench/gemini_stream.py [--rounds 5] [--chunks 200] [--base DIR] [--json FILE] \
    [--sizes 1KB,100KB] [--hooks socket,native,python]
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import selectors
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
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
    process_tree,
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
CHUNK_END = b" and more "  # ends each chunk's text (`script`): counted on Gemini's stdout
TICKS = os.sysconf("SC_CLK_TCK")
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


@dataclass(frozen=True)
class Run:
    """One confined Gemini run: its wall time, and over its streamed answer (from the first chunk's text on
    Gemini's stdout to the last's) the time between chunks, the agent's CPU and each daemon's CPU."""

    seconds: float
    intervals: list[float]  # ms between one chunk's text on stdout and the next's
    agent_cpu: float  # s: Gemini's (every thread) and its hooks' (the children it reaped), over the answer
    daemon_cpu: dict[int, float]  # s: each daemon's and its lanes', over the answer

    @property
    def per_chunk(self) -> float:
        """The median time between chunks (ms): what one more chunk costs, robust to a stall of the box."""
        return statistics.median(self.intervals)


def agent_cpu(pid: int) -> float:
    """CPU seconds of process `pid` and its descendants (every thread: Gemini CLI runs itself again in a child
    process) and of the children they have reaped (the hooks)."""
    total = 0
    for member in process_tree(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_bytes().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # exited since the listing: its parent's reaped children count it
        total += sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
    return total / TICKS


def run_gemini(gemini: str, root: Path, command: str, text: str, responses: Path, chunks: int,
               daemons: Callable[[], dict[int, float]]) -> Run:  # fmt: skip
    """One confined run, timed from Gemini's stdout: each chunk's text is printed once its AfterModel hook
    answered, so the time between two chunks is one hook's run and Gemini's handling of it, without
    Gemini's start and exit (seconds that vary by more than a whole answer's hooks on a shared box).
    Raises SystemExit when Gemini fails."""
    places = world(root, command)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(places["home"]), "TMPDIR": str(places["tmp"]),
           "GEMINI_API_KEY": "fake", "WORLD": str(root)}  # fmt: skip
    argv = ["unshare", "-m", "-n", "--propagation", "private", "sh", "-c", CONFINE, "sh",
            gemini, "-p", text, "--fake-responses", str(responses), "--yolo"]  # fmt: skip
    seen, output, marks = 0, b"", []
    cpu: list[tuple[float, dict[int, float]]] = []  # at the first chunk and at the last
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        agent = subprocess.Popen(argv, cwd=places["project"], env=env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=errors)  # fmt: skip
        assert agent.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(agent.stdout, selectors.EVENT_READ)
            while time.perf_counter() - start < TIMEOUT_S:
                if not selector.select(TIMEOUT_S - (time.perf_counter() - start)):
                    continue
                data = os.read(agent.stdout.fileno(), 65536)
                if not data:
                    break
                now = time.perf_counter()
                output += data
                count = min(output.count(CHUNK_END), chunks)
                if seen == 0 < count:  # the agent has exec'd Gemini by now
                    cpu.append((agent_cpu(agent.pid), daemons()))
                if seen < chunks == count:
                    cpu.append((agent_cpu(agent.pid), daemons()))
                marks += [now] * (count - seen)
                seen = count
        try:
            code = agent.wait(timeout=max(1.0, TIMEOUT_S - (time.perf_counter() - start)))
        except subprocess.TimeoutExpired:
            agent.kill()
            code = agent.wait()
        seconds = time.perf_counter() - start
        errors.seek(0)
        stderr = errors.read().decode(errors="replace")
    if code != 0 or seen < chunks or len(cpu) != 2:
        raise SystemExit(f"gemini failed ({code}, {seen} chunks) with {command}:\n"
                         f"{output[-2000:].decode(errors='replace')}\n{stderr[-4000:]}")  # fmt: skip
    (agent_first, daemons_first), (agent_last, daemons_last) = cpu
    spent = {pid: daemons_last[pid] - daemons_first[pid] for pid in daemons_first}
    intervals = [(b - a) * 1000 for a, b in itertools.pairwise(marks)]
    return Run(seconds, intervals, agent_last - agent_first, spent)


def log_bytes(state: Path) -> int:
    return sum(p.stat().st_size for p in (state / "hookd").glob("decisions*.log*") if not p.name.endswith(".lock"))


def log_records(state: Path) -> int:
    path = state / "hookd" / "decisions.log"
    return len(path.read_text().splitlines()) if path.exists() else 0


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--chunks", type=int, default=200)
    parser.add_argument("--native", help="the native shim (default: .cache/bin/hookd-shim if built)")
    parser.add_argument("--base", type=Path, help="another hookd checkout, run interleaved with this one")
    parser.add_argument("--json", type=Path, help="write the results here too")
    parser.add_argument("--sizes", default=",".join(SIZES), help=f"conversation sizes (of {', '.join(SIZES)})")
    parser.add_argument("--hooks", help="the contenders besides the floor (default: all; e.g. socket,native)")
    args = parser.parse_args()
    args.sizes = args.sizes.split(",")
    if not set(args.sizes) <= set(SIZES):
        raise SystemExit(f"--sizes: of {', '.join(SIZES)}")
    return args


def confined_gemini() -> str:
    """The Gemini CLI to run (HOOKD_GEMINI_BIN), once it is sure the runs can be confined."""
    gemini = os.environ.get("HOOKD_GEMINI_BIN", "")
    if not gemini or not os.access(gemini, os.X_OK):
        raise SystemExit("HOOKD_GEMINI_BIN is not set to the Gemini CLI: run through ./dev")
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        raise SystemExit("needs root and unshare (the agent runs in its own network and mount namespaces)")
    return gemini


def main() -> int:
    args = arguments()
    gemini = confined_gemini()
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
        contenders = chosen(contenders, args.hooks)
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


def chosen(contenders: dict[str, Contender], hooks: str | None) -> dict[str, Contender]:
    """The floor and the contenders `--hooks` names (all when it names none)."""
    names = set(hooks.split(",")) if hooks else set(contenders)
    if unknown := names - set(contenders):
        raise SystemExit(f"--hooks: no contender {', '.join(sorted(unknown))} (of {', '.join(contenders)})")
    return {name: c for name, c in contenders.items() if name == "floor" or name in names}


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
    """Round after round, at each size: the floor, then each contender with the floor run again after it
    (floor A floor B floor ...), so that every contender's run is paired with the floor's runs on either
    side of it, minutes apart at most; the order of the contenders is reversed every other round."""
    daemons = sorted({c.daemon for c in contenders.values() if c.daemon})
    others = [name for name in contenders if name != "floor"]
    samples: dict[tuple[str, str], list[dict[str, float]]] = {}
    intervals = args.chunks - 1

    def spent_by() -> dict[int, float]:
        return {d: cpu_seconds([d, *children(d)]) for d in daemons}

    load = [os.getloadavg()[0]]
    for round_ in range(args.rounds):
        for size in args.sizes:
            text = prompt(SIZES[size])
            order = others if round_ % 2 == 0 else others[::-1]
            runs: list[Run] = []
            logs: list[tuple[int, int]] = []
            for name in ["floor", *(n for other in order for n in (other, "floor"))]:
                state = contenders[name].state
                before = log_bytes(state), log_records(state)
                root = scratch / f"w-{round_}-{size}-{name}-{len(runs)}"
                runs.append(run_gemini(gemini, root, contenders[name].command, text, responses, args.chunks,
                                       spent_by))  # fmt: skip
                shutil.rmtree(root, ignore_errors=True)
                if contenders[name].daemon:
                    wait_for_log(state / "hookd" / "decisions.log")
                logs.append((log_bytes(state) - before[0], log_records(state) - before[1]))
            floor_rows = []
            for k, name in enumerate(order):
                run, floors = runs[2 * k + 1], (runs[2 * k], runs[2 * k + 2])
                floor_rows.append(floors[0])
                sample = paired(run, floors, contenders[name].daemon, intervals)
                if contenders[name].daemon:
                    sample["log_bytes"], sample["log_records"] = logs[2 * k + 1]
                samples.setdefault((name, size), []).append(sample)
            floor_rows.append(runs[-1])
            for run in floor_rows:
                floor_sample = {"run_s": run.seconds, "per_chunk_ms": run.per_chunk}
                floor_sample["agent_cpu_ms"] = run.agent_cpu / intervals * 1000
                samples.setdefault(("floor", size), []).append(floor_sample)
            load.append(os.getloadavg()[0])
        print(f"round {round_ + 1}/{args.rounds} done, load {load[-1]:.1f}", file=sys.stderr)
    for size in args.sizes:  # each contender over the socket floor: their differences from the floor, paired
        sockets = samples.get(("socket", size))
        for name in others:
            if sockets is None or name == "socket" or not contenders[name].daemon:
                continue
            for sample, socket_sample in zip(samples[name, size], sockets, strict=True):
                sample["over_socket_ms"] = sample["over_floor_ms"] - socket_sample["over_floor_ms"]
    rows = [{"contender": name, "conversation": size, **summary(rows)} for (name, size), rows in samples.items()]
    rows.sort(key=lambda row: (args.sizes.index(row["conversation"]), list(contenders).index(row["contender"])))
    return {"chunks": args.chunks, "rounds": args.rounds, "gemini": os.environ.get("HOOKD_GEMINI_BIN", ""),
            "load": [min(load), max(load)], "rows": rows,
            "samples": {f"{size}/{name}": rows for (name, size), rows in samples.items()}}  # fmt: skip


def paired(run: Run, floors: tuple[Run, Run], daemon: int, intervals: int) -> dict[str, float]:
    """One contender's run against the floor's runs before and after it: ms a chunk (the median time between
    chunks) over theirs, the agent's CPU a chunk over theirs, and the daemon's CPU a chunk over what it spent
    idle while they ran."""
    floor_chunk = statistics.fmean(f.per_chunk for f in floors)
    floor_agent = statistics.fmean(f.agent_cpu for f in floors)
    sample = {
        "run_s": run.seconds,
        "per_chunk_ms": run.per_chunk,
        "over_floor_ms": run.per_chunk - floor_chunk,
        "agent_cpu_ms": run.agent_cpu / intervals * 1000,
        "agent_cpu_over_floor_ms": (run.agent_cpu - floor_agent) / intervals * 1000,
    }
    if daemon:
        idle = statistics.fmean(f.daemon_cpu[daemon] / sum(f.intervals) for f in floors)  # s per ms of answer
        spent = run.daemon_cpu[daemon] - idle * sum(run.intervals)
        sample["daemon_cpu_ms"] = spent / intervals * 1000
        sample["cpu_over_floor_ms"] = sample["agent_cpu_over_floor_ms"] + sample["daemon_cpu_ms"]
    return sample


def summary(samples: list[dict[str, float]]) -> dict[str, Any]:
    """Each figure's median over the rounds, and its spread (the lowest and highest round)."""
    row: dict[str, Any] = {}
    for key in samples[0]:
        values = [s[key] for s in samples]
        row[key] = statistics.median(values)
        row[key + "_range"] = [min(values), max(values)]
    return row


def report(results: dict[str, Any]) -> None:
    low, high = results["load"]
    print(
        f"{results['chunks']}-chunk answers, {results['rounds']} rounds, load {low:.1f}-{high:.1f}; medians over "
        "the rounds [lowest, highest round]; ms/chunk: the median time between two chunks on Gemini's stdout"
    )
    columns = [("per_chunk_ms", "ms/chunk"), ("over_floor_ms", "over floor"), ("over_socket_ms", "over socket"),
               ("agent_cpu_over_floor_ms", "agent CPU over floor"), ("daemon_cpu_ms", "daemon CPU"),
               ("cpu_over_floor_ms", "all CPU over floor")]  # fmt: skip
    print(f"{'conversation':<13}{'hook':<13}" + "".join(f"{title:>24}" for _, title in columns)
          + f"{'log bytes/answer':>18}{'records':>9}")  # fmt: skip
    for row in results["rows"]:
        cells = ""
        for key, _ in columns:
            low, high = row.get(key + "_range", (0, 0))
            cells += f"{row[key]:>8.2f} [{low:>5.2f},{high:>6.2f}]" if key in row else " " * 24
        if "log_bytes" in row:
            cells += f"{row['log_bytes']:>18,.0f}{row['log_records']:>9.0f}"
        print(f"{row['conversation']:<13}{row['contender']:<13}{cells}")


if __name__ == "__main__":
    sys.exit(main())
