"""Pipeline.handle end to end with the real Gemini dialect and hookd.testing's StaticEngine."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest

from hookd.audit.ids import DecisionIds
from hookd.config import DEFAULT_FAIL_MODES, LimitsConfig
from hookd.dialects.gemini import GeminiDialect
from hookd.errors import DialectError, EngineError, PartialAnswer, PolicyError
from hookd.pipeline import AskPolicy, Pipeline
from hookd.policy.holder import PolicySetHolder
from hookd.policy.layers import policy_set_of
from hookd.testing import StaticEngine
from hookd.types import (
    Caller,
    Deadline,
    EngineRequest,
    Event,
    FailMode,
    Handled,
    HookRequest,
    NormalisedEvent,
    Outcome,
    Verdict,
    VerdictKind,
    settled,
)

CALLER = Caller(uid=1000, gid=1000, pid=4242, ppid=4241)
DECISION_ID = "0190f3a4b5c6d7e8"  # every pipeline() below stamps this id
FIELDS: dict[str, dict[str, Any]] = {
    "BeforeTool": {"tool_name": "run_shell_command", "tool_input": {"command": "rm -rf ~"}},
    "AfterTool": {
        "tool_name": "read_file",
        "tool_input": {"file_path": "a"},
        "tool_response": {"llmContent": "x"},
    },
    "BeforeAgent": {"prompt": "hi"},
    "AfterAgent": {"prompt": "hi", "prompt_response": "hello", "stop_hook_active": False},
}


class Probe:
    def __init__(self, answer: bool | None) -> None:
        self.answer = answer
        self.pids: list[int] = []

    def __call__(self, pid: int) -> bool | None:
        self.pids.append(pid)
        return self.answer


def pipeline(
    engine: StaticEngine,
    probe: Probe | None = None,
    ask: AskPolicy | None = None,
    fail_modes: Mapping[Event, FailMode] = DEFAULT_FAIL_MODES,
    enrichers: Sequence[Any] = (),
) -> Pipeline:
    return Pipeline(
        dialects={"gemini": GeminiDialect()},
        enrichers=enrichers,
        policy_set=PolicySetHolder(engine),
        fail_modes=fail_modes,
        ask=ask or AskPolicy(),
        probe=probe or Probe(None),
        ids=lambda: DECISION_ID,
    )


def request(event: str, client: str = "gemini", payload: bytes | None = None) -> HookRequest:
    body = {"session_id": "s1", "cwd": "/home/alice/proj", "hook_event_name": event, **FIELDS.get(event, {})}
    return HookRequest(
        client=client,
        event=event,
        payload=payload if payload is not None else json.dumps(body).encode(),
        env={"HOME": "/home/alice"},
        cwd="/home/alice/proj",
        caller=CALLER,
        deadline=Deadline.after(5),
    )


def handle(p: Pipeline, req: HookRequest) -> Handled:
    return asyncio.run(p.handle(req))


def ask_verdict() -> Verdict:
    return Verdict(VerdictKind.ASK, "hookd.shell", "rm", "rm -rf needs a human")


# --- engine failure follows the event's fail mode ------------------------------------------------


def test_engine_error_fails_closed_on_before_tool() -> None:
    handled = handle(pipeline(StaticEngine(error=EngineError("regorus: boom"))), request("BeforeTool"))
    assert handled.decision.outcome is Outcome.DENY
    assert handled.reply.stdout == (
        b'{"decision":"deny","reason":"hookd could not evaluate its policies: regorus: boom [hookd:engine-error] '
        b'(decision 0190f3a4b5c6d7e8)"}'
    )
    assert handled.reply.exit_code == 0


class SlowEngine(StaticEngine):
    """Holds the event loop (as a long regorus evaluation does) until the request's deadline has passed."""

    async def evaluate(self, request: EngineRequest) -> Sequence[Verdict]:
        time.sleep(max(0.0, request.deadline.remaining()) + 0.01)
        return self.verdicts


def test_an_evaluation_that_ran_past_the_deadline_follows_the_fail_mode_not_its_allow() -> None:
    req = replace(request("BeforeTool"), deadline=Deadline.after(0.05))
    handled = handle(pipeline(SlowEngine()), req)
    assert handled.engine_error and handled.decision.outcome is Outcome.DENY
    assert b"deadline passed during evaluation" in handled.reply.stdout


@pytest.mark.parametrize("event", ["BeforeTool", "BeforeAgent", "AfterTool"])
def test_engine_error_deny_on_every_fail_closed_event(event: str) -> None:
    handled = handle(pipeline(StaticEngine(error=EngineError("x"))), request(event))
    assert handled.decision.outcome is Outcome.DENY
    assert json.loads(handled.reply.stdout)["decision"] == "deny"


