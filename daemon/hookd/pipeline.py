"""The hot path: dialect parse → enrich → engine evaluate → combine → ask resolution → dialect render.

One synchronous core (`decide`) serves every way in (the daemon's hook socket and HTTP endpoint, Decide and
dry runs, each worker process, the lane): it returns the finished `Handled` when the engine answered in the
call (the embedded Rego engine, or no remote policy applies), or one awaitable that resumes after the one
remote step (an OPA server, Python or isolated Rego workers: hookd.types.Answer), or after an enrichment
that reads a git repository on the reading threads (hookd.enrich.blocking), and finishes the same way.
So an in-process decision runs in the callback that read the request, with no task, and there is no second,
awaited copy of the path to keep deciding alike.

Each step returns a value and none calls back up. A rewrite (of a tool call, a tail call, a model request or
response) is enriched and evaluated once more (hookd.policy.redecide): the agent acts on what it was rewritten
into. Engine failures become a verdict that follows the event's fail mode (deny where the event fails closed,
a warning message where it fails open), so a broken policy never turns into an accidental allow.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Awaitable, Callable, Container, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial

from hookd import wire
from hookd.config import LimitsConfig
from hookd.dialects.registry import agent
from hookd.dialects.repeated import RepeatedField
from hookd.engines.base import engine_failure, fail_mode_verdict, settle
from hookd.enrich import limits
from hookd.enrich.blocking import NeedsBlockingRead, off_loop, on_loop
from hookd.enrich.stream import RESPONSE_FACT, ResponseKey, ResponseStreams, candidate_of, ends, text_of
from hookd.errors import DialectError, EngineError, EngineTimeout, FrameError, InputTooLarge, PartialAnswer
from hookd.policy.combine import combine
from hookd.policy.holder import PolicySetHolder
from hookd.policy.later_calls import with_later_calls
from hookd.policy.redecide import decided_again, rewritten_event
from hookd.policy.stream_cues import StreamCues, stream_cues
from hookd.types import (
    JSON,
    STREAM_EVENTS,
    Deadline,
    Decision,
    Dialect,
    Engine,
    EngineRequest,
    Enricher,
    Event,
    FactEnricher,
    FailMode,
    Handled,
    HookRequest,
    NormalisedEvent,
    Outcome,
    PolicySet,
    RepeatingDialect,
    Reply,
    Verdict,
    passes_streamed_chunks,
    settled,
)

InteractiveProbe = Callable[[int], "bool | None"]
IdFactory = Callable[[], str]
_ALLOWED = combine(())  # what no verdict combines into


@dataclass(frozen=True, slots=True)
class Evaluated:
    """What evaluation made of one event: the verdicts to combine, and whether the engine failed (the fail
    mode answered)."""

    event: NormalisedEvent  # as enriched
    verdicts: Sequence[Verdict]
    engine_error: bool = False


@dataclass(frozen=True, slots=True)
class QuietChunk:
    """A streamed chunk decided by `Pipeline.quiet_chunk`: allowed, its text added to its response's (`key`)."""

    key: ResponseKey
    chunk: str
    index: int  # the chunk's number in its response, from 1
    event: Event
    decision: Decision
    reply: Reply
    latency_ms: float


@dataclass(frozen=True, slots=True)
class AskPolicy:
    headless_fallback: Outcome = Outcome.DENY
    unknown_is_headless: bool = True


