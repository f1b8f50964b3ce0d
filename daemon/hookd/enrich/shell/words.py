"""Words: decoding one shell word from the source text (quote removal, ANSI-C `$'…'`, `~`, a leading
`$HOME`) and finding the substitutions inside it; shared by both parse paths so they give the same argv."""

from __future__ import annotations

import re

from hookd.enrich.shell.tree import LITERAL_MARK as LITERAL_MARK  # noqa: PLC0414 (re-exported with the marks)
from hookd.enrich.shell.tree import _Decline

# --------------------------------------------------------------------------------------------------
# Words

_META = frozenset(" \t\n|&;()<>")
_TILDE_STACK = re.compile(r"~([+-]?)(\d*)(?=$|[/ \t\n|&;()<>])")
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


def _has_subst(text: str) -> bool:
    return "$(" in text or "`" in text or "<(" in text or ">(" in text  # on every word: no generator


def _dynamic(text: str) -> bool:
    """A word that still holds an expansion: where it points is not known before it runs."""
    return "$" in text or "`" in text or "<(" in text or ">(" in text  # `$(` holds `$`


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
    """`s[i]` is just after `$(`, `<(` or `>(`; returns the index of the `)` that closes it, stepping over quotes,
    nested substitutions and here-document bodies. Raises _Decline for arithmetic, comments and anything unterminated
    (`case` patterns mislead it, but then the inside does not parse and the caller declines)."""
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
            return _read_parameter(s, i, out, subs)
        out.append(home if inner == "HOME" else s[i : end + 1])  # `--dir=$HOME/x` too, as bash
        return end + 1
    match = _NAME.match(s, i + 1)
    if match is None:
        out.append("$")
        return i + 1
    name = match.group()
    out.append(home if name == "HOME" else "$" + name)
    return match.end()


def _read_parameter(s: str, i: int, out: list[str], subs: list[str] | None, outermost: bool = True) -> int:
    """`s[i]` starts a `${…}` whose word holds quotes or expansions (`"${XDG_DATA_HOME:-$HOME/.local/share}/x"`):
    kept as written, to its own closing brace: one expansion whose value is not known (read to the first `}`, a
    quoted word kept its quotes). Only the outermost scans for substitutions (each level again: 900 nested, 330 ms)."""
    j = i + 2
    n = len(s)
    while j < n and s[j] != "}":
        nxt = _skip_construct(s, j)
        j = _read_parameter(s, j, [], subs, False) if nxt < 0 and s.startswith("${", j) else max(nxt, j + 1)
    if j >= n:
        raise _Decline
    found = _scan_substitutions(s[i + 2 : j]) if outermost else []
    if found and subs is None:
        raise _Decline
    if subs is not None:
        subs.extend(found)
    out.append(s[i : j + 1])
    return j + 1


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


# An unquoted word with a brace expansion (`{a,b}`, `{1..3}`) starts with this mark: the builder expands
# it into the words bash would give (quoted braces, `{}`, awk and jq programs stay words).
BRACE_MARK = "\x00{"
# A brace pair with nothing between but non-blanks is the only candidate at its `{` (its content runs up to the
# first brace or blank), so each `{` is looked at once; the list's `,` or `..` is then looked for in the content
# (one pattern for both backtracked over every split of the content: quadratic in it).
_BRACE_PAIR = re.compile(r"\{([^{}\s]*)\}")


def has_brace_list(text: str) -> bool:
    """Whether `text` has a brace list or range (`{a,b}`, `{1..3}`) that bash would expand, quotes aside."""
    return any("," in m.group(1) or ".." in m.group(1) for m in _BRACE_PAIR.finditer(text))


def _read_word(s: str, i: int, home: str, subs: list[str] | None = None) -> tuple[str, int]:
    """Decodes the shell word at `s[i]` up to the next unquoted metacharacter: quote removal, ANSI-C `$'…'`, and a
    leading `~`, `~/…`, `$HOME` or `${HOME}` expanded to `home`; other `$…` are kept as written, and so are `$(…)` and
    backticks, whose scripts are added to `subs` (without `subs`, they raise _Decline, as does anything unterminated).
    An assignment's value (read from after its `=`) and an argument shaped as one expand a `~` there and after each `:`
    (`dd of=~/f`: bash(1) Tilde Expansion)."""
    out: list[str] = []
    n, start = len(s), i
    value = named.end() if (named := _ASSIGN.match(s, i)) else i if s[i - 1 : i] == "=" else -1
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
            i = _read_tilde(s, i, i in (start, value) or (0 <= value < i and s[i - 1] == ":"), out, home)
    return _mark_braces(s[start:i], "".join(out)), i