def test_engine_error_is_a_message_on_after_agent() -> None:
    # AfterAgent fails open: a deny there makes Gemini retry in a loop
    handled = handle(pipeline(StaticEngine(error=EngineError("boom"))), request("AfterAgent"))
    assert handled.decision.outcome is Outcome.ALLOW
    assert handled.decision.messages == ("hookd could not evaluate its policies: boom",)
    assert handled.reply.stdout == b'{"systemMessage":"hookd could not evaluate its policies: boom"}'


def test_engine_error_is_a_message_when_before_tool_is_configured_open() -> None:
    modes = {**DEFAULT_FAIL_MODES, Event.BEFORE_TOOL: FailMode.OPEN}
    handled = handle(pipeline(StaticEngine(error=EngineError("boom")), fail_modes=modes), request("BeforeTool"))
    assert handled.decision.outcome is Outcome.ALLOW
    assert handled.reply.stdout == b'{"systemMessage":"hookd could not evaluate its policies: boom"}'


def test_engine_error_text_is_one_line() -> None:
    error = EngineError("eval failed:\n   at rule x\nStack backtrace:\n  0: regorus::foo")
    handled = handle(pipeline(StaticEngine(error=error)), request("BeforeTool"))
    assert json.loads(handled.reply.stdout)["reason"] == (
        "hookd could not evaluate its policies: eval failed: at rule x [hookd:engine-error] (decision 0190f3a4b5c6d7e8)"
    )


def test_policy_load_error_is_an_engine_error() -> None:
    from hookd.errors import PolicyLoadError

    handled = handle(pipeline(StaticEngine(error=PolicyLoadError("bad rego"))), request("BeforeAgent"))
    assert handled.decision.outcome is Outcome.DENY


def test_other_exceptions_are_not_swallowed() -> None:
    with pytest.raises(RuntimeError):
        handle(pipeline(StaticEngine(error=RuntimeError("bug"))), request("BeforeTool"))


# --- ask resolution ------------------------------------------------------------------------------


def test_ask_with_headless_session_becomes_deny() -> None:
    probe = Probe(False)
    handled = handle(pipeline(StaticEngine([ask_verdict()]), probe), request("BeforeTool"))
    assert probe.pids == [CALLER.pid]
    assert handled.decision.outcome is Outcome.DENY
    assert handled.decision.notes == ("ask fallback applied: deny (the agent session is headless)",)
    assert handled.reply.stdout == (
        b'{"decision":"deny","reason":"rm -rf needs a human [hookd.shell:rm] '
        b'(ask answered deny: the agent session is headless) (decision 0190f3a4b5c6d7e8)"}'
    )


def test_ask_with_interactive_session_is_kept() -> None:
    handled = handle(pipeline(StaticEngine([ask_verdict()]), Probe(True)), request("BeforeTool"))
    assert handled.decision.outcome is Outcome.ASK
    assert handled.decision.notes == ()
    assert (
        handled.reply.stdout
        == b'{"decision":"ask","systemMessage":"rm -rf needs a human [hookd.shell:rm] (decision 0190f3a4b5c6d7e8)"}'
    )


def test_ask_with_unknown_session_is_headless_by_default() -> None:
    handled = handle(pipeline(StaticEngine([ask_verdict()]), Probe(None)), request("BeforeTool"))
    assert handled.decision.outcome is Outcome.DENY
    assert handled.decision.notes == ("ask fallback applied: deny (the agent session could not be identified)",)
    assert handled.reply.stdout == (
        b'{"decision":"deny","reason":"rm -rf needs a human [hookd.shell:rm] '
        b'(ask answered deny: the agent session could not be identified) (decision 0190f3a4b5c6d7e8)"}'
    )


def test_ask_with_unknown_session_kept_when_unknown_is_not_headless() -> None:
    policy = AskPolicy(unknown_is_headless=False)
    handled = handle(pipeline(StaticEngine([ask_verdict()]), Probe(None), policy), request("BeforeTool"))
    assert handled.decision.outcome is Outcome.ASK
    assert json.loads(handled.reply.stdout)["decision"] == "ask"


def test_headless_fallback_allow() -> None:
    policy = AskPolicy(headless_fallback=Outcome.ALLOW)
    handled = handle(pipeline(StaticEngine([ask_verdict()]), Probe(False), policy), request("BeforeTool"))
    assert handled.decision.outcome is Outcome.ALLOW
    assert handled.decision.reasons == ()
    assert handled.decision.notes == ("ask fallback applied: allow (the agent session is headless)",)
    assert handled.reply.stdout == b""


