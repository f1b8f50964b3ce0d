"""Python policies, evaluated out of process in a pool of sandboxed workers (docs/python-policies.md).

Each worker is a clean interpreter (`-I -S -B`, a minimal environment) that puts itself under the sandbox
layers of hookd.sandbox.layers and then loads the set's sources. A request crosses as a length-prefixed
JSON frame on a pipe, and only when a Python policy applies to the event. Per call: a deadline, after
which the worker is killed and replaced and the verdict is the event's fail mode; an exception or a crash
is a fail-closed verdict, with the traceback in the daemon's log only; after either, the worker is
replaced, in the background, so that a respawn never holds a decision beyond its deadline.

What a worker answers is capped, since the policy in it may be hostile: a frame over `MAX_ANSWER_BYTES`
is refused from its length prefix, before it is read (the worker is replaced, the verdict fails closed),
and each verdict's message is cut to `MAX_MESSAGE_CHARS` (a 60 MB reason raised the daemon's RSS by
214 MB and stalled the next decision for seconds).

The pipes are read with `loop.add_reader` per read instead of a transport bound to one loop, so the same
engine serves the daemon's loop and the short-lived loops of `hookd eval` and `hookd test`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import select
import shutil
import subprocess
import sys
import tempfile
import time
import weakref
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

import structlog

from hookd import jsonstrict
from hookd.config import CAN_FAIL_CLOSED, Config
from hookd.engines.rego_embedded import PolicyPackage
from hookd.errors import PolicyLoadError, one_line
from hookd.policy.python_sources import PythonPolicySet
from hookd.sandbox import frames, scratch
from hookd.types import JSON, EngineRequest, Event, FailMode, Verdict, VerdictKind

log = structlog.get_logger("hookd")
PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])  # the directory that holds the hookd package
BOOTSTRAP = f"import sys; sys.path.insert(0, {PACKAGE_PARENT!r}); from hookd.sandbox.worker import main; main()"
KILL_GRACE = 0.05
STDERR_TAIL = 4000
RESPAWN_BACKOFF = (0.1, 0.5, 2.0, 5.0)
ENGINE_POLICY = "hookd.python"
MAX_ANSWER_BYTES = 1 << 20  # one answer frame from a worker: its verdicts, patches, errors
MAX_MESSAGE_CHARS = 4096  # one verdict's message (a reason, context, or system message)


class WorkerGone(Exception):
    pass


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


class Worker:
    """One worker process and its channel; `ready` holds the worker's report once it has started."""

    def __init__(self, policy_set: PythonPolicySet, settings: WorkerSettings) -> None:
        uid, gid = worker_identity(settings.user)
        base = settings.scratch_dir or tempfile.gettempdir()
        os.makedirs(base, mode=0o755, exist_ok=True)
        self.scratch = tempfile.mkdtemp(prefix=scratch.scratch_prefix(), dir=base)
        if uid is not None and gid is not None:
            os.chown(self.scratch, uid, gid)
        # The worker's stderr (a crash report, a policy's own prints to it): read back only after a crash.
        self.stderr: IO[bytes] = tempfile.TemporaryFile(prefix="hookd-py-stderr-", dir=base)  # noqa: SIM115 - lives with the worker
        self.proc = subprocess.Popen(
            [os.path.realpath(sys.executable), "-I", "-S", "-B", "-c", BOOTSTRAP],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=worker_environment(self.scratch, settings.env),
            cwd="/",
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._out, self._in = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        os.set_blocking(self._out, False)
        os.set_blocking(self._in, False)
        self._buffer = bytearray()
        self._eof = False
        self.ready: dict[str, Any] = {}
        self.pid = self.proc.pid
        self._init = frames.encode(  # sent by wait_ready*: a large set must not block the loop on a full pipe
            {
                "scratch": self.scratch,
                "uid": uid,
                "gid": gid,
                "limits": dict(settings.limits),
                "paths": list(settings.paths),
                "sources": [{"path": s.path, "filename": s.filename, "source": s.source} for s in policy_set.sources],
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
            raise PolicyLoadError(f"Python policies do not load: {one_line(str(frame['fatal']))}")
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
        await self._send(frames.encode(request) + frames.encode(document))
        answer = await self._read_frame()
        if answer.get("id") != request["id"]:
            raise WorkerGone(f"answered request {answer.get('id')!r}, expected {request['id']}")
        return answer

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
        except frames.FrameError as exc:
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
                code = self.proc.wait(KILL_GRACE)
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
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(KILL_GRACE)  # a killed worker is gone in microseconds; a slow one is reaped by a later Popen
    for stream in (proc.stdin, proc.stdout, stderr):
        with contextlib.suppress(OSError):
            if stream is not None:
                stream.close()
    shutil.rmtree(scratch, ignore_errors=True)


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


@dataclass(frozen=True, slots=True)
class Route:
    name: str
    events: frozenset[str] | None
    kinds: frozenset[str] | None
    tools: frozenset[str] | None

    def applies(self, event: str, kind: str | None, tool: str | None) -> bool:
        for allowed, value in ((self.events, event), (self.kinds, kind), (self.tools, tool)):
            if allowed is not None and value not in allowed:
                return False
        return True


def _route(entry: Mapping[str, Any]) -> Route:
    def maybe(key: str) -> frozenset[str] | None:
        value = entry.get(key)
        return frozenset(value) if value is not None else None

    return Route(str(entry["name"]), maybe("events"), maybe("kinds"), maybe("tools"))


class PythonEngine:
    """The Python policies of one policy set. Build with `PythonEngine.start(...)`: it returns once every
    worker has loaded the policies, or with `wait=False` at once, and then `await engine.ready()` does the
    waiting without holding the event loop (a reload). Either raises PolicyLoadError, and the old set serves on."""

    name = "python"
    remote = True  # its work happens in other processes (CompositeEngine starts it first)

    def __init__(
        self,
        policy_set: PythonPolicySet,
        settings: WorkerSettings,
        fail_modes: Mapping[Event, FailMode],
        workers: Sequence[Worker],
    ) -> None:
        self.policy_set = policy_set
        self.settings = settings
        self._fail_modes = fail_modes
        self.layers: list[dict[str, Any]] = []
        self._policies: list[dict[str, Any]] = []
        self._routes: list[Route] = []
        self._policy_ids: dict[str, str] = {}
        self._route_cache: dict[tuple[str, str | None, str | None], tuple[str, ...]] = {}
        self._starting_workers = list(workers)
        self._idle: deque[Worker] = deque()
        self._live: set[Worker] = set(workers)
        self._starting = 0
        self._waiters: deque[asyncio.Future[Worker]] = deque()
        self._next_id = 0
        self._inflight = 0
        self._closing = False
        self.replaced = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self._finalizer = weakref.finalize(self, _kill_all, self._live)

    @classmethod
    def start(
        cls,
        policy_set: PythonPolicySet,
        settings: WorkerSettings,
        fail_modes: Mapping[Event, FailMode],
        *,
        wait: bool = True,
    ) -> PythonEngine:
        scratch.sweep(Path(settings.scratch_dir or tempfile.gettempdir()))
        workers: list[Worker] = []
        try:
            for _ in range(max(1, settings.workers)):
                workers.append(Worker(policy_set, settings))
        except BaseException:
            _kill_all(set(workers))
            raise
        engine = cls(policy_set, settings, fail_modes, workers)
        if wait:
            with engine._failing_to_start():
                for worker in workers:
                    worker.wait_ready_blocking(settings.start_timeout)
            engine._serve_with(workers)
        return engine

    async def ready(self) -> None:
        """Wait until the workers started with `wait=False` have loaded the policies."""
        workers, self._starting_workers = self._starting_workers, []
        if not workers:
            return
        with self._failing_to_start():
            for worker in workers:
                try:
                    await worker.wait_ready(self.settings.start_timeout)
                except TimeoutError:
                    raise WorkerGone(f"did not start within {self.settings.start_timeout:g} s") from None
        self._serve_with(workers)

    @contextlib.contextmanager
    def _failing_to_start(self) -> Iterator[None]:
        try:
            yield
        except WorkerGone as exc:
            tail = " ".join(one_line(w.stderr_tail())[-300:] for w in self._live)
            self.close()
            raise PolicyLoadError(f"a Python policy worker did not start: {exc} {tail}".strip()) from None
        except BaseException:
            self.close()
            raise

    def _serve_with(self, workers: Sequence[Worker]) -> None:
        first = workers[0].ready
        self.layers = list(first["layers"])
        self._policies = list(first["policies"])
        self._routes = [_route(p) for p in self._policies]
        self._policy_ids = {str(p["name"]): str(p["policy_id"]) for p in self._policies}
        self._starting_workers = []
        self._idle.extend(workers)

    # --- the Engine protocol ---

    async def evaluate(self, request: EngineRequest) -> Sequence[Verdict]:
        document = request.document
        tool = document.get("tool") or {}
        names = self._applicable(str(document.get("event")), tool.get("kind"), tool.get("name"))
        if not names:
            return []
        self._inflight += 1
        try:
            return await self._evaluate(names, request)
        finally:
            self._inflight -= 1

    async def aclose(self, grace: float = 5.0) -> None:
        """Stop once the requests in flight are answered (at most `grace` seconds), then end every worker."""
        self._closing = True
        end = time.monotonic() + grace
        while self._inflight and time.monotonic() < end:
            await asyncio.sleep(0.01)
        for task in list(self._tasks):
            task.cancel()
        for waiter in self._waiters:
            if not waiter.done():
                waiter.cancel()
        self.close()

    def close(self) -> None:
        self._closing = True
        self._idle.clear()
        self._finalizer()

    def describe(self) -> Mapping[str, JSON]:
        return {
            "engine": self.name,
            "policy_dir": str(self.policy_set.policy_dir),
            "revision": self.policy_set.revision,
            "packages": sorted(set(self._policy_ids.values())),
            "policies": [dict(p) for p in self._policies],
            "workers": len(self._live),
            "replaced": self.replaced,
            "sandbox_layers": [dict(layer) for layer in self.layers],
        }

    @property
    def packages(self) -> tuple[PolicyPackage, ...]:
        """One entry per policy function, for ListPolicies: its policy id, its name as the rule, its routing."""
        return tuple(
            PolicyPackage(
                name=self._policy_ids[route.name],
                rules={route.name.split(":", 1)[1]: "python"},
                routing={
                    key: value
                    for key, value in (("events", route.events), ("kinds", route.kinds), ("tools", route.tools))
                    if value is not None
                },
            )
            for route in self._routes
        )

    def worker_pids(self) -> list[int]:
        return sorted(worker.pid for worker in self._live)

    # --- one call ---

    def _applicable(self, event: str, kind: str | None, tool: str | None) -> tuple[str, ...]:
        key = (event, kind, tool)
        names = self._route_cache.get(key)
        if names is None:
            names = tuple(r.name for r in self._routes if r.applies(event, kind, tool))
            if len(self._route_cache) < 4096:
                self._route_cache[key] = names
        return names

    async def _evaluate(self, names: Sequence[str], request: EngineRequest) -> list[Verdict]:
        event = request.event.event
        loop = asyncio.get_running_loop()
        budget = min(self.settings.timeout, request.deadline.remaining())
        if budget <= 0:  # nothing was sent: no worker needs replacing
            return [self._timed_out(event, "the request's deadline passed before the Python policies ran")]
        end = loop.time() + budget
        try:
            worker = await self._acquire(end)
        except TimeoutError:
            return [self._timed_out(event, f"no Python policy worker was free within {budget * 1000:.0f} ms")]
        self._next_id += 1
        call = {"id": self._next_id, "policies": list(names)}
        try:
            async with asyncio.timeout_at(end):
                answer = await worker.call(call, request.document)
        except TimeoutError:
            log.warning("python_policy_timeout", worker=worker.pid, policies=list(names), ms=round(budget * 1000))
            self._replace(worker)
            return [
                self._timed_out(
                    event, f"Python policies {', '.join(names)} did not answer within {budget * 1000:.0f} ms"
                )
            ]
        except WorkerGone as exc:
            log.error(
                "python_worker_died",
                worker=worker.pid,
                reason=str(exc),
                policies=list(names),
                stderr=worker.stderr_tail(),
            )
            self._replace(worker)
            return [self._failed(event, ENGINE_POLICY, f"a Python policy worker crashed ({exc})")]
        except BaseException:
            self._replace(worker)  # cancelled mid-call: its channel is in an unknown state
            raise
        verdicts = self._verdicts(event, answer)
        if answer.get("retire") or answer.get("errors"):
            self._replace(worker)
        else:
            self._release(worker)
        return verdicts

    def _verdicts(self, event: Event, answer: Mapping[str, Any]) -> list[Verdict]:
        out: list[Verdict] = []
        for error in answer.get("errors") or []:
            policy = str(error.get("policy") or ENGINE_POLICY)
            log.error("python_policy_error", policy=policy, function=error.get("name"), error=error.get("error"),
                      traceback=error.get("traceback"))  # fmt: skip
            kind = str(error.get("error", "error")).split(":", 1)[0]
            out.append(self._failed(event, policy, f"Python policy {error.get('name') or policy} failed ({kind})"))
        for raw in answer.get("verdicts") or []:
            try:
                out.append(_verdict(raw))
            except (KeyError, TypeError, ValueError) as exc:
                log.error("python_policy_bad_verdict", verdict=str(raw)[:500], error=str(exc))
                out.append(self._failed(event, ENGINE_POLICY, "a Python policy returned a malformed verdict"))
        return out

    def _failed(self, event: Event, policy: str, what: str) -> Verdict:
        """An exception or a crash fails closed wherever a deny can block (the traceback is only logged)."""
        reason = f"{what}; the details are in the hookd log"
        if event in CAN_FAIL_CLOSED:
            return Verdict(VerdictKind.DENY, policy, "python-error", reason)
        return Verdict(VerdictKind.MESSAGE, policy, "python-error", reason)

    def _timed_out(self, event: Event, what: str) -> Verdict:
        if self._fail_modes.get(event) is FailMode.CLOSED:
            return Verdict(VerdictKind.DENY, ENGINE_POLICY, "timeout", what)
        return Verdict(VerdictKind.MESSAGE, ENGINE_POLICY, "timeout", what)

    # --- the pool ---

    async def _acquire(self, end: float) -> Worker:
        while self._idle:
            worker = self._idle.popleft()
            if worker.proc.poll() is None:
                return worker
            self._replace(worker)
        if len(self._live) + self._starting < self.settings.workers and not self._closing:
            self._spawn()
        waiter: asyncio.Future[Worker] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            async with asyncio.timeout_at(end):
                return await waiter
        except TimeoutError:
            if waiter.done() and not waiter.cancelled():
                self._release(waiter.result())  # handed over just as the deadline passed
            raise
        finally:
            with contextlib.suppress(ValueError):
                self._waiters.remove(waiter)

    def _release(self, worker: Worker) -> None:
        if self._closing:
            self._discard(worker)
            return
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(worker)
                return
        self._idle.append(worker)

    def _discard(self, worker: Worker) -> None:
        self._live.discard(worker)
        worker.kill()

    def _replace(self, worker: Worker) -> None:
        self._discard(worker)
        self.replaced += 1
        if not self._closing:
            self._spawn()

    def _spawn(self) -> None:
        self._starting += 1
        task = asyncio.get_running_loop().create_task(self._start_one())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _start_one(self) -> None:
        try:
            for attempt, pause in enumerate((0.0, *RESPAWN_BACKOFF)):
                await asyncio.sleep(pause)
                if self._closing:
                    return
                worker = Worker(self.policy_set, self.settings)
                try:
                    await worker.wait_ready(self.settings.start_timeout)
                except (WorkerGone, PolicyLoadError, TimeoutError) as exc:
                    log.error(
                        "python_worker_respawn_failed", attempt=attempt + 1, error=str(exc), stderr=worker.stderr_tail()
                    )
                    worker.kill()
                    continue
                except BaseException:
                    worker.kill()
                    raise
                self._live.add(worker)
                self._release(worker)
                return
        finally:
            self._starting -= 1


def _kill_all(workers: set[Worker]) -> None:
    for worker in list(workers):
        worker.kill()
    workers.clear()


_KINDS: Mapping[str, VerdictKind] = {kind.value: kind for kind in VerdictKind}


def _verdict(raw: Mapping[str, Any]) -> Verdict:
    patch = raw.get("patch") or {}
    if not isinstance(patch, dict):
        raise TypeError("patch must be an object")
    return Verdict(
        kind=_KINDS[str(raw["kind"])],
        policy_id=str(raw["policy"]),
        rule_id=str(raw["rule"]),
        message=_capped(str(raw.get("message", ""))),
        patch=patch,
    )


def _capped(message: str) -> str:
    if len(message) <= MAX_MESSAGE_CHARS:
        return message
    return f"{message[: MAX_MESSAGE_CHARS - 40]}… [cut: {len(message)} characters]"


def start_engine(config: Config, policy_set: PythonPolicySet, *, wait: bool = True) -> PythonEngine:
    return PythonEngine.start(policy_set, WorkerSettings.from_config(config), config.shim.fail_modes, wait=wait)


def probe_layers(config: Config) -> list[dict[str, Any]]:
    """Start one real worker with no policies and return the layers it could put itself under."""
    empty = PythonPolicySet(Path("/"), (), "probe")
    settings = replace(WorkerSettings.from_config(config), workers=1)
    engine = PythonEngine.start(empty, settings, config.shim.fail_modes)
    try:
        return [dict(layer) for layer in engine.layers]
    finally:
        engine.close()


__all__ = ["PythonEngine", "WorkerSettings", "probe_layers", "start_engine"]
