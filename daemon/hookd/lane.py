"""Forwarding heavy requests to the lane: a worker process (hookd.procs) that serves only its own socket.

regorus evaluates on the deciding process's one thread and holds it (and the GIL) for as long as the
policies look at the input: 40-150 us for each word or path a rule reads, so a 250-path `rm -rf` under
the caps holds a process 25-50 ms, and every other session waits that long. A request that may cost that
much (`[limits] lane_*`: a payload over `lane_payload_bytes`, a shell command over `lane_command_tokens`
words, a file tool call over `lane_tool_paths` paths, each found in linear time) is sent whole to the
lane instead, with its caller and its deadline. The lane decides and records it as a worker does, at a
lower CPU priority, while this process goes on answering the others; heavy requests wait for each other
there, never the light ones for them.

A streamed response's chunks meet in a lane of their own, the stream lane (AfterModel: hookd.enrich.stream
keeps the text so far in memory): every chunk goes there, whatever its size, so that one process sees the
whole response whichever process read each chunk. That is why `[daemon] workers` above 1 needs the lanes.
The shims send their chunks to the stream lane's socket themselves; the ones relayed here are those it did
not take (docs/protocol.md). It runs at the daemon's priority: an agent awaits each chunk's decision before
it goes on, and a chunk costs 0.1-0.4 ms to decide, where the lane's niceness made it wait for the CPU
(docs/performance.md); the heavy requests keep the lane at nice 10 to themselves.

The control plane's Decide sends its heavy requests there too (`via` "grpc"): its caller needs the outcome
and the record's id beside the reply, which lead the lane's stderr (`with_decision`) and are taken off here.

The lane's reply is the reply; its error frame is a LaneRefused with its code. A lane that is not there
yet (starting, or started again after it died) is waited for within the request's deadline, and then the
request gets the event's fail mode: it is never decided here instead, which is what would stall the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
from collections import Counter, deque
from collections.abc import AsyncIterator
from pathlib import Path

import structlog

from hookd import wire
from hookd.config import Config, LimitsConfig
from hookd.dialects.registry import STREAMED
from hookd.enrich.limits import heavy
from hookd.errors import DialectError, FrameError, LaneRefused
from hookd.types import Handled, HookRequest, NormalisedEvent, Reply

log = structlog.get_logger("hookd.lane")
RETRY_S = 0.02  # between attempts to reach a lane that is not listening yet
# Heavy requests of one session (an agent process: the caller's uid and the shim's parent) that one process
# may have at the lane or waiting for it. Beyond them that session's next heavy request gets the fail mode at
# once (`busy`): waiting, it would hold one of the process's `max_concurrency` slots that others need.
IN_FLIGHT = 16
# Heavy requests one process sends the lane at once; the others wait here, and a freed slot goes to the
# waiting session with the fewest at the lane: one session's flood never makes another's requests `busy`
# (the lane decides one at a time anyway, so a few at once keep it busy).
LANE_SLOTS = 4
_ABSENT = (errno.ENOENT, errno.ECONNREFUSED)
DECIDE_VIA = "grpc"  # a request of the control plane's Decide (HookRequest.via)


class Lane:
    """The forwarding side, in the daemon and in each worker (hookd.decide.Decider): `sends` before the
    request is parsed, `sends_event` after, and `forward` for a request either names."""

    def __init__(self, path: Path, limits: LimitsConfig, max_reply_bytes: int, stream_path: Path | None = None) -> None:
        self.path = path
        self.stream_path = stream_path or path  # the stream lane's socket (the same process when not given)
        self._limits = limits
        self._max_reply = max_reply_bytes
        self._slots = FairSlots(LANE_SLOTS, IN_FLIGHT)
        self._stream_slots = FairSlots(LANE_SLOTS, IN_FLIGHT)  # relayed chunks never wait behind heavy requests

    @classmethod
    def from_config(cls, config: Config) -> Lane | None:
        """The daemon's (or a worker's) lane, or None when `[daemon] lane` is off."""
        if not config.daemon.lane:
            return None
        max_reply = 2 * config.daemon.max_payload_bytes + wire.REPLY_PREFIX_SIZE
        return cls(config.lane_socket, config.limits, max_reply, config.hook_socket.with_name(wire.STREAM_SOCKET))

    def sends(self, request: HookRequest) -> str:
        """Which `[limits] lane_*` makes `request` the lane's before it is parsed ("stream", "payload-bytes"),
        or "" (then `sends_event` says, once the deciding process has parsed it)."""
        if streamed(request):
            return "stream"
        if len(request.payload) > self._limits.lane_payload_bytes:
            return "payload-bytes"
        return ""

    def sends_event(self, event: NormalisedEvent) -> str:
        """Which `[limits] lane_*` makes the parsed `event` the lane's (a long command, many paths), or ""."""
        return heavy(event, self._limits) or ""

    async def forward(self, request: HookRequest, why: str) -> Reply:
        """`request` decided by the lane (`why`: which `[limits] lane_*` sent it there)."""
        log.debug("forwarded_to_lane", why=why, client=request.client, bytes=len(request.payload))
        session = f"{request.caller.uid}:{request.caller.ppid}"
        remaining = request.deadline.remaining()
        path, slots = (self.stream_path, self._stream_slots) if why == "stream" else (self.path, self._slots)
        try:
            async with asyncio.timeout(remaining):
                async with slots.held(session):
                    frame = await self._exchange(path, _head(request), request.payload)
        except TimeoutError:
            ms = max(0, round(remaining * 1000))
            raise LaneRefused("deadline", f"the lane did not decide this heavy request within {ms} ms") from None
        except OSError as exc:
            raise LaneRefused("unavailable", f"the lane at {path} failed: {exc.strerror or exc}") from None
        try:
            reply = wire.decode_reply(frame)
        except FrameError as exc:
            raise LaneRefused("internal", f"the lane answered a broken frame: {exc}") from None
        if reply.status is wire.Status.ERROR:
            code, message = reply.stderr.decode(errors="replace"), reply.stdout.decode(errors="replace")
            if code == "bad-payload":
                raise DialectError(message)
            raise LaneRefused(code, message)
        if request.via == DECIDE_VIA:
            return _decided(reply)
        return Reply(stdout=reply.stdout, stderr=reply.stderr, exit_code=reply.exit_code)

    async def _exchange(self, path: Path, head: bytes, payload: bytes) -> bytes:
        reader, writer = await self._connect(path)
        try:
            writer.writelines((head, payload))  # a 4 MB payload is not copied into one frame first
            prefix = await reader.readexactly(wire.REPLY_PREFIX_SIZE)
            size = int.from_bytes(prefix[-8:-4], "big") + int.from_bytes(prefix[-4:], "big")
            if size > self._max_reply:
                raise LaneRefused("internal", f"the lane's reply of {size} bytes is over {self._max_reply}")
            return prefix + await reader.readexactly(size)
        except asyncio.IncompleteReadError:
            raise LaneRefused("unavailable", "the lane closed the connection before it answered") from None
        finally:
            writer.close()

    @staticmethod
    async def _connect(path: Path) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A lane's socket, waited for while it is absent (the caller's timeout bounds the wait)."""
        while True:
            try:
                return await asyncio.open_unix_connection(str(path))
            except OSError as exc:
                if exc.errno not in _ABSENT:
                    raise
            await asyncio.sleep(RETRY_S)


def with_decision(handled: Handled, via: str) -> Reply:
    """The lane's reply to a forwarded request: a Decide's carries its outcome and record id (taken off by
    `Lane.forward`), each ended by a NUL, before the agent's stderr."""
    reply = handled.reply
    if via != DECIDE_VIA:
        return reply
    head = f"{handled.decision.outcome.name.lower()}\0{handled.decision_id}\0".encode()
    return Reply(stdout=reply.stdout, stderr=head + reply.stderr, exit_code=reply.exit_code)


