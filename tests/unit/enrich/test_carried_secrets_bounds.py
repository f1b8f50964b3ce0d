"""Where a carried secret hides from a bounded search (hookd.enrich.carried_secrets; review42's findings,
policies/README.md "review42's findings closed"): past the first window of a long text, behind many longer encoded
runs, as an object's key, nested deeper than a recursion would go, under an encoding of an encoding, written
backwards; and the compaction of a long text done in linear work."""

from __future__ import annotations

import base64
import random
import string
from pathlib import Path
from typing import Any

import pytest

from hookd.enrich import carried_secrets as cs
from hookd.types import JSON
from tests.unit.enrich.test_carried_secrets import SECRET, carried, carried_facts, world

__all__ = ["world"]  # the fixture, used by name


def _post(tool_input: dict[str, Any], world: tuple[Path, Path]) -> list[str]:
    return carried(world, "claude", "mcp__slack__post_message", {"channel_id": "C1", **tool_input})


def _decoys(count: int) -> str:
    chance = random.Random(7)
    return " ".join("".join(chance.choices(string.ascii_letters + string.digits, k=200)) for _ in range(count))


def _nested(depth: int, leaf: object) -> object:
    for _ in range(depth):
        leaf = {"blocks": [leaf]}
    return leaf


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


@pytest.mark.parametrize(
    "tool_input",
    [
        {"text": "log:\n" + "lorem ipsum dolor sit amet " * 12_000 + f"\nsig {SECRET}"},  # past the first window
        {"text": "log:\n" + "lorem ipsum dolor sit amet " * 12_000 + f"\nsig {_b64('k=' + SECRET)}"},
        {"text": f"hashes: {_decoys(40)} cfg {_b64('x=' + SECRET)}"},  # after longer runs
        {"text": "see metadata", "metadata": {"event_payload": {SECRET: "signing"}}},  # an object's key
        {"text": "see blocks", "metadata": _nested(60, {"text": f"sig {SECRET}"})},  # deeper than 8
        {"text": "blob " + _b64(_b64(f"x={SECRET}\n"))},  # an encoding of an encoding
        {"text": "blob " + _b64(_b64(f"x={SECRET}\n")).encode().hex()},
        {"text": f"ref {SECRET[::-1]}"},  # written backwards
    ],
)
def test_a_secret_hidden_from_a_bounded_search_is_found(tool_input: dict[str, Any], world: tuple[Path, Path]) -> None:
    assert _post(tool_input, world) == ["credentials"]


@pytest.mark.parametrize(
    "tool_input",
    [
        {"text": "log:\n" + "lorem ipsum dolor sit amet " * 12_000 + "\nsig Zq8Wm2Xn4Bv6Cl0Kj3Hg"},
        {"text": f"hashes: {_decoys(300)}"},
        {"text": "see metadata", "metadata": {"event_payload": {"Zq8Wm2Xn4Bv6Cl0Kj3Hg": "signing"}}},
        {"text": "blob " + _b64(_b64("x=Zq8Wm2Xn4Bv6Cl0Kj3Hg\n"))},
    ],
)
def test_a_look_alike_past_the_bounds_carries_nothing(tool_input: dict[str, Any], world: tuple[Path, Path]) -> None:
    assert _post(tool_input, world) == []


@pytest.mark.parametrize(
    ("rest", "past", "within"),
    [
        (f" sig {SECRET}", ["", "credentials"], ["credentials"]),  # as written: found, and the rest still said
        (f" sig {_b64('k=' + SECRET)}", [""], ["credentials"]),  # encoded: decoded within the bound only
        (" plain prose " * 4, [""], []),
    ],
)
def test_text_past_what_is_decoded_is_said_as_not_known(
    rest: str, past: list[str], within: list[str], world: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past MAX_DECODED a text is searched as written only; the fact says how much was left (`undecoded`), so
    a secret encoded there is asked about (policies/secret_moves), never passed as carrying nothing."""
    monkeypatch.setattr(cs, "MAX_TEXT", 16 * 1024)
    monkeypatch.setattr(cs, "OVERLAP", 1024)
    monkeypatch.setattr(cs, "MAX_DECODED", 32 * 1024)
    assert _post({"text": "lorem ipsum dolor sit amet " * 1300 + rest}, world) == past
    assert _post({"text": "lorem ipsum dolor sit amet " * 1100 + rest}, world) == within


def test_undecoded_text_counts_its_characters(world: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cs, "MAX_DECODED", 1024)
    found = _facts({"text": "a" * 1500, "more": "b" * 1030}, world)
    assert found == [{"file": "", "values": 0, "undecoded": 476 + 6}]


def _facts(tool_input: dict[str, Any], world: tuple[Path, Path]) -> list[JSON]:
    return carried_facts(world, "claude", "mcp__slack__post_message", {"channel_id": "C1", **tool_input})


def test_every_string_is_walked_keys_too_in_document_order() -> None:
    assert list(cs._strings({"a": ["b", {"c": "d"}], "e": 1})) == ["a", "b", "c", "d", "e"]
    assert list(cs._strings(_nested(5000, "deep"))) == ["blocks"] * 5000 + ["deep"]


@pytest.mark.parametrize("unit", ["ab\n", "7a54 3470\n", "00000010: 5139 774c  Q9wL\n"])
def test_compaction_work_grows_linearly_with_the_text(unit: str) -> None:
    def work(lines: int) -> int:
        runs = (cs._Runs(), cs._Runs())
        cs.compacted(unit * lines, runs)
        return sum(r.copied for r in runs)

    small, large = work(2_000), work(16_000)
    assert 0 < large <= 8 * small and large <= 4 * len(unit * 16_000)
