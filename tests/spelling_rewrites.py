"""Semantics-preserving re-spellings of a bash command line, for the spelling-invariance harness
(test_spelling_invariance.py). Each rewrite is a small pure function over the command text that returns None
where it would change what the line does; each cites the section of the Bash Reference Manual
(https://www.gnu.org/software/bash/manual/bash.html) that makes the two spellings equal.

The scanner here is the harness's own, deliberately independent of hookd's (a rewrite must not share the
analysis' mistakes): it finds the top-level words, operators and redirections of a line with the quoting
rules of "Quoting" and "Shell Expansions", and gives up (no rewrite) on what it does not model: here-documents.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import pairwise

from hookd.enrich.effects.catalogue import catalogue

# Bash Reference Manual, "Reserved Words" and "Shell Builtin Commands" (`compgen -k`, `compgen -b` of bash 5).
RESERVED = frozenset({
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in",
    "function", "time", "{", "}", "!", "[[", "]]", "coproc",
})  # fmt: skip
BUILTINS = frozenset({
    ".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command", "compgen", "complete",
    "compopt", "continue", "declare", "dirs", "disown", "echo", "enable", "eval", "exec", "exit", "export",
    "false", "fc", "fg", "getopts", "hash", "help", "history", "jobs", "kill", "let", "local", "logout",
    "mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray", "readonly", "return", "set", "shift",
    "shopt", "source", "suspend", "test", "times", "trap", "true", "type", "typeset", "ulimit", "umask",
    "unalias", "unset", "wait",
})  # fmt: skip
# Builtins that are also ordinary utilities with the same effect when run from the file system (POSIX
# "Utilities": kill, echo, printf, test, true, false, pwd), so that `env kill …` does what `kill …` does.
REGULAR_BUILTINS = frozenset(["kill", "echo", "printf", "test", "[", "true", "false", "pwd"])
# Declaration builtins parse their assignment arguments only when the command word is spelled plainly
# ("Bash Builtins", `declare`: "when the command word is ... not quoted"): they are left as they are.
DECLARATIONS = frozenset(["declare", "typeset", "local", "export", "readonly", "alias"])
# Words that start a compound command or pipeline and are followed by a command ("Compound Commands",
# "Pipelines"): the program word is the next one.
LEADING = frozenset(["if", "then", "else", "elif", "while", "until", "do", "!", "{", "time"])
SKIP_SEGMENT = frozenset(["for", "select", "case", "function", "coproc", "[[", "fi", "done", "esac", "}", "]]"])

_PLAIN = re.compile(r"[A-Za-z0-9_./+-][A-Za-z0-9_./+:@%,-]*")
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")
_FUNC = re.compile(r"(?:^|[\s;&|(){}])(?:function\s+)?([A-Za-z_][\w.-]*)\s*\(\s*\)|function\s+([A-Za-z_][\w.-]*)")
# Names the line binds to something other than the program PATH finds ("Command Search and Execution": the
# hash table, `hash -p FILE NAME`; "Aliases", which a quoted word escapes): left as they are.
_REBOUND = re.compile(r"\bhash\s+(?:-\w+\s+)*-p\s*\S+\s+([\w.-]+)|\balias\s+([\w.-]+)=")
_OPS = ("&&", "||", "|&", ";;", ";", "|", "&", "(", ")", "\n")
_REDIR = re.compile(r"\d*(?:<<<|<<-|<<|&>>|&>|>>|<>|<&|>&|>\||<|>)")


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # word, op, redir
    text: str
    start: int
    end: int


@dataclass(slots=True)
class Segment:
    """A simple command between control operators: its words (redirections and their targets left out)."""

    before: str  # the operator before it ("" at the start of the line)
    words: list[Token] = field(default_factory=list)
    redirected: bool = False
    program: int = -1  # index in words of the program word, -1 when there is none to rewrite
    assignments: int = 0  # assignment words before the program word


class Unmodelled(Exception):
    pass


def _skip_quoted(text: str, i: int) -> int:
    """The index after the quoted or expanded part starting at text[i] ("Quoting", "Command Substitution",
    "Shell Parameter Expansion")."""
    c = text[i]
    if c == "\\":
        return min(i + 2, len(text))
    if c in "'`":
        end = text.find(c, i + 1)
        if end < 0:
            raise Unmodelled("unclosed quote")
        return end + 1
    if text.startswith("$'", i):
        return _closing(text, i + 2, "'", escapes=True)
    if c == '"' or text.startswith('$"', i):
        return _closing(text, i + (2 if c == "$" else 1), '"', escapes=False)
    if text.startswith(("$(", "<(", ">(", "${"), i):
        return _balanced(text, i)
    return i + 1


def _closing(text: str, j: int, quote: str, *, escapes: bool) -> int:
    """After the closing `quote` from j: ANSI-C quotes skip escapes; double quotes skip what they expand."""
    while j < len(text) and text[j] != quote:
        if escapes:
            j += 2 if text[j] == "\\" else 1
        else:
            j = _skip_quoted(text, j) if text[j] in "\\$`" and _opens(text, j) else j + 1
    if j >= len(text):
        raise Unmodelled("unclosed quote")
    return j + 1


def _balanced(text: str, i: int) -> int:
    opener = text[i + 1]
    close = ")" if opener == "(" else "}"
    depth, j = 1, i + 2
    while j < len(text) and depth:
        ch = text[j]
        if ch in "'\"\\`" or (ch == "$" and _opens(text, j)):
            j = _skip_quoted(text, j)
            continue
        depth += (ch == opener) - (ch == close)
        j += 1
    if depth:
        raise Unmodelled("unclosed expansion")
    return j


def _opens(text: str, i: int) -> bool:
    return text[i] in "\\`" or text.startswith(("$(", "${", "$'", '$"'), i)


def tokens(text: str) -> list[Token]:
    out: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t":
            i += 1
            continue
        if c == "\\" and text.startswith("\\\n", i):
            raise Unmodelled("line continuation")
        if c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        redir = _REDIR.match(text, i)
        if redir and not text.startswith(("<(", ">("), i):
            if redir.group().lstrip("0123456789") in ("<<", "<<-"):
                raise Unmodelled("here-document")
            out.append(Token("redir", redir.group(), i, redir.end()))
            i = redir.end()
            continue
        op = next((o for o in _OPS if text.startswith(o, i)), None)
        if op:
            out.append(Token("op", op, i, i + len(op)))
            i += len(op)
            continue
        start = i
        while (i < n and text[i] not in " \t\n;&|()<>") or (i < n and text.startswith(("<(", ">("), i)):
            if text[i] in "'\"\\`" or (text[i] == "$" and _opens(text, i)) or text.startswith(("<(", ">("), i):
                i = _skip_quoted(text, i)
            else:
                i += 1
            if text[i : i + 1] == "(" and _ASSIGN.fullmatch(text[start:i]):  # `a=(x y)`: "Arrays"
                i = _balanced(text, i - 1)
        out.append(Token("word", text[start:i], start, i))
    return out


def segments(text: str) -> list[Segment]:
    """The simple commands of the line, each with its program word found (after assignments and leading
    reserved words)."""
    found: list[Segment] = []
    current = Segment("")
    pending_target = False
    for token in tokens(text):
        if token.kind == "op":
            found.append(current)
            current = Segment(token.text)
        elif token.kind == "redir":
            current.redirected = True
            pending_target = not token.text.endswith("-") and not re.fullmatch(r"\d*[<>]&\d+", token.text)
        elif pending_target:
            pending_target = False
        else:
            current.words.append(token)
    found.append(current)
    defined = {a or b for a, b in [*_FUNC.findall(text), *_REBOUND.findall(text)]}
    for segment in found:
        _find_program(segment, defined)
    return found


def _find_program(segment: Segment, defined: set[str]) -> None:
    words = segment.words
    i = 0
    while i < len(words) and words[i].text in LEADING:
        i += 1
    if i < len(words) and words[i].text in SKIP_SEGMENT:
        return
    while i < len(words) and _ASSIGN.match(words[i].text):
        segment.assignments += 1
        i += 1
    if i < len(words) and _PLAIN.fullmatch(words[i].text) and words[i].text not in RESERVED | DECLARATIONS | defined:
        segment.program = i


def _apply(text: str, edits: Iterable[tuple[int, int, str]], prefix: str = "") -> str | None:
    result = text
    edits = sorted(edits, reverse=True)
    if not edits:
        return None
    for start, end, new in edits:
        result = result[:start] + new + result[end:]
    return prefix + result


def _programs(text: str) -> list[tuple[Segment, Token]]:
    try:
        segs = segments(text)
    except Unmodelled:
        return []
    return [(s, s.words[s.program]) for s in segs if s.program >= 0]


def _external(name: str) -> bool:
    """A program the file system runs: not a builtin (bar the regular utilities), no path of its own."""
    return "/" not in name and (name not in BUILTINS or name in REGULAR_BUILTINS)


Rewrite = Callable[[str], str | None]


def program_word(spell: Callable[[str], str], external: bool = False) -> Rewrite:
    def rewrite(text: str) -> str | None:
        return _apply(
            text, [(w.start, w.end, spell(w.text)) for _, w in _programs(text) if not external or _external(w.text)]
        )

    return rewrite


def launched(launcher: str, *, anywhere: bool = True, bare: bool = False) -> Rewrite:
    """The program word run by a launcher that runs the rest of its words as a command (`env`, `nice`, …);
    `bare`: no assignment may come before it (`time`, `exec`)."""

    def rewrite(text: str) -> str | None:
        edits = []
        for segment, word in _programs(text):
            if not _external(word.text) or (bare and segment.assignments) or (not anywhere and segment.before == "|"):
                continue
            edits.append((word.start, word.start, launcher + " "))
        return _apply(text, edits)

    return rewrite


def in_subshell_exec(text: str) -> str | None:
    """Manual, "Bourne Shell Builtins" (`exec`: the command replaces the shell) and "Command Grouping" (`( … )`
    runs in a subshell): `(exec X args)` runs X args as X args does, when nothing follows in that segment's
    shell (no assignment before it, X not a builtin)."""
    try:
        segs = segments(text)
    except Unmodelled:
        return None
    edits = []
    for segment in segs:
        if segment.program < 0 or segment.assignments or segment.program or not _external(segment.words[0].text):
            continue
        if segment.redirected or segment.before == "(":
            continue
        edits += [(segment.words[0].start, segment.words[0].start, "(exec "), (segment.words[-1].end,) * 2 + (")",)]
    return _apply(text, edits)


def _definitions(text: str, define: Callable[[str, str], str], use: Callable[[str], str]) -> str | None:
    programs = _programs(text)
    names = sorted({w.text for _, w in programs})
    if not names:
        return None
    var = {name: f"_hp{i}" for i, name in enumerate(names)}
    prefix = "".join(define(var[name], name) for name in names)
    return _apply(text, [(w.start, w.end, use(var[w.text])) for _, w in programs], prefix)


def by_variable(text: str) -> str | None:
    """Manual, "Shell Parameter Expansion" and "Simple Command Expansion": the command word is expanded before
    it is looked up, so `c=rm; $c …` runs rm."""
    return _definitions(text, lambda v, name: f"{v}={name}; ", lambda v: f"${v}")


def by_function(text: str) -> str | None:
    """Manual, "Shell Functions": `f(){ X "$@"; }; f …` runs X with f's arguments ("Special Parameters", `$@`)."""
    return _definitions(text, lambda v, name: f'{v}(){{ {name} "$@"; }}; ', lambda v: v)


