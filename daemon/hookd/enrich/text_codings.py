"""Spellings of a text that its reader undoes without a key (enrich/carried_secrets.py searches a call's text
for this machine's secret values under each; blind-tools-19's misses, policies/README.md "A nineteenth blind
batch of the agents' tools"):

* characters written as their codes: escape sequences (`\\u0073`, `\\u{73}`, `\\U00000073`, `%u0073`, octal
  `\\163`), HTML and XML character references (`&#115;`, `&#x73;`, named ones), a string literal's escaped quote
  and backslash, and lists of decimal codes (`String.fromCharCode(115,107)`, `bytes([115, 107])`), read as the
  characters they stand for;
* a text with one separator between each of its characters (`q.8.V.d`, a space or a zero-width space between
  letters), or one mark between its chunks of 2 to 7 characters (`q8-Vd-2L`), read with the separators taken out;
* the ascii85 and base85 encodings (Adobe's and RFC 1924's alphabets), beside enrich/carried_secrets.py's base64,
  hex and base32;
* a compressed payload (gzip, zlib, bzip2, xz: found by its magic bytes once a run is decoded; raw deflate, which
  has none, tried on what is long enough), decompressed;
* letter rotations (the 25 Caesar shifts, ROT13 among them, and ROT47 over printable ASCII): the search applies
  them to the values, not the text (`rotations`).

Bounded: each function is linear in its input; a decompression stops at MAX_INFLATED bytes.

Cheap: each coding first asks whether the text can hold it at all (a first test, one C-speed scan): no backslash,
`%u` or `&` is no escape; a list of codes, a separated run and a chunked run are each read only on the lines
where a shorter pattern that every one of them contains is found (MIN_CODES codes' digits and separators; eleven
like separators one character apart; three like marks with chunks between); a base85 run is looked for only in a
run of visible characters whose set holds its mix (a digit, both cases, three marks); raw deflate is tried only on
bytes whose first block header is valid.
A first test only ever turns away text its coding's full reading would find nothing in."""

from __future__ import annotations

import base64
import binascii
import bz2
import html
import lzma
import re
import zlib
from collections.abc import Callable, Iterator

MIN_CODES = 8  # codes of the shortest list read as characters (a date or a version is shorter)
MIN_SPACED = 12  # characters of the shortest separated run read
MIN_BASE85 = 20  # characters of the shortest ascii85/base85 run decoded
MAX_INFLATED = 1024 * 1024  # bytes a decompression yields at most (a compression bomb stops there)
MIN_DEFLATED = 8  # bytes of the shortest raw deflate stream tried
MAX_BASE85 = 16 * 1024  # characters of a text's ascii85/base85 runs decoded (each run read at five offsets)

_ESCAPE = re.compile(
    r"\\u\{([0-9a-fA-F]{1,6})\}|\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})|%u([0-9a-fA-F]{4})|\\([0-7]{3})"
    r"|\\x([0-9a-fA-F]{2})|\\([\"'\\/])"
)
_REFERENCE = re.compile(r"&(?:#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]{1,31});")
_CODE_LIST = re.compile(rf"(?<![\w.])(?:\d{{1,7}}+[^\w\n]{{1,4}}+){{{MIN_CODES - 1},}}\d{{1,7}}+(?![\w.])")
_CODE = re.compile(r"\d+")
# what every list of MIN_CODES codes holds: a digit, then each next code's first digit after its separator (begun
# by a digit, the scan skips to digits at C speed)
_CODE_LIST_START = re.compile(rf"\d[^\w\n]{{1,4}}\d(?:\d{{0,6}}[^\w\n]{{1,4}}\d){{{MIN_CODES - 2}}}")
# one character, then the same separator (anything but a letter or a digit) between each following one
_SPACED = re.compile(rf"[^\s](?P<sep>[^A-Za-z0-9\n])(?:[^\s](?P=sep)){{{MIN_SPACED - 2},}}[^\s]")
# every separated run holds MIN_SPACED - 1 separators one character apart: found from the separator, which is rarer
# than the characters _SPACED starts from
_SPACED_START = re.compile(rf"([^A-Za-z0-9\n])(?:\S\1){{{MIN_SPACED - 2}}}")
MAX_CHUNK = 7  # characters of the longest chunk read (a longer piece is enrich/piece_search.py's)
_CHUNK = "A-Za-z0-9+/=_~"
_CHUNKED = re.compile(
    rf"(?<![{_CHUNK}])[{_CHUNK}]{{1,{MAX_CHUNK}}}+([^{_CHUNK}\s])(?:[{_CHUNK}]{{1,{MAX_CHUNK}}}+\1){{2,}}"
    rf"[{_CHUNK}]{{1,{MAX_CHUNK}}}+(?![{_CHUNK}])"
)
_ONE_CHUNK = rf"[{_CHUNK}]{{1,{MAX_CHUNK}}}"
_CHUNKED_START = re.compile(rf"([^{_CHUNK}\s]){_ONE_CHUNK}\1{_ONE_CHUNK}\1")  # three marks: every chunked run has them
_ASCII85_RUN = re.compile(rf"[!-uz]{{{MIN_BASE85},}}")
_BASE85_RUN = re.compile(rf"[0-9A-Za-z!#$%&()*+\-;<=>?@^_`{{|}}~]{{{MIN_BASE85},}}")
_VISIBLE_RUN = re.compile(r"[!-~]{16,}")  # what both ROT47 and the base85 alphabets are drawn from
_BASE64_ONLY = re.compile(r"[A-Za-z0-9+/=_-]+")
_ROT47_FROM = bytes(range(33, 127))
_ROT47 = bytes.maketrans(_ROT47_FROM, _ROT47_FROM[47:] + _ROT47_FROM[:47])  # ASCII only: UTF-8's other bytes kept
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_UPPER = _LOWER.upper()
_DIGITS = "0123456789"
_ALNUM = frozenset(_LOWER + _UPPER + _DIGITS)


