"""A file left with nothing of its own by a program that writes only what it reads (holes44). A filter's output holds
only what its inputs hold (programs.json `passes_input`: cat, sort, tee, sponge, …): given inputs that are all known
empty (null(4), a file empty on disk, a pipe that carries no text), each file it writes, but for an append, is
emptied, as `: > F` is. An in-place edit whose code prints no line (`in_place_silent`: `sed -i d F`, `perl -i -ne ''
F`) leaves each file it rewrites empty. `truncate -r REF` sizes each file as REF: one of no size empties them."""

from __future__ import annotations

import os
import re
import stat

from hookd.enrich.effects.catalogue import Program, catalogue
from hookd.enrich.effects.ledger import CommandView, Ledger
from hookd.enrich.effects.options import parse

EMPTY_DEVICES = frozenset(("/dev/null",))  # read as a file, it yields nothing (null(4)); zero(4) yields bytes


def emptied_writes(ledger: Ledger, view: CommandView, start: int) -> None:
    program = catalogue().get(view.name) if view.argv else None
    if program is None or not (
        program.passes_input or program.in_place_silent or program.sized_by or program.size_options
    ):
        return
    parsed = parse(view.argv, program.table)
    options = {option for option, _ in parsed.options}
    mine = ledger.effects[start:]
    reads = [str(e["path"]) for e in mine if e["op"] == "read" and not e.get("uses")]
    known = [e for e in mine if e["op"] == "write" and e["path"] and e["known"] and not e.get("target_of")]
    appended = {str(r.get("path") or "") for r in view.redirects if ">>" in str(r.get("op") or "")}
    already = {e["path"] for e in mine if e["op"] == "delete" and e.get("emptied")}  # `: > F`, filler devices
    writes = [e for e in known if e["path"] not in appended and e["path"] not in already]
    if not writes:
        return
    empty = False
    if program.passes_input and not options & program.append_options:
        stdin_empty = view.stdin == "text" and view.stdin_text == ""
        reads_stdin = not reads or "-" in parsed.operands  # `cat /dev/null -`: the pipe's text too
        empty = all(is_empty(ledger, p) for p in reads) and (stdin_empty or not reads_stdin)
    elif program.in_place_silent and program.writes_operands_in_place(parsed.options):
        empty = _prints_no_line(program, options, [str(e["code"].get("text", "")) for e in mine if e.get("code")])
    elif program.sized_by and any(o in program.sized_by for o in options):
        empty = bool(reads) and all(is_empty(ledger, p) for p in reads)
    elif size := next((v for o, v in parsed.options if o in program.size_options and v), None):
        writes = [e for e in writes if _sized_away(size, str(e["path"]))]
        empty = True
    for effect in writes if empty else ():
        ledger.add("delete", {"raw": effect.get("raw"), "path": effect["path"]}, program.name, emptied=True)
        ledger.emptied.add(str(effect["path"]))


_SIZE = re.compile(r"([-+<>/%]?)\s*([0-9]+)([KMGTPEZYRQ]?)(B|iB)?", re.IGNORECASE)


def _sized_away(size: str, path: str) -> bool:
    """A file there with bytes that `truncate -s SIZE` leaves empty: coreutils' SIZE, its unit a power of 1024 (of
    1000 with `B`), its prefix `-` (reduce by), `<` (at most), `/` (round down to a multiple), none (set to)."""
    spec = _SIZE.fullmatch(size.strip())
    try:
        now = os.stat(path).st_size if spec and os.path.isfile(path) else 0
    except (OSError, ValueError):
        now = 0
    if not spec or not now:
        return False
    sign, digits, unit, kind = spec.groups()
    power = "KMGTPEZYRQ".index(unit.upper()) + 1 if unit else 0
    n: int = int(digits) * (1000 if (kind or "").upper() == "B" else 1024) ** power
    return {"": n == 0, "<": n == 0, "-": n >= now, "/": n > now}.get(str(sign), False)


def _prints_no_line(program: Program, options: set[str], codes: list[str]) -> bool:
    """The edit's code prints no line: each of its scripts drops every line (sed's `d`), or the option that turns off
    the default print is given (sed's `-n`, perl's `-n` without `-p`) and no script has a word that prints."""
    silent = program.in_place_silent
    if not codes:
        return False
    if all(re.fullmatch(str(silent.get("drops_all", "(?!)")), code) for code in codes):
        return True
    quiet = options & set(silent.get("quiet", ())) and not options & set(silent.get("loud", ()))
    ignored = str(silent.get("ignores", "(?!)"))  # text that is no command: sed's patterns and replacements
    return bool(quiet) and not any(re.search(str(silent.get("prints", ".")), re.sub(ignored, "", c)) for c in codes)


def is_empty(ledger: Ledger, path: str) -> bool:
    """`path` yields no bytes: null(4), a file the line made empty, or a regular file empty on disk that the line did
    not write (one it wrote holds that text: `ledger.produced`)."""
    if path in EMPTY_DEVICES or path in ledger.emptied:
        return True
    if not path or ledger.made(path):
        return False
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(info.st_mode) and info.st_size == 0
