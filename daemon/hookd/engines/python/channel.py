"""One sandboxed Python policy worker process and its channel: spawn it under the sandbox layers
(hookd.sandbox), hand it the policy set, exchange length-prefixed JSON frames with it, kill it.

The pipes are read with `loop.add_reader` per read instead of a transport bound to one loop, so the same
worker serves the daemon's loop and the short-lived loops of `hookd eval` and `hookd test`.

What a worker answers is capped, since the policy in it may be hostile: a frame over `MAX_ANSWER_BYTES`
is refused from its length prefix, before it is read (the worker is replaced, the verdict fails closed;
a 60 MB reason raised the daemon's RSS by 214 MB and stalled the next decision for seconds).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import pwd
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import structlog

from hookd.config import Config
from hookd.errors import PolicyLoadError, SandboxFrameError, WorkerGone, one_line
from hookd.policy.python_sources import PythonPolicySet
from hookd.sandbox import frames, scratch
from hookd.types import JSON
from hookd.wire import jsonstrict

log = structlog.get_logger("hookd")
PACKAGE_PARENT = str(Path(__file__).resolve().parents[3])  # the directory that holds the hookd package
BOOTSTRAP = f"import sys; sys.path.insert(0, {PACKAGE_PARENT!r}); from hookd.sandbox.worker import main; main()"
# A worker that evaluates Rego (hookd.engines.rego.evaluator) also imports regorus, from where the daemon has it.
REGO_BOOTSTRAP = (
    f"import sys; sys.path.insert(0, {PACKAGE_PARENT!r}); sys.path.append({{regorus_parent!r}}); "
    "from hookd.engines.rego.evaluator import main; main()"
)
EXIT_GRACE = 0.05  # a worker that closed its channel (a crash: rare) is waited for this long, to say how it ended
STDERR_TAIL = 4000
MAX_ANSWER_BYTES = 1 << 20  # one answer frame from a worker: its verdicts, patches, errors
PIPE_BYTES = 1 << 20  # the request pipe's size: /proc/sys/fs/pipe-max-size's default
# A call whose worker has burnt this much CPU is one policy's loop, not a decision (those take milliseconds;
# the rare legitimate one this heavy, a 60 MB verdict at 0.1-0.2 s, only pays a replaced worker): the worker
# drops to the lowest CPU priority until its deadline, so that on a busy CPU the daemon and the other
# sessions' workers run first; it still runs on an idle one, and is replaced after the call (a priority
# cannot be raised back).
DEMOTE_AFTER_CPU_S = 0.1
DEMOTED_NICE = 19
_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    workers: int = 2
    timeout: float = 1.0
    start_timeout: float = 30.0
    limits: Mapping[str, int] = field(
        default_factory=lambda: {"cpu_seconds": 60, "memory_mb": 1024, "open_files": 64, "file_size_mb": 16}
    )
    user: str = "nobody"
    env: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    scratch_dir: str = ""  # where each worker's scratch dir is made; "" is the temporary directory

    @classmethod
    def from_config(cls, config: Config) -> WorkerSettings:
        py = config.python
        limits = {
            "cpu_seconds": py.cpu_seconds,
            "memory_mb": py.memory_mb,
            "open_files": py.open_files,
            "file_size_mb": py.file_size_mb,
        }
        return cls(
            py.workers, py.timeout_ms / 1000, py.start_timeout_ms / 1000, limits, py.user, py.env, py.paths,
            str(py.scratch_dir),
        )  # fmt: skip


def worker_identity(user: str) -> tuple[int | None, int | None]:
    """The uid and gid workers drop to: only when the daemon is root, and never to root."""
    if os.geteuid() != 0 or not user:
        return None, None
    try:
        entry = pwd.getpwuid(int(user)) if user.isdigit() else pwd.getpwnam(user)
    except KeyError:
        raise PolicyLoadError(f"python.user {user!r} does not exist on this machine") from None
    if entry.pw_uid == 0:
        raise PolicyLoadError(f"python.user {user!r} is root: Python policies must run unprivileged")
    return entry.pw_uid, entry.pw_gid


def worker_environment(scratch: str, passed: Sequence[str]) -> dict[str, str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": scratch, "TMPDIR": scratch, "LANG": "C.UTF-8"}
    env.update({name: os.environ[name] for name in passed if name in os.environ})
    return env


class PolicyWorker:
    """One worker process and its channel; `ready` holds the worker's report once it has started."""

    def __init__(
        self, policy_set: PythonPolicySet, settings: WorkerSettings, rego: Mapping[str, JSON] | None = None
    ) -> None:
        """`rego`: a Rego policy set this worker compiles and evaluates instead of Python policies
        (hookd.engines.rego.isolated)."""
        uid, gid = worker_identity(settings.user)
        base = settings.scratch_dir or tempfile.gettempdir()
        os.makedirs(base, mode=0o755, exist_ok=True)
        self.scratch = tempfile.mkdtemp(prefix=scratch.scratch_prefix(), dir=base)
        if uid is not None and gid is not None:
            os.chown(self.scratch, uid, gid)
        # The worker's stderr (a crash report, a policy's own prints to it): read back only after a crash.
        self.stderr: IO[bytes] = tempfile.TemporaryFile(prefix="hookd-py-stderr-", dir=base)  # noqa: SIM115 - lives with the worker
        bootstrap = BOOTSTRAP if rego is None else REGO_BOOTSTRAP.format(regorus_parent=_regorus_parent())
        self.proc = subprocess.Popen(
            [os.path.realpath(sys.executable), "-I", "-S", "-B", "-c", bootstrap],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=worker_environment(self.scratch, settings.env),
            cwd="/",
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._out, self._in = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        _widen_pipe(self._out)
        os.set_blocking(self._out, False)
        os.set_blocking(self._in, False)
        self._buffer = bytearray()
        self._eof = False
        self.ready: dict[str, Any] = {}
        self.kind = "Python" if rego is None else "Rego"
        self.pid = self.proc.pid
        self.demoted = False  # running at DEMOTED_NICE: replaced after its call
        self._watching: asyncio.TimerHandle | None = None
        self._init = frames.encode(  # sent by wait_ready*: a large set must not block the loop on a full pipe
            {
                "scratch": self.scratch,
                "uid": uid,
                "gid": gid,
                "limits": dict(settings.limits),
                "paths": list(settings.paths),
                "sources": [{"path": s.path, "filename": s.filename, "source": s.source} for s in policy_set.sources],
                **({"rego": rego} if rego is not None else {}),
            }
        )

    # --- start-up (blocking: used while a policy set loads, before it serves) ---

    def _send_blocking(self, data: bytes, end: float) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._out, view) :]
            except BlockingIOError:
                if time.monotonic() > end:
                    raise WorkerGone("did not read its set-up in time") from None
                select.select([], [self._out], [], max(0.0, end - time.monotonic()))
            except BrokenPipeError:
                raise WorkerGone(self.exit_reason()) from None

    def wait_ready_blocking(self, timeout: float) -> dict[str, Any]:
        end = time.monotonic() + timeout
        self._send_blocking(self._init, end)
        while (frame := self._frame_or_gone()) is None:
            left = end - time.monotonic()
            if left <= 0:
                raise WorkerGone(f"did not start within {timeout:g} s")
            select.select([self._in], [], [], left)
            self._read_available()
        return self._accept_ready(frame)

    def _accept_ready(self, frame: dict[str, Any]) -> dict[str, Any]:
        if "fatal" in frame:
            log.error(
                "python_worker_failed_to_start", pid=self.pid, error=frame["fatal"], traceback=frame.get("traceback")
            )
            raise PolicyLoadError(f"{self.kind} policies do not load: {one_line(str(frame['fatal']))}")
        if not frame.get("ready"):
            raise WorkerGone("sent something other than its ready report")
        self.ready = frame
        return frame

    # --- serving ---

    async def wait_ready(self, timeout: float) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            await self._send(self._init)
            return self._accept_ready(await self._read_frame())

    async def call(self, request: Mapping[str, JSON], document: Mapping[str, JSON]) -> dict[str, Any]:
        """The worker's answer; `retire` set in it when the call overran into demotion (DEMOTE_AFTER_CPU_S)."""
        await self._send(frames.encode(request) + frames.encode(document))
        self._watching = asyncio.get_running_loop().call_later(DEMOTE_AFTER_CPU_S, self._watch, self._cpu_seconds())
        try:
            answer = await self._read_frame()
        finally:
            if self._watching is not None:
                self._watching.cancel()
        if answer.get("id") != request["id"]:
            raise WorkerGone(f"answered request {answer.get('id')!r}, expected {request['id']}")
        return {**answer, "retire": True} if self.demoted else answer

    def _watch(self, cpu_at_start: float) -> None:
        """Demote the worker once this call has burnt DEMOTE_AFTER_CPU_S of CPU (checked as often: a call
        that waits for the CPU on a busy box is not one that burns it)."""
        used = self._cpu_seconds() - cpu_at_start
        if used < DEMOTE_AFTER_CPU_S:
            self._watching = asyncio.get_running_loop().call_later(DEMOTE_AFTER_CPU_S - used, self._watch, cpu_at_start)
            return
        try:
            os.setpriority(os.PRIO_PROCESS, self.pid, DEMOTED_NICE)
        except OSError as exc:
            log.warning("policy_worker_not_demoted", worker=self.pid, error=exc.strerror or str(exc))
            return
        self.demoted = True
        log.info("policy_worker_demoted", worker=self.pid, kind=self.kind, cpu_ms=round(used * 1000))

    def _cpu_seconds(self) -> float:
        """The worker's user and system CPU time so far (0 when it is gone: then the call fails anyway)."""
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / _TICKS

    async def _send(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._out, view) :]
            except BlockingIOError:
                await _ready_for(self._out, writing=True)
            except BrokenPipeError:
                raise WorkerGone(self.exit_reason()) from None

    async def _read_frame(self) -> dict[str, Any]:
        while (frame := self._frame_or_gone()) is None:
            await _ready_for(self._in, writing=False)
            self._read_available()
        return frame

    def _read_available(self) -> None:
        while True:
            try:
                chunk = os.read(self._in, 1 << 16)
            except BlockingIOError:
                return
            if not chunk:
                self._eof = True  # the frames before the end still count (a worker's last word: why it failed)
                return
            self._buffer += chunk

    def _frame_or_gone(self) -> dict[str, Any] | None:
        frame = self._take_frame()
        if frame is None and self._eof:
            raise WorkerGone(self.exit_reason())
        return frame

    def _take_frame(self) -> dict[str, Any] | None:
        if len(self._buffer) < frames.HEADER.size:
            return None
        try:
            size = frames.decode_length(bytes(self._buffer[: frames.HEADER.size]))
        except SandboxFrameError as exc:
            raise WorkerGone(str(exc)) from None
        if size > MAX_ANSWER_BYTES:  # refused before it is read: a hostile policy cannot inflate the daemon
            raise WorkerGone(f"sent a {size}-byte answer, over the {MAX_ANSWER_BYTES} bytes an answer may carry")
        end = frames.HEADER.size + size
        if len(self._buffer) < end:
            return None
        body = bytes(self._buffer[frames.HEADER.size : end])
        del self._buffer[:end]
        try:
            value = jsonstrict.loads(body)
        except ValueError as exc:
            raise WorkerGone(f"sent a frame that is not JSON: {exc}") from None
        if not isinstance(value, dict):
            raise WorkerGone("sent a frame that is not a JSON object")
        return value

    # --- ending ---

    def exit_reason(self) -> str:
        code = self.proc.poll()
        if code is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self.proc.wait(EXIT_GRACE)
        if code is None:
            return "closed its channel"
        return f"exited with signal {-code}" if code < 0 else f"exited with status {code}"

    def stderr_tail(self) -> str:
        try:
            self.stderr.seek(0, os.SEEK_END)
            size = self.stderr.tell()
            self.stderr.seek(max(0, size - STDERR_TAIL))
            return self.stderr.read().decode(errors="replace")
        except (OSError, ValueError):
            return ""

    def kill(self) -> None:
        kill_worker(self.proc, self.scratch, self.stderr)


