"""The carried-secret spellings' first tests (hookd.enrich.text_codings, hookd.enrich.carried_secrets; cost44,
docs/performance.md "cost44"): each coding asks first whether a text can hold it, the first look stops at its
first yes, and one window's spellings are read once. None of it may change what is found: each reading is
compared with the whole-text reading blindtools44 made (kept below as the reference) over every string of every
case, corpus line and bench payload, the carried-secret tests' own strings, texts at each first test's edge (just
inside and just outside) and random texts dense in what the first tests look for; and the work stays linear."""

from __future__ import annotations

import base64
import bz2
import lzma
import random
import time
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from hookd.enrich import carried_secrets as cs
from hookd.enrich import text_codings as tc
from tests.unit.enrich import test_carried_secrets, test_carried_secrets_bounds, test_carried_secrets_codings
from tests.unit.enrich.test_effects_golden import payloads

# --- blindtools44's readings, whole text at once (the reference the first tests must agree with) ---

_REF_CODE_LIST = tc._CODE_LIST
_REF_SPACED = tc._SPACED
_REF_CHUNKED = tc._CHUNKED


def _ref_code_lists(text: str) -> list[str]:
    out = []
    for match in _REF_CODE_LIST.finditer(text):
        codes = [int(c) for c in tc._CODE.findall(match.group())]
        if all(9 <= c <= 0x10FFFF for c in codes):
            out.append("".join(chr(c) for c in codes))
    return out


def _ref_despaced(text: str) -> list[str]:
    out = [m.group()[::2] for m in _REF_SPACED.finditer(text)]
    for match in _REF_CHUNKED.finditer(text):
        chunks = match.group().split(match.group(1))
        size = len(chunks[0])
        if size > 1 and all(len(c) == size for c in chunks[:-1]) and len(chunks[-1]) <= size:
            out.append("".join(chunks))
    return out


def _ref_looks_encoded(run: str) -> bool:
    if tc._BASE64_ONLY.fullmatch(run):
        return False
    kinds = (any(c.isdigit() for c in run), any(c.isupper() for c in run), any(c.islower() for c in run))
    return all(kinds) and len({c for c in run if not c.isalnum()}) >= 3


def _ref_base85(text: str) -> list[bytes]:
    out, budget = [], tc.MAX_BASE85
    for pattern, decode in ((tc._ASCII85_RUN, base64.a85decode), (tc._BASE85_RUN, base64.b85decode)):
        for run in dict.fromkeys(pattern.findall(text)):
            if budget <= 0:
                break
            if not _ref_looks_encoded(run):
                continue
            budget -= len(run)
            starts = [at for at in range(5) if not run[:at].isalnum()]
            out += [raw for at in starts if (raw := tc._decoded85(decode, run[at:].rstrip("~>"))) is not None]
    return out


def _ref_rot47_runs(text: str) -> list[str]:
    return [tc.rot47(m.group()) for m in tc._VISIBLE_RUN.finditer(text) if tc._WORD.search(m.group()) is None]


def _ref_inflated(raw: bytes) -> bytes | None:
    try:
        if raw[:2] == b"\x1f\x8b":
            return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, tc.MAX_INFLATED)
        if len(raw) > 1 and raw[0] == 0x78 and (raw[0] << 8 | raw[1]) % 31 == 0:
            return zlib.decompressobj().decompress(raw, tc.MAX_INFLATED)
        if raw[:3] == b"BZh":
            return bz2.BZ2Decompressor().decompress(raw, tc.MAX_INFLATED)
        if raw[:6] == b"\xfd7zXZ\x00":
            return lzma.LZMADecompressor().decompress(raw, tc.MAX_INFLATED)
        if len(raw) >= tc.MIN_DEFLATED:
            return zlib.decompressobj(-zlib.MAX_WBITS).decompress(raw, tc.MAX_INFLATED) or None
    except (zlib.error, OSError, lzma.LZMAError, EOFError, ValueError):
        return None
    return None


def _ref_may_be_carried(text: str) -> bool:
    variants = [text, cs.compacted(text), *_ref_rot47_runs(text), tc.unescaped(text) or ""]
    variants += _ref_code_lists(text) + _ref_despaced(text)
    variants += [t for raw in _ref_base85(text) if (t := cs._text_of(raw)) is not None]
    if any(cs._may_hold_secret(v) for v in variants):
        return True
    # review47: the runs an encoding's output may be that the shapes turn away, decoded (no first test of its own;
    # tests/unit/enrich/test_carried_secrets_first_look.py holds it to what the search finds)
    return cs._decodes_to_candidate(text) or cs._decodes_to_candidate(cs.compacted(text))


# --- the texts compared ---


