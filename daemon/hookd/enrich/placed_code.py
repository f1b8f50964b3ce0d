"""The text a copy, move or link puts in a file (holes45): `cp x.sh Makefile`, `mv x.sh Makefile`, `install -m 644 x
Makefile`, `ln -sf x Makefile` leave at the destination what the source holds, so the file is judged as a write of
that text would be (later_code.left_by_shell): the text the line wrote into the source, else the source's text on
disk (read at decision time, TOCTOU: the source may change before the copy runs; this widens what is judged, never a
reason to allow). Where that text cannot be known (the line downloaded, decoded or changed the source unseen, the
source is no regular file, it is too long), a destination that an everyday command loads from the project unnamed
(data/project_loaded.json: a Makefile for `make`, package.json for `npm test`, conftest.py for `pytest`) holds code
run later that the line does not show: asked."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hookd.enrich.holdings import head
from hookd.types import JSON

_DATA = Path(__file__).parent / "effects" / "data" / "project_loaded.json"
MAX_PLACED_TEXT = 16 * 1024  # a source past this is text not known (as configtext.MAX_PLACED)
MAX_PLACED_FILES = 8  # copies of one line whose sources are read; past them each is text not known
_UNSEEN = ("fetch", "decode")  # what a line made with a text it does not show (ledger.produce)
_WHEN = "a file an everyday command loads from the project, copied from a text the line does not show"


@functools.cache
def _loaded_names() -> frozenset[str]:
    return frozenset(json.loads(_DATA.read_text(encoding="utf-8"))["names"])


def placed_text(
    effect: Mapping[str, Any], effects: list[dict[str, Any]], contents: Mapping[str, str], made: Mapping[str, str]
) -> tuple[bool, str | None]:
    """Whether the write `effect` puts a text the line does not show (downloaded or decoded onto the file, or into
    the source of its copy, move or link; a source that cannot be read), and the text where it is known. A source
    the line rewrote from the project's own files unseen (`jq … package.json > t && mv t package.json`) is neither:
    (False, None)."""
    path = str(effect["path"])
    kind = effect.get("target_of")
    if kind not in ("copy", "link", "move"):
        return made.get(path) in _UNSEEN, None
    if effect.get("recursive") and kind != "move":  # a tree's files are judged where they land (`landed_files`)
        return False, None
    sources = [str(e["path"]) for e in effects if e["op"] == kind and e.get("to") == path and e["path"]]
    if len(sources) != 1:
        return True, None
    source = sources[0]
    if source in contents:
        return True, contents[source]
    if source in made or any(e["path"] == source and e["op"] in ("write", "delete", "chmod") for e in effects):
        return made.get(source) in _UNSEEN, None
    text = head(source, MAX_PLACED_TEXT + 1)
    return True, text if text is not None and len(text) <= MAX_PLACED_TEXT else None


def unseen_loaded(path: str, program: str) -> list[dict[str, JSON]]:
    """A deferred exec of code not known when `path` is a file an everyday command loads unnamed."""
    if path.rpartition("/")[2] not in _loaded_names():
        return []
    return [{"op": "exec", "path": "", "known": False, "recursive": False, "to": "", "program": program,
             "via": "shell", "class": "unresolved", "code": {"lang": "text", "text": ""}, "deferred": True,
             "startup": path, "when": _WHEN}]  # fmt: skip