def by_array(text: str) -> str | None:
    """Manual, "Arrays": `"${a[@]}"` expands to each element as a word, so `a=(X); "${a[@]}" …` runs X."""
    return _definitions(text, lambda v, name: f"{v}=({name}); ", lambda v: f'"${{{v}[@]}}"')


def by_printf(text: str) -> str | None:
    """Manual, "Command Substitution": `$(printf X)` is replaced by X's text before the command is looked up."""
    return program_word(lambda w: f"$(printf {w})")(text)


def quote_empty(word: str) -> str:
    """Manual, "Quote Removal": an empty quoted string in a word is removed (`r''m` is `rm`)."""
    return word[0] + "''" + word[1:]


def quote_double_first(word: str) -> str:
    """Manual, "Double Quotes" and "Quote Removal": `"r"m` is `rm`."""
    return f'"{word[0]}"{word[1:]}'


def quote_backslash(word: str) -> str:
    """Manual, "Escape Character": `\\rm` is `rm` (a backslash before a character that is not special)."""
    return "\\" + word


def quote_ansi_c(word: str) -> str:
    """Manual, "ANSI-C Quoting": `$'\\x72\\x6d'` is `rm`."""
    return "$'" + "".join(f"\\x{ord(c):02x}" for c in word) + "'"


