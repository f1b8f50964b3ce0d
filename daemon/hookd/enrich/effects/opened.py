"""Files a program opens besides what its operand table says (docs/policies.md, "The effect model"): socat's
file addresses, the file an editor shows, the files a search tool's include filter reaches."""

from __future__ import annotations

from hookd.enrich.effects.catalogue import Program
from hookd.enrich.effects.ledger import Ledger, Place
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.words import SOCAT_FILES


def opened_effects(
    model: Ledger, program: Program, parsed: Parsed, operands: list[str], name: str, place: Place
) -> None:
    if program.socat:  # its file addresses: `OPEN:f`, `GOPEN:f`, `FILE:f` are read and written, `CREATE:f` written
        for word in parsed.operands:
            kind, _, rest = word.partition(":")
            if kind.upper() in SOCAT_FILES and rest:
                for op in SOCAT_FILES[kind.upper()]:
                    model.add(op, place(rest.split(",", 1)[0]), name)
    if program.editor:  # an editor shows the file it opens (`vim -es -c '%p' f`) besides writing it
        for word in operands:
            model.add("read", place(word), name)
    for option, value in parsed.options:  # `grep -r --include='*.env' .`, `rg -g '*.env'`: as globs
        if option in program.include_options and value and not value.startswith("!"):
            for root in operands or ["."]:
                model.add("read", place(root.rstrip("/") + "/" + value), name, include=True)
