"""The builtins that change what the line's later commands see beyond plain assignments: the positional
parameters (`set --`, `shift`), a file sourced (`. FILE`), `coproc`, `getopts` (bash(1), SHELL BUILTIN COMMANDS)."""

from __future__ import annotations

import os

from hookd.enrich.shell.held_text import unheld
from hookd.enrich.shell.state import LineState, _Cwd
from hookd.enrich.shell.tree import ARRAY_MARK
from hookd.enrich.shell.words import _dynamic, elements_key
from hookd.enrich.sourced import sourced_text

# The descriptors bash gives a coprocess's pipes (any numbers: what matters is that they are numbers).
_COPROC_DESCRIPTORS = ("63", "60")


def line_builtin(state: LineState, argv: list[str], cwd: _Cwd) -> None:
    """A builtin that sets what later commands of the line see: the positional parameters, `. FILE`, `coproc`,
    `getopts`."""
    if argv[0] == "coproc":
        coprocess(state, argv)
    elif argv[0] == "getopts":
        options_end(state, argv)
    else:
        positional_builtin(state, argv, cwd)


def coprocess(state: LineState, argv: list[str]) -> None:
    """`coproc [NAME] COMMAND` (bash(1), Coprocesses): NAME[0] and NAME[1] (COPROC without a NAME, which is
    given only before a compound command) are the descriptors of its pipes, so `>&"${NAME[1]}"` duplicates a
    descriptor and writes no file; NAME_PID is its process id, known only when it runs."""
    name = argv[1] if len(argv) > 2 and argv[2] in ("{", "(") else "COPROC"
    state.forget([name, name + "_PID"])
    state.assign([(name, ARRAY_MARK + "(" + " ".join(_COPROC_DESCRIPTORS) + ")")])


def options_end(state: LineState, argv: list[str]) -> None:
    """`getopts SPEC NAME [ARG…]` (POSIX getopts; its words, or the positional parameters): OPTIND is the index
    of the first word after the options, which `shift $((OPTIND-1))` drops. Known only when that takes at most
    one call (one option, or none): then one call and a `while getopts` loop leave the same OPTIND."""
    spec = argv[1] if len(argv) > 2 else ""
    joined = state.variables.get(elements_key("@")) if len(argv) <= 3 else "\x00".join(argv[3:])
    words = joined.split("\x00") if joined else []
    steps, at = 0, 0
    while joined is not None and at < len(words) and words[at].startswith("-") and words[at] not in ("-", "--"):
        letter = words[at][1]
        takes = letter + ":" in spec
        steps += 1 if takes else len(words[at]) - 1
        at += 2 if takes and len(words[at]) == 2 else 1
    if words[at : at + 1] == ["--"]:
        at += 1
    fresh = state.variables.get("OPTIND", "1") == "1"  # where it starts: a line that moved it is not followed
    known = joined is not None and steps <= 1 and not any(_dynamic(w) for w in words[:at]) and not _dynamic(spec)
    state.forget(["OPTIND"])
    if known and fresh and at <= len(words):
        state.assign([("OPTIND", str(at + 1))])


def positional_builtin(state: LineState, argv: list[str], cwd: _Cwd) -> None:
    """`set [OPTION…] [--] ARG…` and `shift [N]`, the builtins that change the positional parameters (bash(1),
    SHELL BUILTIN COMMANDS): `set -e`, `set -o pipefail` leave them; `set -` and `set --` end the options;
    `shift` past `$#` fails and changes nothing; a count not known makes them unknown. And `. FILE`: the file
    may set any variable (an earlier call wrote it): none the line set is known after it, unless FILE is not
    there to read (the shell fails to read it and nothing changes; one the line writes, it walks itself)."""
    if argv[0] in (".", "source"):
        named = argv[1] if len(argv) > 1 else ""
        path = state.resolver.absolute(named, cwd.path) if cwd.known and not _dynamic(named) else ""
        if not path or (os.path.lexists(path) and sourced_text(path, state.resolver.project) is None):
            unheld(state.built)
            state.unread = True  # (and functions, aliases)
            state.variables.clear()  # (a project file it reads, enrich/sourced.py, was walked as the line's own)
        return
    if argv[0] == "shift":
        count = argv[1] if len(argv) > 1 else "1"
        joined = state.variables.get(elements_key("@"))
        if not count.isdigit() or joined is None:
            state.positional(None)
        elif int(count) <= len(args := joined.split("\x00") if joined else []):
            state.positional(args[int(count) :])
        return
    k = 1
    while k < len(argv) and len(argv[k]) > 1 and argv[k][0] in "-+" and argv[k] != "--":
        k += 2 if "o" in argv[k][1:] else 1  # `-o NAME`, `-euo pipefail`: the next word is the option's
    if k < len(argv) and argv[k] in ("--", "-", "+"):
        if argv[k] == "--" or k + 1 < len(argv):  # `set -` with nothing after leaves them
            state.positional(argv[k + 1 :])
    elif k < len(argv):
        state.positional(argv[k:])
