"""Where the command a launcher runs starts (`prlimit … CMD`, `uv run CMD`, `ip netns exec NAME CMD`), from
the catalogue's `launcher` entries (data/programs.json, and `argv` hooks derived from GTFOBins)."""

from __future__ import annotations

from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.options import OptionTable


def launched(name: str, argv: list[str], i: int) -> int | None:
    """The index of the launched command's program word in `argv` (the launcher's name is at i - 1), or None
    when this use of the program launches nothing."""
    program = catalogue().get(name)
    if program is None or program.launcher is None:
        return None
    launcher, table = program.launcher, program.table
    if launcher.after:
        found = next((k for k in range(i, len(argv)) if argv[k] in launcher.after), None)
        return found + 1 if found is not None and found + 1 < len(argv) else None
    alternatives = [list(a) for a in launcher.subcommands]
    wanted: list[str] = []
    fixed = launcher.fixed
    n = len(argv)
    while i < n:
        word = argv[i]
        if word == "--":
            i += 1
            if wanted or alternatives:
                return None
            break
        if len(word) > 1 and word[0] == "-":
            i += 1 + value_words(word, table)
            continue
        if alternatives:
            wanted = next((a for a in alternatives if a[0] == word), [])
            if not wanted:
                return None
            alternatives = []
            wanted.pop(0)
            i += 1
            continue
        if wanted:
            if word != wanted[0]:
                return None
            wanted.pop(0)
            i += 1
            continue
        if fixed > 0:
            fixed -= 1
            i += 1
            continue
        break
    while i < n - 1 and (argv[i].isdigit() or argv[i] in ("-", "+")):  # a value the table does not know of
        i += 1
    return i if i < n and not wanted and not alternatives else None


def value_words(word: str, table: OptionTable) -> int:
    """How many words after the option `word` are its value (0, 1, or its arity: `bwrap --bind SRC DEST`)."""
    if word.startswith("--"):
        name = table.long_name(word.partition("=")[0][2:])
        return table.arity.get("--" + name, 1) - ("=" in word) if name in table.long_value else 0
    if word in table.whole:
        return 1
    for k in range(1, len(word)):
        if word[k] in table.short_value:
            return int(k == len(word) - 1)
    return 0
