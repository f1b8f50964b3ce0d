"""The compaction's first test (hookd.enrich.carried_secrets.compacted; cost45, docs/performance.md "cost45"): only
the lines that may give a piece (a dump's offset, hex bytes, a line of one encoding's alphabet) are read, one
C-speed scan finding them. It may not change what is compacted: the result and the work counted are compared
with the line-by-line reading it replaced (kept below as the reference) over every text the carried-secret first
tests compare, texts at the first test's edges (each line break splitlines knows, whitespace strip() takes, offsets
and hex groups just inside and outside) and random texts dense in what it looks for."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hookd.enrich import carried_secrets as cs
from tests.unit.enrich.test_carried_secrets import SECRET, carried, world
from tests.unit.enrich.test_carried_secrets_first_tests import TEXTS

__all__ = ["world"]  # the fixture, used by name


def _ref_compacted(text: str, runs: tuple[cs._Runs, cs._Runs]) -> str:
    hex_runs, wrapped = runs
    for line in text.splitlines():
        offset = cs._DUMP_OFFSET.match(line)
        body = line[offset.end() :] if offset else line.strip()
        groups = cs._HEX_GROUPS.match(body)
        hex_runs.add(cs._HEX_SEPARATORS.sub("", groups.group()) if groups is not None and groups.end() > 0 else None)
        stripped = line.strip()
        wrapped.add(stripped if cs._WRAPPED_LINE.fullmatch(stripped) is not None else None)
    return "\n".join(hex_runs.joined() + wrapped.joined())


_BREAKS = ["\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
_SPACES = [" ", "\t", "\u00a0", "\u2003", "\u3000", "\x1f", ""]


def _edges() -> Iterator[str]:
    lines = [
        "00000010: 5139 774c  Q9wL", "0000010  51 39 77 4c", "000010: 5139", "00001: 51", "abcdef1:x", "abcdef1  x",
        "7a54 3470", "7a:54:34", "0x7a, 0x54", "\\x7a\\x54", "7a5", "7a", "ab cd", "dead = 3", "def f(x):", "cafe",
        "Zq8Wm2Xn4Bv6Cl0Kj3Hg", "c3NoLWtleS12MQ==", "return", "pass", "x = 1", "a+b/c=d_e-f", "ab;", "ab.", "ab-",
        "", "# note", "ab\tcd  ", "ZZ", "0X7A", "\\x7", "be ef",
    ]  # fmt: skip
    for line in lines:
        for space in _SPACES:
            yield space + line + space
    chance = random.Random(45)
    for _ in range(600):
        picked = chance.choices(lines, k=chance.randint(1, 8))
        spaced = [chance.choice(_SPACES) + line + chance.choice(_SPACES) for line in picked]
        yield "".join(line + chance.choice(_BREAKS) for line in spaced)[: chance.randint(1, 200)]


def _fuzzed(count: int) -> Iterator[str]:
    chance = random.Random(4545)
    pieces = ["7a", "5", "0x", "\\x", " ", "  ", ":", "\t", "\n", "\n", "Q9", "=", "+/", "_", "-", ",", "\u00a0", "g"]
    for _ in range(count):
        yield "".join(chance.choices(pieces, k=chance.randint(1, 80)))


CASES = sorted(set(TEXTS) | set(_edges()) | set(_fuzzed(4000)))


def test_the_first_test_compacts_what_the_line_by_line_reading_compacts() -> None:
    differ = []
    for text in CASES:
        ours, theirs = (cs._Runs(), cs._Runs()), (cs._Runs(), cs._Runs())
        got, want = cs.compacted(text, ours), _ref_compacted(text, theirs)
        if got != want or [r.copied for r in ours] != [r.copied for r in theirs]:
            differ.append(text)
    assert len(CASES) > 10_000 and differ == []


@pytest.mark.parametrize("brk", ["\n", "\r\n"])
def test_only_the_lines_that_may_give_a_piece_are_read(brk: str, monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    line_pieces = cs._line_pieces

    def counted(line: str, hex_runs: cs._Runs, wrapped: cs._Runs) -> None:
        read.append(line)
        line_pieces(line, hex_runs, wrapped)

    monkeypatch.setattr(cs, "_line_pieces", counted)
    code = ["def f(x):", "    return x.y(1, 2)", "class Thing:", "    name = 'x'"] * 50
    text = brk.join([*code, "7a54 3470", "c3NoLWtleS12MQ==", *code])
    assert cs.compacted(text) == "7a543470\nc3NoLWtleS12MQ=="
    assert read == (["7a54 3470", "c3NoLWtleS12MQ=="] if brk == "\n" else text.splitlines())


# --- a long write's search: linear, and bounded past what is decoded (issue 26 item 7; cost45) ---


def _write_cost(world: tuple[Path, Path], text: str) -> float:
    best = float("inf")
    for _ in range(3):  # the best of three, in the thread's own CPU time: the box's other work left out
        started = time.thread_time()
        found = carried(world, "claude", "Write", {"file_path": "big.py", "content": text})
        best = min(best, time.thread_time() - started)
    assert "credentials" not in found  # the look-alike is no store's value
    return best


def _code(size: int) -> str:
    """This package's own sources, `size` characters of them, a look-alike token (no store's value) every 2 KiB:
    the look says yes, so the whole text is decoded and searched (a write with none would stop at the look)."""
    sources = "".join(path.read_text() for path in sorted(Path(cs.__file__).parent.glob("*.py")))
    parts = [sources[at : at + 2048] for at in range(0, len(sources), 2048)]
    text = "\nref = 'Zq8Wm2Xn4Bv6Cl0Kj3Hg'\n".join(parts)
    return (text * (size // len(text) + 1))[:size]


def test_a_long_writes_search_costs_linearly_more(world: tuple[Path, Path]) -> None:
    small, large = _code(32 * 1024), _code(128 * 1024)
    assert cs._may_be_carried(small) and cs._may_be_carried(large)  # decoded whole, not stopped at the look
    _write_cost(world, small)  # compiled patterns, the stores' values cached
    assert _write_cost(world, large) < 8 * _write_cost(world, small)


def test_past_what_is_decoded_a_writes_search_costs_little_more(
    world: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past MAX_DECODED a text is searched as written only (a secret there is found as written: bounds test):
    four times as much text past it costs far less than four times as much decoded."""
    monkeypatch.setattr(cs, "MAX_TEXT", 16 * 1024)
    monkeypatch.setattr(cs, "OVERLAP", 1024)
    monkeypatch.setattr(cs, "MAX_DECODED", 32 * 1024)
    at_bound, past = _code(32 * 1024), _code(128 * 1024)
    _write_cost(world, at_bound)
    assert _write_cost(world, past) < 2 * _write_cost(world, at_bound)
    assert "credentials" in carried(world, "claude", "Write", {"file_path": "big.py", "content": f"{past} {SECRET}"})