def _escaped_char(match: re.Match[str]) -> str:
    groups = match.groups()
    if groups[6] is not None:
        return groups[6]
    base = 8 if groups[4] is not None else 16
    code = int(next(g for g in groups[:6] if g is not None), base)
    return chr(code) if code <= 0x10FFFF else match.group()


def unescaped(text: str) -> str | None:
    """`text` with its escape sequences and character references read, or None when it holds none."""
    out = _ESCAPE.sub(_escaped_char, text) if "\\" in text or "%u" in text else text
    if "&" in out and _REFERENCE.search(out):
        out = html.unescape(out)
    return out if out != text else None


def code_lists(text: str) -> list[str]:
    """The characters each list of decimal codes of `text` stands for (codes outside Unicode leave a list out)."""
    out = []
    for match in line_matches(_CODE_LIST, _CODE_LIST_START, text):
        codes = [int(c) for c in _CODE.findall(match.group())]
        if all(9 <= c <= 0x10FFFF for c in codes):
            out.append("".join(chr(c) for c in codes))
    return out


def despaced(text: str) -> list[str]:
    """Each run of `text` with one separator between its characters, or one mark between its chunks of 2 to
    MAX_CHUNK characters (a chunker's output: every chunk that size, the last no longer), the separators taken
    out."""
    out = [m.group()[::2] for m in line_matches(_SPACED, _SPACED_START, text)]
    for match in line_matches(_CHUNKED, _CHUNKED_START, text):
        chunks = match.group().split(match.group(1))
        size = len(chunks[0])
        if size > 1 and all(len(c) == size for c in chunks[:-1]) and len(chunks[-1]) <= size:
            out.append("".join(chunks))
    return out