def _read_tilde(s: str, i: int, first: bool, out: list[str], home: str) -> int:
    """`s[i]` is a `~`: at a word's start `~` and `~/` are the home, `~+`/`~-` $PWD/$OLDPWD, `~N`/`~+N`/`~-N` the
    directory stack's `${DIRSTACK[N]}` (from its end for `-N`): the builder puts in what it knows (no stack)."""
    stack = _TILDE_STACK.match(s, i) if first else None
    if stack and any(stack.groups()):
        sign, n = stack.groups()
        entry = f"DIRSTACK[{-int(n) - 1 if sign == '-' else int(n)}]" if n else "OLDPWD" if sign == "-" else "PWD"
        out.append(f"${{{entry}}}")
        return stack.end()
    out.append(home if first and s[i + 1 : i + 2] in ("", "/", *_META) else "~")
    return i + 1


def _mark_braces(raw: str, text: str) -> str:
    """`text` marked for brace expansion when its source `raw` has an unquoted brace list or range. Bash expands
    braces before anything else, so quoted pieces and expansions inside the list count too (`{cat,"$HOME"/.netrc}`),
    as long as they hold no brace or comma of their own that the decoded text would take for the list's."""
    if "{" not in raw or not has_brace_list(raw):
        return text
    if not any(q in raw for q in "'\"\\$`"):
        return BRACE_MARK + text  # the builder expands it (expand.braces)
    pieces, bare = _quoted_pieces(raw)
    if has_brace_list(bare) and not any(c in piece for piece in pieces for c in "{},"):
        return BRACE_MARK + text
    return text


_PIECE_START = re.compile(r"['\"\\$`]")
_PARAMETER_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789@*#?$!-")


def _quoted_pieces(raw: str) -> tuple[list[str], str]:
    """What bash does not brace-expand in `raw`: quotes, escapes and expansions (`'…'`, `"…"`, `$"…"`, `$'…'`,
    `\\x`, `${…}`, `$(…)`, `$((…))`, backticks, `$name`), left to right, each taken where it starts as the
    first of those forms that closes; and `raw` with each replaced by `_`. One pass: the closing character of
    each form is searched for forward from the last one found, and a quoted text's end is worked out once for
    every place it could start (a word of many unclosed `${` or `$(` was scanned to its end from each)."""
    pieces: list[str] = []
    bare: list[str] = []
    found: dict[str, int] = {}  # the first index of each closing character at or after the last search's start
    ends: dict[str, list[int]] = {}
    n, i, done = len(raw), 0, 0

    def closing(char: str, start: int) -> int:
        at = found.get(char)
        if at is None or 0 <= at < start:
            at = found[char] = raw.find(char, start)
        return at

    def quoted_end(quote: str, start: int) -> int:
        if quote not in ends:
            ends[quote] = _quoted_ends(raw, quote)
        return ends[quote][start]

    while (start := _PIECE_START.search(raw, i)) is not None:
        i = start.start()
        c, after = raw[i], raw[i + 1 : i + 2]
        end = -1
        if c == "'":
            end = closing("'", i + 1)
        elif c == '"' or (c == "$" and after in ("'", '"')):
            end = quoted_end(after if c == "$" else c, i + (2 if c == "$" else 1))
        elif c == "\\":
            end = i + 1 if after not in ("", "\n") else -1
        elif c == "`":
            end = closing("`", i + 1)
        elif after == "{":
            end = closing("}", i + 2)
        elif after == "(":
            end = closing(")", i + 2)
            while 0 <= end < n - 1 and raw[end + 1] == ")":
                end += 1
        elif after and after in _PARAMETER_CHARS:
            end = i + 1
            while end < n - 1 and raw[end + 1] in _PARAMETER_CHARS:
                end += 1
        if end < 0:
            i += 1
            continue
        pieces.append(raw[i : end + 1])
        bare += (raw[done:i], "_")
        done = i = end + 1
    bare.append(raw[done:])
    return pieces, "".join(bare)