def test_headless_fallback_allow_keeps_the_rewrite() -> None:
    rewrite = Verdict(VerdictKind.REWRITE, "hookd.shell", "safe", patch={"tool_input": {"command": "rm -ri ~"}})
    policy = AskPolicy(headless_fallback=Outcome.ALLOW)
    handled = handle(pipeline(StaticEngine([ask_verdict(), rewrite]), Probe(False), policy), request("BeforeTool"))
    assert handled.reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"rm -ri ~"}}}'
    )


def test_ask_on_other_events_does_not_probe() -> None:
    probe = Probe(True)
    handled = handle(pipeline(StaticEngine([ask_verdict()]), probe), request("AfterTool"))
    assert probe.pids == []
    assert handled.decision.outcome is Outcome.ASK
    assert handled.decision.notes == ("ask mapped to deny: AfterTool cannot ask the user",)
    assert (
        handled.reply.stdout
        == b'{"decision":"deny","reason":"rm -rf needs a human [hookd.shell:rm] (decision 0190f3a4b5c6d7e8)"}'
    )


def test_deny_does_not_probe() -> None:
    probe = Probe(False)
    deny = Verdict(VerdictKind.DENY, "hookd.shell", "rm", "no")
    handled = handle(pipeline(StaticEngine([ask_verdict(), deny]), probe), request("BeforeTool"))
    assert probe.pids == []
    assert handled.decision.outcome is Outcome.DENY
    assert handled.reply.stdout == b'{"decision":"deny","reason":"no [hookd.shell:rm] (decision 0190f3a4b5c6d7e8)"}'


# --- plumbing ------------------------------------------------------------------------------------


def test_engine_sees_the_input_document_and_the_deadline() -> None:
    engine = StaticEngine()
    req = request("BeforeTool")
    handled = handle(pipeline(engine), req)
    (seen,) = engine.requests
    assert seen.deadline is req.deadline
    assert seen.event == handled.event
    assert seen.document == handled.event.input_document()
    assert seen.document["tool"] == {
        "name": "run_shell_command",
        "kind": "shell",
        "input": {"command": "rm -rf ~"},
    }
    assert handled.reply.stdout == b""
    assert handled.decision.outcome is Outcome.ALLOW
    assert handled.latency_ms >= 0


def test_enrichers_run_in_order_before_the_engine() -> None:
    def first(event: NormalisedEvent) -> NormalisedEvent:
        return event.with_facts(order=["first"])

    def second(event: NormalisedEvent) -> NormalisedEvent:
        return event.with_facts(order=[*event.facts["order"], "second"])

    engine = StaticEngine()
    handle(pipeline(engine, enrichers=(first, second)), request("BeforeAgent"))
    assert engine.requests[0].document["order"] == ["first", "second"]


def test_reply_notes_are_added_to_the_decision() -> None:
    context = Verdict(VerdictKind.CONTEXT, "hookd.x", "c", "ctx")
    handled = handle(pipeline(StaticEngine([context])), request("AfterAgent"))
    assert handled.reply.notes == ("context not carried: AfterAgent cannot add it to this reply",)
    assert handled.decision.notes == handled.reply.notes


def test_reload_swaps_the_engine() -> None:
    old = StaticEngine()
    holder = PolicySetHolder(old)
    p = Pipeline({"gemini": GeminiDialect()}, (), holder, DEFAULT_FAIL_MODES, AskPolicy(), Probe(None), DecisionIds())
    holder.current = policy_set_of(StaticEngine([Verdict(VerdictKind.DENY, "hookd.x", "r", "no")]))
    assert handle(p, request("BeforeTool")).decision.outcome is Outcome.DENY
    assert old.requests == []


def test_unknown_client_is_a_dialect_error() -> None:
    with pytest.raises(DialectError, match=r"^unknown client 'codex' \(known: gemini\)$"):
        handle(pipeline(StaticEngine()), request("BeforeTool", client="codex"))


def test_bad_payload_is_a_dialect_error_and_the_engine_is_not_called() -> None:
    engine = StaticEngine()
    with pytest.raises(DialectError, match=r"^hook payload is not valid JSON: "):
        handle(pipeline(engine), request("BeforeTool", payload=b"{oops"))
    assert engine.requests == []


