"""The effect model's data files hold each key once per object: JSON lets a later duplicate replace an earlier one
silently, so two entries for one program (two engineers adding it the same day) would leave only the second's
fields and drop the first's judgements without a word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DATA = sorted((Path(__file__).resolve().parents[3] / "daemon" / "hookd").rglob("*.json"))


def _unique(pairs: list[tuple[str, object]]) -> dict[str, object]:
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    assert not repeated, f"keys given twice in one object: {repeated}"
    return dict(pairs)


@pytest.mark.parametrize("path", DATA, ids=lambda p: p.name)
def test_a_data_file_gives_each_key_once(path: Path) -> None:
    json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=_unique)


def test_the_data_files_are_found() -> None:
    assert any(path.name == "programs.json" for path in DATA)
