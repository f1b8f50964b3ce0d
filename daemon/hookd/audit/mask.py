"""Masking the input before it is logged: cut what is long, erase what is bulky, redact what looks secret.

Built once from `[log]` (a path trie and one compiled regular expression), then applied by the decision
log's writer to each record, off the hot path. It returns a new structure and never changes the input.

* `erase` paths: the value becomes a one-line summary (`[erased: array of 37 items]`).
* `mask` paths: every string under them is cut to `mask_length` characters (`…[+1234 chars]`).
* every other string is cut to `max_string_length`.
* every string is searched for secrets first (AWS keys, GitHub and Slack tokens, private key blocks,
  JWTs, bearer tokens, `password=…`, credentials in URLs, plus `secret_patterns`); a match becomes
  `[REDACTED:<kind>]`. The value of a key named like a secret (`password`, `token`, `api_key`, …)
  is redacted whole.

Paths are dotted keys into the input document (`raw.tool_input.content`); `*` matches any one key or
array index, and a path through an array applies to each of its elements.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from hookd.config import LogConfig
from hookd.types import JSON

# (kind, pattern). A group named `keep_<kind>` is kept in front of the redaction marker.
BUILTIN_SECRET_PATTERNS: tuple[tuple[str, str], ...] = (
    ("private_key", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY"
                    r"( BLOCK)?-----|[\s\S]*)"),
    ("aws_access_key", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[0-9A-Z]{16}\b"),
    ("aws_secret_key", r"(?P<keep_aws_secret_key>(?i:aws_?secret_?access_?key)[\"']?\s*[=:]\s*[\"']?)"
                       r"[A-Za-z0-9/+=]{40}"),
    ("github_token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})"),
    ("slack_token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("google_api_key", r"\bAIza[0-9A-Za-z_-]{35}"),
    ("api_key", r"\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_-]{20,}"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}"),
    ("bearer", r"(?P<keep_bearer>(?i:\bbearer)\s+)[A-Za-z0-9._~+/-]{12,}=*"),
    ("url_password", r"(?P<keep_url_password>\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]+:)[^/\s@]+(?=@)"),
    ("password", r"(?P<keep_password>(?i:(?:\b|_)(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key)"
                 r"[\"']?\s*[=:]\s*)[\"']?)(?![\"']?\[REDACTED)[^\s\"',;&]{3,}"),
)  # fmt: skip

SECRET_KEY = re.compile(
    r"(?i)^(?:.*[_-])?(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?"
    r"|authorization|cookie)$"
)


@dataclass(slots=True)
class _Node:
    children: dict[str, _Node] = field(default_factory=dict)
    action: str = ""  # "", "mask" or "erase"


def _trie(mask: Iterable[str], erase: Iterable[str]) -> _Node:
    root = _Node()
    for action, paths in (("mask", mask), ("erase", erase)):
        for path in paths:
            node = root
            for part in path.split("."):
                node = node.children.setdefault(part, _Node())
            if node.action != "erase":  # erase wins over mask on the same path
                node.action = action
    return root


# Every built-in pattern contains one of these (lower-cased). A string without any is not searched:
# substring tests cost a few µs where the full expression costs tens, and most strings hold no secret.
_TRIGGERS = (
    "akia", "asia", "agpa", "aida", "aroa", "aipa", "anpa", "anva", "gh", "github", "xox", "aiza", "sk-", "eyj",
    "bearer", "://", "pass", "pwd", "secret", "token", "api", "key", "private",
)  # fmt: skip
_REDACT_WINDOW = 4096  # characters past the cut still searched, so a secret that starts before it is redacted whole
_MEMO_SIZE = 8192  # redacted strings remembered (cwd, home, session ids and paths repeat in every record)


def _may_hold_secret(value: str) -> bool:
    low = value.lower()
    return any(trigger in low for trigger in _TRIGGERS)


def _compile(patterns: list[tuple[str, str]]) -> re.Pattern[str] | None:
    joined = "|".join(f"(?P<{kind}>{pattern})" for kind, pattern in patterns)
    return re.compile(joined) if joined else None


class Masker:
    """`Masker(...)(input_document)` → a masked copy. Build once; call from the writer task."""

    __slots__ = ("_builtin", "_custom", "_keep_groups", "_kinds", "_mask_length", "_max_length", "_memo", "_trie")

    def __init__(
        self,
        *,
        mask: Iterable[str] = (),
        erase: Iterable[str] = (),
        mask_length: int = 256,
        max_string_length: int = 4096,
        builtin_secrets: bool = True,
        secret_patterns: Iterable[str] = (),
    ) -> None:
        self._trie = _trie(mask, erase)
        self._mask_length = mask_length
        self._max_length = max_string_length
        builtin = list(BUILTIN_SECRET_PATTERNS) if builtin_secrets else []
        custom = [(f"custom_{i + 1}", p) for i, p in enumerate(secret_patterns)]
        self._kinds = tuple(kind for kind, _ in builtin + custom)
        self._keep_groups = {kind: f"keep_{kind}" for kind, p in builtin if f"(?P<keep_{kind}>" in p}
        self._builtin = _compile(builtin)
        self._custom = _compile(custom)
        self._memo: dict[str, str] = {}

    @classmethod
    def from_config(cls, config: LogConfig) -> Masker:
        return cls(
            mask=config.mask,
            erase=config.erase,
            mask_length=config.mask_length,
            max_string_length=config.max_string_length,
            builtin_secrets=config.builtin_secret_patterns,
            secret_patterns=config.secret_patterns,
        )

    def __call__(self, value: JSON) -> JSON:
        return self._walk(value, (self._trie,), masked=False)

    def text(self, value: str, *, masked: bool = False) -> str:
        """One string: redacted, then cut."""
        return self._redact_cut(value, self._mask_length if masked else self._max_length)

    def _redact_cut(self, value: str, limit: int) -> str:
        """`value` redacted and cut to `limit`. Of a long text only the part that can be kept, and a window
        after it, is searched for secrets: the whole of a 10 MB file would cost seconds of the loop (the
        built-in patterns run at about 2 MB/s), and what lies past the window is dropped unread. A secret
        that starts in the kept part is redacted as before: every pattern but a URL password (which needs
        its `@`) matches its secret's first _REDACT_WINDOW characters on their own."""
        if len(value) <= limit + _REDACT_WINDOW:
            return self._cut(self.redact(value), limit)
        head = self.redact(value[: limit + _REDACT_WINDOW])
        unread = len(value) - limit - _REDACT_WINDOW
        return f"{head[:limit]}…[+{max(0, len(head) - limit) + unread} chars]"

    def redact(self, value: str) -> str:
        if len(value) < 8:
            return value
        known = self._memo.get(value)
        if known is not None:
            return known
        result = value
        if self._builtin is not None and _may_hold_secret(value):
            result = self._builtin.sub(self._replace, result)
        if self._custom is not None:
            result = self._custom.sub(self._replace, result)
        if len(value) <= self._max_length:  # long texts rarely repeat: not worth the memory
            if len(self._memo) >= _MEMO_SIZE:
                self._memo.clear()
            self._memo[value] = result
        return result

    def _replace(self, match: re.Match[str]) -> str:
        groups = match.groupdict()
        kind = next((k for k in self._kinds if groups.get(k) is not None), "secret")
        keep = self._keep_groups.get(kind)
        prefix = (groups.get(keep) or "") if keep else ""
        return f"{prefix}[REDACTED:{kind}]"

    @staticmethod
    def _cut(value: str, limit: int) -> str:
        if len(value) <= limit:
            return value
        return f"{value[:limit]}…[+{len(value) - limit} chars]"

    def _walk(self, value: JSON, nodes: tuple[_Node, ...], *, masked: bool) -> JSON:
        if not nodes:  # no path reaches below here: the plain copy
            return self._plain(value, self._mask_length if masked else self._max_length)
        if isinstance(value, str):
            return self.text(value, masked=masked)
        if isinstance(value, Mapping):
            out: dict[str, JSON] = {}
            for key, item in value.items():
                name = str(key)
                if isinstance(item, str) and item and _secret_key(name):
                    out[name] = "[REDACTED:key]"
                    continue
                out[name] = self._child(name, item, nodes, masked)
            return out
        if isinstance(value, list | tuple):
            # an array is transparent to paths (`raw.llm_request.messages.content` reaches each
            # element's content), and an index matches `*` or the index itself
            return [self._child(str(i), item, nodes, masked, array=True) for i, item in enumerate(value)]
        return value

    def _plain(self, value: JSON, limit: int) -> JSON:
        if isinstance(value, str):
            return self._redact_cut(value, limit)
        if isinstance(value, Mapping):
            return {
                str(key): "[REDACTED:key]"
                if isinstance(item, str) and item and _secret_key(str(key))
                else self._plain(item, limit)
                for key, item in value.items()
            }
        if isinstance(value, list | tuple):
            return [self._plain(item, limit) for item in value]
        return value

    def _child(self, name: str, item: JSON, nodes: tuple[_Node, ...], masked: bool, *, array: bool = False) -> JSON:
        below: list[_Node] = []
        for node in nodes:
            children = node.children
            child = children.get(name)
            if child is not None:
                below.append(child)
            child = children.get("*")
            if child is not None:
                below.append(child)
            if array:
                below.append(node)
        deeper: list[_Node] = []
        for node in below:
            if node.action == "erase":
                return _summary(item)
            if node.action == "mask":
                masked = True
            if node.children:
                deeper.append(node)
        if not deeper:
            return self._plain(item, self._mask_length if masked else self._max_length)
        return self._walk(item, tuple(deeper), masked=masked)


_KEY_MEMO: dict[str, bool] = {}


def _secret_key(name: str) -> bool:
    known = _KEY_MEMO.get(name)
    if known is None:
        known = bool(SECRET_KEY.match(name))
        if len(_KEY_MEMO) < _MEMO_SIZE:
            _KEY_MEMO[name] = known
    return known


def _summary(value: JSON) -> str:
    if isinstance(value, Mapping):
        return f"[erased: object of {len(value)} keys]"
    if isinstance(value, list | tuple):
        return f"[erased: array of {len(value)} items]"
    if isinstance(value, str):
        return f"[erased: string of {len(value)} chars]"
    return f"[erased: {type(value).__name__}]"
