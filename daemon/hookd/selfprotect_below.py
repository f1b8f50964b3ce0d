"""The protected places below a directory a call deletes, as the tree of directories down to them (derived once per
deleted path and kept: only names). A call walks it from the top: each directory on the way is looked up once, and
nothing below one that is not there (`rm -rf ~/`: 19 directories of the home, most of them agents' that are not
installed, instead of the 82 places' chains each followed down). Whether a directory exists is looked up on every
call: nothing about the file system is kept between calls."""

from __future__ import annotations

import os

from hookd.types import JSON


class Below:
    """The places below `top` (each a `{"path", "what"}`), found by `existing`."""

    def __init__(self, top: str, places: list[JSON]) -> None:
        self.top = top
        self._order = {id(place): n for n, place in enumerate(places)}
        self._children: dict[str, dict[str, None]] = {}  # a directory's next steps down, in the places' order
        self._at: dict[str, list[JSON]] = {}
        for place in places:
            path = str(place["path"])
            self._at.setdefault(path, []).append(place)
            while path != "/" and (parent := path.rpartition("/")[0] or "/") != top:
                self._children.setdefault(parent, {})[path] = None
                path = parent
            self._children.setdefault(top, {})[path] = None

    def existing(self, direct: bool, exists: dict[str, bool]) -> list[JSON]:
        """The places that exist, with each directory down to them; with `direct`, those right inside `top` whether
        they exist or not (an agent's settings directory is at hand when deleted). In the places' order. `exists`
        holds what this call looked up."""
        firsts = self._children.get(self.top, {})
        found = [place for step in firsts for place in self._at.get(step, ())] if direct else []
        stack = [step for step in firsts if not direct or step in self._children]
        while stack:
            step = stack.pop()
            there = exists.get(step)
            if there is None:
                there = exists[step] = os.path.lexists(step)
            if there:
                if not (direct and step in firsts):
                    found += self._at.get(step, ())
                stack += self._children.get(step, {})
        return sorted(found, key=lambda place: self._order[id(place)])