def kill_worker(proc: subprocess.Popen[bytes], scratch: str, stderr: IO[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    # Never waited for: this runs on the event loop, and on a busy CPU a killed worker (a demoted one the more)
    # exits only when it is next scheduled, which held every session up to the 50 ms this used to wait. One
    # that has not exited yet is reaped by a later Popen (subprocess keeps it in its list of children to reap).
    proc.poll()
    for stream in (proc.stdin, proc.stdout, stderr):
        with contextlib.suppress(OSError):
            if stream is not None:
                stream.close()
    shutil.rmtree(scratch, ignore_errors=True)


def _widen_pipe(fd: int) -> None:
    """A document of up to PIPE_BYTES crosses in one write: each 64 KiB more was a round trip between two
    processes, which at a busy CPU's low priority (the lane's nice 10) cost milliseconds each."""
    with contextlib.suppress(OSError):  # a smaller pipe still works, in more round trips
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)


def _regorus_parent() -> str:
    import regorus  # the daemon has it loaded already (the bundled policies are embedded)

    return str(Path(regorus.__file__).resolve().parents[1])


async def _ready_for(fd: int, *, writing: bool) -> None:
    loop = asyncio.get_running_loop()
    ready = loop.create_future()

    def wake() -> None:
        if not ready.done():
            ready.set_result(None)

    (loop.add_writer if writing else loop.add_reader)(fd, wake)
    try:
        await ready
    finally:
        (loop.remove_writer if writing else loop.remove_reader)(fd)