def quote_locale(word: str) -> str:
    """Manual, "Locale-Specific Translation": `$"rm"` is `rm` when no message catalogue translates it."""
    return f'$"{word}"'


def absolute(word: str) -> str:
    """Manual, "Command Search and Execution": a command name with a slash is run as that file, so
    `/usr/bin/rm` is `rm` where PATH finds /usr/bin/rm."""
    for folder in ("/usr/bin", "/bin", "/usr/sbin", "/sbin"):
        path = f"{folder}/{word}"
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return word


def absolute_path(text: str) -> str | None:
    rewritten = program_word(absolute, external=True)(text)
    return rewritten if rewritten != text else None


def _quote_single(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _one_line(text: str) -> bool:
    return "\n" not in text and "#" not in text


def _closer(text: str) -> str:
    if not _one_line(text):
        return "\n"
    return " " if text.rstrip().endswith("&") else "; "


_BASHISM = re.compile(r"\$'|\$\"|<<<|\[\[|\(\(|<\(|>\(|=\(|[{}]|&>|\|&|~[+-]|\bfunction\b|\bsource\b|\$\{!")


def _posix(text: str) -> bool:
    """A line dash (`/bin/sh` here) reads as bash does: none of bash's extensions ("Bash Features")."""
    return not _BASHISM.search(text)


def _parsed(text: str) -> bool:
    try:
        segments(text)
    except Unmodelled:
        return False
    return True


def wrap(template: str, posix: bool = False, needs_parse: bool = True) -> Rewrite:
    def rewrite(text: str) -> str | None:
        if (posix and not _posix(text)) or (needs_parse and not _parsed(text)):
            return None
        parts = {"q": _quote_single(text), "c": _closer(text), "t": text}
        return re.sub(r"\{([qct])\}", lambda m: parts[m.group(1)], template)

    return rewrite


# Home directory spellings: Manual, "Tilde Expansion" (`~/` is `$HOME/`), "Shell Parameter Expansion"
# (`$HOME`, `"$HOME"`), and the path itself; `~/./x` and `~/d/../d/x` name the same file (POSIX pathname
# resolution: `.` is the directory itself, `d/..` its parent when d is a directory).
_LITERAL_HOME = "${HOME}"  # the corpus runner's placeholder for the case's home directory's path


def _home_words(text: str) -> list[Token]:
    try:
        toks = tokens(text)
    except Unmodelled:
        return []
    return [t for t in toks if t.kind == "word"]


def home(spell: Callable[[str], str | None]) -> Rewrite:
    """`spell(rest)` re-spells `~/rest` (rest starts after the slash; None: not this word)."""

    def rewrite(text: str) -> str | None:
        edits = []
        for word in _home_words(text):
            if word.text.startswith("~/"):
                new = spell(word.text[2:])
                if new is not None:
                    edits.append((word.start, word.end, new))
        return _apply(text, edits)

    return rewrite


def _dotdot(rest: str) -> str | None:
    first, slash, tail = rest.partition("/")
    if not slash or not first or first in (".", "..") or not _PLAIN.fullmatch(first):
        return None
    return f"~/{first}/../{first}/{tail}"


def tilde_from(prefix: str) -> Rewrite:
    """The reverse: `$HOME/x` (or the home's own path) spelled `~/x`."""

    def rewrite(text: str) -> str | None:
        return _apply(
            text, [(w.start, w.start + len(prefix), "~") for w in _home_words(text) if w.text.startswith(prefix + "/")]
        )

    return rewrite


# Option spellings, from the program's option table in hookd's catalogue (its `same`: the long name of a short
# option, from the program's manual): getopt(3) clusters (`-rf` is `-r -f` is `-fr`) and getopt_long(3) long
# names and their unambiguous prefixes (GNU programs and git).


def _option_words(text: str) -> list[tuple[Token, object]]:
    found: list[tuple[Token, object]] = []
    for segment, word in _programs(text):
        program = catalogue().get(word.text)
        if program is None or program.launcher is not None or program.runs:
            continue
        for option in segment.words[segment.program + 1 :]:
            if option.text == "--":
                break
            found.append((option, program))
    return found


_CLUSTER = re.compile(r"-[A-Za-z]{2,}")


def _flags(word: str, program: object) -> str | None:
    table = program.table  # type: ignore[attr-defined]
    if not _CLUSTER.fullmatch(word) or word in table.whole:
        return None
    letters = word[1:]
    if any(c in table.short_value for c in letters) or len(set(letters)) != len(letters):
        return None
    # Only letters the table documents as short options: `find -name`, `erl -noshell` are one option each.
    known = {k[1] for k in table.same if len(k) == 2} | {r[1] for r in program.recursive if len(r) == 2}  # type: ignore[attr-defined]
    return letters if set(letters) <= known else None


def split_cluster(text: str) -> str | None:
    """`-rf` as `-r -f` (POSIX "Utility Syntax Guidelines", guideline 5: options without values may be grouped)."""
    edits = []
    for word, program in _option_words(text):
        letters = _flags(word.text, program)
        if letters:
            edits.append((word.start, word.end, " ".join("-" + c for c in letters)))
    return _apply(text, edits)


def reorder_cluster(text: str) -> str | None:
    """`-rf` as `-fr` (guideline 5; the order of options without values does not matter)."""
    edits = []
    for word, program in _option_words(text):
        letters = _flags(word.text, program)
        if letters:
            edits.append((word.start, word.end, "-" + letters[::-1]))
    return _apply(text, edits)


def long_names(text: str) -> str | None:
    """`-rf` as `--recursive --force`: each short flag by its long name where the program's table has one."""
    edits = []
    for word, program in _option_words(text):
        same = program.table.same  # type: ignore[attr-defined]
        letters = _flags(word.text, program) or (
            word.text[1]
            if re.fullmatch(r"-[A-Za-z]", word.text) and word.text[1] not in program.table.short_value  # type: ignore[attr-defined]
            else None
        )
        if letters and all(same.get("-" + c, "").startswith("--") for c in letters):
            edits.append((word.start, word.end, " ".join(same["-" + c] for c in letters)))
    return _apply(text, edits)


def _takes_prefixes(program: object) -> bool:
    source = str(program.source)  # type: ignore[attr-defined]
    return "gnu.org" in source or "git-scm.com" in source


def long_prefix(text: str) -> str | None:
    """`--recursive` as `--recur`: getopt_long(3) accepts an unambiguous prefix of a long option (GNU programs and
    git, whose pages in the catalogue are the GNU manuals and git-scm.com)."""
    edits = []
    for word, program in _option_words(text):
        if not word.text.startswith("--") or len(word.text) < 6 or not _takes_prefixes(program):
            continue
        name, eq, value = word.text[2:].partition("=")
        table = program.table  # type: ignore[attr-defined]
        names = table.long_flags | table.long_value
        if name not in names:
            continue
        for cut in range(3, len(name)):
            prefix = name[:cut]
            if [n for n in names if n.startswith(prefix)] == [name]:
                edits.append((word.start, word.end, f"--{prefix}{eq}{value}"))
                break
    return _apply(text, edits)


def quote_operands(quote: Callable[[str], str]) -> Rewrite:
    """Operands that are plain literals (no tilde, glob or expansion), quoted: "Quote Removal"."""

    def rewrite(text: str) -> str | None:
        edits = []
        for segment, _ in _programs(text):
            for word in segment.words[segment.program + 1 :]:
                if _PLAIN.fullmatch(word.text) and not word.text.startswith("-") and word.text not in RESERVED:
                    edits.append((word.start, word.end, quote(word.text)))
        return _apply(text, edits)

    return rewrite


def ifs_between_words(text: str) -> str | None:
    """Manual, "Word Splitting": the unquoted expansion `${IFS}` splits into the words a space would, so
    `rm${IFS}-rf${IFS}x` is `rm -rf x`; only where the next word is not one the split would change (no tilde:
    "Tilde Expansion" only at a word's start; no assignment, redirection or reserved word)."""
    try:
        segs = segments(text)
    except Unmodelled:
        return None
    edits = []
    for segment in segs:
        words = segment.words
        if segment.program < 0 or segment.assignments or segment.redirected or segment.program:
            continue
        if words[0].text in BUILTINS - REGULAR_BUILTINS:
            continue
        for left, right in pairwise(words):
            if right.text.startswith("~") or "=" in right.text or right.text in RESERVED:
                break
            if text[left.end : right.start].strip(" ") == "" and right.start > left.end:
                edits.append((left.end, right.start, "${IFS}"))
    return _apply(text, edits)


REWRITES: dict[str, Rewrite] = {
    "quote-empty": program_word(quote_empty),
    "quote-double": program_word(quote_double_first),
    "quote-backslash": program_word(quote_backslash),
    "quote-ansi-c": program_word(quote_ansi_c),
    "quote-locale": program_word(quote_locale),
    "operands-single": quote_operands(lambda w: f"'{w}'"),
    "operands-double": quote_operands(lambda w: f'"{w}"'),
    "absolute-path": absolute_path,
    "command": launched("command"),
    "env": launched("env"),
    "env-i": launched("env -i PATH=$PATH"),
    "nice": launched("nice"),
    "nohup": launched("nohup"),
    "timeout": launched("timeout 60"),
    "setsid": launched("setsid"),
    "stdbuf": launched("stdbuf -o0"),
    "time": launched("time", anywhere=False, bare=True),
    "subshell-exec": in_subshell_exec,
    "sh-c": wrap("sh -c {q}", posix=True),
    "bash-c": wrap("bash -c {q}"),
    "eval": wrap("eval {q}"),
    "echo-pipe-sh": wrap("echo {q} | sh", posix=True),
    "here-string-sh": wrap("sh <<< {q}", posix=True),
    "subshell": wrap("( {t}{c})"),
    "group": wrap("{ {t}{c}}"),
    "if-true": wrap("if true; then {t}{c}fi"),
    "for-once": wrap("for _ in 1; do {t}{c}done"),
    "true-and": wrap("true && {t}"),
    "false-or": wrap("false || {t}"),
    "variable": by_variable,
    "function": by_function,
    "array": by_array,
    "printf": by_printf,
    "home-var": home(lambda rest: f"$HOME/{rest}"),
    "home-quoted": home(lambda rest: f'"$HOME"/{rest}'),
    "home-literal": home(lambda rest: f"{_LITERAL_HOME}/{rest}"),
    "home-dot": home(lambda rest: f"~/./{rest}"),
    "home-dotdot": home(_dotdot),
    "tilde-from-var": tilde_from("$HOME"),
    "tilde-from-literal": tilde_from(_LITERAL_HOME),
    "options-split": split_cluster,
    "options-reorder": reorder_cluster,
    "options-long": long_names,
    "options-prefix": long_prefix,
    "ifs": ifs_between_words,
}


def sample_key(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


# ---------------------------------------------------------------------------------------------------------------
# Wider families (issue 26, meta30): expansions, builtins and programs that hand the same words to the same
# program, and spellings of path operands. Same rule: None where the two spellings could differ.

_SAFE_NAME = re.compile(r"[A-Za-z0-9_.+-]+")  # a program word that reads the same inside any expansion


def _named(text: str) -> list[tuple[Segment, Token]]:
    return [(s, w) for s, w in _programs(text) if _SAFE_NAME.fullmatch(w.text)]


def _defined(
    text: str, define: Callable[[str, str], str], use: Callable[[str, str], str], ok: Callable[[str], bool] = bool
) -> str | None:
    """Each program word (passing `ok`) through its own variable: `define(var, name)` goes before the line,
    the word becomes `use(var, name)`."""
    programs = [(s, w) for s, w in _named(text) if ok(w.text)]
    names = sorted({w.text for _, w in programs})
    if not names:
        return None
    var = {name: f"_hp{i}" for i, name in enumerate(names)}
    prefix = "".join(define(var[name], name) for name in names)
    return _apply(text, [(w.start, w.end, use(var[w.text], w.text)) for _, w in programs], prefix)


def default_value(text: str) -> str | None:
    """Manual, "Shell Parameter Expansion": `${v:-word}` is word when v is null (`v=; ${v:-rm}` runs rm)."""
    return _defined(text, lambda v, _: f"{v}=; ", lambda v, name: f"${{{v}:-{name}}}")


def assign_default(text: str) -> str | None:
    """Manual, "Shell Parameter Expansion": `${v:=word}` assigns word to a null v and expands to it."""
    return _defined(text, lambda v, _: f"{v}=; ", lambda v, name: f"${{{v}:={name}}}")


def strip_prefix(text: str) -> str | None:
    """Manual, "Shell Parameter Expansion": `${v#word}` removes the shortest leading match of word
    (`v=_:rm; ${v#_:}` is rm)."""
    return _defined(text, lambda v, name: f"{v}=_:{name}; ", lambda v, _: f"${{{v}#_:}}")


def substitute(text: str) -> str | None:
    """Manual, "Shell Parameter Expansion": `${v/pattern/string}` replaces the first match (`v=:m; ${v/:/r}` is rm)."""
    return _defined(text, lambda v, name: f"{v}=:{name[1:]}; ", lambda v, name: f"${{{v}/:/{name[0]}}}")


def lower_case(text: str) -> str | None:
    """Manual, "Shell Parameter Expansion": `${v,,}` lower-cases every character (`v=RM; ${v,,}` is rm)."""
    return _defined(
        text,
        lambda v, name: f"{v}={name.upper()}; ",
        lambda v, _: f"${{{v},,}}",
        lambda w: w.isascii() and w == w.lower(),
    )


_UPPER = re.compile(r"[A-Z][A-Z0-9_]+")


def upper_case(text: str) -> str | None:
    """Manual, "Shell Parameter Expansion": `${v^^}` upper-cases every character; operands that are upper case (names
    of environment variables, refs) spelled from their lower case (`v=aws_secret; printenv ${v^^}`)."""
    words = [w for s, _ in _programs(text) for w in s.words[s.program + 1 :] if _UPPER.fullmatch(w.text)]
    names = sorted({w.text for w in words})
    if not names:
        return None
    var = {name: f"_hu{i}" for i, name in enumerate(names)}
    prefix = "".join(f"{var[n]}={n.lower()}; " for n in names)
    return _apply(text, [(w.start, w.end, f"${{{var[w.text]}^^}}") for w in words], prefix)


def indirect(text: str) -> str | None:
    """Manual, "Shell Parameter Expansion": `${!name}` expands the variable whose name is name's value."""
    return _defined(text, lambda v, name: f"{v}={name}; {v}_=_{v[1:]}; ", lambda v, _: f"${{!{v}_}}")


def printf_v(text: str) -> str | None:
    """Manual, "Bash Builtin Commands", printf: `-v var` assigns the output to var (`printf -v c %s rm; $c`)."""
    return _defined(text, lambda v, name: f"printf -v {v} %s {name}; ", lambda v, _: f"${v}")


def read_here_string(text: str) -> str | None:
    """Manual, "Bash Builtin Commands", read, and "Here Strings": `read -r c <<< rm; $c` runs rm."""
    return _defined(text, lambda v, name: f"read -r {v} <<< {name}; ", lambda v, _: f"${v}")


def declared(builtin: str) -> Rewrite:
    """Manual, "Bash Builtin Commands" (declare, export, readonly): `declare c=rm; $c` assigns as `c=rm` does."""

    def rewrite(text: str) -> str | None:
        return _defined(text, lambda v, name: f"{builtin} {v}={name}; ", lambda v, _: f"${v}")

    return rewrite


_POSITIONAL = re.compile(r"\$[@*#0-9]|\$\{[@*#0-9]|\bshift\b|\blocal\b|\breturn\b|\bset\b")


def local_in_function(text: str) -> str | None:
    """Manual, "Bash Builtin Commands", local, and "Shell Functions": the line as the body of a function called once,
    its program words from `local` variables; only for lines that use no positional parameter, `shift`,
    `set`, `local` or `return` (the only things a function body does differently)."""
    if _POSITIONAL.search(text) or not _parsed(text):
        return None
    programs = _named(text)
    names = sorted({w.text for _, w in programs})
    if not names:
        return None
    var = {name: f"_hp{i}" for i, name in enumerate(names)}
    body = _apply(text, [(w.start, w.end, f"${var[w.text]}") for _, w in programs])
    locals_ = "".join(f"local {var[n]}={n}; " for n in names)
    return f"_hpf(){{ {locals_}{body}{_closer(text)}}}; _hpf"


def aliased(text: str) -> str | None:
    """Manual, "Aliases": with `expand_aliases` set, the first word of a simple command is replaced by its alias; the
    alias must be defined on an earlier line (aliases are expanded when a line is read)."""
    programs = _named(text)
    names = sorted({w.text for _, w in programs})
    if not names:
        return None
    var = {name: f"_hpa{i}" for i, name in enumerate(names)}
    prefix = "shopt -s expand_aliases\n" + "".join(f"alias {var[n]}={n}\n" for n in names)
    return _apply(text, [(w.start, w.end, var[w.text]) for _, w in programs], prefix)


_HOME_PATH = re.compile(r"~/[A-Za-z0-9_./+-]*")


def brace_words(text: str) -> str | None:
    """Manual, "Brace Expansion": `{rm,-rf,x}` expands to the words `rm -rf x` (it runs before tilde expansion, so
    `{cat,~/x}` is `cat ~/x`); only simple commands of plain words (nothing a brace would change)."""
    try:
        segs = segments(text)
    except Unmodelled:
        return None
    edits = []
    for segment in segs:
        words = segment.words[segment.program :] if segment.program >= 0 else []
        if len(words) < 2 or segment.assignments or segment.redirected or segment.program:
            continue
        plain = all(_PLAIN.fullmatch(w.text) or _HOME_PATH.fullmatch(w.text) for w in words)
        if plain and not any("," in w.text for w in words):
            edits.append((words[0].start, words[-1].end, "{" + ",".join(w.text for w in words) + "}"))
    return _apply(text, edits)


def _simple(segment: Segment) -> bool:
    """A simple command this module can move whole: a program word, its operands, nothing else."""
    return segment.program >= 0 and not segment.assignments and not segment.redirected


def xargs_zero(text: str) -> str | None:
    """xargs(1) (GNU findutils): `printf '%s\\0' ARGS | xargs -0 PROG` runs `PROG ARGS` (input items split at
    NUL only, no quote or blank processing); only external programs (xargs runs no builtin), with operands,
    not reading a pipe (xargs gives PROG /dev/null for its standard input)."""
    try:
        segs = segments(text)
    except Unmodelled:
        return None
    edits = []
    for segment in segs:
        if not _simple(segment) or segment.before in ("|", "|&"):
            continue
        program, args = segment.words[segment.program], segment.words[segment.program + 1 :]
        if not args or not _external(program.text) or not _PLAIN.fullmatch(program.text):
            continue
        printed = " ".join(w.text for w in args)
        edits.append((program.start, args[-1].end, f"printf '%s\\0' {printed} | xargs -0 {program.text}"))
    return _apply(text, edits)


_PATHISH = re.compile(
    r"(?:~|\$\{HOME\}|\$\{PROJECT\}|\.{1,2})?/[^\s'\"`$;&|()<>*?\[\]{}=,:]*|\.[^\s'\"`$;&|()<>*?\[\]{}=,:/]+"
)


def find_exec(text: str) -> str | None:
    """find(1): `find P -maxdepth 0 -exec PROG ARGS {} +` runs `PROG ARGS P` once (-maxdepth 0: only the
    starting point; `{} +` appends it); only where P, the last word, is a path (not an option or a word find
    would read as an expression), the program external and no word already holds `{}`."""
    try:
        segs = segments(text)
    except Unmodelled:
        return None
    edits = []
    for segment in segs:
        if not _simple(segment):
            continue
        program, args = segment.words[segment.program], segment.words[segment.program + 1 :]
        if not args or not _external(program.text) or not _PLAIN.fullmatch(program.text):
            continue
        last = args[-1].text
        if not _PATHISH.fullmatch(last) or any("{}" in w.text for w in args):
            continue
        middle = " ".join(w.text for w in args[:-1])
        run = f"{program.text} {middle}".rstrip()
        edits.append((program.start, args[-1].end, f"find {last} -maxdepth 0 -exec {run} {{}} +"))
    return _apply(text, edits)


def heredoc_bash(text: str) -> str | None:
    """Manual, "Here Documents": `bash <<'EOF'` reads the script from a quoted here-document, which undergoes no
    expansion, so the lines run as typed."""
    if not _parsed(text) or "_HOOKD_EOF" in text:
        return None
    return f"bash <<'_HOOKD_EOF'\n{text}\n_HOOKD_EOF"


def process_substitution(runner: str) -> Rewrite:
    """Manual, "Process Substitution": `bash <(printf '%s\\n' LINE)` runs the script printf writes into the pipe
    (`source <(…)` runs it in the current shell, "Bourne Shell Builtins")."""

    def rewrite(text: str) -> str | None:
        if not _parsed(text):
            return None
        return f"{runner} <(printf '%s\\n' {_quote_single(text)})"

    return rewrite


def continuation(text: str) -> str | None:
    """Manual, "Escape Character": a backslash-newline pair is a line continuation, removed from the input, so
    `rm \\<newline> -rf x` is `rm -rf x`."""
    try:
        segs = segments(text)
    except Unmodelled:
        return None
    edits = []
    for segment in segs:
        if segment.program < 0:
            continue
        for left, right in pairwise(segment.words):
            if right.start > left.end and text[left.end : right.start].strip(" ") == "":
                edits.append((left.end, right.start, " \\\n  "))
    return _apply(text, edits)


_NUMBER = re.compile(r"(-?)(0*)([0-9]+)")


def arithmetic(text: str) -> str | None:
    """Manual, "Arithmetic Expansion": `$((9))` is 9; numeric operands spelled so (a leading zero kept outside, where
    `$((0755))` would read octal)."""
    edits = []
    for segment, _ in _programs(text):
        for word in segment.words[segment.program + 1 :]:
            m = _NUMBER.fullmatch(word.text)
            if m and (m.group(3)[0] != "0" or not m.group(2)):
                edits.append((word.start, word.end, f"{m.group(1)}{m.group(2)}$(({m.group(3)}))"))
    return _apply(text, edits)


def command_p(text: str) -> str | None:
    """Manual, "Bash Builtin Commands", command: `-p` searches a default PATH that finds the standard utilities; only
    programs that are in /usr/bin or /bin here."""
    edits = []
    for _, word in _programs(text):
        if _external(word.text) and absolute(word.text) != word.text:
            edits.append((word.start, word.start, "command -p "))
    return _apply(text, edits)


def builtin_word(text: str) -> str | None:
    """Manual, "Bash Builtin Commands", builtin: `builtin cd x` runs the builtin cd (no function or alias is defined
    by the line for it)."""
    edits = [
        (w.start, w.start, "builtin ")
        for _, w in _programs(text)
        if w.text in BUILTINS - DECLARATIONS - {"builtin", "command", "."} and _SAFE_NAME.fullmatch(w.text)
    ]
    return _apply(text, edits)


def set_positional(text: str) -> str | None:
    """Manual, "Bourne Shell Builtins", set: `set -- ARGS` sets the positional parameters, and `"$@"` ("Special
    Parameters") expands to each as a word, so `{ set -- -rf x; rm "$@"; }` is `rm -rf x`; only lines that do
    not use the positional parameters themselves."""
    if _POSITIONAL.search(text):
        return None
    try:
        segs = segments(text)
    except Unmodelled:
        return None
    edits = []
    for segment in segs:
        if not _simple(segment) or segment.words[segment.program].text in BUILTINS - REGULAR_BUILTINS:
            continue
        program, args = segment.words[segment.program], segment.words[segment.program + 1 :]
        if args:
            words = " ".join(w.text for w in args)
            edits.append((program.start, args[-1].end, f'{{ set -- {words}; {program.text} "$@"; }}'))
    return _apply(text, edits)


# Path operands. A path is re-spelled only as an operand of a program whose operands are all files (the
# words of `echo`, a regex of `grep`, a ref of `git` are text, not paths), and only by a spelling POSIX
# pathname resolution (Base Definitions 4.13; path_resolution(7)) resolves to the same file: `a//b` is `a/b`,
# `a/./b` is `a/b` (a a directory: it must be one for either to resolve), `a/` names a directory,
# `a/../a/b` is `a/b` when a is a directory that is not a symbolic link.
FILE_PROGRAMS = frozenset({
    "rm", "rmdir", "unlink", "shred", "cat", "tac", "nl", "head", "tail", "cp", "mv", "touch", "stat",
    "ls", "file", "wc", "base64", "strings", "chmod", "chown", "chgrp", "du", "tee", "mkdir", "sha256sum",
    "md5sum", "readlink", "realpath",
})  # fmt: skip
# Programs whose first operand is a mode or an owner, not a file.
MODE_FIRST = frozenset(["chmod", "chown", "chgrp"])
# Programs that do not read HOME (unlike `less`, `git`, `ssh`, shells): a HOME set for them changes nothing
# but what `~` expands to.
HOME_FREE = FILE_PROGRAMS
_ROOTS = ("~/", "${HOME}/", "${PROJECT}/", "/")
_PATH_WORD = re.compile(r"(?:~|\$\{HOME\}|\$\{PROJECT\})?[A-Za-z0-9_./@-]*")


def _root(word: str) -> str | None:
    """The leading part of an absolute path word that is a directory whatever the world (None: relative)."""
    return next((r for r in _ROOTS if word.startswith(r)), None)


def _placeholder(word: str) -> str:
    """The path with `~` as the corpus runner's `${HOME}`; a relative one below the cwd, `${PROJECT}`."""
    if word.startswith("~/"):
        return "${HOME}/" + word[2:]
    if word == "~":
        return "${HOME}"
    return word if word.startswith(("/", "${")) else "${PROJECT}/" + word.removeprefix("./")


@dataclass(frozen=True, slots=True)
class World:
    """What the rewrites may know about a case's files: the directories its world makes (placeholders kept),
    and the paths that are symbolic links."""

    dirs: frozenset[str] = frozenset()
    links: frozenset[str] = frozenset()

    @classmethod
    def of(cls, world: object) -> World:
        if not isinstance(world, dict):
            return cls()
        names = [*dict(world.get("files", {})), *dict(world.get("links", {}))]
        dirs = {str(p) for name in names for p in list(_parents(name))}
        return cls(frozenset(dirs), frozenset(dict(world.get("links", {}))))

    def directory(self, path: str) -> bool:
        """Known to be a directory that is not a symbolic link (the world's, or this machine's outside it)."""
        if path in ("${HOME}", "${PROJECT}", "/"):
            return True
        if any(path == link or path.startswith(link + "/") for link in self.links):
            return False
        if path in self.dirs:
            return True
        if path.startswith("${"):
            return False
        return os.path.isdir(path) and os.path.realpath(path) == path.rstrip("/")


def _parents(name: str) -> Iterable[str]:
    parts = name.split("/")
    for i in range(1, len(parts)):
        parent = "/".join(parts[:i])
        if parent and parent not in ("${HOME}", "${PROJECT}"):
            yield parent


WorldRewrite = Callable[[str, World], str | None]


def _path_operands(text: str) -> list[tuple[Token, str]]:
    """Operands of file programs that are plain paths: (token, its text); relative ones only when the line
    does not change directory first."""
    moves = re.search(r"\b(?:cd|pushd|popd)\b", text) is not None
    found = []
    for segment, word in _programs(text):
        if word.text not in FILE_PROGRAMS:
            continue
        first = word.text in MODE_FIRST
        for operand in segment.words[segment.program + 1 :]:
            w = operand.text
            if w.startswith("-") or not _PATH_WORD.fullmatch(w) or w in (".", "..") or w.isdigit():
                continue
            if first:
                first = False
                continue
            if _root(w) is None and moves and not w.startswith(("~", "$")):
                continue
            found.append((operand, w))
    return found


def path_family(spell: Callable[[str, World], str | None]) -> WorldRewrite:
    def rewrite(text: str, world: World = World()) -> str | None:
        edits = []
        for token, word in _path_operands(text):
            new = spell(word, world)
            if new is not None and new != word:
                edits.append((token.start, token.end, new))
        return _apply(text, edits)

    rewrite.uses_world = True  # type: ignore[attr-defined]
    return rewrite


def _double_slash(word: str, _: World) -> str | None:
    root = _root(word)
    rest = word[len(root) :] if root else word
    head, slash, tail = rest.partition("/")
    if not slash or not head or not tail:
        return None
    return f"{root or ''}{head}//{tail}"


def _dot_after_root(word: str, _: World) -> str | None:
    root = _root(word)
    return f"{root}./{word[len(root) :]}" if root and len(word) > len(root) else None


def _trailing_slash(word: str, world: World) -> str | None:
    if word.endswith("/") or not world.directory(_placeholder(word).rstrip("/")):
        return None
    return word + "/"


def _dotdot_first(word: str, world: World) -> str | None:
    root = _root(word) or ""
    rest = word[len(root) :]
    head, slash, tail = rest.partition("/")
    if not slash or not head or head in (".", "..") or not tail:
        return None
    if not world.directory(_placeholder(root + head)):
        return None
    return f"{root}{head}/../{head}/{tail}"


def _relative(spell: Callable[[str], str]) -> Callable[[str, World], str | None]:
    def rewrite(word: str, _: World) -> str | None:
        return None if _root(word) is not None or word.startswith(("./", "~", "$")) else spell(word)

    return rewrite


def change_directory(enter: str) -> WorldRewrite:
    """`cd D && PROG … rel` ("Bourne Shell Builtins", cd; `pushd`, "Directory Stack Builtins"), in a subshell
    so the rest of the line keeps its directory: one absolute or home path operand, taken relative to a
    directory above it that surely exists (the home, the project, `/`, or one of this machine's); the other
    words options or numbers (a relative operand would move with the directory)."""

    def rewrite(text: str, world: World = World()) -> str | None:
        try:
            segs = segments(text)
        except Unmodelled:
            return None
        edits = []
        for segment in segs:
            if not _simple(segment) or segment.words[segment.program].text not in FILE_PROGRAMS - {"source", "."}:
                continue
            args = segment.words[segment.program + 1 :]
            paths = [a for a in args if _root(a.text) and _PATH_WORD.fullmatch(a.text)]
            others = [a for a in args if a not in paths]
            if len(paths) != 1 or any(not (a.text.startswith("-") or a.text.isdigit()) for a in others):
                continue
            path = paths[0].text
            root = _root(path) or ""
            rest = path[len(root) :]
            head, slash, tail = rest.partition("/")
            into, rel = (root.rstrip("/") or "/", rest)
            if root == "/" and slash and tail and world.directory("/" + head):
                into, rel = "/" + head, tail
            if not rel:
                continue
            start = segment.words[segment.program].start
            inner = text[start : paths[0].start] + rel + text[paths[0].end : args[-1].end]
            edits.append((start, args[-1].end, f"({enter} {into} && {inner})"))
        return _apply(text, edits)

    rewrite.uses_world = True  # type: ignore[attr-defined]
    return rewrite


def home_set(text: str, world: World = World()) -> str | None:
    """Manual, "Tilde Expansion": `~/x` is `$HOME/x`, so with HOME set to D in a subshell, `(HOME=D; cat ~/x)`
    reads D/x; only for programs that do not read HOME themselves, and segments with no other `~` or HOME."""
    try:
        segs = segments(text)
    except Unmodelled:
        return None
    edits = []
    for segment in segs:
        if not _simple(segment) or segment.words[segment.program].text not in HOME_FREE:
            continue
        args = segment.words[segment.program + 1 :]
        homeish = [a for a in segment.words if "~" in a.text or "HOME" in a.text]
        paths = [a for a in args if _root(a.text) and _PATH_WORD.fullmatch(a.text) and a.text.count("/") >= 2]
        if not paths or len(homeish) > (1 if paths[0] in homeish else 0):
            continue
        path = paths[0].text.rstrip("/")
        directory, _, name = path.rpartition("/")
        if not name or not directory or directory in ("~", "${HOME}"):
            continue
        start = segment.words[segment.program].start
        inner = text[start : paths[0].start] + "~/" + name + text[paths[0].end : args[-1].end]
        edits.append((start, args[-1].end, f"(HOME={directory}; {inner})"))
    return _apply(text, edits)


home_set.uses_world = True  # type: ignore[attr-defined]


def operand_default(text: str) -> str | None:
    """Manual, "Shell Parameter Expansion": `${v:-word}` of a null v is word, tilde-expanded as an operand is (`v=; rm
    ${v:-~/x}`); plain operands and home paths."""
    edits = []
    for segment, _ in _programs(text):
        for word in segment.words[segment.program + 1 :]:
            if (_PLAIN.fullmatch(word.text) or _HOME_PATH.fullmatch(word.text)) and word.text not in RESERVED:
                edits.append((word.start, word.end, f"${{_hpo:-{word.text}}}"))
    return _apply(text, edits, "_hpo=; ") if edits else None


WIDER: dict[str, Rewrite | WorldRewrite] = {
    "brace-words": brace_words,
    "param-default": default_value,
    "param-assign-default": assign_default,
    "param-strip-prefix": strip_prefix,
    "param-substitute": substitute,
    "param-lower": lower_case,
    "param-upper": upper_case,
    "param-indirect": indirect,
    "operand-default": operand_default,
    "printf-v": printf_v,
    "read-here-string": read_here_string,
    "declare": declared("declare"),
    "export": declared("export"),
    "readonly": declared("readonly"),
    "local": local_in_function,
    "alias": aliased,
    "xargs": xargs_zero,
    "find-exec": find_exec,
    "heredoc-bash": heredoc_bash,
    "procsub-bash": process_substitution("bash"),
    "procsub-source": process_substitution("source"),
    "continuation": continuation,
    "arithmetic": arithmetic,
    "command-p": command_p,
    "builtin": builtin_word,
    "set-positional": set_positional,
    "path-double-slash": path_family(_double_slash),
    "path-dot": path_family(_dot_after_root),
    "path-trailing-slash": path_family(_trailing_slash),
    "path-dotdot": path_family(_dotdot_first),
    "path-pwd": path_family(_relative(lambda w: f'"$PWD"/{w}')),
    "path-dot-relative": path_family(_relative(lambda w: f"./{w}")),
    "cd-relative": change_directory("cd"),
    "pushd-relative": change_directory("pushd >/dev/null"),
    "home-set": home_set,
}
REWRITES.update(WIDER)  # type: ignore[arg-type]


def spell(name: str, text: str, world: object = None) -> str | None:
    """The rewrite `name` of a line; the world-aware ones see the case's `world`."""
    rewrite = REWRITES[name]
    if getattr(rewrite, "uses_world", False):
        return rewrite(text, World.of(world))  # type: ignore[call-arg]
    return rewrite(text)
