"""A link farm's manager (`stow`, programs.json `link_farm`): each file below a package directory (DIR/PACKAGE) is
linked at the same path below the target directory, as `ln -s DIR/PACKAGE/F TARGET/F` does; `--adopt` first moves
the target's file of that path into the package (the target's file becomes the package's, and the link then
shows the package's text: a later checkout of the package restores its own text through the link); `--delete`
removes the links. The package is listed as it is on disk now (effects/landed.py), at most LISTED files; past them
what is linked is unknown."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.landed import landed_files
from hookd.enrich.effects.ledger import Ledger, Place
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.program import Program


def farm_links(ledger: Ledger, program: Program, parsed: Parsed, place: Place) -> None:
    farm = program.link_farm
    given = dict(parsed.options)
    if not farm or any(o in given for o in farm.get("simulate", ())):
        return
    directory = str(place(_home(str(given.get(farm["dir"]) or "."), ledger.home))["path"] or "")
    target = str(place(_home(str(given.get(farm["target"]) or ".."), ledger.home))["path"] or "")
    if not directory or not target:
        return
    if not given.get(farm["target"]):
        target = posixpath.dirname(directory.rstrip("/")) or "/"  # the stow directory's parent
    adopts, deletes = _any(given, farm, "adopt"), _any(given, farm, "deletes")
    for package in parsed.operands:
        source = f"{directory.rstrip('/')}/{package}"
        files, complete = landed_files(source)
        for relative in files:
            shown = _dotted(relative) if _any(given, farm, "dotfiles") else relative
            link, linked = place(f"{target.rstrip('/')}/{shown}"), place(f"{source}/{relative}")
            if deletes:
                ledger.add("delete", link, program.name)
                continue
            if adopts:
                ledger.add("move", link, program.name, to=linked)
                ledger.add("write", linked, program.name, target_of="move")
            ledger.add("link", linked, program.name, to=link)
            ledger.add("write", link, program.name, target_of="link")
        if not complete:
            ledger.add(
                "write", {"raw": f"<files of {source}>", "path": "", "in_project": False}, program.name, known=False
            )


def _any(given: Mapping[str, str | None], farm: Mapping[str, Any], key: str) -> bool:
    names = farm.get(key)
    return isinstance(names, list) and any(name in given for name in names)


def _home(word: str, home: str) -> str:
    return home + word[1:] if word == "~" or word.startswith("~/") else word


def _dotted(relative: str) -> str:
    """`--dotfiles`: a part of the package's path named `dot-X` is linked as `.X`."""
    return "/".join("." + part[4:] if part.startswith("dot-") else part for part in relative.split("/"))