class Pipeline:
    def __init__(
        self,
        dialects: Mapping[str, Dialect],
        enrichers: Sequence[Enricher],
        policy_set: PolicySetHolder,
        fail_modes: Mapping[Event, FailMode],
        ask: AskPolicy,
        probe: InteractiveProbe,
        ids: IdFactory,
        input_limits: LimitsConfig | None = None,
    ) -> None:
        self._dialects = dict(dialects)
        self._repeated = repeated_fields(self._dialects)
        self._enrichers = tuple(enrichers)
        # The steps to run for the keys the serving policies read: on any event, and on a streamed chunk
        self._enrichers_for: dict[frozenset[str] | None, tuple[tuple[Enricher, ...], tuple[Enricher, ...]]] = {}
        self._policy_set = policy_set
        self._fail_modes = fail_modes
        self._ask = ask
        self._probe = probe
        self._ids = ids
        self._limits = input_limits or LimitsConfig()
        self._quiet = self.quiet = QuietChunks(self._enrichers)  # and the native quiet chunk's (hookd.procs)
        self.repeated = self._repeated
        self.ids = ids

    def dialect(self, client: str) -> Dialect:
        try:
            return self._dialects[client]
        except KeyError:
            known = ", ".join(sorted(self._dialects))
            raise DialectError(f"unknown client {client!r} (known: {known})") from None

    def parse(self, request: HookRequest) -> NormalisedEvent:
        """The request as its client's dialect reads it. Raises DialectError, also for a payload that uses
        NaN/Infinity or nests past `wire.MAX_PAYLOAD_DEPTH`: checked here for every way in (the hook socket,
        the HTTP endpoint, Decide, the lane), so it never reaches the decision log. A field that repeats from
        call to call (a streamed response's request on every chunk) is read and checked once per uid and value
        (hookd.dialects.repeated), its digest a fact for the streams enricher."""
        repeated = self._repeated.get((request.client, request.event))
        if repeated is not None:
            field, dialect = repeated
            loaded = field.load(request.caller.uid, request.payload)
            if loaded is not None:
                payload, digest = loaded
                return _with_response(dialect.parse_payload(request, payload), digest)
        try:
            wire.check_payload(request.payload)
        except FrameError as exc:
            raise DialectError(str(exc)) from None
        return self.dialect(request.client).parse(request)

    def quiet_chunk(
        self, request: HookRequest, open_records: Container[ResponseKey]
    ) -> QuietChunk | Handled | NormalisedEvent | None:
        """A streamed chunk that no policy can answer (QuietChunks), decided in the few steps its answer takes: its
        text and response read (the repeated field not read again), the text added (and journaled), the quiet test,
        the allow. `open_records`: the responses whose decision record is open and takes an allowed chunk now (the
        recorder's, hookd.audit.streams): the chunk's event is then no record's and not built past the parse. The
        answer, the text, the journal and the record are those `decide` gives (tests/unit/test_quiet_chunk.py).
        Any other chunk (a response's first and last, one whose text holds a cue, any doubt) is `decide`'s: its event
        as `parse` reads it, or None when it was not read. A Handled when adding the text failed: the fail mode, as
        `decide` answers it."""
        repeated = self._repeated.get((request.client, request.event))
        streams = self._quiet.streams
        if repeated is None or streams is None:
            return None
        field, dialect = repeated
        loaded = field.load(request.caller.uid, request.payload)
        if loaded is None:
            return None
        payload, digest = loaded
        try:
            event = dialect.parse_payload(request, payload)
        except DialectError:
            return None  # `decide` answers the error
        served = self._policy_set.current
        cues = self._quiet.cues(served.engine)
        if event.event not in STREAM_EVENTS or event.tool is not None or cues is None or served.observed:
            return _with_response(event, digest)
        candidate = candidate_of(payload.get("llm_response"))
        key = (event.caller.uid, event.client, event.session_id, digest)
        if ends(candidate) or key not in open_records or request.deadline.expired():
            return _with_response(event, digest)
        chunk = text_of(candidate)
        try:
            index = streams.add_if_quiet(key, chunk, cues)
        except Exception as exc:  # the journal's write: as `decide` answers an enricher's failure (`_enrich`)
            error = EngineError(f"enrichment failed: {type(exc).__name__}: {exc}")
            return self._decided(request, self._failed(_with_response(event, digest), error), served, None)
        if index is None:
            return _with_response(event, digest)
        decision = _ALLOWED.with_id(self._ids())
        reply = dialect.render(event, decision)
        if reply.notes:
            decision = replace(decision, notes=decision.notes + reply.notes)
        latency = (time.monotonic() - request.received_at) * 1000
        return QuietChunk(key, chunk, index, event.event, decision, reply, latency)

    def decide(
        self, request: HookRequest, parsed: NormalisedEvent | None = None, *, probe: InteractiveProbe | None = None
    ) -> Handled | Awaitable[Handled]:
        """Decide one request (`parsed`: what `parse` made of it, if the caller has it already): the `Handled`,
        or an awaitable of it where an engine's answer is awaited (the caller awaits it: the policy set is held
        until it finishes). Raises DialectError for a payload the client dialect cannot read.

        The engine is acquired once per request and released after evaluation: a reload swaps it between
        requests, never within one, and the old engine is closed only after its last request.
        The decision gets its id before render, so that every reason the agent shows can quote it.
        `probe` replaces the interactive-session probe (a dry run states it instead of probing).
        """
        event = parsed if parsed is not None else self.parse(request)
        served = self._policy_set.acquire()
        try:
            evaluated = self._evaluated(served.engine, event, request)
        except BaseException:
            self._policy_set.release(served)
            raise
        if isinstance(evaluated, Evaluated):
            self._policy_set.release(served)
            return self._decided(request, evaluated, served, probe)
        return self._decided_later(request, evaluated, served, probe)

    async def handle(
        self, request: HookRequest, parsed: NormalisedEvent | None = None, *, probe: InteractiveProbe | None = None
    ) -> Handled:
        """`decide`, awaited, for the callers that await anyway (Decide, dry runs, `hookd eval` and `test`)."""
        return await settled(self.decide(request, parsed, probe=probe))

    async def _decided_later(
        self, request: HookRequest, evaluated: Awaitable[Evaluated], served: PolicySet, probe: InteractiveProbe | None
    ) -> Handled:
        try:
            done = await evaluated
        finally:
            self._policy_set.release(served)
        return self._decided(request, done, served, probe)

    def _evaluated(
        self, engine: Engine, event: NormalisedEvent, request: HookRequest
    ) -> Evaluated | Awaitable[Evaluated]:
        """Enrich and evaluate; a rewrite (of a tool call, a tail call, a model request or response) is
        enriched and evaluated once more (what the agent will act on). An engine or enricher failure, or an
        input over a cap, is the verdict of the event's fail mode."""
        try:
            enriched = self._enriched(event, engine.reads, request.deadline)
        except (InputTooLarge, EngineError) as exc:
            return self._failed(event, exc)
        if isinstance(enriched, Awaitable):
            return self._evaluated_after_reading(engine, event, request, enriched)
        return self._evaluated_enriched(engine, enriched, request)

    async def _evaluated_after_reading(
        self, engine: Engine, event: NormalisedEvent, request: HookRequest, enriched: Awaitable[NormalisedEvent]
    ) -> Evaluated:
        try:
            event = await enriched
        except (InputTooLarge, EngineError) as exc:
            return self._failed(event, exc)
        return await settled(self._evaluated_enriched(engine, event, request))

    def _evaluated_enriched(
        self, engine: Engine, event: NormalisedEvent, request: HookRequest
    ) -> Evaluated | Awaitable[Evaluated]:
        try:
            if self._quiet(engine, event) and not request.deadline.expired():
                return Evaluated(event, ())  # what the policies answer: none of them can fire on this chunk
            answer = _evaluate(engine, event, request.deadline)
            answer = with_later_calls(  # a command line left for the agent to run later, judged as run now
                event, answer, agent(event.client).tools,
                lambda shell: _answer(engine, self._enriched(shell, engine.reads, request.deadline), request.deadline),
            )  # fmt: skip
        except (InputTooLarge, EngineError) as exc:
            return self._failed(event, exc)
        if isinstance(answer, Awaitable):
            return self._evaluated_later(engine, event, request, answer)
        return self._again_if_rewritten(engine, event, request, answer)

    async def _evaluated_later(
        self, engine: Engine, event: NormalisedEvent, request: HookRequest, answer: Awaitable[Sequence[Verdict]]
    ) -> Evaluated:
        try:
            verdicts = await answer
        except (InputTooLarge, EngineError) as exc:
            return self._failed(event, exc)
        return await settled(self._again_if_rewritten(engine, event, request, verdicts))

    def _again_if_rewritten(
        self, engine: Engine, event: NormalisedEvent, request: HookRequest, verdicts: Sequence[Verdict]
    ) -> Evaluated | Awaitable[Evaluated]:
        try:
            if (rewritten := rewritten_event(event, verdicts, partial(self._read, request))) is None:
                return Evaluated(event, verdicts)
            again = _answer(engine, self._enriched(rewritten, engine.reads, request.deadline), request.deadline)
        except (InputTooLarge, EngineError) as exc:
            return self._failed(event, exc)
        if isinstance(again, Awaitable):
            return self._rewritten_later(event, verdicts, again)
        return Evaluated(event, decided_again(verdicts, again))

    async def _rewritten_later(
        self, event: NormalisedEvent, verdicts: Sequence[Verdict], again: Awaitable[Sequence[Verdict]]
    ) -> Evaluated:
        try:
            return Evaluated(event, decided_again(verdicts, await again))
        except (InputTooLarge, EngineError) as exc:
            return self._failed(event, exc)

    def _decided(
        self, request: HookRequest, evaluated: Evaluated, served: PolicySet, probe: InteractiveProbe | None
    ) -> Handled:
        """The verdicts combined, an ask resolved where the agent cannot, the id given and the reply rendered."""
        event = evaluated.event
        dialect = self.dialect(request.client)
        decision = combine(evaluated.verdicts)
        if decision.outcome is Outcome.ASK and not dialect.handles_headless_ask:
            decision = self._resolve_ask(event, decision, probe or self._probe)
        decision = decision.with_id(self._ids())
        reply = dialect.render(event, decision)
        if reply.notes:
            decision = replace(decision, notes=decision.notes + reply.notes)
        latency = (time.monotonic() - request.received_at) * 1000
        return Handled(event, decision, reply, latency, served, evaluated.engine_error)

    def _read(self, request: HookRequest, event: Event, payload: dict[str, JSON]) -> NormalisedEvent:
        """A payload the agent would send for `event` (a rewrite's tail call) as its dialect reads it; one that
        cannot be read follows the fail mode (hookd.policy.redecide)."""
        name = next((e.name for e in agent(request.client).events if e.event is event), None)
        try:
            if name is None:
                raise DialectError(f"{request.client} has no {event.value} event")
            return self.parse(replace(request, event=name, payload=wire.jsonstrict.dumps(payload).encode()))
        except DialectError as exc:
            raise EngineError(f"the rewritten {event.value} cannot be read: {exc}") from exc

    def _failed(self, event: NormalisedEvent, exc: InputTooLarge | EngineError) -> Evaluated:
        """The verdicts when evaluation did not answer whole, and whether the engine failed: an input over a cap
        follows the fail mode, some policies' failures follow it beside the others' answers, and any other
        engine error follows it alone."""
        if isinstance(exc, InputTooLarge):
            reason = f"hookd did not check this: {exc}"
            return Evaluated(event, [fail_mode_verdict(event.event, self._fail_modes, "input-limit", reason)])
        if isinstance(exc, PartialAnswer):
            return Evaluated(event, settle(event.event, exc.results, self._fail_modes))
        return Evaluated(event, [engine_failure(event.event, exc, self._fail_modes)], engine_error=True)

    def refused(self, handled: Handled, reason: str) -> Handled:
        """`handled` as the agent got it when its reply was refused after the decision (an error frame:
        the shim applies the event's fail mode), for the decision log: a record never says allow there."""
        verdict = fail_mode_verdict(handled.event.event, self._fail_modes, "unavailable", reason)
        decision = replace(combine([verdict]), decision_id=handled.decision.decision_id)
        return replace(handled, decision=decision, engine_error=True)

    def _enriched(
        self, event: NormalisedEvent, reads: frozenset[str] | None, deadline: Deadline
    ) -> NormalisedEvent | Awaitable[NormalisedEvent]:
        """`_enrich` on the event loop; or, when a step is about to make a read that may block it (a git
        repository's: hookd.enrich.blocking), an awaitable of the whole enrichment made again on the reading
        threads within the request's deadline (past it: EngineTimeout, the event's fail mode)."""
        try:
            with on_loop():
                return self._enrich(event, reads)
        except NeedsBlockingRead:
            return _enriched_off_loop(partial(self._enrich, event, reads), deadline)

    def _enrich(self, event: NormalisedEvent, reads: frozenset[str] | None) -> NormalisedEvent:
        """Raises InputTooLarge for a command over a cap, checked in linear time before and after parsing.
        `reads`: the input keys the serving engine's policies read (None: any); a fact none of them reads is
        not made."""
        steps = self._enrichers_for.get(reads)
        if steps is None:
            if len(self._enrichers_for) >= 16:  # one entry per policy set that served; reloads make new ones
                self._enrichers_for.clear()
            every = enrichers_for(self._enrichers, reads)
            steps = self._enrichers_for[reads] = (every, tuple(s for s in every if not passes_streamed_chunks(s)))
        if event.tool is not None and (too_large := limits.before_parse(event, self._limits)):  # a tool call's caps
            raise InputTooLarge(too_large)
        # A streamed chunk skips the steps declared to pass it unchanged (a chunk's CPU is spent for every chunk a
        # model streams: issue 30)
        chunk = event.event in STREAM_EVENTS and event.tool is None
        try:
            for enrich in steps[chunk]:
                event = enrich(event)
        except Exception as exc:  # an enricher bug must follow the fail mode, like an engine failure
            raise EngineError(f"enrichment failed: {type(exc).__name__}: {exc}") from exc
        if too_large := limits.after_parse(event, self._limits):
            raise InputTooLarge(too_large)
        return event

    def _resolve_ask(self, event: NormalisedEvent, decision: Decision, probe: InteractiveProbe) -> Decision:
        if decision.outcome is not Outcome.ASK or event.event is not Event.BEFORE_TOOL:
            return decision
        try:
            interactive = probe(event.caller.pid)
        except Exception:  # a vanished or unreadable process is an unknown session
            interactive = None
        if interactive or (interactive is None and not self._ask.unknown_is_headless):
            return decision
        why = "the agent session is headless" if interactive is False else "the agent session could not be identified"
        if self._ask.headless_fallback is Outcome.DENY:
            reasons = tuple(f"{r} (ask answered deny: {why})" for r in decision.reasons) or (
                f"ask answered deny: {why}",
            )
            note = f"ask fallback applied: deny ({why})"
            return replace(decision, outcome=Outcome.DENY, reasons=reasons, notes=(*decision.notes, note))
        note = f"ask fallback applied: allow ({why})"
        outcome = Outcome.REWRITE if decision.rewrite else Outcome.ALLOW
        return replace(decision, outcome=outcome, reasons=(), notes=(*decision.notes, note))


