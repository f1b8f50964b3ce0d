"""The expansions bash does on a command's words before it runs them, as far as they are known from the
command line itself: variables set earlier on it (`X=rm; $X -rf ~`), `$IFS` as a separator, brace
lists and ranges (`rm -{r,f}`, `{rm,-rf,~}`), `~` and `~user`, and a substitution whose output is
known because it only echoes literal words (`$(echo rm) -rf ~`). Owned by the policies engineer.

Whatever stays unknown keeps its `$`, so that the word is dynamic and a rule about it asks.
"""

from __future__ import annotations

import fnmatch
import functools
import json
import os
import re
from collections.abc import Mapping

from hookd.enrich.effects.catalogue import DATA
from hookd.enrich.effects.words import system_program
from hookd.enrich.paths import expand_tilde
from hookd.enrich.shell.arith import arithmetic
from hookd.enrich.shell.parser import _parse_script
from hookd.enrich.shell.runners import printed
from hookd.enrich.shell.tree import ARRAY_MARK, _Simple, _TooDeep
from hookd.enrich.shell.words import (
    BRACE_MARK,
    ELEMENTS_MARK,
    LITERAL_MARK,
    UNSPLIT_MARK,
    _dynamic,
    elements_key,
)

_VAR = re.compile(
    r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*(?:\[(?:[@*]|\d+)\])?|[1-9@*#])\}|([A-Za-z_][A-Za-z0-9_]*|[1-9@*#])"
    r"|\{([A-Za-z_][A-Za-z0-9_]*|[1-9])(:?[-?=+]|%%|%|##|#|//|/|,,|,|\^\^|\^)([^}$`]*)\}"
    r"|\{!([A-Za-z_][A-Za-z0-9_]*)\})"
)
_INNER_BRACE = re.compile(r"\{([^{}]*)\}")
_RANGE = re.compile(r"(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])")
_TILDE_USER = re.compile(r"~([a-z_][a-z0-9_-]*)(?=/|$)")
_MAX_WORDS = 256  # results of one brace expansion
_MAX_GROWTH = 4096  # words of one command before brace expansion stops
_MAX_BRACE_GROUPS = 64  # brace groups of one word expanded, one inside or after another
_MARKS = (BRACE_MARK, UNSPLIT_MARK, ELEMENTS_MARK, LITERAL_MARK)
_ELEMENTS_NAME = re.compile(r"\$\{?([@]|[A-Za-z_][A-Za-z0-9_]*\[@\])\}?")
# Where an expansion's value may be split into words: its blanks, and `$IFS` itself. Text of the word that no
# expansion made (a quoted part: `ruby${IFS}-e${IFS}'print 1'`) is never split ("Word Splitting").
_FIELD = "\x01"
_BLANKS = re.compile(r"\s")
_SUBST = re.compile(r"\$\(([^()`$]*)\)|`([^`$\\]*)`")  # no nesting (nor escapes in backquotes): unknown


def expand_words(words: list[str], variables: dict[str, str], home: str) -> list[str]:
    out: list[str] = []
    for given in words:
        if given.startswith(LITERAL_MARK):  # `'$x'`: its `$` are text (words.LITERAL_MARK)
            out.append(given[len(LITERAL_MARK) :])
            continue
        original = given.removeprefix(ELEMENTS_MARK)
        if len(original) < len(given):  # `"$@"`, `"${a[@]}"`: each element one word, when known
            elements = _elements(original, variables)
            if elements is not None:
                out.extend(_tilde(element, home, True) for element in elements)  # `a=(~/x)` expanded `~`
                continue
        if "$" not in original and "`" not in original and not original.startswith(_MARKS):
            out.append(_tilde(original, home, False) if original[:1] == "~" else original)  # nothing to expand
            continue
        if original.startswith(LITERAL_MARK):  # quoted text, expanded as before: a trap's or eval's shell will
            original = UNSPLIT_MARK + original[len(LITERAL_MARK) :]  # (only what echo prints of it is the text)
        marked = original.startswith(BRACE_MARK)
        quoted = original.startswith(UNSPLIT_MARK)
        word = original[len(BRACE_MARK) :] if marked or quoted else original
        if quoted and word.startswith(BRACE_MARK):  # `{cat,"$HOME"/.netrc}`: a list around quoted expansions
            marked, word = True, word[len(BRACE_MARK) :]
        split = False
        if "$((" in word:  # `$((OPTIND-1))`: its value, when the line shows it (arith.py); else unknown
            word = arithmetic(word, variables)
        if "$(" in word or "`" in word:
            word, split = _echoed(word, variables.get("HOME", home))
        if "$" in word:
            word, more = _substitute(word, variables, home)
            split = split or more
        if "$" in word:
            word = _numbered(word)
        pieces = _split(word, variables.get("IFS")) if split and not quoted else [word.replace(_FIELD, " ")]
        for piece in pieces:
            # every word is kept; only the growth by brace expansion is bounded (the input caps,
            # enrich/limits.py, then count the words there are)
            grown = braces(piece) if marked and len(out) < _MAX_GROWTH else [piece]
            out.extend(_tilde(result, home, marked or split) for result in grown)
    return out


def _elements(word: str, variables: dict[str, str]) -> list[str] | None:
    name = _ELEMENTS_NAME.fullmatch(word)
    joined = variables.get(elements_key(name.group(1))) if name else None
    if joined is None:
        return None
    return joined.split("\x00") if joined else []


def _substitute(word: str, variables: dict[str, str], home: str) -> tuple[str, bool]:
    """`word` with the known variables put in, and whether it is to be split into words again."""
    split = False
    word = _moved_directories(word, variables, variables.get("HOME", home))

    def value(match: re.Match[str]) -> str:
        nonlocal split
        indirect = match.group(6)  # `${!name}`: the variable name's value names
        name = match.group(1) or match.group(2) or match.group(3) or variables.get(indirect or "", "")
        if name == "IFS" and name not in variables:
            split = True
            return _FIELD
        known = variables.get(name) if name else None
        operator = match.group(4)
        if operator is not None and known is not None and operator[0] in "%#":  # `${x%/*}`, `${x##*/}`
            known = _trimmed(known, operator, match.group(5))
        elif operator is not None and known is not None and operator[0] in "/,^":  # `${x/a/b}`, `${x,,}`
            known = _changed(known, operator, match.group(5))
        elif operator is not None and known is not None:  # `${x:?}`, `${x:-d}`, `${x:+alt}` of a known variable
            if operator.endswith("+"):
                known = match.group(5) if known or operator == "+" else ""
            elif not known and operator.startswith(":") and not operator.endswith("?"):
                known = _tilde(match.group(5), variables.get("HOME", home), True)  # the word is tilde-expanded
            elif not known and operator.startswith(":"):
                return match.group()  # `${x:?}` of an empty x: the shell stops there
        if known is None:
            return match.group()
        split = split or any(c.isspace() or c in ifs for c in known)
        return _BLANKS.sub(_FIELD, known)

    ifs = variables.get("IFS", "")
    return _VAR.sub(value, word), split


# `${XDG_CONFIG_HOME:-$HOME/.config}`, `${ZDOTDIR:-~}`: a directory-moving variable with its own default
_MOVED = re.compile(r"\$\{([A-Z][A-Z0-9_]*)(:?[-=])((?:[^{}$`]|\$HOME\b|\$\{HOME\})*)\}")


@functools.cache
def _base_directories() -> Mapping[str, str]:
    table = json.loads((DATA / "base_directories.json").read_text(encoding="utf-8"))["variables"]
    return {name: str(entry["default"]) for name, entry in table.items()}


def _moved_directories(word: str, variables: dict[str, str], home: str) -> str:
    """`${VAR:-DEFAULT}` (`-`, `:=`, `=`) of a variable the line does not set that moves a directory of the user's
    (base_directories.json), whose DEFAULT is the one its specification gives: the directory, wherever the variable
    points, judged at its default place (a path below it keeps its meaning: `${ZDOTDIR:-~}/.zshrc` is zsh's startup
    file either way). Not where the daemon's own environment sets it elsewhere: hookd's places (its state, its
    log) are then there, and the user's shell may set it the same way."""

    def place(match: re.Match[str]) -> str:
        name, given = match.group(1), match.group(3)
        default = _base_directories().get(name)
        if default is None or name in variables:
            return match.group()
        spelled = _tilde(given.replace("${HOME}", home).replace("$HOME", home), home, True).rstrip("/")
        at = f"{home}/{default}" if default else home
        elsewhere = os.environ.get(name, "") not in ("", at)  # the daemon's own set elsewhere: the user's may be too
        return at if spelled == at.rstrip("/") and not elsewhere else match.group()

    return _MOVED.sub(place, word) if "${" in word else word


# The shell's parameters whose value is a number (bash(1), "Special Parameters", "Shell Variables"): the shell's
# pid, the last background job's, the last status, the count of arguments, and the counters bash sets itself.
_NAMES = "RANDOM|SRANDOM|PPID|BASHPID|SECONDS|LINENO|EPOCHSECONDS|UID|EUID"
_NUMBER = re.compile(rf"\$(?:[$!?#]|\{{[$!?#]\}}|\{{(?:{_NAMES})\}}|(?:{_NAMES})(?![A-Za-z0-9_]))")


# the shell's own pid (`$$`, `$BASHPID`) as a /proc entry: what the commands it runs share with it there is what
# they see as /proc/self (proc_pid_root(5): the root; the descriptors `exec N<F` opened)
_SHELL_PROC = re.compile(r"^/proc/+(?:\$\$|\$\{\$\}|\$BASHPID|\$\{BASHPID\})(?=/|$)")


def _numbered(word: str) -> str:
    """`temp.$$.json`, `/tmp/build-${RANDOM}`: a number stands where the shell puts one, so the rest of the word
    names the file (a word of the number alone stays as written: `kill $$` signals no process 0);
    `/proc/$$/root/…` is `/proc/self/root/…`."""
    word = _SHELL_PROC.sub("/proc/self", word)
    rest = _NUMBER.sub("", word)
    if rest == word or not rest.strip("-+0123456789") or "$" in rest or "`" in rest:
        return word
    return _NUMBER.sub("0", word)


def _split(word: str, ifs: str | None) -> list[str]:
    """Word splitting: at the blanks expansions gave (_FIELD), and at the characters of an `IFS` the line set
    (`IFS=,`)."""
    if not ifs or ifs.isspace():
        return [piece for piece in word.split(_FIELD) if piece]
    return [piece for piece in re.split("[" + re.escape(ifs) + _FIELD + "]+", word) if piece]


def _trimmed(value: str, operator: str, pattern: str) -> str:
    """`${x%pat}`, `${x%%pat}` (the shortest or longest suffix matching the glob `pat` removed), `${x#pat}`,
    `${x##pat}` (the same for a prefix), as the bash manual's "Shell Parameter Expansion" gives them."""
    ends = range(len(value) + 1)
    if operator[0] == "%":
        cuts = [k for k in ends if fnmatch.fnmatchcase(value[k:], pattern)]
        return value[: (min(cuts) if operator == "%%" else max(cuts))] if cuts else value
    cuts = [k for k in ends if fnmatch.fnmatchcase(value[:k], pattern)]
    return value[(max(cuts) if operator == "##" else min(cuts)) :] if cuts else value


def _changed(value: str, operator: str, spec: str) -> str | None:
    """`${x/pat/rep}` (`//`: every match), `${x,,}`/`${x^^}` (`,`/`^`: the first character) of a known
    value, as the bash manual's "Shell Parameter Expansion" gives them; None (unknown) for what this does not
    follow (a case pattern, an anchored or bracketed pattern)."""
    if operator[0] in ",^":
        if spec:
            return None
        change = str.lower if operator[0] == "," else str.upper
        return change(value) if len(operator) == 2 else change(value[:1]) + value[1:]
    pattern, _, replacement = spec.partition("/")
    if not pattern or pattern[0] in "#%" or any(c in pattern for c in "*?[\\") or "\\" in replacement:
        return None
    return value.replace(pattern, replacement, -1 if operator == "//" else 1)


def _echoed(word: str, home: str) -> tuple[str, bool]:
    """`word` with each substitution that only echoes literal words replaced by its output, and whether
    it is to be split into words again (quoting is not known here: splitting shows every word it may be)."""
    split = False

    def output(match: re.Match[str]) -> str:
        nonlocal split
        known = _echo_output(match.group(1) if match.group(1) is not None else match.group(2), home)
        if known is None:
            return match.group()
        split = split or any(c.isspace() for c in known)
        return _BLANKS.sub(_FIELD, known)

    return _SUBST.sub(output, word), split


def _echo_output(script: str, home: str, *, code: bool = False) -> str | None:
    """What `echo`/`echo -n` of literal words, or `printf` of a literal format and words, prints (without the
    trailing newlines a substitution drops), else None. A `~` the parse left (quoted, `~user`) is not known in
    a word's value; in `code`, text a shell parses itself (`bash <(printf …)`), it is part of the script."""
    tilde = "" if code else "~"
    try:
        block, error = _parse_script(script, home)
    except _TooDeep:
        return None
    if error is not None or len(block.items) != 1 or not isinstance(block.items[0], _Simple):
        return None
    command = block.items[0]
    words = [system_program(command.words[0]), *command.words[1:]] if command.words else command.words
    if command.assigns or command.redirects or command.subs or not words or words[0] not in ("echo", "printf"):
        return None
    # in code, a quoted `$` is the script's own (`bash <(printf 'echo $HOME')`); in a word's value, not known
    quoted = frozenset(w[len(LITERAL_MARK) :] for w in words if w.startswith(LITERAL_MARK)) if code else frozenset()
    words = [w.removeprefix(LITERAL_MARK) for w in words] if quoted else words
    if words[0] == "printf":  # `$(printf rm)`, `$(printf '\x2eenv')`: the text it prints, escapes decoded
        if any(_unknown(w, quoted, code) or w.startswith(_MARKS) or (tilde and tilde in w) for w in words):
            return None
        text = printed(words, quoted)
        return None if text is None or (("$" in text or "`" in text) and not quoted) else text.rstrip("\n")
    args = words[2:] if words[1:2] == ["-n"] else words[1:]
    if any(
        _unknown(w, quoted, code) or w.startswith(("-", BRACE_MARK)) or "\\" in w or (tilde and tilde in w)
        for w in args
    ):
        return None
    return " ".join(args)


def _unknown(word: str, quoted: frozenset[str], code: bool) -> bool:
    """A word of echo or printf whose text is not known: it holds an expansion, unless it is quoted text; in code
    (a command with no substitution of its own) a `<(`, `>(` is the script's own text (`'diff <(sort a) …'`)."""
    if word in quoted:
        return False
    return ("$" in word or "`" in word) if code else _dynamic(word)


def braces(word: str) -> list[str]:
    """Brace expansion of one word (lists and ranges, nested), at most _MAX_WORDS results. A word of more than
    _MAX_BRACE_GROUPS groups is what bash would build at run time, one word not known (each group scanned the whole
    word again: 12,000 nested, 1.9 s), as a range past _MAX_WORDS numbers is."""
    if word.count("{") > _MAX_BRACE_GROUPS:
        return [f"$(eval echo {word})"]
    match = next((m for m in _INNER_BRACE.finditer(word) if "," in m.group(1) or _RANGE.fullmatch(m.group(1))), None)
    if match is None:
        return [word]
    inside = match.group(1)
    ranged = _RANGE.fullmatch(inside)
    options = _range(ranged.group(1), ranged.group(2)) if ranged else inside.split(",")
    results: list[str] = []
    for option in options:
        results.extend(braces(word[: match.start()] + option + word[match.end() :]))
        if len(results) >= _MAX_WORDS:
            break
    return results[:_MAX_WORDS]


def _range(first: str, last: str) -> list[str]:
    if first.lstrip("-").isdigit() and last.lstrip("-").isdigit():
        a, b = int(first), int(last)
        step = 1 if b >= a else -1
        if abs(b - a) >= _MAX_WORDS:  # more numbers than are judged one by one: what `seq` would print, not known
            return [f"$(seq {a} {step} {b})"]
        return [str(n) for n in range(a, b + step, step)]
    if len(first) == len(last) == 1 and not first.isdigit() and not last.isdigit():
        a, b = ord(first), ord(last)
        step = 1 if b >= a else -1
        return [chr(n) for n in range(a, b + step, step)][:_MAX_WORDS]
    return [f"{first}..{last}"]


def _tilde(word: str, home: str, fresh: bool) -> str:
    """`~` of a word made here (by braces or a variable) is expanded as bash would; `~user` always (the
    parser leaves it): root's home is /root, another user's is taken to be /home/<user>."""
    if fresh and (word == "~" or word.startswith("~/")):
        return home + word[1:]
    user = _TILDE_USER.match(word)
    if user is not None:
        name = user.group(1)
        return ("/root" if name == "root" else f"/home/{name}") + word[user.end() :]
    return word


def expanded_text(words: list[str]) -> str:
    """The words the shell expands, joined: a word it took from single quotes (LITERAL_MARK) is text as written,
    so `script -qc 'p=x; echo "${p@P}"'` holds no expansion of its own (the script it runs is walked itself)."""
    return " ".join(w for w in words if not w.startswith(LITERAL_MARK))


def declared(pairs: list[list[str]], flags: str, home: str) -> list[tuple[str, str]]:
    """`declare`/`local` NAME=VALUE pairs as bash assigns them: `~` expanded, and a value in parentheses an array
    only with `-a`/`-A` (`declare c='(x y)'` is text; the word's quotes are gone here, so `declare c=(x y)`
    unflagged is taken as text too: its elements then unknown, never guessed)."""
    compound = ARRAY_MARK if set(flags) & set("aA") else ""
    return [(key, (compound if value[:1] == "(" else "") + expand_tilde(value, home)) for key, value in pairs]
