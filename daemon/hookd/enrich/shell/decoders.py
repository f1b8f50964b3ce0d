"""What a decoder prints for a text the line spells out (`echo cm0gLXJmIH4= | base64 -d | sh`, `xxd -r -p <<< 726d`,
`rev <<< 'fr- mr'`, rot13 through `tr`): the next command of the pipe, or the substitution, reads the decoded text,
which is judged as the text it is rather than as code from nowhere. Encodings hide a command from literal matching
(MITRE T1027, T1140); decoding what the line itself holds judges what the call does. A decoder whose options this
module does not read, or a text that is not that encoding, prints what only running it tells (None)."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable

_MAX_TEXT = 64 * 1024  # an encoded text past this is not decoded
_SPACE = re.compile(r"\s+")


def _base64(text: str) -> bytes:
    return base64.b64decode(_SPACE.sub("", text) + "=" * (-len(_SPACE.sub("", text)) % 4), validate=True)


def _base32(text: str) -> bytes:
    compact = _SPACE.sub("", text).upper()
    return base64.b32decode(compact + "=" * (-len(compact) % 8))


def _hex(text: str) -> bytes:
    return binascii.unhexlify(_SPACE.sub("", text))


def _reversed_lines(text: str) -> bytes:
    return "\n".join(line[::-1] for line in text.split("\n")).encode()


# program -> (the option sets that make it decode (all of one set present), the decoder)
_DECODERS: dict[str, tuple[tuple[frozenset[str], ...], Callable[[str], bytes]]] = {
    "base64": ((frozenset({"-d"}), frozenset({"--decode"}), frozenset({"-D"})), _base64),
    "base32": ((frozenset({"-d"}), frozenset({"--decode"})), _base32),
    "xxd": ((frozenset({"-r", "-p"}), frozenset({"-r", "-ps"}), frozenset({"-r", "-plain"})), _hex),
    "rev": ((frozenset(),), _reversed_lines),
}
_QUIET = frozenset({"-i", "--ignore-garbage", "-w0", "-w", "-r", "-p", "-ps", "-plain", "-d", "-D", "--decode"})


def decoded(name: str, argv: list[str], text: str | None) -> str | None:
    """The text `argv` prints when `text` is its standard input, for a decoder this module reads; else None."""
    if text is None or len(text) > _MAX_TEXT or "$" in text or "`" in text:  # a value only the run shows
        return None
    if name == "tr":
        return _translated(argv[1:], text)
    entry = _DECODERS.get(name)
    options = _options(argv[1:])
    if entry is None or options is None:
        return None
    modes, decode = entry
    if not any(mode <= options for mode in modes) or not options <= _QUIET:
        return None
    try:
        return decode(text).decode("utf-8")
    except (ValueError, binascii.Error, UnicodeDecodeError):
        return None


def _options(words: list[str]) -> frozenset[str] | None:
    """The options of a decoder reading stdin (`-rp` split as xxd and getopt read it); None with an operand (a file
    is read, not the pipe)."""
    found: set[str] = set()
    for word in words:
        if not word.startswith("-") or word == "-":
            return None
        if word.startswith("--") or word in ("-ps", "-plain", "-w0"):
            found.add(word)
        else:
            found.update(f"-{letter}" for letter in word[1:])
    return frozenset(found)


_RANGE = re.compile(r"(.)-(.)", re.DOTALL)


def _translated(words: list[str], text: str) -> str | None:
    """`tr SET1 SET2` with literal characters and ranges (`'A-Za-z' 'N-ZA-Mn-za-m'`: rot13); classes, escapes
    and options are left to running it."""
    if len(words) != 2 or any(w.startswith("-") or "[" in w or "\\" in w for w in words):
        return None
    source, target = (_expanded(w) for w in words)
    if not source or not target:
        return None
    target = target + target[-1] * (len(source) - len(target))  # GNU tr pads SET2 with its last character
    table: dict[int, str] = {}
    for a, b in zip(source, target, strict=False):
        table.setdefault(ord(a), b)  # the first mapping of a repeated character wins
    return text.translate(table)


def _expanded(word: str) -> str:
    return _RANGE.sub(lambda m: "".join(map(chr, range(ord(m.group(1)), ord(m.group(2)) + 1))), word)
