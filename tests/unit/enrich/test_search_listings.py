"""The names a search prints (`grep -rl`, `rg -l`, `rg --files`, `git grep -l`) are not read as a listing of the
files below what it searched (review46): such a read was judged as the searched directory's, whose `.env` files
the rules do not look for (`grep -rl API_KEY . | xargs cat` passed with a live key in `.env`), and a reader in
another directory (`rg --files | (cd ~ && xargs cat)`) read the same names there. What xargs is fed stays unknown:
the rules ask, as they did before blind-benign-18."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects


def _unknown(command: str, proj: Path) -> list[str]:
    return [e["op"] for e in effects(command, proj) if e.get("known") is False]


@pytest.mark.parametrize(
    ("command", "op"),
    [
        ("grep -rl Sink src | xargs sed -i 's/Sink/Sinks/'", "write"),
        ("grep -Lr Sink src | xargs cat", "read"),
        ("rg -l --null 'TODO' src | xargs -0 perl -pi -e 's/a/b/'", "write"),
        ("rg --files --hidden | (cd ~ && xargs cat)", "read"),
        ("git grep --name-only Sink | xargs cat", "read"),
        ("grep -rl API_KEY . | xargs cat", "read"),
        ("grep -r Sink src | xargs cat", "read"),  # lines, not names
    ],
)
def test_the_names_a_search_prints_stay_unknown(command: str, op: str, proj: Path) -> None:
    assert op in _unknown(command, proj)