class QuietChunks:
    """Whether a streamed chunk can be answered without evaluating: its text holds none of the strings that every
    policy applying to it declares it needs (`routing.stream_text`, hookd.policy.stream_cues), so no policy can
    answer anything but allow. False whenever one of them declares none."""

    def __init__(self, enrichers: Sequence[Enricher]) -> None:
        self.streams = next((step for step in enrichers if isinstance(step, ResponseStreams)), None)
        # The last engine's, held weakly: a policy set reloaded away is not kept alive for its cues.
        self._cues: tuple[Callable[[], Engine | None], StreamCues | None] | None = None

    def __call__(self, engine: Engine, event: NormalisedEvent) -> bool:
        if event.event not in STREAM_EVENTS or event.tool is not None or self.streams is None:
            return False
        cues = self.cues(engine)
        return cues is not None and self.streams.quiet(event, cues)

    def cues(self, engine: Engine) -> StreamCues | None:
        """The strings `engine`'s policies need to see in a chunk's text to answer it (None: every chunk is theirs)."""
        if self._cues is None or self._cues[0]() is not engine:
            self._cues = (weakref.ref(engine), stream_cues(engine.packages))
        return self._cues[1]


def _with_response(event: NormalisedEvent, digest: str) -> NormalisedEvent:
    """A chunk's event as the parse step hands it on: the digest of the request its response answers a fact of it."""
    return event.with_facts(**{RESPONSE_FACT: digest})


