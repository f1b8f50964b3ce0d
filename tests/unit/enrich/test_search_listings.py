"""The names a search prints (`grep -rl`, `rg -l`, `rg --files`, `git grep -l`). Review46 found them read as a listing
of the searched directory only: a read was judged as that directory's, whose `.env` files the rules do not look for
(`grep -rl API_KEY . | xargs cat` passed with a live key in `.env`), and a reader in another directory (`rg --files |
(cd ~ && xargs cat)`) read the same names there. Since benign45 a recursive names-only search of one root is read as
`find ROOT -type f` for what xargs is fed (hookd.enrich.effects.listings): every file below the root where the reader
runs is judged, so both readings are (test_content_listings.py has the rest); the other searches stay unknown."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, effects


def _unknown(command: str, proj: Path) -> list[str]:
    return [e["op"] for e in effects(command, proj) if e.get("known") is False]


@pytest.mark.parametrize(
    ("command", "op"),
    [
        ("git grep --name-only Sink | xargs cat", "read"),
        ("grep -r Sink src | xargs cat", "read"),  # lines, not names
        ("grep -Rl Sink src | xargs cat", "read"),  # links followed
        ("rg -l Sink src tests | xargs cat", "read"),  # two roots
    ],
)
def test_the_names_other_searches_print_stay_unknown(command: str, op: str, proj: Path) -> None:
    assert op in _unknown(command, proj)


def test_review46s_readings_are_judged(proj: Path) -> None:
    (proj / ".env").write_text("API_KEY=live\n")
    reads = {e["path"] for e in effects("grep -rl API_KEY . | xargs cat", proj) if e["op"] == "read" and e["known"]}
    assert str(proj / ".env") in reads
    away = effects("rg --files --hidden | (cd ~ && xargs cat)", proj)
    assert f"{HOME}/**/*" in {e["path"] for e in away if e["op"] == "read"}
