"""Parse a shell command into `input.shell` (docs/policies.md).

Two stages, so that the slow part can be cached and the common case is fast:

1. *Parse* a script into a small tree (`_Block`, `_Pipe`, `_Simple`), cached per script text.
   A linear lexer (`_FastParser`) reads what agents mostly send: simple commands with any quoting,
   `$VAR`, `$(…)`, backticks, `<(…)`, `$((…))`, joined by pipes, `&&`/`||`/`;`/`&`/newlines, with
   redirects and here-documents. Anything else (subshells, groups, `if`/`for`/`while`, functions,
   comments, …) goes to bashlex (pure Python: ~1.5-3 ms where the lexer takes ~0.1 ms), whose AST
   is converted to the same tree. Where bashlex fails too, a shlex split of the text stands in and
   the error is reported.
2. *Build* the command objects: wrappers peeled, words resolved as paths against the directory the
   command runs in (followed through `cd`), `bash -c`/`sh -c`/`eval`/`su -c` scripts parsed
   recursively, pipeline numbers assigned.

Words are decoded from the source text by `_read_word` in both parse paths (quote removal, ANSI-C
`$'…'`, `~` and a leading `$HOME`), so both give the same argv. Nothing here raises: any failure
becomes `parse_error: true` with a best-effort split.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import bashlex
import bashlex.ast
import bashlex.errors
import bashlex.heredoc
import bashlex.subst

from hookd.enrich.paths import PathResolver, event_home
from hookd.types import NormalisedEvent, ToolKind

# --------------------------------------------------------------------------------------------------
# The parsed tree (shared through the cache: never mutated once built)


@dataclass(slots=True)
class _Redir:
    op: str
    target: str | None
    is_path: bool  # false for fd duplication (`2>&1`), here-documents and here-strings


@dataclass(slots=True)
class _Simple:
    assigns: list[tuple[str, str]]
    words: list[str]
    redirects: list[_Redir]
    subs: list[_Block]  # the substitutions inside its words and redirect targets, in order


@dataclass(slots=True)
class _Pipe:
    elements: list[_Item]  # two or more


@dataclass(slots=True)
class _Block:
    items: list[_Item]
    subshell: bool = False  # `( … )`, a function body: a `cd` inside does not leak out
    subst: bool = False  # `$(…)`, backticks, `<(…)`: one level deeper, its own pipelines
    redirects: list[_Redir] = field(default_factory=list)  # of a compound: apply to all inside


_Item: TypeAlias = _Simple | _Pipe | _Block

_EMPTY = _Block([])


class _Decline(Exception):
    """The fast lexer met something that only the full parser handles."""


class _Unsupported(Exception):
    """A bashlex node this module does not know; the caller falls back."""


class _TooDeep(Exception):
    """Substitutions nested beyond reason: every level gives up at once (retrying each level with
    bashlex would take seconds), and the builder falls back for the whole script."""


# --------------------------------------------------------------------------------------------------
# Words

_META = frozenset(" \t\n|&;()<>")
_PLAIN = re.compile(r"[^ \t\n|&;()<>\\'\"$`~]+")
_DQ_PLAIN = re.compile(r"[^\"\\$`]+")
_ANSI_PLAIN = re.compile(r"[^'\\]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_ARRAY_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\[")
_FD_DUP = re.compile(r"\d+-?|-")
_DIGITS = re.compile(r"\d+")
_OCT = re.compile(r"[0-7]{1,3}")
_HEX = {
    "x": re.compile(r"[0-9A-Fa-f]{1,2}"),
    "u": re.compile(r"[0-9A-Fa-f]{1,4}"),
    "U": re.compile(r"[0-9A-Fa-f]{1,8}"),
}
_ANSI_SIMPLE = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
    "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip
_SUBST_MARKS = ("$(", "`", "<(", ">(")


def _has_subst(text: str) -> bool:
    return any(mark in text for mark in _SUBST_MARKS)


def _dynamic(text: str) -> bool:
    """A word that still holds an expansion: where it points is not known before it runs."""
    return "$" in text or _has_subst(text)


def _skip_backtick(s: str, i: int) -> int:
    """`s[i]` is just after an opening backtick; returns the index after the closing one."""
    n = len(s)
    while i < n:
        c = s[i]
        if c == "`":
            return i + 1
        i += 2 if c == "\\" else 1
    raise _Decline


def _unescape_backtick(script: str) -> str:
    """Inside backticks a backslash quotes only `$`, a backtick and itself."""
    return re.sub(r"\\([$`\\])", r"\1", script)


def _skip_dquote(s: str, i: int) -> int:
    """`s[i]` is just after an opening `"` (in a substitution); returns the index after the closing one."""
    n = len(s)
    while i < n:
        c = s[i]
        if c == '"':
            return i + 1
        if c == "\\":
            i += 2
        elif c == "`":
            i = _skip_backtick(s, i + 1)
        elif s.startswith("$((", i):
            i = _match_arithmetic(s, i + 3)
        elif s.startswith("$(", i):
            i = _match_close(s, i + 2) + 1
        else:
            i += 1
    raise _Decline


def _heredoc_op(s: str, i: int) -> tuple[str, bool, bool, int]:
    """`s[i:]` starts with `<<` or `<<-`: (delimiter after quote removal, whether it was quoted,
    whether leading tabs are stripped, the index after the delimiter word)."""
    j = i + 2
    strip_tabs = s.startswith("-", j)
    j += strip_tabs
    while j < len(s) and s[j] in " \t":
        j += 1
    _, end = _read_word(s, j, "")
    raw = s[j:end]
    if not raw:
        raise _Decline
    return _unquote(raw), any(q in raw for q in "'\"\\"), strip_tabs, end


def _heredoc_body(s: str, i: int, delimiter: str, strip_tabs: bool) -> tuple[str, int]:
    """The body of a here-document whose first line starts at `s[i]`, and the index after it."""
    lines: list[str] = []
    n = len(s)
    while i < n:
        end = s.find("\n", i)
        if end < 0:
            end = n
        line = s[i:end].lstrip("\t") if strip_tabs else s[i:end]
        if line == delimiter:
            return "".join(lines), end + 1
        lines.append(line + "\n")
        i = end + 1
    raise _Decline  # delimited by end of file


def _skip_construct(s: str, i: int) -> int:
    """When `s[i]` starts an escape, a quote or a substitution, the index after it; else -1."""
    c = s[i]
    if c == "\\":
        return i + 2
    if c == "'":
        end = s.find("'", i + 1)
        if end < 0:
            raise _Decline
        return end + 1
    if c == '"':
        return _skip_dquote(s, i + 1)
    if c == "`":
        return _skip_backtick(s, i + 1)
    if c == "$" and s.startswith("((", i + 1):
        return _match_arithmetic(s, i + 3)
    if c in "$<>" and s.startswith("(", i + 1):
        if s.startswith("((", i + 1):
            raise _Decline
        return _match_close(s, i + 2) + 1
    return -1


def _match_arithmetic(s: str, i: int) -> int:
    """`s[i]` is just after `$((`; returns the index after the closing `))`."""
    n = len(s)
    depth = 0
    while i < n:
        c = s[i]
        if c in "'\"\\":
            raise _Decline  # unusual in arithmetic: the full parser
        if c == "`":
            i = _skip_backtick(s, i + 1)
            continue
        if s.startswith("$(", i):
            i = _match_arithmetic(s, i + 3) if s.startswith("$((", i) else _match_close(s, i + 2) + 1
            continue
        if c == ")" and depth == 0:
            if s.startswith("))", i):
                return i + 2
            raise _Decline
        depth += (c == "(") - (c == ")")
        i += 1
    raise _Decline


def _match_close(s: str, i: int) -> int:
    """`s[i]` is just after `$(`, `<(` or `>(`; returns the index of the `)` that closes it, stepping
    over quotes, nested substitutions and here-document bodies. Raises _Decline for arithmetic,
    comments and anything unterminated (`case` patterns mislead it, but then the inside does not
    parse and the caller declines)."""
    n = len(s)
    depth = 0
    heredocs: list[tuple[str, bool]] = []
    word_start = True
    while i < n:
        c = s[i]
        nxt = _skip_construct(s, i)
        if nxt >= 0:
            pass
        elif s.startswith("<<<", i):
            nxt = i + 3
        elif s.startswith("<<", i):
            delimiter, _, strip_tabs, nxt = _heredoc_op(s, i)
            heredocs.append((delimiter, strip_tabs))
        elif c == "\n" and heredocs:
            nxt = i + 1
            for delimiter, strip_tabs in heredocs:
                nxt = _heredoc_body(s, nxt, delimiter, strip_tabs)[1]
            heredocs = []
        elif c == "#" and word_start:
            raise _Decline
        elif c == ")" and depth == 0:
            if heredocs:
                raise _Decline
            return i
        else:
            depth += (c == "(") - (c == ")")
            nxt = i + 1
        word_start = c in " \t\n;&|()"
        i = nxt
    raise _Decline


def _read_dollar(s: str, i: int, out: list[str], home: str, subs: list[str] | None) -> int:
    """`s[i]` is a `$` (not `$'`/`$"`): `$NAME`/`${NAME}` kept as written, a leading `$HOME` expanded,
    `$(…)` kept as written with its script added to `subs`."""
    nxt = s[i + 1 : i + 2]
    if nxt == "(" and s.startswith("$((", i):  # arithmetic: kept as written, substitutions inside run
        if subs is None:
            raise _Decline
        end = _match_arithmetic(s, i + 3)
        subs.extend(_scan_substitutions(s[i + 3 : end - 2]))
        out.append(s[i:end])
        return end
    if nxt == "(":
        if subs is None:
            raise _Decline
        end = _match_close(s, i + 2)
        subs.append(s[i + 2 : end])
        out.append(s[i : end + 1])
        return end + 1
    if nxt == "{":
        end = s.find("}", i + 2)
        inner = s[i + 2 : end]
        if end < 0 or any(ch in inner for ch in "$`'\"{\\"):
            raise _Decline
        out.append(home if inner == "HOME" and not any(out) else s[i : end + 1])
        return end + 1
    match = _NAME.match(s, i + 1)
    if match is None:
        out.append("$")
        return i + 1
    name = match.group()
    out.append(home if name == "HOME" and not any(out) else "$" + name)
    return match.end()


def _read_backtick(s: str, i: int, out: list[str], subs: list[str] | None) -> int:
    if subs is None:
        raise _Decline
    end = _skip_backtick(s, i + 1)
    subs.append(_unescape_backtick(s[i + 1 : end - 1]))
    out.append(s[i:end])
    return end


def _read_dquote(s: str, i: int, out: list[str], home: str, subs: list[str] | None) -> int:
    """The inside of `"…"` from `s[i]`; returns the index after the closing quote."""
    n = len(s)
    while i < n:
        c = s[i]
        if c == '"':
            return i + 1
        if c == "\\":
            escaped = s[i + 1 : i + 2]
            if escaped and escaped in '$`"\\':
                out.append(escaped)
                i += 2
            elif escaped == "\n":
                i += 2
            else:
                out.append("\\")
                i += 1
        elif c == "$":
            i = _read_dollar(s, i, out, home, subs)
        elif c == "`":
            i = _read_backtick(s, i, out, subs)
        else:
            match = _DQ_PLAIN.match(s, i)
            assert match is not None
            out.append(match.group())
            i = match.end()
    raise _Decline  # unterminated


def _read_ansi(s: str, i: int, out: list[str]) -> int:
    """The inside of `$'…'` from `s[i]` with its escapes decoded; returns the index after the quote."""
    n = len(s)
    while i < n:
        c = s[i]
        if c == "'":
            return i + 1
        if c != "\\":
            match = _ANSI_PLAIN.match(s, i)
            assert match is not None
            out.append(match.group())
            i = match.end()
            continue
        escaped = s[i + 1 : i + 2]
        if not escaped:
            break
        if escaped in _ANSI_SIMPLE:
            out.append(_ANSI_SIMPLE[escaped])
            i += 2
        elif escaped in "01234567":
            match = _OCT.match(s, i + 1)
            assert match is not None
            out.append(chr(int(match.group(), 8) & 0xFF))
            i = match.end()
        elif escaped in _HEX:
            match = _HEX[escaped].match(s, i + 2)
            if match is None:
                out.append("\\" + escaped)
                i += 2
            else:
                code = int(match.group(), 16)
                out.append(chr(code) if code < 0xD800 or 0xDFFF < code <= 0x10FFFF else "\ufffd")
                i = match.end()
        elif escaped == "c" and i + 2 < n:
            out.append(chr(ord(s[i + 2]) & 0x1F))
            i += 3
        else:
            out.append("\\" + escaped)
            i += 2
    raise _Decline  # unterminated


def _read_word(s: str, i: int, home: str, subs: list[str] | None = None) -> tuple[str, int]:
    """Decodes the shell word at `s[i]` up to the next unquoted metacharacter: quote removal, ANSI-C
    `$'…'`, and a leading `~`, `~/…`, `$HOME` or `${HOME}` expanded to `home`; other `$…` are kept as
    written, and so are `$(…)` and backticks, whose scripts are added to `subs` (without `subs`, they
    raise _Decline, as does anything unterminated). An assignment's value is read from after its
    `=`, so that it expands there too, as bash does."""
    out: list[str] = []
    n = len(s)
    start = i
    while i < n:
        plain = _PLAIN.match(s, i)
        if plain is not None:
            out.append(plain.group())
            i = plain.end()
            continue
        c = s[i]
        if c in _META:
            break
        if c == "\\":
            escaped = s[i + 1 : i + 2]
            out.append(escaped.replace("\n", "") if escaped else "\\")  # `\<newline>` continues the line
            i += 2 if escaped else 1
        elif c == "'":
            end = s.find("'", i + 1)
            if end < 0:
                raise _Decline
            out.append(s[i + 1 : end])
            i = end + 1
        elif c == '"':
            i = _read_dquote(s, i + 1, out, home, subs)
        elif c == "$":
            quote = s[i + 1 : i + 2]
            if quote in ("'", '"'):  # `$'…'` (ANSI-C), `$"…"` (translated: as `"…"`)
                i = _read_ansi(s, i + 2, out) if quote == "'" else _read_dquote(s, i + 2, out, home, subs)
            else:
                i = _read_dollar(s, i, out, home, subs)
        elif c == "`":
            i = _read_backtick(s, i, out, subs)
        else:  # `~`
            after = s[i + 1 : i + 2]
            out.append(home if i == start and (not after or after == "/" or after in _META) else "~")
            i += 1
    return "".join(out), i


def _unquote(word: str) -> str:
    """Plain quote removal (no expansion), for here-document delimiters."""
    out: list[str] = []
    quote = ""
    i = 0
    while i < len(word):
        c = word[i]
        if c == "\\" and quote != "'" and i + 1 < len(word):
            out.append(word[i + 1])
            i += 2
            continue
        if c in "'\"" and quote in ("", c):
            quote = "" if quote else c
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _scan_substitutions(text: str) -> list[str]:
    """The scripts of the outermost `$(…)` and backtick substitutions in `text` (a here-document
    body, a `${…}` parameter); an unterminated one runs to the end of the text."""
    found: list[str] = []
    n = len(text)
    i = 0
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "`":
            try:
                end = _skip_backtick(text, i + 1)
            except _Decline:
                end = n + 1
            found.append(_unescape_backtick(text[i + 1 : end - 1]))
            i = end
        elif text.startswith("$(", i) and not text.startswith("$((", i):
            try:
                end = _match_close(text, i + 2)
            except _Decline:
                end = n
            found.append(text[i + 2 : end])
            i = end + 1
        else:
            i += 1
    return found


# --------------------------------------------------------------------------------------------------
# Fast path: the common subset of bash in one pass

_RESERVED = frozenset(
    {"if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done",
     "function", "coproc", "in", "{", "}", "!", "[[", "]]"}
)  # fmt: skip
_REDIR_OPS = ("&>>", "&>", "<<<", "<<-", "<<", ">>", ">&", ">|", "<&", "<>", ">", "<")


class _FastParser:
    """Simple commands (any quoting, `$VAR`, `$(…)`, backticks, `<(…)`) joined by pipes, `&&`, `||`,
    `;`, `&` and newlines, with redirects and here-documents, in one pass. Raises _Decline for
    anything else: subshells, groups, `if`/`for`/`while`/`case`, functions, comments, arithmetic,
    and substitutions whose inside does not parse."""

    __slots__ = (
        "assigns",
        "heredocs",
        "home",
        "i",
        "items",
        "level",
        "pending",
        "pipe",
        "redirects",
        "s",
        "subs",
        "words",
    )

    def __init__(self, s: str, home: str, level: int = 0) -> None:
        self.s = s
        self.home = home
        self.level = level  # how deep in substitutions this script is
        self.i = 0
        self.items: list[_Item] = []
        self.pipe: list[_Item] = []
        self.assigns: list[tuple[str, str]] = []
        self.words: list[str] = []
        self.redirects: list[_Redir] = []
        self.subs: list[_Block] = []
        self.pending = False  # after `|`, `&&`, `||`: another command must follow
        self.heredocs: list[tuple[str, bool, bool, list[_Block]]] = []  # waiting for the next line

    def parse(self) -> _Block:
        s = self.s
        n = len(s)
        while True:
            i = self.i
            while i < n and (s[i] in " \t" or (s[i] == "\\" and s[i + 1 : i + 2] == "\n")):
                i += 2 if s[i] == "\\" else 1
            self.i = i
            if i >= n:
                break
            c = s[i]
            if c in "<>" and s[i + 1 : i + 2] == "(":
                self._word()  # a process substitution
            elif c in "<>" or (c == "&" and s[i + 1 : i + 2] == ">"):
                self._redirect()
            elif c in "|&;\n":
                self._operator(c)
            elif c in "()#":
                raise _Decline  # subshells, functions, comments
            else:
                self._word()
        if self.heredocs:
            raise _Decline  # no line for the body
        if self.words or self.assigns or self.redirects:
            self._close_command()
        elif self.pending:
            raise _Decline  # ends in `|`, `&&` or `||`
        if self.pipe:
            self.items.append(self.pipe[0] if len(self.pipe) == 1 else _Pipe(self.pipe))
        return _Block(self.items)

    def _close_command(self) -> None:
        self.pipe.append(_Simple(self.assigns, self.words, self.redirects, self.subs))
        self.assigns, self.words, self.redirects, self.subs = [], [], [], []
        self.pending = False

    def _operator(self, c: str) -> None:
        two = self.s[self.i : self.i + 2]
        if two in (";;", ";&"):
            raise _Decline  # `case`
        op = two if two in ("||", "|&", "&&") else c
        self.i += len(op)
        if self.words or self.assigns or self.redirects:
            self._close_command()
            if op in ("|", "|&"):
                self.pending = True
            else:
                self.items.append(self.pipe[0] if len(self.pipe) == 1 else _Pipe(self.pipe))
                self.pipe = []
                self.pending = op in ("&&", "||")
        elif op != "\n":
            raise _Decline  # an operator without a command before it
        if op == "\n" and self.heredocs:
            self._heredoc_bodies()

    def _heredoc_bodies(self) -> None:
        for delimiter, quoted, strip_tabs, subs in self.heredocs:
            body, self.i = _heredoc_body(self.s, self.i, delimiter, strip_tabs)
            if not quoted:  # an unquoted delimiter: the body is expanded
                subs.extend(self._substitution(script) for script in _scan_substitutions(body) if script.strip())
        self.heredocs = []

    def _substitution(self, script: str) -> _Block:
        block, error = _parse_script(script, self.home, self.level + 1)
        if error is not None:
            raise _Decline  # the full parser reports it
        return _Block(block.items, subst=True)

    def _operand(self, start: int) -> tuple[str, int]:
        """The word at `start` (`<(…)` included), its substitutions added to the command's."""
        s = self.s
        scripts: list[str] = []
        if s.startswith(("<(", ">("), start):
            end = _match_close(s, start + 2) + 1
            if end < len(s) and s[end] not in _META:
                raise _Decline
            text = s[start:end]
            scripts.append(s[start + 2 : end - 1])
        else:
            plain = _PLAIN.match(s, start)  # the common case: nothing to decode
            if plain is not None and (plain.end() == len(s) or s[plain.end()] in _META):
                return plain.group(), plain.end()
            text, end = _read_word(s, start, self.home, scripts)
        for script in scripts:
            if script.strip():  # `$()`, ``: nothing runs
                self.subs.append(self._substitution(script))
        return text, end

    def _redirect(self) -> None:
        s, i = self.s, self.i
        op = next(op for op in _REDIR_OPS if s.startswith(op, i))
        if op in ("<<", "<<-"):
            delimiter, quoted, strip_tabs, self.i = _heredoc_op(s, i)
            self.heredocs.append((delimiter, quoted, strip_tabs, self.subs))
            self.redirects.append(_Redir(op, delimiter, False))
            return
        i += len(op)
        while i < len(s) and s[i] in " \t":
            i += 1
        if i >= len(s) or s[i] == "#" or (s[i] in _META and not (s[i] in "<>" and s[i + 1 : i + 2] == "(")):
            raise _Decline  # no target
        if op in (">&", "<&") and s[i] == "-":  # `>&-` closes the fd; what follows is another word
            self.redirects.append(_Redir(op, "-", False))
            self.i = i + 1
            return
        target, self.i = self._operand(i)
        is_path = op != "<<<" and not (op in (">&", "<&") and _FD_DUP.fullmatch(target))
        self.redirects.append(_Redir(op, target, is_path))

    def _word(self) -> None:
        s, start = self.s, self.i
        assignment = _ASSIGN.match(s, start) if not self.words else None
        if assignment is not None:
            value, self.i = self._operand(assignment.end())
            self.assigns.append((assignment.group()[:-1].rstrip("+"), value))
            return
        text, self.i = self._operand(start)
        if self.i < len(s) and s[self.i] in "<>" and _DIGITS.fullmatch(s, start, self.i):
            self._redirect()  # `2>file`: the digits are the fd
            return
        if not self.words:
            raw = s[start : self.i]
            if raw in _RESERVED or _ARRAY_ASSIGN.match(raw):
                raise _Decline
        self.words.append(text)


