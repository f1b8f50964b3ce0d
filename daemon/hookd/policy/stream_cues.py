"""`routing.stream_text`: the strings without one of which a package's rules cannot answer a streamed chunk.

Gemini CLI awaits the AfterModel hook once per streamed chunk, and most chunks cannot change any verdict: the
default `model_secrets` halts only when the text streamed so far holds one of its patterns' literals. A package
says so with `"stream_text": [...]` (docs/policies.md, "Routing"), and when EVERY package that applies to
AfterModel (every layer's, bundles included; Rego and Python) has such a declaration, a chunk whose text (all of
`input.stream.text`, not a window of it) holds none of their strings is answered allow without evaluating them
(hookd.pipeline). A package that declares nothing is evaluated for every chunk, and so then are the others: no
package's declaration can leave out another's rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from hookd.types import STREAM_EVENTS, PackageInfo

STREAM_TEXT = "stream_text"


@dataclass(frozen=True, slots=True)
class StreamCues:
    """The strings one of which a streamed chunk's text must hold for any policy to be evaluated on it."""

    strings: tuple[str, ...]
    longest: int
    # Whether any of them is there at all: one search, where a chunk would cost one per string (most hold none)
    _any: re.Pattern[str] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_any", re.compile("|".join(re.escape(s) for s in self.strings)))

    @classmethod
    def of(cls, strings: Iterable[str]) -> StreamCues:
        ordered = tuple(sorted(set(strings)))
        return cls(ordered, max((len(s) for s in ordered), default=0))

    def latest_in(self, text: str, start: int = 0) -> int:
        """Where the last occurrence of any of the strings that begins at or after `start` begins; -1: none.
        An empty string occurs everywhere: a package that declares one is evaluated for every chunk."""
        if self._any.search(text, start) is None:
            return -1
        return max((text.rfind(s, start) for s in self.strings), default=-1)


def stream_cues(packages: Iterable[PackageInfo]) -> StreamCues | None:
    """The union of `routing.stream_text` over the packages that apply to a streamed event; None when one of them
    declares none (every chunk is then evaluated), and None when none applies: an engine that lists no packages
    may not have loaded them yet (an isolated engine's workers), and evaluating nothing costs little."""
    strings: set[str] = set()
    applied = False
    for package in packages:
        if not any(package.applies(event.value, None, None) for event in STREAM_EVENTS):
            continue
        declared = package.routing.get(STREAM_TEXT)
        if declared is None:
            return None
        strings |= declared
        applied = True
    return StreamCues.of(strings) if applied else None
