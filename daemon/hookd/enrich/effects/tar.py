"""The effects of `tar`, whose mode and archive come in several spellings (docs/policies.md, "The effect model")."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hookd.enrich.effects.archive_members import archive_members
from hookd.enrich.effects.ledger import Ledger, Place
from hookd.enrich.effects.options import Parsed
from hookd.enrich.facts import is_scratch, under
from hookd.enrich.paths import has_glob


def tar_effects(model: Ledger, parsed: Parsed, operands: list[str], place: Place, name: str) -> None:
    """What `tar` reads and writes: the archive, the files it adds (recursively), the directory it extracts
    into; old-style mode clusters (`tar czf x.tgz dir`) read as their options."""
    options = {o for o, _ in parsed.options}
    archive = next((v for o, v in parsed.options if o == "--file" and v is not None), None)
    first = parsed.spelled[1] if len(parsed.spelled) > 1 else ""
    old_style = first and not first.startswith("-")
    if old_style:
        options.update(
            "--extract" if c == "x" else "--create" if c == "c" else "--list" if c == "t" else "" for c in first
        )
        if "f" in first and operands[1:2] and archive is None:
            archive, operands = operands[1], [operands[0], *operands[2:]]
        operands = operands[1:]
    directory = next((v for o, v in parsed.options if o == "--directory" and v is not None), None)
    if "--extract" in options or "--get" in options:
        if archive:
            model.add("read", place(archive), name)
        whole = model.add("write", place(directory or "."), name, recursive=True)
        new_names = renamed_to(v for o, v in parsed.options if o in ("--transform", "--xform") and v)
        for member in [*operands, *new_names]:  # `tar -C ~ -xf a.tar .codex/hooks.json`: that member lands below DIR
            model.add("write", place(_below(directory, member)), name, recursive=True, member=True)
        listed = False
        if archive and archive != "-" and not operands:  # `tar -C ~ -xf dots.tar`: every member it holds now
            strip = next((v for o, v in parsed.options if o == "--strip-components" and v), "0")
            renamed = "--transform" in options or "--xform" in options or not strip.isdigit()
            listed = listed_writes(model, place(archive), directory, 0 if renamed else int(strip), place, name)
            whole.update({"listed": True} if listed else {})  # each name it writes is a write of its own
        if not listed and (not operands or any(has_glob(m) for m in operands)):
            unread_members(model, directory, place, name)  # read from a pipe, not there, another format, a pattern
        if "--absolute-names" in options or (old_style and "P" in first):
            # members named `/…` or `../…` are written there, wherever that is (GNU tar strips them otherwise)
            model.add("write", {"raw": "<archive members>", "path": "", "in_project": False}, name, known=False)
    elif "--create" in options or "--append" in options or "--update" in options:
        for word in _members(operands, directory, parsed.spelled):
            model.add("read", place(word), name, recursive=True)
        if archive and archive != "-":
            model.add("write", place(archive), name)
    elif archive:
        model.add("read", place(archive), name)


def renamed_to(expressions: Iterable[str]) -> list[str]:
    """Where `--transform 's,^x/,.git/hooks/,'` puts members: the literal start of each replacement (up to a
    back-reference), whatever names the archive holds (GNU tar, "Modifying File and Member Names": sed's `s`
    expressions, any delimiter, several joined by `;`); tar drops a leading `/` as it does from any member."""
    found = []
    for text in expressions:
        for expression in text.split(";"):
            if len(expression) > 3 and expression[0] == "s":
                parts = expression[2:].split(expression[1])
                literal = re.split(r"[\\&]", parts[1])[0].lstrip("/") if len(parts) > 2 else ""
                found += [literal.rstrip("/")] if literal.rstrip("/") else []
    return found


def _members(operands: list[str], directory: str | None, spelled: list[str]) -> list[str]:
    """The files an archive is made of: GNU tar reads the names after `-C DIR` (`--directory`) in DIR. The
    last directory given stands for every name written after its first `-C` (names before it stay in the cwd)."""
    if not directory:
        return operands
    first = next((k for k, w in enumerate(spelled) if w.startswith(("--directory", "-C"))), len(spelled))
    after = set(spelled[first:])
    base = directory.rstrip("/") or "/"
    return [f"{base}/{w}" if w in after and not w.startswith("/") else w for w in operands]


def _below(directory: str | None, member: str) -> str:
    return member if not directory else f"{directory.rstrip('/') or ''}/{member.lstrip('/')}"


_ONLY_LISTS = frozenset({"-l", "-t", "-v", "-z", "-Z", "-p", "-c"})  # unzip's listing, testing and printing


def _extracts(parsed: Parsed, spec: Mapping[str, Any]) -> bool:
    """Whether the call extracts: under one of the entry's subcommand `words` (7z's `x`, `e`), a `modes` option
    (`cpio -i`, `pax -r`) or a key holding one of its `letters` (`ar x`, `ar xv`), never under an `unless` option
    (`pax -rw` copies named files); an entry naming none of them extracts unless it only lists, tests or prints."""
    given = {o for o, _ in parsed.options}
    if not given.isdisjoint(spec.get("unless") or ()):
        return False
    words, modes, letters = spec.get("words") or (), spec.get("modes") or (), str(spec.get("letters", ""))
    first = parsed.operands[0] if parsed.operands else ""
    if not (words or modes or letters):
        return given.isdisjoint(_ONLY_LISTS)
    keyed = bool(letters) and first.isalpha() and not set(letters).isdisjoint(first)
    return first in words or not given.isdisjoint(modes) or keyed


def member_writes(model: Ledger, parsed: Parsed, spec: Mapping[str, Any], place: Place, name: str) -> None:
    """`unzip -o A.zip '.gemini/*' -d ~`, `7z x A.7z -o"$HOME" .codex/hooks.json`: each member (a name or a pattern
    of names) the operands after the archive name is written below the extraction directory, as tar's members
    are (a subcommand that drops the members' paths, `7z e`, writes their last names there); listing, testing or
    printing them (unzip's `-l`, `-t`, `-v`, `-z`, `-Z`, `-p`, `-c`; 7z's other subcommands) writes nothing. With no
    directory named the whole current directory is written (`cd ~ && unzip A.zip`, `ar x`, `pax -r`, `cpio -i`); the
    named one is written here under `directory_here` (cpio's -D, which also names where `-o` reads, has no op); an
    operand may name it (`directory_operand`: `python -m tarfile -e A.tar DIR`)."""
    if not _extracts(parsed, spec):
        return
    operands = list(parsed.operands)
    directory = next((v for o, v in parsed.options if o == spec["option"] and v), None)
    if "directory_operand" in spec and len(operands) > int(spec["directory_operand"]):
        directory = operands.pop(int(spec["directory_operand"]))  # `python -m tarfile -e A.tar DIR`
    if directory is None or spec.get("directory_here"):  # the members land there under names the line never shows
        model.add("write", place(directory or "."), name, recursive=True)
    flat = operands[:1] and operands[0] in (spec.get("flat") or ())
    after = int(spec.get("after", 1))
    for member in operands[after:]:
        landed = member.rstrip("/").rpartition("/")[2] if flat else member
        model.add("write", place(_below(directory, landed)), name, recursive=True, member=True)
    listed = False
    patterns = [m for m in operands[after:] if has_glob(m)]  # `unzip A.zip '*.ttf'`: the members they match
    if not flat and after and (len(operands) == after or (patterns and len(patterns) == len(operands) - after)):
        listed = listed_writes(model, place(operands[after - 1]), directory, 0, place, name, patterns)
    if not listed and (len(operands) <= after or patterns):
        unread_members(model, directory, place, name)  # `cpio -i`, `pax -r` read a pipe; `unzip A.zip '*rc'`


def listed_writes(
    model: Ledger,
    archive: Mapping[str, Any],
    directory: str | None,
    strip: int,
    place: Place,
    name: str,
    patterns: Sequence[str] = (),
) -> bool:
    """Each member of an archive on disk now written below the extraction directory (`strip` leading components
    dropped, GNU tar's `--strip-components`), or each one `patterns` select (unzip's wildcards match across `/`,
    as fnmatch's do); whether they were read (one not there, too large or of another format adds nothing here:
    `unread_members`)."""
    members = archive_members(str(archive.get("path") or ""))
    for member in members or ():
        if patterns and not any(fnmatch.fnmatchcase(member, pattern) for pattern in patterns):
            continue
        parts = [p for p in member.split("/") if p not in ("", ".")][strip:]
        if parts:
            model.add("write", place(_below(directory, "/".join(parts))), name, member=True)
    return members is not None


def unread_members(model: Ledger, directory: str | None, place: Place, name: str) -> None:
    """Members whose names hookd cannot read (an archive on a pipe, not there yet, compressed in a format not read
    here, over the budget, or selected by a pattern): the directory's write becomes a write of unknown names below
    it (`known: false`, asked unless that directory lies in the project or scratch space), as its own place says
    nothing of the startup files and settings that may land below it."""
    placed = place(directory or ".")
    path = str(placed.get("path") or "")
    where = "project" if under(path, model.project) else "scratch" if is_scratch(path + "/x") else "elsewhere"
    unknown: dict[str, Any] = {"known": False, "members": "unread", **({"fixed": where} if path else {})}
    written = [e for e in model.effects if e["op"] == "write" and e["recursive"] and e["path"] == path]
    if path and written:
        written[-1].update(unknown)
    else:
        model.add("write", placed, name, recursive=True, **unknown)