# --------------------------------------------------------------------------------------------------
# Full path: bashlex's AST to the tree


def _makeheredoc(tokenizer: Any, redirnode: Any, lineno: int, killleading: bool) -> str:
    """bashlex 0.18's `heredoc.makeheredoc`, fixed: it compared the body's lines with the delimiter as
    written, so `<<'EOF'` (what agents write most) never found its end and failed to parse."""
    delimiter = _unquote(redirnode.output.word)
    document = []
    startpos = tokenizer._shell_input_line_index
    fullline = tokenizer.readline(False)
    while fullline:
        if killleading:
            fullline = fullline.lstrip("\t")
            if not fullline:
                break
        if fullline[:-1] == delimiter and fullline[len(delimiter) : len(delimiter) + 1] == "\n":
            document.append(fullline[:-1])
            break
        document.append(fullline)
        fullline = tokenizer.readline(False)
    if not fullline:
        raise bashlex.errors.ParsingError(
            f"here-document at line {lineno} delimited by end-of-file (wanted {delimiter!r})",
            tokenizer._shell_input_line,
            tokenizer._shell_input_line_index,
        )
    text = "".join(document)
    endpos = tokenizer._shell_input_line_index - 1
    redirnode.heredoc = bashlex.ast.node(kind="heredoc", value=text, pos=(startpos, endpos))
    if redirnode.pos[1] + 1 == startpos:
        redirnode.pos = (redirnode.pos[0], endpos)
    return text


