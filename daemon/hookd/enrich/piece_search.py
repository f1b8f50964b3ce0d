"""Which secret values a text carries in pieces (hookd.enrich.carried_secrets: a value sent in parts, each PIECE
characters or more, found when they cover most of it), in one pass over the text: the values' GRAM-long windows
are indexed once per set of values, and the text's pieces are looked at only at windows sampled every
PIECE - GRAM + 1 characters, each looked up in that index, a hit checked in place.

Sampling is exact, not a guess: a value's PIECE-long slice found at `p` holds the text's GRAM-long windows starting
at `p … p + PIECE - GRAM`, PIECE - GRAM + 1 consecutive places, so one sampled window starts there and the value's
own window at that offset is in the index. blindtools41 built every PIECE-long window of the text's pieces instead
(0.9-2.5 ms on 8 KiB of mixed-case text): a window every character, where this looks at one every five."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

GRAM = 4  # characters of a window sampled
_SEPARATOR = "\n"  # between the pieces searched together: in none of them
_Hits = dict[str, list[tuple[int, int]]]  # a window -> (value's number, where the window is in it)


@dataclass(frozen=True, slots=True)
class PieceIndex:
    """The folded values (`folded[i]`) and every GRAM-long window of each."""

    folded: tuple[str, ...]
    piece: int  # characters of the shortest piece
    stride: int  # between the windows sampled
    grams: _Hits


@functools.lru_cache(maxsize=8)
def piece_index(values: frozenset[str], piece: int) -> PieceIndex:
    """The index of `values`, found in pieces of `piece` characters or more (GRAM or more)."""
    folded = tuple(sorted({v.lower() for v in values}))
    grams: _Hits = {}
    for number, value in enumerate(folded):
        for at in range(len(value) - GRAM + 1):
            grams.setdefault(value[at : at + GRAM], []).append((number, at))
    return PieceIndex(folded, piece, piece - GRAM + 1, grams)


def pieced_values(index: PieceIndex, pieces: Sequence[str], covered_share: float) -> set[str]:
    """The folded values whose `index.piece`-long slices found among `pieces` (folded runs of that many characters
    or more, none holding a line break) cover `covered_share` of them."""
    text = _SEPARATOR.join(pieces)
    grams, stride = index.grams, index.stride
    covered: dict[int, list[bool]] = {}
    for at in [at for at in range(0, len(text) - GRAM + 1, stride) if text[at : at + GRAM] in grams]:
        for number, offset in grams[text[at : at + GRAM]]:
            _cover(index.folded[number], text, at, offset, index.piece, covered.setdefault(number, []))
    return {index.folded[n] for n, marks in covered.items() if sum(marks) >= covered_share * len(index.folded[n])}


def _cover(value: str, text: str, at: int, offset: int, piece: int, marks: list[bool]) -> None:
    """Marks the `piece`-long slices of `value` that hold its window at `offset` and that `text` holds where its
    window at `at` is the same, within one piece."""
    if not marks:
        marks.extend([False] * len(value))
    for start in range(max(0, offset - piece + GRAM), min(offset, len(value) - piece) + 1):
        begin = at - (offset - start)
        slice_ = value[start : start + piece]
        if begin >= 0 and _SEPARATOR not in slice_ and text.startswith(slice_, begin):
            marks[start : start + piece] = [True] * piece
