"""Secrets of this machine carried by a tool call's own text (the `carried_secrets` fact; policies/secret_moves):
a secret is moved, not only printed, when a write puts the text of a credential into a project file (a fixture,
the README, an inlined setting), when a web tool's URL carries it in its query, or when an MCP server's tool sends
it (an issue's body, a chat message, a commit's files). Its spelling is never known in advance (`npm_…`,
`sk_live_…`, a password, a key's base64 lines), but its VALUE is: it is what this machine's credential stores hold
now. So the values are read from those stores (the home's credential files that policies/secret_reads/data.json
names, `~/.ssh`'s private keys, the project's `.env` files) and the call's text is searched for each, as written,
percent-decoded, and inside the base64, hex and base32 runs it holds (a file or a value sent encoded).

What counts as a store's secret value (holdings.py's shapes): a credential key's value, a URL's password, a token
or key in a known shape, a private key block's lines, and in a dotenv file every value that is one run of token
characters with letters and digits (`STRIPE_KEY=sk_live_…`, whatever its name). Values shorter than MIN_VALUE are
left out: a short one would match by chance.

Only a call whose text holds a run that may be one (letters and digits, with a capital or 32 long, or 16 letters
and digits unbroken: a value lower-cased, as the search folds it; no `/` or `.` in it: not a path nor a dotted name),
or a run an encoding of one may be that holds no digit (base32's, base64's) or no letter (hex's), reads the stores:
an everyday write does not pay their stats.

Where a text hides it: past any length (a text is read in windows of MAX_TEXT characters, each overlapping the next
by OVERLAP, and every encoded run of a window is decoded, however many longer runs precede it; past MAX_DECODED
characters a text is searched as written only, and the fact says how many were left so: `undecoded`), under
encodings of encodings (up to MAX_LAYERS, each layer's decoded text read again when it is text), written backwards,
as an object's key or however deep an argument nests (every string of a tool's input is walked, keys too).

Bounded: the first holdings.MAX_SNIFF bytes of each store (regular files only, never through a link), the values
cached by the store's (inode, size, mtime); the decoding work is linear in the MAX_DECODED characters of a text.
Any failure is "not known" (no fact): this fact only widens what is stopped. A write into a credential store
itself (the `.env` edited, `~/.npmrc` rewritten) carries nothing out of it."""

from __future__ import annotations

import base64
import binascii
import os
import re
from collections.abc import Iterator, Mapping
from functools import cached_property
from itertools import chain
from typing import Any
from urllib.parse import unquote

from hookd.enrich.ci_workflows import every_secret
from hookd.enrich.holdings import _PAIR, _SHAPES, _URL_PASSWORD, head, is_credential_key, is_secret_value
from hookd.enrich.piece_search import piece_index, pieced_values
from hookd.enrich.text_codings import (
    base85,
    inflated,
    letter_skeleton,
    rot47,
    rot47_runs,
    rotations,
    spellings,
    visible_runs,
)
from hookd.enrich.tool_args import new_texts, url_texts
from hookd.types import JSON, NormalisedEvent, ToolKind

MIN_VALUE = 16  # characters of the shortest value looked for
MAX_TEXT = 256 * 1024  # characters of a window of a call's text decoded at once
OVERLAP = 4 * 1024  # characters a window shares with the next (a value or its encoding cut by a window's end)
MAX_DECODED = 4 * MAX_TEXT  # characters of a call's text decoded; the rest is searched as written (wire bounds it)
MAX_LAYERS = 3  # encodings of encodings decoded
PIECE = 8  # characters of the shortest piece of a value sent in parts
MIN_PIECED = 20  # characters of the shortest value looked for in parts
COVERED = 0.8  # share of a value its pieces found in the text must cover
MAX_PIECED_TEXT = 4 * 1024  # characters of a call's text searched for pieces (a message, an issue, a URL)

