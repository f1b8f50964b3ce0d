"""The protected places below a deleted directory walked as a tree (selfprotect_below.Below): the same places, in
the same order, as each place's chain of directories followed down (the former way, kept here), over random trees
of places and of what exists; each directory asked once at most, and nothing below one that is not there."""

from __future__ import annotations

import os
import random
from pathlib import Path

from hookd.selfprotect import _Index
from hookd.selfprotect_below import Below
from hookd.types import JSON


class _Counted(dict[str, bool]):
    """What a call looked up, counting each time a directory is asked of it."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def get(self, key: str, default: bool | None = None) -> bool | None:  # type: ignore[override]
        self.asked.append(key)
        return super().get(key, default)


def _by_chains(top: str, places: list[JSON], direct: bool, exists: dict[str, bool]) -> list[JSON]:
    """The former way: each place's chain of directories from `top` down to it, looked up until one is missing."""
    found = []
    for place in places:
        steps = [str(place["path"])]
        while steps[-1] != "/" and (parent := steps[-1].rpartition("/")[0] or "/") != top:
            steps.append(parent)
        there = True
        for step in reversed(steps):
            if step not in exists:
                exists[step] = os.path.lexists(step)
            if not exists[step]:
                there = False
                break
        if (direct and len(steps) == 1) or there:
            found.append(place)
    return found


def _world(tmp_path: Path, seed: int) -> tuple[str, list[JSON]]:
    """A home of a few directories and files, and places below it, some there and some not."""
    rng = random.Random(seed)
    home = tmp_path / f"home{seed}"
    home.mkdir()
    dirs = [".a", ".b", ".c", "d", ".config"]
    places: list[JSON] = []
    for _ in range(rng.randint(1, 40)):
        parts = [rng.choice(dirs) for _ in range(rng.randint(0, 3))] + [rng.choice([*dirs, "x.json"])]
        places.append({"path": str(home.joinpath(*parts)), "what": f"w{len(places)}"})
        made = home.joinpath(*parts[: rng.randint(1, len(parts))])
        if rng.random() < 0.4 and made.name == "x.json":
            made.parent.mkdir(parents=True, exist_ok=True)
            made.write_text("{}")
        elif rng.random() < 0.4 and made.name != "x.json":
            made.mkdir(parents=True, exist_ok=True)
    if rng.random() < 0.3:
        places.append(dict(places[0], what="the same path again"))
    return str(home), places


def test_the_same_places_in_the_same_order_as_each_chain_followed(tmp_path: Path) -> None:
    for seed in range(300):
        home, places = _world(tmp_path, seed)
        for direct in (True, False):
            want = _by_chains(home, places, direct, {})
            got = Below(home, places).existing(direct, {})
            assert [id(p) for p in got] == [id(p) for p in want], (seed, direct)


def test_each_directory_is_asked_once_and_none_below_one_missing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    agents = (".gemini", ".qwen", ".config")
    places: list[JSON] = [{"path": str(home / d / f), "what": ""} for d in agents for f in "abc"]
    places += [{"path": str(home / ".gemini" / "x" / f), "what": ""} for f in "abc"]
    exists = _Counted()
    found = Below(str(home), places).existing(False, exists)
    assert found == []
    assert sorted(exists.asked) == sorted(set(exists.asked))  # each chain followed asked .gemini 6 times
    assert str(home / ".gemini" / "x") not in exists.asked
    assert set(exists.asked) == {str(home / d) for d in (".gemini", ".qwen", ".config")} | {
        str(home / ".config" / f) for f in "abc"
    }


def test_a_delete_of_the_root_reaches_the_places_below_it(tmp_path: Path) -> None:
    places: list[JSON] = [{"path": str(tmp_path / "s"), "what": ""}, {"path": "/no-such-dir-cost50/x", "what": ""}]
    (tmp_path / "s").write_text("")
    assert Below("/", places).existing(False, {}) == places[:1]
    assert Below("/", places).existing(True, {}) == places[:1]


def test_the_index_hands_on_what_the_tree_finds(tmp_path: Path) -> None:
    home, places = _world(tmp_path, 7)
    index = _Index(places)
    near = index.near({home}, only_deleted={home})
    assert [id(p) for p in near] == [id(p) for p in _by_chains(home, places, True, {})]