def _leaves(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield str(key)
            yield from _leaves(inner)
    elif isinstance(value, list | tuple):
        for inner in value:
            yield from _leaves(inner)


def _own_tests_strings() -> Iterator[str]:
    """The strings the carried-secret tests' cases give (their parametrize lists)."""
    for module in (test_carried_secrets, test_carried_secrets_bounds, test_carried_secrets_codings):
        for name in dir(module):
            for mark in getattr(getattr(module, name), "pytestmark", ()):
                if mark.name == "parametrize":
                    yield from _leaves(list(mark.args[1]))


def _edges() -> Iterator[str]:
    """Texts just inside and just outside each first test, alone, beside other lines, and at a line's ends."""
    for count in (tc.MIN_CODES - 1, tc.MIN_CODES):  # a list of codes: one code short, and enough
        for sep in (",", ", ", ",   ", ",    ", "\n", "\r", ";", "."):
            for code in ("107", "1234567", "12345678", "0", "99"):
                yield f"fromCharCode({sep.join([code] * count)})"
                yield "x = 1\n" + sep.join([code] * count) + "\nend"
    for length in (tc.MIN_SPACED - 1, tc.MIN_SPACED):  # a separated run: one character short, and enough
        for sep in (".", " ", "\u200b", "-", "\t", "\r", "/"):
            letters = "k8Vd2LmQ9xZ4pR7w"[:length]
            yield sep.join(letters)
            yield "head\n" + sep.join(letters) + "\ntail"
            yield sep.join(letters[:-1]) + "," + letters[-1]  # the last separator another
            yield sep.join(letters[:-1]) + sep + " "  # the last character a space
    for marks in (2, 3, 4):  # a chunked run: two marks, and three or more
        for size in (1, 2, 7, 8):
            chunk = "q8Vd2Lm7x"[:size]
            for mark in ("-", ".", ":", "|"):
                yield mark.join([chunk] * (marks + 1))
                yield "a\n" + mark.join([chunk] * (marks + 1)) + "x\nb"
                yield mark.join([chunk] * marks) + mark + chunk[:-1]
    encoded = base64.a85encode(b"k=Zq8Wm2Xn4Bv6Cl0Kj3Hg").decode()
    for run in (encoded, base64.b85encode(b"k=Zq8Wm2Xn4Bv6Cl0Kj3Hg").decode(), "<~" + encoded + "~>"):
        for cut in (tc.MIN_BASE85 - 1, tc.MIN_BASE85, len(run)):
            yield run[:cut]
            yield f"x {run[:cut]} y"
    for run in ("Ab1!@#cdefghijklmnopq", "Ab1!@cdefghijklmnopqr", "ab1!@#cdefghijklmnopq", "AB1!@#CDEFGHIJKLMNOPQ"):
        yield run  # a mix just enough, and each with one kind missing
    yield "Ab1!@#" * 40 + " " + "Ab!@#" * 40


def _fuzzed(count: int) -> Iterator[str]:
    chance = random.Random(44)
    pieces = ["1", "07", "115", ", ", ",", ".", "-", " ", "\n", "k", "Q", "8", "=", "&#", ";", "\\u00", "|", "~", "!"]
    for _ in range(count):
        yield "".join(chance.choices(pieces, k=chance.randint(10, 120)))


def _texts() -> list[str]:
    found = {s for _, payload in payloads() for s in _leaves(payload)}
    found |= set(_own_tests_strings()) | set(_edges()) | set(_fuzzed(3000))
    return sorted(t for t in found if t)


TEXTS = _texts()


def test_the_texts_compared_cover_the_corpus_and_the_edges() -> None:
    assert len(TEXTS) > 5000
    assert any("fromCharCode" in t for t in TEXTS) and any("\u200b" in t for t in TEXTS)


@pytest.mark.parametrize(
    ("reading", "reference"),
    [
        (tc.code_lists, _ref_code_lists),
        (tc.despaced, _ref_despaced),
        (tc.base85, _ref_base85),
        (tc.rot47_runs, _ref_rot47_runs),
        (cs._may_be_carried, _ref_may_be_carried),
    ],
)
def test_each_first_test_finds_what_the_whole_text_reading_finds(
    reading: Callable[[str], object], reference: Callable[[str], object]
) -> None:
    differ = [t for t in TEXTS if reading(t) != reference(t)]
    assert differ == []


def test_the_deflate_header_test_turns_away_only_what_zlib_rejects() -> None:
    chance = random.Random(44)
    raws = [bytes([first]) + chance.randbytes(11) for first in range(256) for _ in range(8)]
    stored = [zlib.compressobj(0, zlib.DEFLATED, -zlib.MAX_WBITS).compress(b"k=Zq8Wm2Xn4Bv6") + b"\x03\x00"]
    raws += [*stored, zlib.compress(b"x" * 40, 9)[2:], b"\x00\x05\x00\xfa\xffhello", b"\x00\x05\x00\xfa\xfehello"]
    raws += [zlib.compress(b"k=Zq8Wm2Xn4Bv6"), base64.b64decode("H4sIAAAAAAAAA8vOzcnPS1XIzsnPS1XIzsnPSw0A1bI7tRYAAAA=")]
    text = " ".join(f"key{n}=Zq8Wm2Xn4Bv6Cl0Kj3Hg{n * 7919 % 1000}" for n in range(200)).encode()
    for level, size in ((0, 40), (9, 40), (9, len(text))):  # a stored, a fixed and a dynamic block
        packer = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
        raws.append(packer.compress(text[:size]) + packer.flush())
    assert {raw[0] >> 1 & 3 for raw in raws[-3:]} == {0, 1, 2}
    assert [tc.inflated(raw) for raw in raws] == [_ref_inflated(raw) for raw in raws]
    assert tc._deflate_header(b"\x00\x05\x00\xfa\xffhello") and not tc._deflate_header(b"\x00\x05\x00\xfa\xfehello")
    assert not tc._deflate_header(b"\x06" + bytes(8))  # the reserved block type


# --- each mechanism doing its part (each fails without it) ---


class _Spy:
    """A pattern that records the spans it is asked to read."""

    def __init__(self, pattern: Any) -> None:
        self.pattern, self.spans = pattern, list[tuple[int, int]]()

    def finditer(self, text: str, start: int = 0, end: int = 2**62) -> Iterator[Any]:
        self.spans.append((start, min(end, len(text))))
        found: Iterator[Any] = self.pattern.finditer(text, start, end)
        return found


@pytest.mark.parametrize(
    ("pattern", "first_test", "hit"),
    [
        (tc._CODE_LIST, tc._CODE_LIST_START, "String.fromCharCode(115,107,95,108,105,118,101,95)"),
        (tc._SPACED, tc._SPACED_START, "k.8.V.d.2.L.m.Q.9.x.Z.4"),
        (tc._CHUNKED, tc._CHUNKED_START, "q8V-d2L-mQ9-xZ4"),
    ],
)
def test_a_full_reading_runs_only_on_the_lines_its_first_test_finds(pattern: Any, first_test: Any, hit: str) -> None:
    text = "\n".join(["plain line 1, 2, 3 a.b c-d"] * 50 + [hit] + ["def f(x): return x.y(1, 2)"] * 50)
    spy = _Spy(pattern)
    found = [m.group() for m in tc.line_matches(spy, first_test, text)]  # type: ignore[arg-type]
    assert [text[a:b] for a, b in spy.spans] == [hit]
    assert found == [m.group() for m in pattern.finditer(text)] != []


def test_the_first_look_stops_at_a_candidate_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*_: object) -> list[str]:
        raise AssertionError("a spelling read for a text that holds a candidate as written")

    monkeypatch.setattr(cs, "spellings", refused)
    monkeypatch.setattr(cs, "base85", refused)
    monkeypatch.setattr(cs, "rot47_runs", refused)
    assert cs._may_be_carried("token Zq8Wm2Xn4Bv6Cl0Kj3Hg in a note")