def test_engine_error_on_after_model_configured_closed_is_a_deny() -> None:
    modes = {**DEFAULT_FAIL_MODES, Event.AFTER_MODEL: FailMode.CLOSED}
    handled = handle(pipeline(StaticEngine(error=EngineError("boom")), fail_modes=modes), request("AfterModel"))
    assert handled.reply.stdout == (
        b'{"decision":"deny","reason":"hookd could not evaluate its policies: boom [hookd:engine-error] '
        b'(decision 0190f3a4b5c6d7e8)"}'
    )


def test_engine_error_on_before_tool_selection_configured_closed_is_mode_none() -> None:
    modes = {**DEFAULT_FAIL_MODES, Event.BEFORE_TOOL_SELECTION: FailMode.CLOSED}
    p = pipeline(StaticEngine(error=EngineError("boom")), fail_modes=modes)
    handled = handle(p, request("BeforeToolSelection"))
    assert handled.reply.stdout == (
        b'{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection",'
        b'"toolConfig":{"mode":"NONE","allowedFunctionNames":[]}}}'
    )


def test_engine_error_on_before_tool_selection_open_prints_nothing() -> None:
    handled = handle(pipeline(StaticEngine(error=EngineError("boom"))), request("BeforeToolSelection"))
    assert handled.reply.stdout == b""
    assert handled.reply.notes == ("message not shown: any output on BeforeToolSelection would reset the tool config",)


# --- decision ids --------------------------------------------------------------------------------


def test_every_decision_gets_its_id_before_render_and_blocking_reasons_quote_it() -> None:
    deny = Verdict(VerdictKind.DENY, "hookd.shell", "rm", "no")
    handled = handle(pipeline(StaticEngine([deny])), request("BeforeTool"))
    assert handled.decision_id == handled.decision.decision_id == DECISION_ID
    assert handled.reply.stdout == b'{"decision":"deny","reason":"no [hookd.shell:rm] (decision 0190f3a4b5c6d7e8)"}'


def test_an_allow_has_an_id_too_but_prints_nothing() -> None:
    handled = handle(pipeline(StaticEngine()), request("BeforeTool"))
    assert handled.decision_id == DECISION_ID
    assert handled.reply.stdout == b""


def test_default_ids_are_sixteen_hex_digits_and_time_ordered() -> None:
    p = Pipeline(
        {"gemini": GeminiDialect()},
        (),
        PolicySetHolder(StaticEngine()),
        DEFAULT_FAIL_MODES,
        AskPolicy(),
        Probe(None),
        DecisionIds(),
    )
    ids = [handle(p, request("BeforeAgent")).decision_id for _ in range(50)]
    assert all(len(i) == 16 and int(i, 16) >= 0 for i in ids)
    assert ids == sorted(ids)
    assert len(set(ids)) == 50


def test_the_probe_can_be_replaced_per_call() -> None:
    default = Probe(False)
    p = pipeline(StaticEngine([ask_verdict()]), default)
    handled = asyncio.run(p.handle(request("BeforeTool"), probe=lambda _pid: True))
    assert handled.decision.outcome is Outcome.ASK
    assert default.pids == []


def test_handled_names_the_policy_set_that_decided() -> None:
    engine = StaticEngine()
    served = handle(pipeline(engine), request("BeforeTool")).policy_set
    assert served is not None and served.engine is engine


# --- decide: in the call when the engine answers in the call, the same decision as awaited -----------


def both_ways(engine_of: Any, req: HookRequest, **kwargs: Any) -> tuple[Handled, Handled]:
    """`req` decided on an engine whose answer is awaited and on the same engine answering in the call."""
    awaited = handle(pipeline(engine_of(awaited=True), **kwargs), req)
    now = pipeline(engine_of(awaited=False), **kwargs).decide(req)
    assert isinstance(now, Handled)
    return awaited, now


def same(a: Handled, b: Handled) -> bool:
    return (a.decision, a.reply, a.event, a.engine_error) == (b.decision, b.reply, b.event, b.engine_error)


@pytest.mark.parametrize(
    "engine_of",
    [
        pytest.param(lambda **kw: StaticEngine([], **kw), id="allow"),
        pytest.param(lambda **kw: StaticEngine([Verdict(VerdictKind.DENY, "hookd.x", "r", "no")], **kw), id="deny"),
        pytest.param(lambda **kw: StaticEngine(error=EngineError("regorus: boom"), **kw), id="engine-error"),
        pytest.param(
            lambda **kw: StaticEngine(
                error=PartialAnswer(
                    [Verdict(VerdictKind.DENY, "hookd.ok", "r", "no"), PolicyError("f failed", policy="p", rule="x")]
                ),
                **kw,
            ),
            id="partial",
        ),
    ],
)
def test_a_decision_in_the_call_is_the_awaited_decision(engine_of: Any) -> None:
    awaited, now = both_ways(engine_of, request("BeforeTool"))
    assert same(awaited, now), (awaited, now)


