"""Whether an operand of a program the catalogue does not know may name a file (`Files.guess`): a path's marks (`.`,
`/`, `~`) in the word. A command substitution inside the word is a command, not part of the word: the shell puts
its output there (bash(1), "Command Substitution"). So the marks count only outside it, and a substitution counts
when it may print a file's name: its words name a place (a path, `~`, a glob, a redirection, another expansion), its
program takes files for operands in the catalogue (`$(cat list.txt)`, `$(realpath x.pem)` print names from there), or
its program prints its own words (POSIX echo, printf, basename, dirname: https://pubs.opengroup.org/onlinepubs/9799919799/
utilities/contents.html; `$(printf x.pem)` is `x.pem`), or it runs code (an interpreter's `-c`/`-e` prints anything).
A substitution whose words name no place and whose program
does neither (`$(adb shell pidof -s com.acme.app)`: a package name, `$(date +%Y.%m)`) prints what its program makes,
as a bare `$(foo bar)` does, which is not guessed either."""

from __future__ import annotations

import re
import shlex

from hookd.enrich.effects.catalogue import catalogue

_PATH_MARK = re.compile(r"[./~]")
_PLACE = re.compile(r"^[.~]|/|[*?\[]")  # a word written as a path, from the home, or a glob
_NO_FILES = frozenset({"", "none", "device"})  # a catalogue's operands that are not files named here
_PRINTS_ITS_WORDS = frozenset({"echo", "printf", "basename", "dirname"})  # their output is built from their operands


def may_name_a_file(value: str) -> bool:
    """`value`, an operand as written, may name a file once the shell has expanded it."""
    if "`" in value or "$(" not in value:
        return bool(_PATH_MARK.search(value))
    literal, scripts = _split(value)
    if scripts is None:
        return True  # an unterminated or unreadable substitution: as written
    return bool(_PATH_MARK.search(literal)) or any(_prints_a_name(script) for script in scripts)


def _split(value: str) -> tuple[str, list[str] | None]:
    """The word's text outside its outermost `$(…)` substitutions, and their scripts (None when one does not close)."""
    literal: list[str] = []
    scripts: list[str] = []
    i = 0
    while i < len(value):
        if value.startswith("$((", i):
            return value, None  # arithmetic: left as written
        if value.startswith("$(", i):
            end = _closing(value, i + 2)
            if end is None:
                return value, None
            scripts.append(value[i + 2 : end])
            i = end + 1
            continue
        literal.append(value[i])
        i += 1
    return "".join(literal), scripts


def _closing(value: str, i: int) -> int | None:
    """The index of the `)` closing the substitution whose script starts at `i`, stepping over quotes, escapes and
    nested parentheses; None when it does not close."""
    depth, quote = 0, ""
    while i < len(value):
        char = value[i]
        if quote:
            quote = "" if char == quote else quote
            i += 2 if char == "\\" and quote == '"' else 1
            continue
        if char in "'\"":
            quote = char
        elif char == "\\":
            i += 1
        elif char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return None


def _prints_a_name(script: str) -> bool:
    """The substitution `script` may print a file's name: see the module's account."""
    if any(mark in script for mark in "$`<>;&|\n"):
        return True  # another expansion, a redirection or another command: not read here
    try:
        words = shlex.split(script)
    except ValueError:
        return True
    words = [w for w in words if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", w)] or [""]
    if any(_PLACE.search(w) for w in words):
        return True
    name = words[0].rsplit("/", 1)[-1]
    program = catalogue().get(name)
    code = program is not None and bool(program.script_operand or program.runs)  # an interpreter prints anything
    shown = name in _PRINTS_ITS_WORDS or code or (program is not None and program.operands not in _NO_FILES)
    return shown and any("." in w for w in words[1:])
