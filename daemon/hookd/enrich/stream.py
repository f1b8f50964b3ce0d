"""The text a model has streamed so far in the current response: `input.stream` on AfterModel. Owned by
the policies engineer; docs/policies.md ("input.stream").

Gemini CLI calls AfterModel once per streamed chunk, so a policy that sees one chunk misses a secret
split across two. This enricher keeps the text of each response being streamed and the policy sees
`{"text": the text so far, "chunk": this chunk's text, "truncated": bool, "index": the chunk's number
from 1, "response": the response's id, "final": whether the chunk ends the response}`.

A response is named by the caller's uid, the client, the session and a digest of the request it answers
(`llm_request`, the same on every chunk of one response and different on the next): a new request starts a
new text, and two responses streamed at once in one session (subagents) are kept apart. The chunk that
carries a `finishReason` ends its response.

One process holds every response's text: the chunks of a response are sent to the one process that
decides them all (the lane, or the daemon when the lane is off: hookd.lane, STREAM_EVENTS), so the text
lives in that process's memory, behind no lock and no file that anyone else could hold.

That process is the stream lane when there is one, and a lane can die: it writes each chunk's text to its
journal before it replies (hookd.procs.journal), and the lane started again begins from what the journal
holds (`Kept`), so a response's next chunk is judged with what came before the crash.

Whether the text holds any of the strings the policies need to see (`routing.stream_text`,
hookd.policy.stream_cues) is found from each chunk alone (`ResponseStreams.quiet`): where the latest of them
began is kept per response, so a chunk costs a search of itself and the few characters before it, never of
the whole text.

Bounded: at most MAX_TEXT characters are kept of a response (the tail: a secret is looked for where it
ends), and the policy sees them and the whole chunk after them (a secret that a long chunk completes is
whole in it); `truncated` says an earlier part was dropped. At most MAX_RESPONSES responses are kept at a
time (the least recently streamed is forgotten).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace

from hookd.policy.stream_cues import StreamCues
from hookd.types import JSON, STREAM_EVENTS, NormalisedEvent
from hookd.wire import jsonstrict

MAX_TEXT = 16 * 1024
MAX_RESPONSES = 256
RESPONSE_FACT = "stream_response"  # the parse step's digest of the request, when it has one (hookd.pipeline)

ResponseKey = tuple[int, str, str, str]  # the caller's uid, the client, the session, the response
_Key = ResponseKey
Kept = list[tuple[_Key, str, bool, int]]  # every open response's key, kept text, truncated and chunk count


@dataclass(slots=True)
class _Text:
    text: str = ""
    truncated: bool = False
    chunks: int = 0


class MemoryTexts:
    """The texts of the responses being streamed, in this process. `journal`, when set, is told of each chunk
    as it is added (the stream lane's: hookd.procs.journal), so that what it holds is what this holds."""

    def __init__(self, max_text: int = MAX_TEXT, max_responses: int = MAX_RESPONSES) -> None:
        self.max_text = max_text
        self.max_responses = max_responses
        self._texts: OrderedDict[_Key, _Text] = OrderedDict()
        self.journal: Callable[[_Key, str, bool], None] | None = None

    def add(
        self, key: _Key, chunk: str, final: bool, cut: bool = False, *, journal: bool = True
    ) -> tuple[str, bool, int]:
        """The text so far with `chunk` (the kept tail before it, and the whole chunk: a secret that a long
        chunk completes is in it whole), whether an earlier part was dropped, and the chunk's number. A final
        chunk forgets the response. `cut`: `chunk` is the end of a longer one. `journal`: False for a chunk the
        native quiet chunk journaled (hookd.procs.native_lane)."""
        held = self._texts.pop(key, None) or _Text()
        text, truncated = held.text + chunk, held.truncated or cut
        held.chunks += 1
        if not final:
            held.truncated, held.text = truncated or len(text) > self.max_text, text[-self.max_text :]
            self._texts[key] = held
            while len(self._texts) > self.max_responses:
                self._texts.popitem(last=False)
        if (
            self.journal is not None and journal
        ):  # after the text is here: a snapshot the journal takes now holds the chunk
            self.journal(key, chunk, final)
        return text, truncated, held.chunks

    def __len__(self) -> int:
        return len(self._texts)

    def responses(self) -> list[_Key]:
        """The keys of the responses whose text is kept."""
        return list(self._texts)

    def held(self, key: _Key) -> tuple[str, int] | None:
        """The kept text of response `key` and its chunks so far; None when none is kept."""
        held = self._texts.get(key)
        return None if held is None else (held.text, held.chunks)

    def kept(self) -> Kept:
        """Every open response's kept text, the least recently streamed first (for `seed`)."""
        return [(key, held.text, held.truncated, held.chunks) for key, held in self._texts.items()]

    def seed(self, kept: Kept) -> None:
        """Go on from `kept` (another process's `kept`): each response's next chunk follows its text."""
        for key, text, truncated, chunks in kept:
            self._texts[key] = _Text(text[-self.max_text :], truncated or len(text) > self.max_text, chunks)
        while len(self._texts) > self.max_responses:
            self._texts.popitem(last=False)


def key_of(event: NormalisedEvent) -> _Key | None:
    """The key of the response an enriched chunk belongs to (None for any other event)."""
    stream = event.facts.get("stream")
    response = stream.get("response") if isinstance(stream, dict) else None
    if not isinstance(response, str):
        return None
    return (event.caller.uid, event.client, event.session_id, response)


@dataclass(frozen=True, slots=True)
class _Seen:
    """What `ResponseStreams.quiet` found in a response's text as of its chunk `index`."""

    index: int
    cues: StreamCues  # compared by identity: a policy set's own (a reload makes new ones)
    length: int  # the text's length then
    since: int  # characters from where the latest of the cues began to the text's end; -1: none in the text


class ResponseStreams:
    """The enricher: adds `stream` to AfterModel events."""

    def __init__(self, texts: MemoryTexts | None = None) -> None:
        self.texts = texts if texts is not None else MemoryTexts()
        self._seen: OrderedDict[_Key, _Seen] = OrderedDict()

    def quiet(self, event: NormalisedEvent, cues: StreamCues) -> bool:
        """Whether the text of `event` (a chunk this enricher has just added to its response) holds none of
        `cues`, exactly as `any(c in input.stream.text for c in cues)` would answer, from the chunk and the
        `cues.longest - 1` characters before it: what was found in the response's text up to the chunk before
        (its `_Seen`) is used only when it is of that very text (the chunk before, the same cues, the length
        the text was kept at), else the whole text is searched."""
        stream, key = event.facts.get("stream"), key_of(event)
        if not isinstance(stream, dict) or key is None:
            return False
        text, chunk, index = stream.get("text"), stream.get("chunk"), stream.get("index")
        if not isinstance(text, str) or not isinstance(chunk, str) or not isinstance(index, int):
            return False
        seen = self._seen.pop(key, None)
        since = self._since(seen, text, chunk, index, cues)
        if stream.get("final") is not True:
            self._keep(key, _Seen(index, cues, len(text), since))
        return since < 0

    def add_if_quiet(self, key: _Key, chunk: str, cues: StreamCues, *, journaled: bool = False) -> int | None:
        """Add `chunk` (one that does not end its response) to the text of response `key`, as this enricher does,
        when that text then holds none of `cues` (`quiet` would answer True), and answer its index; else change
        nothing and answer None (also when no text of `key` is kept: the enricher then decides where it begins).
        The quiet chunk's short-cut (hookd.pipeline, `Pipeline.quiet_chunk`); `journaled`: the native one's chunk,
        journaled already (hookd.procs.native_lane)."""
        held = self.texts.held(key)
        if held is None:
            return None
        before, index = held[0], held[1] + 1
        text = before + chunk
        since = self._since(self._seen.get(key), text, chunk, index, cues)
        if since >= 0:
            return None  # the whole path decides it, and finds the cue again where this left `_seen` as it was
        self.texts.add(key, chunk, False, journal=not journaled)
        self._seen.pop(key, None)
        self._keep(key, _Seen(index, cues, len(text), since))
        return index

    def settled(self, key: _Key, cues: StreamCues) -> tuple[str, int] | None:
        """The kept text of response `key` and its chunk count when whether its next chunk is quiet is found from
        that chunk and the text's last `cues.longest - 1` characters alone (`_since`: what was found is of this
        very text, and no cue is in it); None otherwise. What the native quiet chunk is told
        (hookd.procs.native_lane)."""
        held, seen = self.texts.held(key), self._seen.get(key)
        if held is None or seen is None:
            return None
        text, chunks = held
        if seen.cues is not cues or seen.index != chunks or seen.since >= 0:
            return None
        return held if len(text) == min(seen.length, self.texts.max_text) else None

    def _since(self, seen: _Seen | None, text: str, chunk: str, index: int, cues: StreamCues) -> int:
        """Characters from where the latest of `cues` begins in `text` (the response's text with `chunk`, its
        `index`th) to its end; -1 when none is there. From `chunk` and the characters before it only when `seen`
        is of the text before it."""
        before = len(text) - len(chunk)
        start, since = 0, -1
        if (
            seen is not None
            and seen.cues is cues
            and seen.index == index - 1
            and before == min(seen.length, self.texts.max_text)
        ):
            start = max(0, before - cues.longest + 1)
            if seen.since >= 0 and seen.since + len(chunk) <= len(text):  # still in the kept text
                since = seen.since + len(chunk)
        latest = cues.latest_in(text, start)
        if latest >= 0:
            since = len(text) - latest
        return since

    def _keep(self, key: _Key, seen: _Seen) -> None:
        self._seen[key] = seen
        while len(self._seen) > self.texts.max_responses:
            self._seen.popitem(last=False)

    def __call__(self, event: NormalisedEvent) -> NormalisedEvent:
        if event.event not in STREAM_EVENTS:
            return event
        held = event.facts.get("stream")
        if isinstance(held, dict):  # a rewritten chunk decided again (hookd.policy.redecide): see `replaced`
            return replace(event, facts={**event.facts, "stream": replaced(held, event.payload.get("llm_response"))})
        response = event.facts.get(RESPONSE_FACT)
        if not isinstance(response, str) or not response:
            response = jsonstrict.digest(event.payload.get("llm_request"))  # as the parse step names it
        candidate = candidate_of(event.payload.get("llm_response"))
        chunk, final = text_of(candidate), ends(candidate)
        key = (event.caller.uid, event.client, event.session_id, response)
        text, truncated, index = self.texts.add(key, chunk, final)
        stream: JSON = {
            "text": text,
            "chunk": chunk,
            "truncated": truncated,
            "index": index,
            "response": response,
            "final": final,
        }
        facts = {name: value for name, value in event.facts.items() if name != RESPONSE_FACT}
        facts["stream"] = stream
        return event.with_all_facts(facts)


def replaced(stream: dict[str, JSON], response: JSON) -> dict[str, JSON]:
    """`stream` with its chunk replaced by `response`'s text, as the user reads the response when a policy
    rewrites the chunk; the kept text stays what the model sent (its next chunk follows that)."""
    text, old = stream.get("text"), stream.get("chunk")
    before = text[: len(text) - len(old)] if isinstance(text, str) and isinstance(old, str) else ""
    chunk = chunk_text(response)
    return {**stream, "text": before + chunk, "chunk": chunk}


def chunk_text(response: JSON) -> str:
    """The text parts of a Gemini `llm_response` chunk (`candidates[0].content.parts`), joined."""
    return text_of(candidate_of(response))


def text_of(candidate: dict[str, JSON] | None) -> str:
    """The text parts of a chunk's first candidate (`candidate_of`), joined."""
    content = candidate.get("content") if candidate is not None else None
    parts = content.get("parts") if isinstance(content, dict) else None
    if not isinstance(parts, list):
        return ""
    if len(parts) == 1:  # a streamed chunk's usual one part
        part = parts[0]
        text = part if isinstance(part, str) else part.get("text") if isinstance(part, dict) else None
        return text if isinstance(text, str) else ""
    texts = [p if isinstance(p, str) else p.get("text") for p in parts if isinstance(p, str | dict)]
    return "".join(t for t in texts if isinstance(t, str))


def finished(response: JSON) -> bool:
    """The chunk ends its response (`candidates[0].finishReason`)."""
    return ends(candidate_of(response))


def ends(candidate: dict[str, JSON] | None) -> bool:
    """A chunk whose first candidate (`candidate_of`) is this ends its response."""
    return candidate is not None and bool(candidate.get("finishReason"))


def candidate_of(response: JSON) -> dict[str, JSON] | None:
    """The first candidate of a Gemini `llm_response` chunk, if it has one."""
    if not isinstance(response, dict):
        return None
    candidates = response.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        return None
    return candidates[0]
