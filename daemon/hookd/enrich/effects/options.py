"""GNU-style option parsing driven by a program's option table (data/programs.json): clustered short
options (`-rf`, `-qc CMD`), a short option's value attached or in the next word, `--long=value` and
`--long value`, and unambiguous prefixes of long options (`--har` is `--hard` when nothing else of the
program's long options starts so), as getopt_long(3) accepts them. Linear in the words."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class OptionTable:
    short_value: frozenset[str] = frozenset()  # short letters that take a value
    long_value: frozenset[str] = frozenset()  # long names (without `--`) that take a value
    long_flags: frozenset[str] = frozenset()  # long names that take none
    same: Mapping[str, str] = field(default_factory=dict)  # `-e` -> `--rsh`: one name for both spellings
    whole: frozenset[str] = frozenset()  # single-dash words that are one option with a value (`-ex`, `-in`)
    arity: Mapping[str, int] = field(default_factory=dict)  # options taking more than one word (`--arg N V`)
    whole_flags: frozenset[str] = frozenset()  # single-dash words that are one option without a value (`-list`)
    ends: frozenset[str] = frozenset()  # an option after whose value every word is an operand (`python -m MOD …`)
    # short letters whose value is only what follows them in the word, in a form of its own (`perl -l[octnum]`:
    # `-lane` is -l -a -n -e, and `-l -e CODE` gives -l no value)
    short_optional: Mapping[str, re.Pattern[str]] = field(default_factory=dict)
    verbs: frozenset[str] = frozenset()  # a first operand that names what it does, not a file (`yq eval-all EXPR F`)

    def long_name(self, given: str) -> str:
        """The long option `given` (without `--`) names: itself, or the one long option it is a prefix of."""
        if given in self.long_value or given in self.long_flags:
            return given
        found = [n for n in self.long_value if n.startswith(given)]
        found += [n for n in self.long_flags if n.startswith(given)]
        return found[0] if len(found) == 1 else given


@dataclass(slots=True)
class Parsed:
    options: list[tuple[str, str | None]]  # canonical name (`--hard`, `-x` when it has no long name), value
    operands: list[str]
    spelled: list[str]  # the argv with each long option written out in full (`--har` -> `--hard`)


EMPTY_TABLE = OptionTable()


def parse(argv: list[str], table: OptionTable, start: int = 1) -> Parsed:
    """The options and operands of `argv[start:]` (argv[0] is the program)."""
    options: list[tuple[str, str | None]] = []
    operands: list[str] = []
    spelled = list(argv[:start])
    i, n = start, len(argv)
    verb = False
    while i < n:
        word = argv[i]
        i += 1
        if word == "--":
            spelled.append(word)
            operands.extend(argv[i:])
            spelled.extend(argv[i:])
            break
        if len(word) < 2 or word[0] != "-":
            if not operands and word in table.verbs and not verb:
                verb = True
                spelled.append(word)
                continue
            operands.append(word)
            spelled.append(word)
            continue
        if word[1] == "-":
            given, eq, value = word[2:].partition("=")
            name = table.long_name(given)
            spelled.append("--" + name + (eq + value if eq else ""))
            if not eq and name in table.long_value and i < n:
                value, eq = argv[i], "="
                spelled.append(argv[i])
                i += 1
            i = _extra(argv, i, "--" + name, table, spelled)
            options.append(("--" + name, value if eq else None))
            continue
        head, eq, attached = word.partition("=")
        if head in table.whole or word in table.whole_flags:
            spelled.append(word)
            whole_value: str | None = attached if eq else None
            if not eq and i < n and word not in table.whole_flags:
                whole_value = argv[i]
                spelled.append(argv[i])
                i += 1
            options.append((table.same.get(head, head), whole_value))
            continue
        spelled.append(word)
        i = _cluster(word, argv, i, table, (options, spelled))
        if options and options[-1][0] in table.ends and options[-1][1] is not None:  # the module's own words
            operands.extend(argv[i:])
            spelled.extend(argv[i:])
            break
    return Parsed(options, operands, spelled)


def _cluster(
    word: str, argv: list[str], i: int, table: OptionTable, out: tuple[list[tuple[str, str | None]], list[str]]
) -> int:
    """The short options of `-abc`, the first that takes a value ending it (attached, or the next word)."""
    options, spelled = out
    k = 1
    while k < len(word):
        letter = word[k]
        name = table.same.get("-" + letter, "-" + letter)
        if letter in table.short_value:
            value = word[k + 1 :]
            if not value and i < len(argv):
                value = argv[i]
                spelled.append(argv[i])
                i += 1
            options.append((name, value))
            break
        form = table.short_optional.get(letter)
        found = form.match(word, k + 1) if form is not None else None
        attached = found.group(0) if found is not None else ""
        options.append((name, attached or None))
        k += 1 + len(attached)
    return i


def _extra(argv: list[str], i: int, name: str, table: OptionTable, spelled: list[str]) -> int:
    """Skips the further words of an option that takes more than one (`jq --arg NAME VALUE`)."""
    more = table.arity.get(name, 1) - 1
    if more > 0:
        spelled.extend(argv[i : i + more])
        return min(len(argv), i + more)
    return i
