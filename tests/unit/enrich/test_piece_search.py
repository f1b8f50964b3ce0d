"""hookd.enrich.piece_search and carried_secrets._Haystack: the one-pass search finds exactly what blindtools41's
search found (kept here as the oracle, with blindtools44's letter rotations of a whole value), over every text and
credential store of the policy corpus and over values spliced into texts at every offset, folded, base64-encoded and
in pieces; and the sampling's stride is as long as it may be: one character longer misses a piece."""

from __future__ import annotations

import base64
import json
import random
import string
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from corpus_share import in_share

from hookd.enrich import carried_secrets as cs
from hookd.enrich.piece_search import piece_index, pieced_values
from hookd.enrich.text_codings import letter_skeleton, rot47, rotations

CORPUS = Path(__file__).resolve().parents[3] / "policies" / "corpus"
STORES = {p.rpartition("/")[2] for p in (*cs.HOME_STORES, *cs.PROJECT_STORES)}


def oracle(text: str, values: frozenset[str]) -> set[str]:
    """blindtools41's _Haystack: each value (and the value reversed) searched in the whole text, then its 8-grams
    among the text's."""
    folded = text.lower()
    runs = (m.group() for m in cs._PIECE_RUN.finditer(text[: cs.MAX_PIECED_TEXT]))
    pieces = [r.lower() for r in runs if not r.islower()]
    grams = frozenset(r[k : k + cs.PIECE] for r in pieces for k in range(len(r) - cs.PIECE + 1))

    def pieced(value: str) -> bool:
        covered = [False] * len(value)
        for at in range(len(value) - cs.PIECE + 1):
            if value[at : at + cs.PIECE] in grams:
                covered[at : at + cs.PIECE] = [True] * cs.PIECE
        return sum(covered) >= cs.COVERED * len(value)

    def held(v: str) -> bool:
        return v in text or v.lower() in folded or (len(v) >= cs.MIN_PIECED and pieced(v.lower()))

    skeleton = letter_skeleton(folded)

    def rotated(v: str) -> bool:  # under a letter rotation, whole (blindtools44: text_codings.rotations)
        shifts = rotations(v) if letter_skeleton(v.lower()) in skeleton else [rot47(v)]  # a shift keeps it
        return any(w in text or w.lower() in folded for w in shifts)

    return {v for v in values if held(v) or held(v[::-1]) or rotated(v)}  # backwards too (revfix42b)


def found(text: str, values: frozenset[str]) -> set[str]:
    return cs._Haystack(text).carried(values)


def _strings(value: Any) -> list[str]:
    return list(cs._strings(value))


def _corpus() -> tuple[list[str], frozenset[str]]:
    texts: list[str] = []
    values: set[str] = set()
    for path in sorted(CORPUS.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            case = json.loads(line)
            if in_share(line):  # tests/corpus_share.py; the stores' values below come from every line
                texts += [t for t in _strings(case.get("tool_input")) if len(t) >= cs.PIECE]
            for name, content in (case.get("world") or {}).get("files", {}).items():
                if name.rpartition("/")[2] in STORES and isinstance(content, str):
                    values |= cs.store_values(content, dotenv=True, netrc=name.endswith("netrc"))
    return texts, frozenset(values)


@pytest.mark.timeout(900)  # grows with the corpus; the limit only stops a stuck run
def test_the_corpus_finds_what_each_value_searched_alone_found() -> None:
    texts, values = _corpus()
    assert len(values) > 20 and len(texts) > 200
    hits = 0
    for text in texts:
        haystack = "\n".join(cs._decoded(text[: cs.MAX_TEXT]))
        expected = oracle(haystack, values)
        assert found(haystack, values) == expected, text[:200]
        hits += bool(expected)
    assert hits > 5  # the carried secrets of the corpus's share are among them


def _spliced(rng: random.Random, value: str) -> str:
    """`value` in a text of random words and runs: whole, folded, base64-encoded, or in pieces."""
    filler = [rng.choice(["the", "Deploy", "x9Kq", "api/v2/", "==", "ok", "Z" * rng.randint(1, 9)]) for _ in range(9)]
    how = rng.randrange(4)
    if how == 0:
        body = value
    elif how == 1:
        body = value.lower()
    elif how == 2:
        body = base64.b64encode(value.encode()).decode()
    else:
        cuts = sorted(rng.sample(range(cs.PIECE, len(value) - cs.PIECE), 1)) if len(value) > 2 * cs.PIECE else []
        parts = [value[a:b] for a, b in zip([0, *cuts], [*cuts, len(value)], strict=True)]
        body = " and ".join(p[: len(p) - rng.randrange(3)] for p in parts)
    at = rng.randrange(len(filler) + 1)
    return rng.choice(["", "/", "-", "a"]) * rng.randrange(9) + " ".join([*filler[:at], body, *filler[at:]])


def test_values_spliced_at_every_offset_are_found_as_the_oracle_finds_them() -> None:
    rng = random.Random(42)
    alphabet = string.ascii_letters + string.digits + "+/_-"
    values = frozenset("".join(rng.choice(alphabet) for _ in range(rng.randint(16, 60))) for _ in range(40))
    for _ in range(3000):
        value = rng.choice(sorted(values))
        haystack = "\n".join(cs._decoded(_spliced(rng, value)))
        assert found(haystack, values) == oracle(haystack, values), haystack


def test_a_piece_stride_one_longer_misses_a_piece() -> None:
    value = "Zq8Lm3Np7Rt2Vx6Bc4Dk"
    index = piece_index(frozenset({value}), cs.PIECE)
    longer = replace(index, stride=index.stride + 1)
    folded = value.lower()
    for_offset = [["x" * p + folded[:8], "x" * p + folded[8:16], folded[16:]] for p in range(2 * cs.PIECE)]
    assert all(pieced_values(index, pieces, cs.COVERED) == {folded} for pieces in for_offset)
    assert all(oracle(" ".join(pieces).upper(), frozenset({value})) == {value} for pieces in for_offset)
    assert any(pieced_values(longer, pieces, cs.COVERED) != {folded} for pieces in for_offset)
