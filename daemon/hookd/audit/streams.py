"""One decision record per streamed response, not one per chunk (docs/decision-log.md, "Streamed responses").

Gemini CLI calls AfterModel once per streamed chunk: a 200-chunk answer was 200 records of 5.5 KiB, each with
the text streamed so far, 95% of the log's bytes. Here the decisions on the chunks of one response (named by
the streams enricher: hookd.enrich.stream) are folded into one record, written when the response ends:

* its last chunk (`finishReason`),
* a chunk whose decision is not allow (a halt stops the turn; a deny, an ask or a rewrite is recorded at
  once, never held back), after which further chunks of the response start a new record,
* no chunk for IDLE_S (the agent stopped reading it), or more than MAX_OPEN responses open at once (the
  least recent is written), or the daemon (or the lane) stopping: the open records are written then.

The record is the decision of its strongest chunk (halt > deny > ask > rewrite > allow; the first chunk
when all allow), with `stream`: the number of chunks, the chunks on which the verdicts changed (bounded),
how many characters were seen and a sha256 of them, and why it ended. Its `input` holds no conversation: the
fields that name the call, and the end of the text so far at the deciding chunk, masked (a secret that began
before it found whole) and cut to `[log] mask_length`.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from hookd.audit.record import Pending, StreamSummary
from hookd.types import JSON, Decision, Outcome

IDLE_S = 60.0
MAX_OPEN = 256
MAX_CHANGES = 16  # verdict changes listed in one record; the count of the others is kept
_Key = tuple[int, str, str, str]  # uid, client, session, response


@dataclass(slots=True)
class _Open:
    first: Pending
    strongest: Pending
    last_seen: float
    chunks: int = 0
    chars: int = 0
    seen: hashlib._Hash = field(default_factory=hashlib.sha256)
    changes: list[dict[str, JSON]] = field(default_factory=list)
    more_changes: int = 0
    verdicts: tuple[str, ...] | None = None  # the verdicts of the chunk before
    last_id: str = ""

    def add(self, pending: Pending, stream: dict[str, JSON], now: float) -> None:
        chunk = stream.get("chunk")
        decision = pending.handled.decision
        if decision.outcome > self.strongest.handled.decision.outcome:
            self.strongest = pending
        self.count(chunk if isinstance(chunk, str) else "", stream.get("index"), decision, now)

    def count(self, text: str, index: JSON, decision: Decision, now: float) -> None:
        """A chunk (`text`, the `index`th of its response) decided `decision`, one that is not stronger than the
        record's strongest."""
        self.chunks += 1
        self.chars += len(text)
        self.seen.update(text.encode("utf-8", "surrogatepass"))
        self.last_seen = now
        self.last_id = decision.decision_id
        named = decision.verdicts  # most chunks: none
        verdicts = tuple(f"{v.kind.value}:{v.policy_id}:{v.rule_id}" for v in named) if named else ()
        if verdicts != self.verdicts:
            if len(self.changes) < MAX_CHANGES:
                self.changes.append(
                    {
                        "chunk": index,
                        "id": decision.decision_id,
                        "decision": decision.outcome.name.lower(),
                        "verdicts": list(verdicts),
                    }
                )
            else:
                self.more_changes += 1
            self.verdicts = verdicts


