"""A rewrite is decided again (issue 25): what a policy rewrites is what the agent acts on, so the pipeline
decides the rewritten event too, with every layer, as if the agent had sent it; a halt, deny or ask it gets
then is part of the answer. Otherwise any layer that may rewrite (an opted-in project's, which the agent can
write) could launder what the layers above it deny: `ls` rewritten into `rm -rf ~`. Every kind of rewrite
the agents carry is an event of its own:

* `tool_input` (BeforeTool): the same tool call with the rewritten arguments;
* `tail_tool_call` (Gemini's AfterTool): the call the agent runs next, a BeforeTool of that tool, read by the
  agent's own dialect (its tool table says what the arguments are);
* `llm_request` (BeforeModel): the request the model gets, the patch merged over what the agent sent;
* `llm_response` (AfterModel): the chunk the user gets in place of the model's, with the text streamed so far
  as it then reads (the streams enricher replaces this chunk's text; what the model sent stays recorded).

Pure; the pipeline reads, enriches and evaluates (hookd.pipeline)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from hookd.policy.combine import combine, merge_patch
from hookd.types import JSON, Event, NormalisedEvent, Outcome, Verdict, VerdictKind

_BLOCKING = frozenset({VerdictKind.HALT, VerdictKind.DENY, VerdictKind.ASK})

ReadEvent = Callable[[Event, dict[str, JSON]], NormalisedEvent]
"""The agent's dialect reading a payload as the agent sends it for an event (raises DialectError)."""


def rewritten_event(event: NormalisedEvent, verdicts: Sequence[Verdict], read: ReadEvent) -> NormalisedEvent | None:
    """What the agent will act on when the verdicts' answer is a rewrite that changes it (facts the enrichers
    build again left out); else None. A rewrite that the dialect could not read is not carried either (the
    dialect's render drops it with a note)."""
    if not any(v.kind is VerdictKind.REWRITE for v in verdicts):
        return None
    decision = combine(verdicts)
    if decision.outcome is not Outcome.REWRITE:
        return None
    rewrite = decision.rewrite
    if event.event is Event.AFTER_TOOL and "tail_tool_call" in rewrite:
        return _tail_call(event, rewrite["tail_tool_call"], read)
    if event.event is Event.BEFORE_MODEL and "llm_request" in rewrite:
        return _payload_patched(event, "llm_request", rewrite["llm_request"])
    if event.event is Event.AFTER_MODEL and "llm_response" in rewrite:
        response = _response(rewrite["llm_response"], event.payload.get("llm_response"))
        return None if response is None else replace(event, payload={**event.payload, "llm_response": response})
    if event.tool is not None and "tool_input" in rewrite:
        return _tool_input(event, rewrite["tool_input"])
    return None


def _tool_input(event: NormalisedEvent, patch: JSON) -> NormalisedEvent | None:
    assert event.tool is not None
    arguments = merge_patch(event.tool.input, patch)
    if not isinstance(arguments, dict) or arguments == event.tool.input:
        return None  # the dialect carries neither (a patch that is not an object, or no change)
    payload = dict(event.payload)
    if payload.get("tool_input") == event.tool.input:  # `input.raw` says what the agent will run, too
        payload["tool_input"] = arguments
    return replace(event, payload=payload, tool=replace(event.tool, input=arguments), facts={})


def _tail_call(event: NormalisedEvent, tail: JSON, read: ReadEvent) -> NormalisedEvent | None:
    """The tail call as the BeforeTool the agent sends for it (Gemini runs it in place of the call that ended)."""
    name = tail.get("name") if isinstance(tail, Mapping) else None
    args = tail.get("args", {}) if isinstance(tail, Mapping) else None
    if not isinstance(name, str) or not name or not isinstance(args, Mapping | None):
        return None  # not carried (the dialect says so in a note)
    payload: dict[str, JSON] = {k: v for k, v in event.payload.items() if k not in _AFTER_TOOL_ONLY}
    payload.update(hook_event_name=Event.BEFORE_TOOL.value, tool_name=name, tool_input=dict(args or {}))
    return read(Event.BEFORE_TOOL, payload)


_AFTER_TOOL_ONLY = frozenset({"hook_event_name", "tool_name", "tool_input", "tool_response", "mcp_context"})


def _payload_patched(event: NormalisedEvent, key: str, patch: JSON) -> NormalisedEvent | None:
    sent = event.payload.get(key)
    merged = merge_patch(sent if isinstance(sent, Mapping) else {}, patch)
    if merged == sent:
        return None
    return replace(event, payload={**event.payload, key: merged})


def _response(value: JSON, sent: JSON) -> JSON | None:
    """The chunk a response rewrite puts in the stream, in the agent's shape: a string or `{"text"}` becomes
    one candidate (with the finish reason of the chunk it replaces), `{"candidates"}` goes as it is."""
    if isinstance(value, Mapping) and "candidates" in value:
        return dict(value)
    text = value.get("text") if isinstance(value, Mapping) else value
    if not isinstance(text, str):
        return None
    candidate: dict[str, JSON] = {"content": {"role": "model", "parts": [text]}, "index": 0}
    sent_candidates = sent.get("candidates") if isinstance(sent, Mapping) else None
    first = sent_candidates[0] if isinstance(sent_candidates, list) and sent_candidates else None
    if isinstance(first, Mapping) and isinstance(first.get("finishReason"), str):
        candidate["finishReason"] = first["finishReason"]
    return {"candidates": [candidate]}


def decided_again(verdicts: Sequence[Verdict], again: Sequence[Verdict]) -> list[Verdict]:
    """The first verdicts and every halt, deny and ask the rewritten event got (its own rewrites, contexts and
    messages are not the agent's: what they would change is not what it sent), each saying so."""
    rewriters = ", ".join(
        dict.fromkeys(f"{v.policy_id}:{v.rule_id}" for v in verdicts if v.kind is VerdictKind.REWRITE)
    )
    said = f"as rewritten by {rewriters}"
    return [*verdicts, *(replace(v, message=f"{said}: {v.message}" if v.message else said)
                         for v in again if v.kind in _BLOCKING)]  # fmt: skip