def _decided(reply: wire.DecodedReply) -> Reply:
    parts = reply.stderr.split(b"\0", 2)
    if len(parts) != 3 or not parts[0]:
        raise LaneRefused("internal", "the lane answered a Decide without its decision")
    decision, decision_id, stderr = parts
    return Reply(reply.stdout, stderr, reply.exit_code, decision=decision.decode(), decision_id=decision_id.decode())


class FairSlots:
    """`slots` shared by sessions: a session takes a free one at once, or waits; a freed one goes to the
    waiting session that holds the fewest (the oldest of its requests first). A session with `per_session`
    requests holding or waiting is refused (`busy`) at once."""

    def __init__(self, slots: int, per_session: int) -> None:
        self._free = slots
        self._per_session = per_session
        self._held: Counter[str] = Counter()
        self._queued: Counter[str] = Counter()
        self._waiting: dict[str, deque[asyncio.Future[None]]] = {}

    @contextlib.asynccontextmanager
    async def held(self, session: str) -> AsyncIterator[None]:
        """Raises LaneRefused("busy")."""
        if self._held[session] + self._queued[session] >= self._per_session:
            raise LaneRefused("busy", f"hookd's lane already has {self._per_session} heavy requests of this session")
        if self._free > 0:
            self._free -= 1
        else:
            await self._wait(session)
        self._held[session] += 1
        try:
            yield
        finally:
            self._held[session] -= 1
            if not self._held[session]:
                del self._held[session]
            self._hand_on()

    async def _wait(self, session: str) -> None:
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(session, deque()).append(turn)
        self._queued[session] += 1
        try:
            await turn
        except BaseException:
            if turn.done() and not turn.cancelled():
                self._hand_on()  # given the slot just as it gave up: pass it on
            else:
                self._forget(session, turn)
            raise
        finally:
            self._queued[session] -= 1
            if not self._queued[session]:
                del self._queued[session]

    def _forget(self, session: str, turn: asyncio.Future[None]) -> None:
        waiting = self._waiting[session]
        waiting.remove(turn)
        if not waiting:
            del self._waiting[session]

    def _hand_on(self) -> None:
        """A slot freed: to the waiting session holding the fewest, else back to the free ones."""
        if not self._waiting:
            self._free += 1
            return
        session = min(self._waiting, key=lambda s: self._held[s])
        turn = self._waiting[session][0]
        self._forget(session, turn)
        turn.set_result(None)


def streamed(request: HookRequest) -> bool:
    """A chunk of a streamed response: decided only where the response's text is (the lane when there is one)."""
    return (request.client, request.event) in STREAMED


def _head(request: HookRequest) -> bytes:
    caller = request.caller
    header = {
        "client": request.client,
        "event": request.event,
        "cwd": request.cwd,
        "ppid": caller.ppid,
        "env": dict(request.env),
        "forwarded": {
            "uid": caller.uid,
            "gid": caller.gid,
            "pid": caller.pid,
            "received_at": float(request.received_at),
            "deadline": float(request.deadline.at),
            "via": request.via,
        },
    }
    return wire.request_head(header, len(request.payload))