bashlex.heredoc.makeheredoc = _makeheredoc

_bashlex_paramexpand = bashlex.subst._paramexpand


def _paramexpand(parserobj: Any, string: str, sindex: int) -> Any:
    """bashlex 0.18's `subst._paramexpand`, guarded: for a `${` without a `}` (`'${'x` is valid bash)
    it returned index 0 and the caller re-read the word from its start forever, eating memory."""
    if string.startswith("${", sindex) and string.find("}", sindex + 2) < 0:
        raise bashlex.errors.ParsingError("bad substitution: no closing '}'", string, sindex)
    return _bashlex_paramexpand(parserobj, string, sindex)


bashlex.subst._paramexpand = _paramexpand


class _Convert:
    """bashlex nodes of one script to the tree; words are decoded from the script's own text."""

    __slots__ = ("errors", "heredocs", "home", "level", "src")

    def __init__(self, src: str, home: str, level: int = 0) -> None:
        self.src = src
        self.home = home
        self.level = level
        self.errors: list[str] = []
        # The spans of here-document bodies seen so far. Inside `"$(cat <<'EOF' … EOF)"` bashlex
        # takes a `$(…)` or backtick of the body for a substitution of the enclosing word.
        self.heredocs: list[tuple[int, int]] = []

    def script(self, parts: list[Any]) -> _Block:
        items: list[_Item] = []
        for part in parts:
            self._item(part, items)
        return _Block(items)

    def _item(self, node: Any, items: list[_Item]) -> None:
        kind = node.kind
        if kind in ("list", "if", "for", "while", "until"):
            for part in node.parts:
                self._item(part, items)
        elif kind == "pipeline":
            self._pipeline(node, items)
        elif kind == "command":
            items.append(self._simple(node))
        elif kind == "compound":
            items.append(self._compound(node))
        elif kind == "function":  # its body, as if it ran where it is defined
            body: list[_Item] = []
            for part in node.parts[1:]:
                self._item(part, body)
            items.append(_Block(body, subshell=True))
        elif kind == "word":  # the words of `for x in …`
            items.extend(self._subs(node))
        elif kind not in ("reservedword", "operator", "pipe"):
            raise _Unsupported(kind)

    def _pipeline(self, node: Any, items: list[_Item]) -> None:
        elements: list[_Item] = []
        for part in node.parts:
            if part.kind not in ("pipe", "reservedword"):
                inner: list[_Item] = []
                self._item(part, inner)
                elements.append(inner[0] if len(inner) == 1 else _Block(inner))
        if len(elements) == 1:
            items.append(elements[0])
        elif elements:
            items.append(_Pipe(elements))

    def _compound(self, node: Any) -> _Block:
        items: list[_Item] = []
        subshell = False
        for part in node.list:
            if part.kind == "reservedword":
                subshell = subshell or part.word == "("
            else:
                self._item(part, items)
        before: list[_Block] = []
        redirects = [self._redirect(r, before) for r in getattr(node, "redirects", None) or ()]
        return _Block([*before, *items], subshell=subshell, redirects=redirects)

    def _simple(self, node: Any) -> _Simple:
        assigns: list[tuple[str, str]] = []
        words: list[str] = []
        redirects: list[_Redir] = []
        subs: list[_Block] = []
        for part in node.parts:
            kind = part.kind
            # bashlex takes `NAME=value` after a redirect (`2>&1 A=1 cmd`) for a word; bash does not
            if not words and (
                kind == "assignment" or (kind == "word" and _ASSIGN.match(self.src, part.pos[0], part.pos[1]))
            ):
                assigns.append(self._assign(part))
                subs.extend(self._subs(part))
            elif kind in ("word", "assignment"):
                words.append(self._word(part))
                subs.extend(self._subs(part))
            elif kind == "redirect":
                redirects.append(self._redirect(part, subs))
            else:
                raise _Unsupported(kind)
        return _Simple(assigns, words, redirects, subs)

    def _word(self, node: Any) -> str:
        raw = self.src[node.pos[0] : node.pos[1]]
        try:
            text, end = _read_word(raw, 0, self.home, [])
            if end == len(raw):
                return text
        except _Decline:
            pass
        text = str(node.word)
        parts = getattr(node, "parts", None) or ()
        if parts:  # bashlex's own quote removal; expand as _read_word would
            first = parts[0]
            if first.kind == "tilde" and first.pos[0] == node.pos[0] and (text == "~" or text.startswith("~/")):
                text = self.home + text[1:]
            elif first.kind == "parameter" and getattr(first, "value", None) == "HOME":
                for prefix in ("${HOME}", "$HOME"):
                    if first.pos[0] - node.pos[0] <= 1 and text.startswith(prefix):
                        text = self.home + text[len(prefix) :]
                        break
        return text

    def _assign(self, node: Any) -> tuple[str, str]:
        raw = self.src[node.pos[0] : node.pos[1]]
        match = _ASSIGN.match(raw)
        if match is not None:
            try:
                value, end = _read_word(raw, match.end(), self.home, [])
                if end == len(raw):
                    return match.group()[:-1].rstrip("+"), value
            except _Decline:
                pass
        name, _, value = str(node.word).partition("=")
        return name.rstrip("+"), value

    def _subs(self, node: Any) -> list[_Block]:
        found: list[_Block] = []
        for part in getattr(node, "parts", None) or ():
            if any(start <= part.pos[0] < end for start, end in self.heredocs):
                continue  # the body is text (or, with an unquoted delimiter, scanned by _redirect)
            if part.kind in ("commandsubstitution", "processsubstitution"):
                inner: list[_Item] = []
                self._item(part.command, inner)
                if inner:
                    found.append(_Block(inner, subst=True))
            elif part.kind == "parameter":  # `${x:-$(…)}`: bashlex leaves the inside unparsed
                value = getattr(part, "value", None)
                if isinstance(value, str) and ("$(" in value or "`" in value):
                    found.extend(self._scan(value))
        return found

    def _scan(self, text: str) -> list[_Block]:
        found: list[_Block] = []
        for script in _scan_substitutions(text):
            if not script.strip():
                continue
            block, error = _parse_script(script, self.home, self.level + 1)
            if error is not None:
                self.errors.append(error)
            found.append(_Block(block.items, subst=True))
        return found

    def _redirect(self, node: Any, subs: list[_Block]) -> _Redir:
        op = str(node.type)
        output = getattr(node, "output", None)
        if op in ("<<", "<<-"):
            if output is None or not hasattr(output, "pos"):
                return _Redir(op, None, False)
            heredoc = getattr(node, "heredoc", None)
            if heredoc is not None:
                self.heredocs.append(heredoc.pos)
            delimiter = self.src[output.pos[0] : output.pos[1]]
            if heredoc is not None and not any(q in delimiter for q in "'\"\\"):
                body = getattr(heredoc, "value", None)
                if isinstance(body, str) and ("$(" in body or "`" in body):
                    subs.extend(self._scan(body))  # an unquoted delimiter: the body is expanded
            return _Redir(op, self._word(output), False)
        if output is None:
            return _Redir(op, None, False)
        if isinstance(output, int | str):
            return _Redir(op, str(output), False)
        target = self._word(output)
        subs.extend(self._subs(output))
        is_path = op != "<<<" and not (op in (">&", "<&") and _FD_DUP.fullmatch(target))
        return _Redir(op, target, is_path)


