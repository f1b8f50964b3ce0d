"""A content search that prints only the names of the files it searches (`grep -rl PAT ROOT`, `rg -l PAT`, `rg
--files ROOT`: the catalogue's `lists_names`) lists, as `find ROOT -type f` does, names of files below ROOT (the
working directory when none is given), relative to where it runs; which of them hold PAT is known only when it runs.

So xargs fed them is judged twice: on the listed ROOT (the ledger's listing, `from_stdin`), and on every file below
ROOT where the reader runs (hookd.enrich.shell.searches reads the search as that find: `ROOT/**/*` matched on disk,
dot files too), so `grep -rl KEY . | xargs cat` reads `.env` and `rg --files | (cd ~ && xargs cat)` the home.
A loop's variable (`for f in $(grep -rl …)`, `… | while read f`) is not given the listing (`content`): it reaches
only the listed root, so its names stay unknown (asked), as before blind-benign-19."""

from __future__ import annotations

from typing import Any

from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.ledger import Ledger, Place
from hookd.enrich.effects.options import parse


def listing_find(argv: list[str]) -> list[str] | None:
    """`find ROOT -type f` for a names-only search of one ROOT; None where it would print others: not recursive, more
    roots, a root built at run time, links followed (`follows_links`: `grep -R`, `rg -L`, or a long option that may
    be an abbreviation of one)."""
    program = catalogue().get(argv[0].rsplit("/", 1)[-1]) if argv else None
    if program is None or not program.lists_names:
        return None
    parsed = parse(argv, program.table)
    given = {option for option, _ in parsed.options}
    if given.isdisjoint(program.lists_names) or (not program.recursive_always and given.isdisjoint(program.recursive)):
        return None
    if not given.isdisjoint(program.follows_links) or any(
        f.startswith(g) for g in given if g.startswith("--") for f in program.follows_links
    ):
        return None
    pattern = program.pattern_first and given.isdisjoint(program.pattern_options)  # (the first operand is PAT)
    roots = parsed.operands[1:] if pattern else parsed.operands
    if len(roots) > 1 or any("$" in r or "`" in r or r in ("-", "") for r in roots):
        return None
    return ["find", roots[0] if roots else ".", "-type", "f"]


def names_listed(ledger: Ledger, argv: list[str], name: str, place: Place) -> None:
    """The listing a names-only search makes of its ROOT: what xargs is fed next (`from_stdin`), never a loop's."""
    found = listing_find(argv)
    if found is not None:
        ledger.add("list", {**place(found[1]), "content": True}, name, recursive=True)


def loop_listing(listing: list[dict[str, Any]], selects: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """What a `read` or `for` loop is given of a listing: not a content search's (its names stay unknown); with what
    the search selects on disk (`selects`, placed with its matches: `./**/*`), which a read of each name is judged
    on too, as xargs's is (`for f in $(find . -type f); do cat "$f"; done` reads `.env`)."""
    given = [placed for placed in listing if not placed.get("content")]
    for placed in given if selects else ():  # (in place: the listing the loop's next command reads is the same)
        placed["selects"] = selects
    return given