# The home's credential files (policies/secret_reads/data.json `credential_files` whose suffix is a path below the
# home: a test keeps the two the same) and ssh's private keys (`key_names`).
HOME_STORES = (
    ".aws/credentials", ".netrc", ".docker/config.json", ".kube/config", ".git-credentials", ".pgpass", ".pypirc",
    ".npmrc", ".yarnrc.yml", ".cargo/credentials.toml", ".cargo/credentials", ".config/gh/hosts.yml", ".config/hub",
    ".vault-token", ".terraform.d/credentials.tfrc.json", ".gem/credentials", ".composer/auth.json",
    ".config/composer/auth.json", ".m2/settings-security.xml", ".gradle/gradle.properties", ".s3cfg", ".boto",
    ".config/doctl/config.yaml", ".my.cnf", ".config/rclone/rclone.conf", ".m2/settings.xml",
    ".gemini/oauth_creds.json", ".codex/auth.json", ".local/share/opencode/auth.json", ".claude/.credentials.json",
    ".qwen/oauth_creds.json",
    ".ssh/id_rsa", ".ssh/id_dsa", ".ssh/id_ecdsa", ".ssh/id_ed25519", ".ssh/id_ecdsa_sk", ".ssh/id_ed25519_sk",
)  # fmt: skip
# The project's dotenv files (secret_reads' `.env` rule and its `env_other_names`)
PROJECT_STORES = (".env", ".env.local", ".env.development", ".env.production", ".env.test", ".dev.vars", ".secrets")

