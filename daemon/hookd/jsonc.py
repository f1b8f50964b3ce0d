"""JSON with comments, read as the agents that write it read it: OpenCode and Kilo load their `opencode.json(c)` and
`kilo.json(c)` with Microsoft's jsonc-parser (`parse(text, errors, {allowTrailingComma: true})`, any error refused:
packages/opencode/src/config/config.ts). So `//` and `/* */` comments outside strings are trivia, one comma before a
closing `]` or `}` is allowed, a key given twice takes the LAST value (as `json.loads` does), and anything else the
strict JSON grammar refuses (an unclosed comment, `[,]`, `NaN`) is refused: ValueError."""

from __future__ import annotations

import json
import re
from typing import Any

_CLOSERS = frozenset("]}")
_OPENERS_AND_SEPARATORS = frozenset("[{,:")


def loads(text: str) -> Any:
    """The value of a JSONC text; ValueError when jsonc-parser would report an error for it."""
    return json.loads(strip_trivia(text), parse_constant=_refused)


def strict_loads(text: str) -> Any:
    """Strict JSON as a JavaScript agent's `JSON.parse` reads it: `NaN` and `Infinity`, which Python's json accepts,
    refused (ValueError) as the agent refuses the whole file."""
    return json.loads(text, parse_constant=_refused)


def strip_trivia(text: str) -> str:
    """`text` with its comments blanked (newlines kept, so an error's position stays) and each trailing comma
    (after a value, before `]` or `}`) dropped; strings kept as written. ValueError for an unclosed comment."""
    out: list[str] = []
    for match in _TOKEN.finditer(text):
        piece = match.group()
        if piece.startswith("//"):
            continue
        if piece.startswith("/*"):
            if len(piece) < 4 or not piece.endswith("*/"):
                raise ValueError("an unclosed block comment")
            out.append("\n" * piece.count("\n"))
        elif piece in _CLOSERS:
            _drop_trailing_comma(out)
            out.append(piece)
        else:
            out.append(piece)
    return "".join(out)


# A string (to its closing quote, or to the line's end where it is not closed: json.loads then refuses it), a line
# comment, a block comment (or an unclosed one: to the end), a run of other characters, or one character.
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"?|//[^\n]*|/\*.*?(?:\*/|\Z)|[^"/\]},]+|.', re.S)


def _drop_trailing_comma(out: list[str]) -> None:
    """Drop the comma that the last significant piece of `out` is, when a value comes before it (`[1,]`); a comma
    after an opener or another comma (`[,]`, `[1,,]`) stays for json.loads to refuse."""
    k = len(out) - 1
    while k >= 0 and not out[k].strip():
        k -= 1
    if k < 0 or out[k] != ",":
        return
    j = k - 1
    while j >= 0 and not out[j].strip():
        j -= 1
    if j >= 0 and out[j].rstrip()[-1:] not in _OPENERS_AND_SEPARATORS:
        del out[k]


def _refused(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