def test_a_windows_spellings_are_read_once_for_the_look_and_the_decoding(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "note 115,107,95,108,105,118,101,95 and q.8.V.d.2.L.m.Q.9.x.Z.4"
    calls: dict[str, int] = {}

    def counted(name: str, read: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            calls[name] = calls.get(name, 0) + (args[0] == text)  # the window's own text, not its decodings'
            return read(*args)

        return call

    for name in ("compacted", "spellings", "base85", "visible_runs"):
        monkeypatch.setattr(cs, name, counted(name, getattr(cs, name)))
    window = cs._Readings(text)
    assert not cs._may_be_carried(window)
    cs._decoded(window)
    assert calls == {"compacted": 1, "spellings": 1, "base85": 1, "visible_runs": 1}


def test_a_reserved_deflate_header_is_not_decompressed(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*_: object) -> object:
        raise AssertionError("a raw deflate tried on bytes no stream begins with")

    monkeypatch.setattr(zlib, "decompressobj", refused)
    assert tc.inflated(b"\x06" + bytes(15)) is None  # block type 3: reserved
    assert tc.inflated(b"\x00\x05\x00\xfa\xfehello!!") is None  # a stored block whose length has no complement


# --- linear work ---


def _seconds(read: Callable[[str], object], text: str) -> float:
    best = float("inf")
    for _ in range(5):  # the best of five, in the thread's own CPU time: the box's other work left out
        start = time.thread_time()
        read(text)
        best = min(best, time.thread_time() - start)
    return best


@pytest.mark.parametrize(
    "unit",
    [
        "115,107,95,108,105,118,101,95,\n",  # every line a list of codes
        "1,2,3,4,5,6,7,8" * 40,  # one long line of codes
        "k.8.V.d.2.L.m.Q.9.x.Z.4.",  # one separated run without end
        "q8V-d2L-mQ9-",  # one chunked run without end
        "Ab1!@#cd~" * 3 + " ",  # runs of base85's mix
        "a1 b2 c3 d4 e5 f6 ",  # digits and separators, no list
    ],
)
def test_the_spellings_cost_grows_linearly_with_the_text(unit: str) -> None:
    def read(text: str) -> object:
        return cs._may_be_carried(text) or cs._decoded(text)

    small = unit * (8_000 // len(unit) + 1)
    large = small * 4
    assert _seconds(read, large) < 8 * _seconds(read, small) + 0.005