# --------------------------------------------------------------------------------------------------
# Fallback: a shlex split, when the parser cannot read the script

_FALLBACK_PUNCTUATION = "();<>|&`\n"
_FALLBACK_SKIP = frozenset(
    {"!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "esac", "function"}
)
_CRUDE_TOKEN = re.compile(r"\|\||&&|\|&|[|;&\n()`]|[^\s|;&()`]+")


def _fallback_tokens(script: str) -> list[str]:
    if len(script) > _MAX_SHLEX:
        return _CRUDE_TOKEN.findall(script)
    try:
        lexer = shlex.shlex(script, posix=True, punctuation_chars=_FALLBACK_PUNCTUATION)
        lexer.whitespace = " \t\r"
        lexer.whitespace_split = True
        lexer.commenters = ""
        return list(lexer)
    except ValueError:  # unbalanced quotes
        return _CRUDE_TOKEN.findall(script)


def _token_kind(token: str) -> str:
    if token in ("|", "|&"):
        return "pipe"
    if not token or any(c not in _FALLBACK_PUNCTUATION for c in token):
        return "word"
    if token == ">|" or (token.startswith(("<", ">", "&>")) and not any(c in token for c in "();|`\n")):
        return "redirect"
    return "separator"


def _expand_home(token: str, home: str) -> str:
    if token == "~" or token.startswith("~/"):
        return home + token[1:]
    if token.startswith("${HOME}"):
        return home + token[7:]
    if token.startswith("$HOME") and not _NAME.match(token, 5) and not token[5:6].isdigit():
        return home + token[5:]
    return token


def _fallback_simple(tokens: list[str], home: str) -> _Simple | None:
    k = 0
    while k < len(tokens) and tokens[k] in _FALLBACK_SKIP:
        k += 1
    assigns: list[tuple[str, str]] = []
    words: list[str] = []
    redirects: list[_Redir] = []
    while k < len(tokens):
        token = tokens[k]
        k += 1
        if _token_kind(token) == "redirect":
            target = None
            if k < len(tokens) and _token_kind(tokens[k]) == "word":
                target = _expand_home(tokens[k], home)
                k += 1
            is_path = (
                target is not None
                and not token.startswith("<<")
                and not (token in (">&", "<&") and _FD_DUP.fullmatch(target))
            )
            redirects.append(_Redir(token, target, is_path))
        elif not words and _ASSIGN.match(token):
            name, _, value = token.partition("=")
            assigns.append((name.rstrip("+"), _expand_home(value, home)))
        else:
            words.append(_expand_home(token, home))
    if not (assigns or words or redirects):
        return None
    return _Simple(assigns, words, redirects, [])


def _fallback(script: str, home: str) -> _Block:
    """Best effort for what the parser could not read: a shlex split, cut into commands at `|`, `&&`,
    `||`, `;`, `&`, newlines, parentheses and backticks (so the inside of `$(…)` shows up too)."""
    items: list[_Item] = []
    pipe: list[_Item] = []
    current: list[str] = []

    def close_command() -> None:
        simple = _fallback_simple(current, home)
        if simple is not None:
            pipe.append(simple)
        current.clear()

    for token in _fallback_tokens(script):
        kind = _token_kind(token)
        if kind in ("word", "redirect"):
            current.append(token)
            continue
        close_command()
        if kind == "separator" and pipe:
            items.append(pipe[0] if len(pipe) == 1 else _Pipe(list(pipe)))
            pipe.clear()
    close_command()
    if pipe:
        items.append(pipe[0] if len(pipe) == 1 else _Pipe(list(pipe)))
    return _Block(items)


# --------------------------------------------------------------------------------------------------
# Parse, cached

# bashlex is pure Python (~60 µs a character on long lists); longer scripts that the fast path cannot
# read get the fallback and a parse error rather than a parse of a second or more.
_MAX_FULL_PARSE = 16 * 1024
_MAX_SHLEX = 256 * 1024  # beyond this the fallback splits with a regular expression
_MAX_NESTING = 24  # substitutions inside substitutions
_CACHE_MAX_LEN = 8 * 1024


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    message = lines[0] if lines else ""
    if not isinstance(exc, bashlex.errors.ParsingError):
        message = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return message[:200]


def _parse_uncached(script: str, home: str, level: int = 0) -> tuple[_Block, str | None]:
    """The tree of one script and the parser's error (None when it parsed). Raises _TooDeep."""
    if level > _MAX_NESTING:
        raise _TooDeep
    if not script.strip():
        return _EMPTY, None
    try:
        return _FastParser(script, home, level).parse(), None
    except _TooDeep:
        raise
    except RecursionError:
        raise _TooDeep from None
    except Exception:  # _Decline; or a bug in the fast path, which must not hide the command
        pass  # bashlex tries
    if len(script) > _MAX_FULL_PARSE:
        return _fallback(script, home), f"command too long to parse ({len(script)} characters)"
    try:
        converter = _Convert(script, home, level)
        block = converter.script(bashlex.parse(script))
    except _TooDeep:
        raise
    except RecursionError:
        raise _TooDeep from None
    except Exception as exc:  # bashlex raises many kinds (ParsingError, NotImplementedError, …)
        return _fallback(script, home), _one_line(exc)
    return block, converter.errors[0] if converter.errors else None


_parse_cached = functools.lru_cache(maxsize=512)(_parse_uncached)


def _parse_script(script: str, home: str, level: int = 0) -> tuple[_Block, str | None]:
    if len(script) <= _CACHE_MAX_LEN:
        return _parse_cached(script, home, level)
    return _parse_uncached(script, home, level)


# --------------------------------------------------------------------------------------------------
# Wrappers


def _skip_options(argv: list[str], i: int, short_arg: str = "", long_arg: frozenset[str] = frozenset()) -> int:
    """The index of the first operand at or after `i`: skips `-x` clusters (a letter of `short_arg`
    takes the rest of its cluster or the next word), `--long[=v]` (one in `long_arg` without `=`
    takes the next word) and a final `--`."""
    n = len(argv)
    while i < n:
        arg = argv[i]
        if arg == "--":
            return i + 1
        if len(arg) < 2 or arg[0] != "-":
            return i
        i += 1
        if arg[1] == "-":
            if "=" not in arg and arg[2:] in long_arg:
                i += 1
            continue
        for k in range(1, len(arg)):
            if arg[k] in short_arg:
                if k == len(arg) - 1:
                    i += 1
                break
    return i


def _take_assignments(argv: list[str], i: int, env: dict[str, str]) -> int:
    while i < len(argv):
        match = _ASSIGN.match(argv[i])
        if match is None:
            break
        env[argv[i][: match.end() - 1].rstrip("+")] = argv[i][match.end() :]
        i += 1
    return i


def _split_string(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


_SUDO_LONG_ARG = frozenset(
    {"user", "group", "prompt", "chdir", "chroot", "role", "type", "other-user", "close-from",
     "command-timeout", "host"}
)  # fmt: skip


def _peel_sudo(argv: list[str], i: int, env: dict[str, str]) -> int | None:
    return _take_assignments(argv, _skip_options(argv, i, "CDgpRrTtUu", _SUDO_LONG_ARG), env)


def _env_option(arg: str) -> tuple[str, str | None, int]:
    """(option letter among u/C/S or "", its value if attached, words used) of one `env` option."""
    if arg[1] == "-":
        key, eq, given = arg[2:].partition("=")
        letter = {"unset": "u", "chdir": "C", "split-string": "S"}.get(key, "")
        return (letter, given, 1) if eq else (letter, None, 2 if letter else 1)
    for k in range(1, len(arg)):
        if arg[k] in "uCS":
            value = arg[k + 1 :]
            return (arg[k], value, 1) if value else (arg[k], None, 2)
    return "", None, 1


def _peel_env(argv: list[str], i: int, env: dict[str, str]) -> int | None:
    while i < len(argv):
        arg = argv[i]
        if arg in ("-", "--"):
            i += 1
            if arg == "--":
                break
            continue
        if len(arg) < 2 or arg[0] != "-":
            break
        letter, value, width = _env_option(arg)
        if letter == "S":  # `env -S 'a b'` splits the string into words: go on with those
            if value is None:
                value = argv[i + 1] if i + 1 < len(argv) else ""
            argv[i : i + width] = _split_string(value)
        else:
            i += width
    return _take_assignments(argv, i, env)


def _peel_command(argv: list[str], i: int, env: dict[str, str]) -> int | None:
    for arg in argv[i:]:
        if arg == "--" or len(arg) < 2 or arg[0] != "-":
            break
        if "v" in arg or "V" in arg:
            return None  # `command -v rm` looks rm up; it does not run it
    return _skip_options(argv, i)


def _peel_timeout(argv: list[str], i: int, env: dict[str, str]) -> int | None:
    i = _skip_options(argv, i, "sk", frozenset({"signal", "kill-after"}))
    return i + 1 if i < len(argv) else i  # the duration


def _options(short_arg: str = "", *long_arg: str) -> Callable[[list[str], int, dict[str, str]], int | None]:
    longs = frozenset(long_arg)
    return lambda argv, i, env: _skip_options(argv, i, short_arg, longs)


_WRAPPERS: dict[str, Callable[[list[str], int, dict[str, str]], int | None]] = {
    "sudo": _peel_sudo,
    "doas": _options("uC"),
    "env": _peel_env,
    "nohup": _options(),
    "nice": _options("n", "adjustment"),
    "time": _options("fo", "format", "output"),
    "timeout": _peel_timeout,
    "xargs": _options(
        "adEILnPs",
        *("arg-file", "delimiter", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"),
    ),
    "command": _peel_command,
    "builtin": _options(),
    "exec": _options("a"),
    "stdbuf": _options("ioe", "input", "output", "error"),
    "ionice": _options("cnpPu", "class", "classdata", "pid", "pgid", "uid"),
}
_SUDO = frozenset({"sudo", "doas"})
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash", "mksh"})
_INLINE = _SHELLS | {"eval", "su"}


def _basename(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _peel(argv: list[str], env: dict[str, str]) -> tuple[list[str], list[str]]:
    """The real program's argv and the wrappers peeled off it; `env` gains their assignments."""
    wrappers: list[str] = []
    i = 0
    while i < len(argv):
        name = _basename(argv[i])
        peel = _WRAPPERS.get(name)
        if peel is None:
            break
        after = peel(argv, i + 1, env)
        if after is None:
            break
        wrappers.append(name)
        i = after
    return argv[i:], wrappers


def _inline_script(name: str, argv: list[str]) -> tuple[str, bool, bool] | None:
    """(script, runs in the same shell, runs as root) for `bash -c`, `eval` and `su -c`."""
    if name == "eval":
        words = argv[2:] if argv[1:2] == ["--"] else argv[1:]
        return (" ".join(words), True, False) if words else None
    if name == "su":
        for k, arg in enumerate(argv[1:], start=1):
            if arg in ("-c", "--command") and k + 1 < len(argv):
                return argv[k + 1], False, True
            if arg.startswith("--command="):
                return arg[len("--command=") :], False, True
        return None
    if name not in _SHELLS:
        return None
    has_c = False
    k = 1
    while k < len(argv):
        arg = argv[k]
        if arg in ("-", "--"):
            k += 1
            break
        if arg.startswith("--"):
            k += 2 if arg in ("--rcfile", "--init-file") else 1
            continue
        if len(arg) > 1 and arg[0] in "-+":
            has_c = has_c or (arg[0] == "-" and "c" in arg)
            k += 2 if ("o" in arg or "O" in arg) else 1
            continue
        break
    if has_c and k < len(argv):
        return argv[k], False, False
    return None


# --------------------------------------------------------------------------------------------------
# Build the command objects


@dataclass(slots=True)
class _Cwd:
    """Where the commands of one shell run; `known` turns false after a `cd` we cannot follow."""

    path: str
    known: bool = True

    def copy(self) -> _Cwd:
        return _Cwd(self.path, self.known)


class _Builder:
    def __init__(self, *, home: str, project_dir: str, max_depth: int) -> None:
        self.home = home
        self.resolver = PathResolver(home=home, project_dir=project_dir)
        self.max_depth = max_depth
        self.commands: list[dict[str, Any]] = []
        self.error: str | None = None
        self._pipelines = 0
        self._placed: dict[tuple[str, str], str] = {}

    def fail(self, message: str) -> None:
        if self.error is None:
            self.error = message

    def run_script(self, script: str, depth: int, cwd: _Cwd, sudo: bool) -> None:
        try:
            block, error = _parse_script(script, self.home)
        except _TooDeep:
            block, error = _fallback(script, self.home), "substitutions nested too deeply to parse"
        if error is not None:
            self.fail(error if depth == 0 else f"depth {depth}: {error}")
        self.walk(block, depth, cwd, None, [], sudo)

    def walk(
        self,
        item: _Item,
        depth: int,
        cwd: _Cwd,
        slot: tuple[int, int] | None,
        inherited: list[dict[str, Any]],
        sudo: bool,
    ) -> None:
        if isinstance(item, _Simple):
            self._simple(item, depth, cwd, slot, inherited, sudo)
        elif isinstance(item, _Pipe):
            number = self._next_pipeline()
            for position, element in enumerate(item.elements):
                self.walk(element, depth, cwd.copy(), (number, position), inherited, sudo)
        else:
            if item.subst:
                depth, slot, inherited, cwd = depth + 1, None, [], cwd.copy()
            elif item.subshell:
                cwd = cwd.copy()
            if item.redirects:
                inherited = [*(self._redirect(r, cwd) for r in item.redirects), *inherited]
            for inner in item.items:
                self.walk(inner, depth, cwd, slot, inherited, sudo)

    def _next_pipeline(self) -> int:
        self._pipelines += 1
        return self._pipelines - 1

    def _place(self, text: str, cwd: _Cwd) -> dict[str, Any]:
        key = (text, cwd.path)
        path = self._placed.get(key)
        if path is None:
            path = self._placed[key] = self.resolver.absolute(text, cwd.path, tilde=False)
        in_project = self.resolver.contains(path) and not _dynamic(text) and (cwd.known or text.startswith("/"))
        return {"raw": text, "path": path, "in_project": in_project}

    def _redirect(self, redirect: _Redir, cwd: _Cwd) -> dict[str, Any]:
        if redirect.target is None or not redirect.is_path:
            return {"op": redirect.op, "target": redirect.target, "path": None, "in_project": None}
        placed = self._place(redirect.target, cwd)
        return {
            "op": redirect.op,
            "target": redirect.target,
            "path": placed["path"],
            "in_project": placed["in_project"],
        }

    def _simple(
        self,
        simple: _Simple,
        depth: int,
        cwd: _Cwd,
        slot: tuple[int, int] | None,
        inherited: list[dict[str, Any]],
        sudo: bool,
    ) -> None:
        if slot is None:
            slot = (self._next_pipeline(), 0)
        env = dict(simple.assigns)
        argv, wrappers = _peel(list(simple.words), env)
        name = _basename(argv[0]) if argv else ""
        privileged = sudo or not _SUDO.isdisjoint(wrappers)
        redirects = [self._redirect(r, cwd) for r in simple.redirects]
        if inherited:
            redirects.extend(dict(r) for r in inherited)
        args: list[dict[str, Any]] = []
        operands = False
        for arg in argv[1:]:
            if not operands:
                if arg == "--":
                    operands = True
                    continue
                if arg.startswith("-") and arg != "-":
                    continue
            args.append(self._place(arg, cwd))
        self.commands.append(
            {
                "argv": argv,
                "name": name,
                "env": env,
                "sudo": privileged,
                "wrappers": wrappers,
                "pipeline": slot[0],
                "position": slot[1],
                "depth": depth,
                "redirects": redirects,
                "args": args,
            }
        )
        for sub in simple.subs:
            self.walk(sub, depth, cwd, None, [], sudo)
        inline = _inline_script(name, argv) if name in _INLINE else None
        if inline is not None:
            script, same_shell, as_root = inline
            if depth >= self.max_depth:
                self.fail(f"shell scripts nested deeper than {self.max_depth} levels were not parsed")
            else:
                self.run_script(script, depth + 1, cwd if same_shell else cwd.copy(), privileged or as_root)
        if name in ("cd", "pushd", "popd"):
            self._chdir(name, argv, cwd)

    def _chdir(self, name: str, argv: list[str], cwd: _Cwd) -> None:
        targets = [a for a in argv[1:] if a == "-" or not a.startswith(("-", "+"))]
        if name == "popd" or (name == "pushd" and not targets):
            cwd.known = False
        elif not targets:
            cwd.path, cwd.known = self.resolver.absolute(self.home, "/"), True
        elif targets[0] == "-" or _dynamic(targets[0]):
            cwd.known = False
        else:
            target = targets[0]
            cwd.path = self.resolver.absolute(target, cwd.path, tilde=False)
            cwd.known = cwd.known or target.startswith("/")


# --------------------------------------------------------------------------------------------------
# Public API


def parse_shell(command: str, *, home: str, base_dir: str, project_dir: str, max_depth: int = 4) -> dict[str, Any]:
    """The `input.shell` object of docs/policies.md for `command`, run in `base_dir`. Never raises."""
    try:
        builder = _Builder(home=home, project_dir=project_dir, max_depth=max_depth)
        start = _Cwd(builder.resolver.absolute(base_dir or project_dir, project_dir))
        builder.run_script(command, 0, start, False)
        return {
            "source": command,
            "parse_error": builder.error is not None,
            "error": builder.error,
            "commands": builder.commands,
        }
    except Exception as exc:  # never on the hot path: report it, and still show the words
        commands: list[dict[str, Any]] = []
        try:
            fallback = _Builder(home=home, project_dir=project_dir, max_depth=0)
            unknown = _Cwd(fallback.resolver.project, known=False)
            fallback.walk(_fallback(command, home), 0, unknown, None, [], False)
            commands = fallback.commands
        except Exception:
            commands = []
        return {"source": command, "parse_error": True, "error": _one_line(exc), "commands": commands}


def enrich_shell(event: NormalisedEvent) -> NormalisedEvent:
    """Adds `shell` to events of shell tools; other events pass unchanged. The command runs in the
    tool's working-directory argument when it gives one (its ToolSpec's cwd_args), else in the session's `cwd`."""
    tool = event.tool
    if tool is None or tool.kind is not ToolKind.SHELL:
        return event
    command = tool.input.get("command")
    if not isinstance(command, str):
        return event
    home = event_home(event)
    project_dir = event.project_dir
    base_dir = event.cwd or project_dir
    cwd_args = tool.spec.cwd_args if tool.spec is not None else ()
    dir_path = next((tool.input[arg] for arg in cwd_args if arg in tool.input), None)
    if isinstance(dir_path, str) and dir_path:
        base_dir = PathResolver(home=home, project_dir=project_dir).absolute(dir_path, project_dir)
    return event.with_facts(shell=parse_shell(command, home=home, base_dir=base_dir, project_dir=project_dir))