def line_matches(pattern: re.Pattern[str], first_test: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """`pattern`'s matches in `text`, read only on the lines where `first_test` finds something. Both patterns
    match within one line (no newline in them), and every match of `pattern` holds one of `first_test`'s: the
    lines skipped hold none. Linear: each line is read by `pattern` at most once, and the next first test starts
    past it."""
    at, size = 0, len(text)
    while at < size and (hit := first_test.search(text, at)) is not None:
        start = text.rfind("\n", 0, hit.start()) + 1
        end = text.find("\n", hit.end())
        end = size if end < 0 else end
        yield from pattern.finditer(text, start, end)
        at = end + 1


def spellings(text: str) -> list[str]:
    """What `text` reads as once its characters' codes are read and its separators taken out (not `text`)."""
    out = [u] if (u := unescaped(text)) is not None else []
    return out + code_lists(text) + despaced(text)


def visible_runs(text: str) -> list[str]:
    """The runs of `text` of 16 or more visible ASCII characters: what base85 and rot47_runs read (one scan for
    both)."""
    return _VISIBLE_RUN.findall(text)


def base85(text: str, visible: list[str] | None = None) -> list[bytes]:
    """What each ascii85 or base85 run of `text` that looks encoded decodes to (the first MAX_BASE85 characters of
    runs), read from each of its first five characters that only marks precede (a run found in a text may begin
    with what precedes the value: a quote or `=` is in ascii85's alphabet)."""
    out, budget = [], MAX_BASE85
    # each alphabet's run lies in a run of visible characters that holds its mix: only those are read again
    runs = visible_runs(text) if visible is None else visible
    mixed = [r for r in runs if len(r) >= MIN_BASE85 and _mixed85(set(r))]
    for pattern, decode in ((_ASCII85_RUN, base64.a85decode), (_BASE85_RUN, base64.b85decode)):
        for run in dict.fromkeys(sub for r in mixed for sub in pattern.findall(r)):
            if budget <= 0:
                break
            if not _looks_encoded(run):
                continue
            budget -= len(run)
            starts = [at for at in range(5) if not run[:at].isalnum()]  # what precedes a value: a quote, `=`, `<~`
            out += [raw for at in starts if (raw := _decoded85(decode, run[at:].rstrip("~>"))) is not None]
    return out


def _looks_encoded(run: str) -> bool:
    """An encoder's output spreads over its alphabet: a run with a digit, both cases and three punctuation marks
    (a run of base64's alphabet only is left to base64; an identifier or a call of code lacks some)."""
    if _BASE64_ONLY.fullmatch(run):
        return False
    return _mixed85(set(run))


def _mixed85(chars: set[str]) -> bool:
    """`chars` (an ASCII run's, read once) hold a digit, both cases and three marks: set operations, each at C
    speed, the digit (what code and prose lack most) asked first."""
    if chars.isdisjoint(_DIGITS) or chars.isdisjoint(_UPPER) or chars.isdisjoint(_LOWER):
        return False
    return len(chars - _ALNUM) >= 3


def _decoded85(decode: Callable[[str], bytes], run: str) -> bytes | None:
    try:
        return decode(run)
    except (ValueError, binascii.Error):
        return None


def inflated(raw: bytes) -> bytes | None:
    """`raw` decompressed when it begins with a compressor's magic bytes, at most MAX_INFLATED bytes of it."""
    try:
        if raw[:2] == b"\x1f\x8b":
            return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, MAX_INFLATED)
        if len(raw) > 1 and raw[0] == 0x78 and (raw[0] << 8 | raw[1]) % 31 == 0:
            return zlib.decompressobj().decompress(raw, MAX_INFLATED)
        if raw[:3] == b"BZh":
            return bz2.BZ2Decompressor().decompress(raw, MAX_INFLATED)
        if raw[:6] == b"\xfd7zXZ\x00":
            return lzma.LZMADecompressor().decompress(raw, MAX_INFLATED)
        if len(raw) >= MIN_DEFLATED and _deflate_header(raw):  # no magic: tried on what may begin a stream
            return zlib.decompressobj(-zlib.MAX_WBITS).decompress(raw, MAX_INFLATED) or None
    except (zlib.error, OSError, lzma.LZMAError, EOFError, ValueError):
        return None
    return None


def _deflate_header(raw: bytes) -> bool:
    """`raw` may begin a raw deflate stream (RFC 1951 §3.2.3): its first block's type is not the reserved one,
    and a stored block's length is followed by its ones' complement (zlib rejects any other at once)."""
    kind = raw[0] >> 1 & 3
    if kind == 3:
        return False
    return kind != 0 or raw[1] | raw[2] << 8 == (raw[3] | raw[4] << 8) ^ 0xFFFF


_WORD = re.compile(r"[a-z]{5}")


def rot47_runs(text: str, visible: list[str] | None = None) -> list[str]:
    """The runs of `text` that may be ROT47's output, read back: visible ASCII with no word of five lowercase
    letters (ROT47 maps lowercase letters to digits, marks and capitals: a secret so written has none, a line of
    code or prose has some)."""
    runs = visible_runs(text) if visible is None else visible
    return [rot47(run) for run in runs if _WORD.search(run) is None]


def rot47(text: str) -> str:
    """`text` under ROT47 (its own inverse): a text so written holds no letter-and-digit run until read back."""
    return text.encode("utf-8", "surrogatepass").translate(_ROT47).decode("utf-8", "surrogatepass")


_SKELETON = bytes.maketrans(bytes(range(97, 123)) + bytes(range(65, 91)), b"a" * 52)


def letter_skeleton(text: str) -> str:
    """`text` with every ASCII letter written `a`: what a letter rotation keeps (digits and marks stay)."""
    return text.encode("utf-8", "surrogatepass").translate(_SKELETON).decode("utf-8", "surrogatepass")


_SHIFTS = [str.maketrans(_LOWER + _UPPER, _LOWER[k:] + _LOWER[:k] + _UPPER[k:] + _UPPER[:k]) for k in range(1, 26)]


def rotations(value: str) -> list[str]:
    """`value` under each letter rotation (shifts 1 to 25; digits and symbols kept) and, last, under ROT47."""
    return [*(value.translate(table) for table in _SHIFTS), rot47(value)]