def test_a_rewrite_is_decided_again_in_the_call_as_awaited() -> None:
    rewrite = Verdict(VerdictKind.REWRITE, "hookd.shell", "safe", patch={"tool_input": {"command": "rm -ri ~"}})

    def engine_of(**kw: Any) -> StaticEngine:
        return StaticEngine([rewrite], **kw)

    awaited, now = both_ways(engine_of, request("BeforeTool"))
    assert same(awaited, now), (awaited, now)


def test_a_decision_in_the_call_follows_the_input_caps_as_awaited() -> None:
    req = request("BeforeTool")
    small = LimitsConfig(max_command_bytes=4)  # `rm -rf ~` has eight

    def capped(engine: StaticEngine) -> Pipeline:
        return Pipeline(
            {"gemini": GeminiDialect()}, [], PolicySetHolder(engine), DEFAULT_FAIL_MODES, AskPolicy(), Probe(None),
            lambda: DECISION_ID, small,
        )  # fmt: skip

    awaited = asyncio.run(capped(StaticEngine([])).handle(req))
    engine = StaticEngine([], awaited=False)
    now = capped(engine).decide(req)
    assert isinstance(now, Handled) and same(awaited, now)
    assert now.decision.outcome is Outcome.DENY and not engine.requests  # the engine never saw it


def test_a_decision_in_the_call_past_the_deadline_answers_the_fail_mode() -> None:
    req = replace(request("BeforeTool"), deadline=Deadline.after(0))
    now = pipeline(StaticEngine([], awaited=False)).decide(req)
    assert isinstance(now, Handled) and now.engine_error and now.decision.outcome is Outcome.DENY
    assert b"deadline passed before evaluation" in now.reply.stdout


def test_an_awaited_answer_holds_the_policy_set_until_it_is_awaited() -> None:
    engine = StaticEngine([])
    p = pipeline(engine)
    holder = p._policy_set
    decided = p.decide(request("BeforeTool"))
    assert isinstance(decided, Awaitable) and holder.in_use(holder.current) == 1  # a reload must not close it
    handled = asyncio.run(settled(decided))
    assert handled.decision.outcome is Outcome.ALLOW and holder.in_use(holder.current) == 0


def test_an_engine_answering_in_the_call_is_released_in_the_call() -> None:
    engine = StaticEngine([], awaited=False)
    p = pipeline(engine)
    assert isinstance(p.decide(request("BeforeTool")), Handled)
    assert p._policy_set.in_use(p._policy_set.current) == 0 and engine.requests


def test_an_engine_that_answers_in_the_call_cannot_be_gated() -> None:
    with pytest.raises(ValueError, match="gate"):
        StaticEngine([], gated=True, awaited=False)


def test_every_step_declared_to_pass_a_streamed_chunk_returns_it_as_it_got_it() -> None:
    """hookd.types.passes_chunks: the pipeline runs only the other steps on a streamed chunk (issue 30). Each
    declared step of the daemon's enrichers gives a chunk back unchanged (the same object), whatever its facts; the
    streams enricher is the one left."""
    import random

    from hookd.assembly import enrichers
    from hookd.enrich.stream import MemoryTexts, ResponseStreams
    from hookd.types import STREAM_EVENTS, NormalisedEvent, passes_streamed_chunks

    steps = enrichers(None, MemoryTexts())
    assert [type(s) for s in steps if not passes_streamed_chunks(s)] == [ResponseStreams]
    rng = random.Random(30)
    facts: list[dict[str, Any]] = [{}, {"home": "/home/u"}, {"effects": [{"op": "read", "path": "/home/u/.ssh/id"}]},
                                   {"home": "/home/u", "effects": []}, {"shell": {"commands": []}}]  # fmt: skip
    for event in STREAM_EVENTS:
        for n in range(50):
            payload = {"llm_response": {"candidates": [{"content": {"parts": [{"text": f"chunk {n}"}]}}]},
                       "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf /"}}  # fmt: skip
            chunk = NormalisedEvent("gemini", event, payload, None, f"s{n}", "/p", "/p", Caller(1000, 1000, 2),
                                    env={"HOME": "/home/u"}, facts=rng.choice(facts))  # fmt: skip
            for step in steps:
                if passes_streamed_chunks(step):
                    assert step(chunk) is chunk, step
