"""The text a model has streamed so far in the current response: `input.stream` on AfterModel. Owned by
the policies engineer; docs/policies.md ("input.stream").

Gemini CLI calls AfterModel once per streamed chunk, so a policy that sees one chunk misses a secret
split across two. This enricher keeps, per session, the text of the response being streamed: a
BeforeModel (the next request) or AfterAgent starts afresh, every AfterModel chunk is appended, and
the policy sees `{"text": the text so far, "chunk": this chunk's text, "truncated": bool}`.

Bounded: at most MAX_TEXT characters per response (the tail is kept: a secret is looked for where it
ends) and MAX_SESSIONS responses at a time (the least recently streamed is forgotten). The state lives
in the process that decides the event: with `[daemon] workers` above 1 the chunks of one response may
be decided by different processes, and each sees only its own chunks.
"""

from __future__ import annotations

from collections import OrderedDict

from hookd.types import JSON, Event, NormalisedEvent

MAX_TEXT = 16 * 1024
MAX_SESSIONS = 256


class ResponseStreams:
    def __init__(self, max_text: int = MAX_TEXT, max_sessions: int = MAX_SESSIONS) -> None:
        self.max_text = max_text
        self.max_sessions = max_sessions
        self._texts: OrderedDict[tuple[int, str, str], tuple[str, bool]] = OrderedDict()

    def __call__(self, event: NormalisedEvent) -> NormalisedEvent:
        key = (event.caller.uid, event.client, event.session_id)
        if event.event in (Event.BEFORE_MODEL, Event.AFTER_AGENT):
            self._texts.pop(key, None)
            return event
        if event.event is not Event.AFTER_MODEL:
            return event
        chunk = chunk_text(event.payload.get("llm_response"))
        before, truncated = self._texts.pop(key, ("", False))
        text = before + chunk
        if len(text) > self.max_text:
            text, truncated = text[-self.max_text :], True
        self._texts[key] = (text, truncated)
        while len(self._texts) > self.max_sessions:
            self._texts.popitem(last=False)
        return event.with_facts(stream={"text": text, "chunk": chunk, "truncated": truncated})


def chunk_text(response: JSON) -> str:
    """The text parts of a Gemini `llm_response` chunk (`candidates[0].content.parts`), joined."""
    if not isinstance(response, dict):
        return ""
    candidates = response.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        return ""
    content = candidates[0].get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    if not isinstance(parts, list):
        return ""
    texts = [p if isinstance(p, str) else p.get("text") for p in parts if isinstance(p, str | dict)]
    return "".join(t for t in texts if isinstance(t, str))
