"""zsh's glob qualifiers in a `zsh -c` text (zshexpn(1), "Glob Qualifiers"), which hookd otherwise reads as bash
(to which `*(.)` is a syntax error, so the whole text was asked however plain). A qualifier list at the end of a
pattern word either only selects among the files the pattern matches (`(.)` regular files, `(/)` directories,
`(N)` no error when none, `(om[1,5])` the newest five, `(Lk+100)`, modifiers after `:`): the pattern stands for at
least as many files, so the list is dropped; or it runs code for each file: `e:STRING:` evaluates STRING, `+NAME`
calls NAME (with `$REPLY` the file). That code runs before the command, so it is put as a command of its own
before the command's words (`rm -rf ~/*(e:'CODE':)` is read as `CODE; rm -rf ~/*`), judged as any command is.
A list that is not read whole is left as written (asked, as before). Parameter flags and modifiers of `${…}` are
not read here."""

from __future__ import annotations

import re
import shlex

_SELECTORS = frozenset("/F.@=p*%rwxAIERWXsStUGMTNDn^-")  # each a whole qualifier, taking nothing
_NUMBERED = re.compile(r"[amc][Mwhms]?[-+]?\d+|L[kmpKMPG]?[-+]?\d+|l[-+]?\d+|[ugdY]\d+|\[-?\d+(?:,-?\d+)?\]|[oO].")
_MODE = re.compile(r"f[0-7+=,ugoarwxst-]+")  # `f755`, `f+x`: a mode spec given without delimiters
_NAME = re.compile(r"\+([A-Za-z_][\w:-]*)")
_DELIMITED = "fePug"  # `e:…:`, `P:…:`, `u:name:`, `f{…}`: a string between delimiters (brackets pair)
_PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">"}
_GLOB = re.compile(r"[*?\[]")
_BOUNDARY = frozenset(";\n&|")
MAX_LISTS = 64  # `(`s read as qualifier lists in one text (each scans its word and ahead): linear past them


def zsh_text(text: str) -> str:
    """`text` with each glob qualifier list read: dropped where it only selects, its code put before its command
    where it runs some; unchanged where nothing is read (no `(` after a pattern)."""
    if "(" not in text or not _GLOB.search(text):
        return text
    out: list[str] = []
    quote = ""
    start = 0  # where the command being scanned begins in `out` (after the last `;`, `|`, `&`, newline)
    word = 0  # where the word being scanned begins in `out`
    k = scans = 0
    while k < len(text):
        char = text[k]
        if quote:
            quote = "" if char == quote and (quote == "'" or text[k - 1] != "\\") else quote
        elif char in "'\"":
            quote = char
        elif char == "\\":
            out.append(text[k : k + 2])
            k += 2
            continue
        elif char in _BOUNDARY:
            start, word = len(out) + 1, len(out) + 1
        elif char in " \t":
            word = len(out) + 1
        elif char == "(" and (scans := scans + 1) <= MAX_LISTS and _GLOB.search("".join(out[word:])):
            end = _closing(text, k)
            if end is None:
                out.append(char)
                k += 1
                continue
            codes = _codes(text[k + 1 : end])
            after = text[end + 1 : end + 2]
            if codes is not None and (not after or after in " \t;\n&|)"):
                out[start:start] = [f"{code}; " for code in codes]
                word += len(codes)
                k = end + 1
                continue
        out.append(char)
        k += 1
    return "".join(out)


def _closing(text: str, at: int) -> int | None:
    """The `)` that closes the list opened at `at`, outside quotes; None when there is none."""
    quote = ""
    for k in range(at + 1, len(text)):
        char = text[k]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == ")":
            return k
        elif char in "\n;|&":
            return None
    return None


def _codes(qualifiers: str) -> list[str] | None:
    """The code a qualifier list runs (each `e` string unquoted, each `+NAME`), [] when it only selects; None
    when it is not read whole (an empty list is a function's, not a qualifier's)."""
    codes: list[str] = []
    k = 0
    while k < len(qualifiers):
        rest = qualifiers[k:]
        if rest[0] == ":":  # modifiers (`:t`, `:r`, `:s/a/b/`) to the end: they change the names, run nothing
            return codes
        if rest[:2] in ("%b", "%c"):
            k += 2
        elif (found := _NUMBERED.match(rest) or _MODE.match(rest)) is not None:
            k += found.end()
        elif rest[0] in _SELECTORS:
            k += 1
        elif (name := _NAME.match(rest)) is not None:
            codes.append(name.group(1))
            k += name.end()
        elif rest[0] in _DELIMITED and len(rest) > 2:
            close = _PAIRS.get(rest[1], rest[1])
            end = _delimited(rest, close)
            if end is None:
                return None
            if rest[0] == "e":
                try:
                    codes.append(" ".join(shlex.split(rest[2:end])))
                except ValueError:
                    return None
            k += end + 1
        else:
            return None
    return codes if qualifiers else None


def _delimited(rest: str, close: str) -> int | None:
    """The index of the closing delimiter of the string that starts at rest[2], outside quotes."""
    quote = ""
    for k in range(2, len(rest)):
        char = rest[k]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == close:
            return k
    return None
