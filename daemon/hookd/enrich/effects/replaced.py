"""A compressor's files (`replaces` in data/programs.json): `gzip X` writes `X.gz` and removes X, `gzip -d X.gz`
(`gunzip`) writes X and removes `X.gz`, `-k` keeps the file it read, `-c`/`-t`/`-l` only read, `-r` does so to
every file below a directory; `lz4 A B` writes B, as `zstd -o F` writes F (gzip(1), xz(1), zstd(1), lz4(1))."""

from __future__ import annotations

from hookd.enrich.effects.ledger import Ledger, Place
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.program import Program


def replaced_files(
    ledger: Ledger, program: Program, parsed: Parsed, operands: list[str], place: Place, recursive: bool
) -> bool:
    """The effects of a compressor's operands; False when it only reads them (`-c`, `-t`, `-l`: its reader's
    ordinary read of each operand then stands)."""
    rule, name = program.replaces, program.name
    given = {o for o, _ in parsed.options}
    if given & set(rule.get("reads_only", ())):
        return False
    if rule.get("pair") and len(operands) == 2 and not given & set(rule.get("many", ())):
        ledger.add("read", place(operands[0]), name)
        ledger.add("write", place(operands[1]), name)
        return True
    suffix = next((v for o, v in parsed.options if o in rule.get("suffix_options", ()) and v), str(rule["suffix"]))
    unpacks = rule.get("default") == "decompress" or bool(given & set(rule.get("decompress", ())))
    named_elsewhere = any(program.option_ops.get(o, "").startswith("write") for o in given)
    keeps = bool(given & set(rule.get("keep", ()))) or (
        bool(rule.get("keeps")) and not given & set(rule.get("remove", ()))
    )
    for word in operands:
        if word == "-" or word.startswith(("<(", ">(")):
            continue  # stdin to stdout; a pipe from commands judged themselves
        ledger.add("read", place(word), name, recursive=recursive)
        if not named_elsewhere and unpacks and given & _STORED_NAME:  # `gunzip -N`: the name the archive stored
            ledger.add("write", {"raw": "${stored_name}", "path": ""}, name, guess=True)
        elif not named_elsewhere:
            made = word if recursive else _unpacked(word, suffix) if unpacks else word + suffix
            ledger.add("write", place(made), name, recursive=recursive)
        if not keeps:
            ledger.add("delete", place(word), name, recursive=recursive)
    return True


# gzip(1): `-N`/`--name` restores the name and time stamp the archive stored, wherever it points in the directory
_STORED_NAME = frozenset({"-N", "--name"})


def _unpacked(word: str, suffix: str) -> str:
    """The file a decompressor writes for `word`: its name less the suffix, or less its last extension (gzip
    also unpacks `.tgz` to `.tar`); a name with neither is the file itself (gzip tries `word.gz` and the other
    suffixes, and writes `word`: `gunzip ~/.bash_login` of `~/.bash_login.gz`)."""
    if word.endswith(suffix) and len(word) > len(suffix):
        return word[: -len(suffix)]
    base, dot, extension = word.rpartition(".")
    stem = base.rsplit("/", 1)[-1]
    return base if dot and stem and "/" not in extension else word