class StreamRecords:
    """The records of the responses being streamed in this process. `fold` takes every decision on its way to
    the log and answers what to log now; `expired` and `close` write the ones that did not end."""

    def __init__(
        self, idle_s: float = IDLE_S, max_open: int = MAX_OPEN, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.idle_s = idle_s
        self.max_open = max_open
        self._clock = clock
        self._open: OrderedDict[_Key, _Open] = OrderedDict()

    def __len__(self) -> int:
        return len(self._open)

    def fold(self, pending: Pending) -> list[Pending]:
        """The records to write now: `pending` itself when it is no chunk of a streamed response, else those of
        the responses that ended (this one, when this chunk ends it; the least recent, past MAX_OPEN)."""
        chunk = _chunk(pending)
        if chunk is None:
            return [pending]
        key, stream = chunk
        now = self._clock()
        held = self._open.pop(key, None) or _Open(pending, pending, now)
        held.add(pending, stream, now)
        outcome = pending.handled.decision.outcome
        if stream.get("final") is True or outcome is not Outcome.ALLOW:
            return [_record(held, "end" if outcome is Outcome.ALLOW else outcome.name.lower())]
        self._open[key] = held
        written = []
        while len(self._open) > self.max_open:
            _, oldest = self._open.popitem(last=False)
            written.append(_record(oldest, "evicted"))
        return written

    def hold(self, pending: Pending) -> bool:
        """Fold `pending` into its response's open record when that is all `fold` would do (an allowed chunk that
        does not end the response, whose record is open already) and say so; else do nothing (False): the
        caller then hands it to `fold`. A process that folds every chunk the moment it is decided, with nothing
        queued before it, need not wake its record sender for most chunks (hookd.procs.child)."""
        chunk = _chunk(pending)
        if chunk is None or pending.handled.decision.outcome is not Outcome.ALLOW:
            return False
        key, stream = chunk
        held = self._open.get(key)
        if held is None or stream.get("final") is True:
            return False  # a response's first chunk goes through `fold`: the sender then sees it open (its expiry)
        held.add(pending, stream, self._clock())
        self._open.move_to_end(key)
        return True

    def __contains__(self, key: object) -> bool:
        """Whether the record of response `key` is open: an allowed chunk of it that does not end it is `hold`'s."""
        return key in self._open

    def hold_allowed(self, key: _Key, chunk: str, index: int, decision: Decision) -> None:
        """`hold` of an allowed chunk (`chunk`, the `index`th of response `key`, whose record is open) that does not
        end its response, told by its parts (the quiet chunk's short-cut: hookd.pipeline, `Pipeline.quiet_chunk`)."""
        held = self._open[key]
        held.count(chunk, index, decision, self._clock())
        self._open.move_to_end(key)

    def next_expiry(self) -> float | None:
        """Seconds until the least recent open response is idle for IDLE_S; None when none is open."""
        if not self._open:
            return None
        oldest = next(iter(self._open.values()))
        return max(0.0, oldest.last_seen + self.idle_s - self._clock())

    def expired(self) -> list[Pending]:
        """The records of the responses without a chunk for IDLE_S."""
        now, written = self._clock(), []
        while self._open:
            key, oldest = next(iter(self._open.items()))
            if now - oldest.last_seen < self.idle_s:
                break
            del self._open[key]
            written.append(_record(oldest, "idle"))
        return written

    def close(self) -> list[Pending]:
        """Every open record, at shutdown."""
        written = [_record(held, "stopped") for held in self._open.values()]
        self._open.clear()
        return written


def _chunk(pending: Pending) -> tuple[_Key, dict[str, JSON]] | None:
    """The response `pending` is a chunk of, and its `stream` fact; None when it is no streamed chunk."""
    event = pending.handled.event
    stream = event.facts.get("stream")
    response = stream.get("response") if isinstance(stream, dict) else None
    if not isinstance(stream, dict) or not isinstance(response, str):
        return None
    return (event.caller.uid, event.client, event.session_id, response), stream


def _record(held: _Open, ended: str) -> Pending:
    strongest = held.strongest
    stream = strongest.handled.event.facts.get("stream")
    first_stream = held.first.handled.event.facts.get("stream")
    text = stream.get("text") if isinstance(stream, dict) else ""
    first_chunk = first_stream.get("index") if isinstance(first_stream, dict) else 1
    summary = StreamSummary(
        chunks=held.chunks,
        first_chunk=first_chunk if isinstance(first_chunk, int) else 1,
        chars=held.chars,
        sha256=held.seen.hexdigest(),
        ended=ended,
        changes=tuple(held.changes),
        more_changes=held.more_changes,
        first_id=held.first.handled.decision.decision_id,
        last_id=held.last_id,
        deciding_text=text if isinstance(text, str) else "",
    )
    return replace(strongest, time=held.first.time, stream=summary)