def _evaluate(
    engine: Engine, event: NormalisedEvent, deadline: Deadline
) -> Sequence[Verdict] | Awaitable[Sequence[Verdict]]:
    try:
        answer = engine.evaluate(_engine_request(event, deadline))
    except PartialAnswer:
        _in_time(deadline)
        raise
    if isinstance(answer, Awaitable):
        return _awaited_in_time(answer, deadline)
    _in_time(deadline)
    return answer


async def _awaited_in_time(answer: Awaitable[Sequence[Verdict]], deadline: Deadline) -> Sequence[Verdict]:
    try:
        verdicts = await answer
    except PartialAnswer:
        _in_time(deadline)
        raise
    _in_time(deadline)
    return verdicts


def _answer(
    engine: Engine, enriched: NormalisedEvent | Awaitable[NormalisedEvent], deadline: Deadline
) -> Sequence[Verdict] | Awaitable[Sequence[Verdict]]:
    """The verdicts of an event enriched on the loop, or once its enrichment on the reading threads is done."""
    if isinstance(enriched, Awaitable):
        return _verdicts_after_reading(engine, enriched, deadline)
    return _evaluate(engine, enriched, deadline)


async def _verdicts_after_reading(
    engine: Engine, enriched: Awaitable[NormalisedEvent], deadline: Deadline
) -> Sequence[Verdict]:
    """An event's verdicts once its enrichment, made on the reading threads, is done."""
    return await settled(_evaluate(engine, await enriched, deadline))