# A run that may be (a piece of) a secret value: letters and digits, with a capital, or long (hex, lowercase keys);
# a path, a dotted name or a plain identifier is none. Only a call holding one reads the stores (each a stat).
_CANDIDATE = re.compile(rf"[A-Za-z0-9+=_~-]{{{MIN_VALUE},}}")
_PIECE_RUN = re.compile(rf"[A-Za-z0-9+=_~-]{{{PIECE},}}")
# a value lower-cased (the search folds case: a DNS label arrives so), unbroken by a word's separator
_FOLDED_RUN = re.compile(rf"(?<![a-z0-9])[a-z0-9]{{{MIN_VALUE},}}")  # (from a run's start: each run read once)
_SHORTEST_BASE64 = -(-MIN_VALUE * 4 // 3)  # characters of the shortest value's base64, its padding left off
_BASE64_RUN = re.compile(rf"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{{{_SHORTEST_BASE64},}}={{0,2}}")
# a run an encoding of a value may be that holds letters of one case only: base32's (no digit), hex's digits (no
# letter); base64's runs of both cases are decoded whatever their digits and `/` (_decodes_to_candidate)
_SHORTEST_BASE32 = -(-MIN_VALUE * 8 // 5)  # characters of the shortest value's base32, its padding left off
_UNMIXED_ENCODED = re.compile(rf"[A-Z2-7]{{{_SHORTEST_BASE32},}}|[a-z2-7]{{{_SHORTEST_BASE32},}}|[0-9]{{32,}}")
# hex and base32 alphabets are inside base64's: their runs are looked for only inside the base64 runs found
_HEX_RUN = re.compile(r"[0-9a-fA-F]{32,}")
_BASE32_RUN = re.compile(r"[A-Za-z2-7]{24,}=*")  # decoders read either case (Python's casefold, RFC 4648 §3.3)
# What encoders put between the pieces of their output (compacted away before the search): a hex dump's offset
# column (xxd's `00000000: `, hexdump -C's `00000000  `), hex bytes in groups (`7a54 3470`, `7a:54`, `0x7a, 0x54`,
# `\x7a\x54`), and lines wrapped at a width (xxd -p's 60 columns, base64's and base32's 76)
_DUMP_OFFSET = re.compile(r"[ \t]*[0-9a-fA-F]{6,8}(?::[ \t]*|[ \t]{2,})")
_HEX_GROUPS = re.compile(r"(?:(?:0[xX]|\\x)?(?:[0-9a-fA-F]{2})+(?:[ \t,:;.-]{1,3}|$))+")
_HEX_SEPARATORS = re.compile(r"0[xX]|\\x|[^0-9a-fA-F]")
_WRAPPED_LINE = re.compile(r"[A-Za-z0-9+/=_-]+")
# The first test of a line that gives a piece (a superset of `_line_pieces`' yes): a dump's offset, hex bytes
# beginning it, or a line that is one run of an encoding's alphabet. `[^\S\n]` is what strip() takes away within a
# line. Begun by the newline, the scan skips to each line's start at C speed; possessive, it never backtracks
_PIECE_BODY = (
    r"[^\S\n]*+(?:[0-9a-fA-F]{6,8}(?::|[ \t]{2})"
    r"|(?:0[xX]|\\x)?(?:[0-9a-fA-F]{2})++(?:[ \t,:;.-]|[^\S\n]*+$)"
    r"|[A-Za-z0-9+/=_-]++[^\S\n]*+$)"
)
_FIRST_PIECE_LINE = re.compile(_PIECE_BODY, re.MULTILINE)
_PIECE_LINE = re.compile(r"\n" + _PIECE_BODY, re.MULTILINE)
# a text with splitlines' other line breaks is read line by line
_OTHER_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_PEM_LINE = re.compile(r"^[A-Za-z0-9+/=]{40,}$", re.MULTILINE)
_DOTENV = re.compile(r"^[ \t]*(?:export[ \t]+)?[A-Za-z_][A-Za-z0-9_]*[ \t]*=[ \t]*[\"']?([^\s\"'#]+)", re.MULTILINE)
_TOKEN_VALUE = re.compile(r"[A-Za-z0-9+/=_.~-]+")
# netrc(5): whitespace-separated tokens, a `password` or `account` token's next token its secret (no `=` or `:`)
_NETRC_SECRET = re.compile(r"(?:^|\s)(?:password|account)\s+(\S+)")

# A URL's user information holding a password that looks generated (upper and lower case and digits, 10 long):
# the `user:password@host` part is a value however short the password (MIN_VALUE leaves the password alone out)
_CREDENTIAL_AUTHORITY = re.compile(r"://([^\s/:@\"']{1,256}:([^\s/@\"']{10,256})@[A-Za-z0-9.-]{1,253}(?::[0-9]{1,5})?)")

# A CI workflow's whole secrets context (enrich/ci_workflows.py): every repository secret in one value
_CI_SECRETS = "the CI's whole secrets context (toJSON(secrets))"

_cache: dict[str, tuple[tuple[int, int, int], frozenset[str]]] = {}


def store_values(text: str, *, dotenv: bool = False, netrc: bool = False) -> frozenset[str]:
    """The secret values a credential store's `text` holds (see the module doc); a `netrc` store's by its grammar."""
    found = {m.group() for m in _SHAPES.finditer(text) if "PRIVATE KEY" not in m.group()}
    found |= {m.group(1) for m in _NETRC_SECRET.finditer(text)} if netrc else set()
    found |= {m.group(1) for m in _URL_PASSWORD.finditer(text)}
    found |= {m.group() for m in _PEM_LINE.finditer(text)} if "PRIVATE KEY-----" in text else set()
    for match in _PAIR.finditer(text):
        value = next((v for v in match.groups()[1:] if v is not None), "")
        if is_credential_key(match.group(1)):
            found.add(value)
    if dotenv:
        found |= {v for m in _DOTENV.finditer(text) if _TOKEN_VALUE.fullmatch(v := m.group(1)) and _mixed(v)}
    found |= {m.group(1) for m in _CREDENTIAL_AUTHORITY.finditer(text) if _generated(m.group(2))}
    return frozenset(v.strip() for v in found if len(v.strip()) >= MIN_VALUE and is_secret_value(v))


def _generated(password: str) -> bool:
    return any(c.isupper() for c in password) and any(c.islower() for c in password) and _mixed(password)


def _may_hold_secret(text: str) -> bool:
    """`text` holds a candidate run (_CANDIDATE with a digit and a letter, and a capital or 32 characters; or
    _FOLDED_RUN with both), or two pieces of one (_PIECE_RUN with a digit and a capital: a value sent in parts)."""
    for match in _CANDIDATE.finditer(text):
        run = match.group()
        if _mixed(run) and (len(run) >= 32 or not run.islower()):
            return True
        if _mixed(run) and any(_mixed(m.group()) for m in _FOLDED_RUN.finditer(run)):  # (inside a candidate run)
            return True
    pieces = (m.group() for m in _PIECE_RUN.finditer(text[:MAX_PIECED_TEXT]))
    if sum(1 for run in pieces if _mixed(run) and not run.islower()) >= 2:
        return True
    return any(_generated(m.group(2)) for m in _CREDENTIAL_AUTHORITY.finditer(text))


class _Readings:
    """One window of a call's text and the spellings both the first look (`_may_be_carried`) and the decoding
    (`_decoded`) read, each computed once and only when asked for."""

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def compacted(self) -> str:
        return compacted(self.text)

    @cached_property
    def spellings(self) -> list[str]:
        return spellings(self.text)

    @cached_property
    def visible(self) -> list[str]:
        return visible_runs(self.text)

    @cached_property
    def base85(self) -> list[bytes]:
        return base85(self.text, self.visible)


def _readings(text: str | _Readings) -> _Readings:
    return text if isinstance(text, _Readings) else _Readings(text)


def _may_be_carried(text: str | _Readings) -> bool:
    """`text`, compacted, or one of its spellings (text_codings: codes read, separators taken out, base85
    decoded, ROT47 read back) may hold a secret (`_may_hold_secret`). Asked in that order, and the first yes ends
    the look: a text that holds a candidate as written spends nothing on its spellings."""
    read = _readings(text)
    if _may_hold_secret(read.text) or _may_hold_secret(read.compacted):
        return True
    decoded85 = (t for raw in read.base85 if (t := _text_of(raw)) is not None)
    if any(map(_may_hold_secret, chain(read.spellings, decoded85, rot47_runs(read.text, read.visible)))):
        return True
    return _decodes_to_candidate(read.text, visible=read.visible) or _decodes_to_candidate(read.compacted)


def _decodes_to_candidate(text: str, layers: int = MAX_LAYERS, visible: list[str] | None = None) -> bool:
    """A run the decoding reads whose shape the candidate tests do not pass (an encoding's output may hold no
    digit, no letter, or a `/` between short pieces) decodes to text that holds a candidate, layer after layer:
    only runs of both cases (base64's) or _UNMIXED_ENCODED's are decoded (a lower-case path or word is neither).
    The runs are looked for in the text's runs of visible characters (`visible`, shared with base85's reading)
    long enough to hold one: each of them lies in one."""
    spans = visible_runs(text) if visible is None else visible
    found = (run for span in spans if len(span) >= _SHORTEST_BASE64 for run in _BASE64_RUN.findall(span))
    for run in dict.fromkeys(found):
        one_case = run.islower() or run.isupper() or not any(c.isalpha() for c in run)
        if one_case and _UNMIXED_ENCODED.search(run) is None:
            continue
        for decoded in dict.fromkeys(t for raw in _run_decodings(run) if (t := _text_of(raw))):  # each text once
            if _may_hold_secret(decoded) or (layers > 1 and _decodes_to_candidate(decoded, layers - 1)):
                return True
    return False


def _mixed(value: str) -> bool:
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def _values_of(path: str, *, dotenv: bool) -> frozenset[str]:
    try:
        st = os.lstat(path)
    except (OSError, ValueError):
        return frozenset()
    key = (st.st_ino, st.st_size, st.st_mtime_ns)
    cached = _cache.get(path)
    if cached is not None and cached[0] == key:
        return cached[1]
    text = head(path)
    netrc = path.endswith("netrc")
    values = store_values(text, dotenv=dotenv, netrc=netrc) if text is not None else frozenset()
    _cache[path] = (key, values)
    return values


def machine_secrets(home: str, project: str) -> dict[str, frozenset[str]]:
    """Each credential store of the home and the project that holds a secret value, with its values."""
    stores = [(f"{home}/{s}", False) for s in HOME_STORES] if home else []
    stores += [(f"{project}/{s}", True) for s in PROJECT_STORES] if project else []
    return {path: values for path, dotenv in stores if (values := _values_of(path, dotenv=dotenv))}


def _strings(value: Any) -> Iterator[str]:
    """Every string of `value`, an object's keys as well as its values, however deep (walked, not recursed: the
    wire bounds the depth, not this), in document order."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, Mapping):
            pending.extend(reversed([part for key, inner in item.items() for part in (str(key), inner)]))
        elif isinstance(item, list):
            pending.extend(reversed(item))


def _windows(text: str) -> list[str]:
    """`text`'s first MAX_DECODED characters in windows of MAX_TEXT, each overlapping the next by OVERLAP."""
    reach = max(min(len(text), MAX_DECODED), 1)
    return [text[at : at + MAX_TEXT + OVERLAP] for at in range(0, reach, MAX_TEXT)]


def _base64(run: str) -> list[bytes]:
    """The bytes of a base64 run read from each of its first four characters: a run found in a text may begin
    with what precedes the value (`net/i/` of a URL path is in the alphabet), which shifts its quanta."""
    out = []
    for at in range(4):
        piece = run[at:]
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                out.append(decode(piece + "=" * (-len(piece) % 4)))
            except (binascii.Error, binascii.Incomplete, ValueError):
                continue
    return out


def _hex(run: str) -> list[bytes]:
    """The bytes of a hex run read from its first and from its second character (a hex letter may lead it)."""
    return [bytes.fromhex(run[at : at + (len(run) - at) // 2 * 2]) for at in (0, 1)]


def _base32(run: str) -> list[bytes]:
    try:
        return [base64.b32decode(run.rstrip("=") + "=" * (-len(run.rstrip("=")) % 8), casefold=True)]
    except (binascii.Error, ValueError):
        return []


class _Runs:
    """Runs built of consecutive lines' pieces: each piece kept once, each run joined once at the end (a run grown
    by concatenation would copy itself per line: quadratic). `copied` counts the characters moved."""

    def __init__(self) -> None:
        self.runs: list[list[str]] = []
        self.joining = False
        self.copied = 0

    def add(self, piece: str | None) -> None:
        """`piece` continues the run the previous line added to, or starts one; None ends the run."""
        if piece is not None:
            if self.joining:
                self.runs[-1].append(piece)
            else:
                self.runs.append([piece])
            self.copied += len(piece)
        self.joining = piece is not None

    def joined(self) -> list[str]:
        self.copied += sum(len(p) for run in self.runs for p in run)
        return ["".join(run) for run in self.runs]


def compacted(text: str, runs: tuple[_Runs, _Runs] | None = None) -> str:
    """The encoded runs of `text` with the separators their encoders put taken out, one run a line: hex bytes in
    groups joined (a dump's offset column dropped, its text column ending the line's bytes), and consecutive lines
    that are each one run of an encoding's alphabet (a wrapped output) joined. Linear in the text: each line is
    matched once, from its start, and each run joined once (`runs` lets a test count the work).

    Only the lines that may give a piece are read (`_PIECE_LINE`, one C-speed scan: a line of code or prose gives
    none); a line left out ends the runs, as a line read and found to give none does."""
    hex_runs, wrapped = runs or (_Runs(), _Runs())
    if _OTHER_BREAKS.search(text) is not None:  # splitlines' lines are not only the newline's
        for line in text.splitlines():
            _line_pieces(line, hex_runs, wrapped)
        return "\n".join(hex_runs.joined() + wrapped.joined())
    last_end = -2
    starts = [0] if _FIRST_PIECE_LINE.match(text) else []
    for start in chain(starts, (match.start() + 1 for match in _PIECE_LINE.finditer(text))):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if start != last_end + 1:  # a line between that gives no piece
            hex_runs.add(None)
            wrapped.add(None)
        _line_pieces(text[start:end], hex_runs, wrapped)
        last_end = end
    return "\n".join(hex_runs.joined() + wrapped.joined())


def _line_pieces(line: str, hex_runs: _Runs, wrapped: _Runs) -> None:
    """One line's hex bytes and wrapped run (or None) added to the runs."""
    offset = _DUMP_OFFSET.match(line)
    body = line[offset.end() :] if offset else line.strip()
    groups = _HEX_GROUPS.match(body)
    hex_runs.add(_HEX_SEPARATORS.sub("", groups.group()) if groups is not None and groups.end() > 0 else None)
    stripped = line.strip()
    wrapped.add(stripped if _WRAPPED_LINE.fullmatch(stripped) is not None else None)


def _decoded(text: str | _Readings) -> list[str]:
    """`text`, percent-decoded, and what its runs decode to, layer after layer (an encoding of an encoding): each
    layer's decodings that are text (strict UTF-8: a run read at the wrong offset or in the wrong encoding is
    not) are read again, up to MAX_LAYERS."""
    read = _readings(text)
    first = [read.text, unquote(read.text)] if "%" in read.text else [read.text]
    first += read.spellings
    out = list(first)
    layer: list[str | _Readings] = [read, *first[1:]]
    for _ in range(MAX_LAYERS):
        raws = [raw for t in layer for raw in _decodings(t)]
        out += [raw.decode("utf-8", "replace") for raw in raws]
        layer = list(dict.fromkeys(t for raw in raws if (t := _text_of(raw))))
    return out


def _decodings(text: str | _Readings) -> list[bytes]:
    """What every run of `text` in each binary-to-text encoding decodes to (a file or a value sent encoded:
    base64 and base64url, hex, base32), in the text as written and compacted."""
    read = _readings(text)
    runs = dict.fromkeys(_BASE64_RUN.findall(read.text) + _BASE64_RUN.findall(read.compacted))  # each once
    raws = [raw for run in runs for raw in _run_decodings(run)]
    raws += read.base85
    raws += [out for raw in raws if (out := inflated(raw))]
    return list(dict.fromkeys(raws))  # base64 and base64url read a run alike unless it holds their two letters


def _run_decodings(run: str) -> list[bytes]:
    """What one run of the base64 alphabet decodes to as base64, and its hex and base32 runs as theirs."""
    raws = _base64(run)
    raws += [raw for part in _HEX_RUN.findall(run) for raw in _hex(part)]
    return raws + [raw for part in _BASE32_RUN.findall(run) for raw in _base32(part)]


def _text_of(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def carried_texts(event: NormalisedEvent) -> list[str]:
    """The texts the call puts somewhere: a write's or edit's new text, a web tool's URL and prompt, every string
    an MCP server's (or an unknown) tool is given."""
    tool = event.tool
    if tool is None:
        return []
    if tool.kind in (ToolKind.WRITE, ToolKind.EDIT):
        return new_texts(tool.input)
    if tool.kind is ToolKind.WEB:
        return [t for t, _ in url_texts(tool.input, web=True)]
    if tool.kind in (ToolKind.MCP, ToolKind.OTHER):
        return list(_strings(tool.input))
    return []


def _destinations(event: NormalisedEvent) -> set[str]:
    paths = event.facts.get("paths")
    entries = paths if isinstance(paths, list) else []
    return {str(e.get("path")) for e in entries if isinstance(e, Mapping) and e.get("path")}


def carried_secrets(event: NormalisedEvent) -> list[dict[str, JSON]]:
    """Each credential store whose secret value the call's text carries: `{"file": store, "values": n}`."""
    given = carried_texts(event)
    whole = [{"file": _CI_SECRETS, "values": 0}] if any("secrets" in t and every_secret(t) for t in given) else []
    windows = [_Readings(w) for t in given for w in _windows(t)]
    texts = [w for w in windows if _may_be_carried(w)]
    texts += [w for w in windows if "%" in w.text and w not in texts and _may_hold_secret(unquote(w.text))]
    rests = [t[MAX_DECODED:] for t in given if len(t) > MAX_DECODED]  # searched as written only
    if not texts and not rests:
        return whole
    home = event.facts.get("home")
    home_dir = home.removesuffix("/") if isinstance(home, str) else ""
    stores = machine_secrets(home_dir, event.project_dir.removesuffix("/"))
    if not stores:
        return whole
    writes = event.tool is not None and event.tool.kind in (ToolKind.WRITE, ToolKind.EDIT)
    into = _destinations(event) if writes else set()
    if into & stores.keys() or any(p.rpartition("/")[2] in PROJECT_STORES for p in into):
        return []  # a credential store written itself: nothing leaves it
    haystack = "\n".join([d for t in texts for d in _decoded(t)] + rests)
    found = _Haystack(haystack).carried(frozenset().union(*stores.values()))
    held = [
        {"file": path, "values": n} for path, values in stores.items() if (n := sum(1 for v in values if v in found))
    ]
    return whole + held + _undecoded(rests)


def _undecoded(rests: list[str]) -> list[dict[str, JSON]]:
    """The characters past MAX_DECODED, read as written only: a secret encoded there is not known either way, so
    the fact says how much was left (policies/secret_moves asks). No model writes a megabyte in one call's text."""
    left = sum(map(len, rests))
    return [{"file": "", "values": 0, "undecoded": left}] if left else []


class _Haystack:
    """A call's texts (decoded), searched for values: as written, case-folded (a host name's labels are
    case-insensitive: a value sent as a DNS label arrives lower-cased), or in pieces covering most of it, found
    in one pass over the text's pieces (hookd.enrich.piece_search)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.folded = text.lower()
        self._skeleton: str | None = None

    def carried(self, values: frozenset[str]) -> set[str]:
        """Those of `values` the text carries. A value as written is in the folded text folded, unless lower()
        folds it otherwise than the text around it (a final sigma): only a value not all ASCII is searched as
        written too. A value written backwards is carried as much (reversing it back costs its reader nothing),
        and so is one under a letter rotation (text_codings.rotations)."""
        found = {v for v in values if any(self._holds(w) for w in (v, v[::-1])) or self._rotated(v)}
        pieced = frozenset(v for v in values - found if len(v) >= MIN_PIECED)
        if pieced:
            folded = pieced_values(piece_index(pieced, PIECE), self._pieces(), COVERED)
            found |= {v for v in pieced if v.lower() in folded}
        return found

    def _holds(self, value: str) -> bool:
        return value.lower() in self.folded or (not value.isascii() and value in self.text)

    def _rotated(self, value: str) -> bool:
        """`value` under a letter rotation: its Caesar shifts are looked for only where the text's letters and
        digits fall as the value's do (the skeleton every shift shares: one search, not 25), ROT47 searched as is."""
        if self._skeleton is None:
            self._skeleton = letter_skeleton(self.folded)
        if letter_skeleton(value.lower()) not in self._skeleton:
            return self._holds(rot47(value))
        return any(self._holds(w) for w in rotations(value))

    def _pieces(self) -> list[str]:
        """The text's runs that may be pieces of a value (a word of prose is none), folded, from its first
        MAX_PIECED_TEXT characters."""
        runs = (m.group() for m in _PIECE_RUN.finditer(self.text[:MAX_PIECED_TEXT]))
        return [r.lower() for r in runs if not r.islower()]


def enrich_carried_secrets(event: NormalisedEvent) -> NormalisedEvent:
    """Adds `carried_secrets` to a tool call that carries a secret of this machine; other events pass unchanged."""
    carried = carried_secrets(event)
    return event.with_facts(carried_secrets=carried) if carried else event