def _quoted_ends(raw: str, quote: str) -> list[int]:
    """For each index of `raw`, where a quoted text whose inside starts there ends (the index of its closing `quote`;
    -1 when it does not close): inside, a backslash takes the next character with it, except a newline, which ends
    nothing."""
    ends = [-1] * (len(raw) + 2)
    for k in range(len(raw) - 1, -1, -1):
        c = raw[k]
        if c == quote:
            ends[k] = k
        elif c == "\\":
            ends[k] = ends[k + 2] if raw[k + 1 : k + 2] not in ("", "\n") else -1
        else:
            ends[k] = ends[k + 1]
    return ends


UNSPLIT_MARK = '\x00"'
# A word that is exactly `"$@"` or `"${a[@]}"` starts with this mark: one word per element, each as it was
# given, however many blanks it holds (the bash manual, "Special Parameters" and "Arrays").
ELEMENTS_MARK = "\x00@"
_ALL_ELEMENTS = re.compile(r"\$(?:@|\{@\}|\{[A-Za-z_][A-Za-z0-9_]*\[@\]\})")
_ELEMENTS_WORD = re.compile(r'"\$(?:@|\{@\}|\{[A-Za-z_][A-Za-z0-9_]*\[@\]\})"')


def elements_key(name: str) -> str:
    """Where the line's state keeps the elements of `$@` (name `@`) or of array `a` (name `a[@]`), joined by
    NUL (which no word holds): `$@`'s own value is the elements joined by blanks, as `$*` has them."""
    return name + "\x00"


# (LITERAL_MARK, tree.py: a word whose every `$` and backtick is quoted)
_LITERAL_SOURCE = re.compile(r"[^\x00].*[$`]|[$`]", re.S)  # holds a `$` or backtick, and no other mark


def mark_unsplit(raw: str, text: str) -> str:
    """`text` marked not to be split into words when every expansion in its source `raw` is inside double
    quotes (`sh -c "$X"` hands the shell one word, whatever $X holds), except `"$@"` and `"${a[@]}"`,
    which bash splits into one word per element (ELEMENTS_MARK when that is the whole word); marked as
    text (LITERAL_MARK) when its `$` and backticks are all quoted, and it has no expansion."""
    if _ELEMENTS_WORD.fullmatch(raw):
        return ELEMENTS_MARK + text
    if ("$" in raw or "`" in raw) and _LITERAL_SOURCE.match(text) and not _expansion(raw, True, tilde=True):
        return LITERAL_MARK + text
    if ("$" in raw or "`" in raw) and not _ALL_ELEMENTS.search(raw) and not _unquoted_expansion(raw):
        return UNSPLIT_MARK + text
    return text


def _unquoted_expansion(raw: str) -> bool:
    """Whether `raw` (one word's source) has a `$…` or backtick expansion outside double quotes."""
    return _expansion(raw, inside=False)


def _expansion(raw: str, inside: bool, tilde: bool = False) -> bool:
    """Whether `raw` (one word's source) has a `$…` or backtick expansion outside double quotes, or (`inside`)
    anywhere: a quoted or escaped `$` is none (`$'…'` neither), a `$` in double quotes is one; with `tilde`, an
    unquoted `~` too (the reader expands it, `~+` to `${PWD}`: a `$` of its own, not the line's text)."""
    i, n, quoted = 0, len(raw), False
    while i < n:
        c = raw[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and not quoted:
            end = raw.find("'", i + 1)
            i = n if end < 0 else end + 1
            continue
        if c == '"':
            quoted = not quoted
        elif c == "$" and raw[i + 1 : i + 2] == "'" and not quoted:
            end = raw.find("'", i + 2)  # `$'…'`: no expansion inside (an escaped quote only ends it later)
            while end > 0 and raw[end - 1] == "\\":
                end = raw.find("'", end + 1)
            i = n if end < 0 else end + 1
            continue
        elif (c in "$`" and (inside or not quoted)) or (tilde and c == "~" and not quoted):
            return True
        i += 1
    return False


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
    """The scripts of the outermost `$(…)` and backtick substitutions in `text` (a here-document body, a `${…}`
    parameter); an unterminated one runs to the end of the text."""
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