async def _enriched_off_loop(enrich: Callable[[], NormalisedEvent], deadline: Deadline) -> NormalisedEvent:
    """`enrich` on the reading threads (hookd.enrich.blocking) within `deadline`; past it, EngineTimeout."""
    try:
        return await off_loop(enrich, deadline.remaining())
    except TimeoutError:
        raise EngineTimeout("the request deadline passed while hookd read a repository") from None


def _engine_request(event: NormalisedEvent, deadline: Deadline) -> EngineRequest:
    if deadline.expired():
        raise EngineTimeout("the request deadline passed before evaluation")
    return EngineRequest(event, event.input_document(), deadline)


def _in_time(deadline: Deadline) -> None:
    """An engine that ran past the deadline (and held the loop) answers the fail mode, not late."""
    if deadline.expired():
        raise EngineTimeout("the request deadline passed during evaluation")


def enrichers_for(enrichers: Sequence[Enricher], reads: frozenset[str] | None) -> tuple[Enricher, ...]:
    """The enrichers to run when the policies read `reads` (None: any key, every enricher runs); a
    FactEnricher kept is run as the enricher it wraps (one call less on every decision)."""
    needed, kept = set(reads or ()), []
    for enricher in reversed(enrichers):
        if not isinstance(enricher, FactEnricher):
            kept.append(enricher)
        elif reads is None or not needed.isdisjoint(enricher.facts):
            needed |= enricher.uses
            kept.append(enricher.enrich)
    return tuple(reversed(kept))


def repeated_fields(dialects: Mapping[str, Dialect]) -> dict[tuple[str, str], tuple[RepeatedField, RepeatingDialect]]:
    """(client, the client's event name) -> the field that repeats in it and the dialect that parses the rest."""
    fields: dict[tuple[str, str], tuple[RepeatedField, RepeatingDialect]] = {}
    for client, dialect in dialects.items():
        if isinstance(dialect, RepeatingDialect):
            for name, (field, follower) in dialect.repeated.items():
                fields[client, name] = (RepeatedField(field, follower), dialect)
    return fields
