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
from typing import Any

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


Step = tuple[str, "_State | None"]  # the action of the paths that end here, and the state below (None: no path)
_NO_PATH: Step = ("", None)


class _State:
    """Where a walk stands in the path trie: the trie nodes that still have paths below. A walk meets the same
    keys record after record, so each state remembers where each key leads (a bounded cache)."""

    __slots__ = ("items", "keys", "nodes")

    def __init__(self, nodes: tuple[_Node, ...]) -> None:
        self.nodes = nodes
        self.keys: dict[str, Step] = {}  # an object's key → its step
        self.items: dict[int, Step] = {}  # an array's index → its step (arrays are transparent to paths)


# What each built-in pattern cannot match without (lower-cased). A string holding none is not searched, and an
# ASCII one only with the patterns whose words it holds: substring tests cost a few µs where the full
# expression costs 0.3 µs a character, and most strings hold no secret. (Leaving out a pattern that cannot
# match changes no match of the others; a non-ASCII string gets every pattern, since `(?i)` also matches
# non-ASCII letters (the long s, U+017F) that lower() does not turn into ASCII ones.)
_KIND_TRIGGERS: Mapping[str, tuple[str, ...]] = {
    "private_key": ("private",),
    "aws_access_key": ("akia", "asia", "agpa", "aida", "aroa", "aipa", "anpa", "anva"),
    "aws_secret_key": ("secret",),
    "github_token": ("gh", "github"),
    "slack_token": ("xox",),
    "google_api_key": ("aiza",),
    "api_key": ("sk-",),
    "jwt": ("eyj",),
    "bearer": ("bearer",),
    "url_password": ("://",),
    "password": ("pass", "pwd", "secret", "token", "api", "key"),
}
_TRIGGERS = tuple(dict.fromkeys(trigger for triggers in _KIND_TRIGGERS.values() for trigger in triggers))
assert set(_KIND_TRIGGERS) == {kind for kind, _ in BUILTIN_SECRET_PATTERNS}
_REDACT_WINDOW = 4096  # characters past the cut still searched, so a secret that starts before it is redacted whole
_MEMO_SIZE = 8192  # masked strings remembered (cwd, home, session ids and paths repeat in every record)
_STEPS_PER_STATE = 1024  # keys and indexes a trie state remembers
_REDACTED_KEY = "[REDACTED:key]"


def _compile(patterns: list[tuple[str, str]]) -> re.Pattern[str] | None:
    joined = "|".join(f"(?P<{kind}>{pattern})" for kind, pattern in patterns)
    return re.compile(joined) if joined else None


class Masker:
    """`Masker(...)(input_document)` → a masked copy. Build once; call from the writer task."""

    __slots__ = (
        "_builtin", "_builtin_patterns", "_custom", "_keep_groups", "_kinds", "_mask_length", "_max_length", "_memo",
        "_memos", "_root", "_states", "_subsets",
    )  # fmt: skip

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
        self._mask_length = mask_length
        self._max_length = max_string_length
        builtin = list(BUILTIN_SECRET_PATTERNS) if builtin_secrets else []
        custom = [(f"custom_{i + 1}", p) for i, p in enumerate(secret_patterns)]
        self._kinds = tuple(kind for kind, _ in builtin + custom)
        self._keep_groups = {kind: f"keep_{kind}" for kind, p in builtin if f"(?P<keep_{kind}>" in p}
        self._builtin = _compile(builtin)
        self._builtin_patterns = builtin
        self._subsets: dict[tuple[str, ...], re.Pattern[str] | None] = {}  # the built-ins a string's words allow
        self._custom = _compile(custom)
        self._memo: dict[str, str] = {}  # redact()'s
        # A string's masked form, by the length it is cut to (the walk's memo: one lookup per string).
        self._memos: dict[int, dict[str, str]] = {mask_length: {}, max_string_length: {}}
        self._states: dict[tuple[int, ...], _State] = {}
        self._root = self._state((_trie(mask, erase),))

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
        return self._walk(value, self._root, masked=False)

    def text(self, value: str, *, masked: bool = False) -> str:
        """One string: redacted, then cut."""
        return self._string(value, self._mask_length if masked else self._max_length)

    def _string(self, value: str, limit: int) -> str:
        """`text`, remembered: the same strings (cwd, home, paths, session ids) come back in every record."""
        memo = self._memos[limit]
        known = memo.get(value)
        if known is not None:
            return known
        result = self._redact_cut(value, limit)
        if len(value) <= self._max_length:  # long texts rarely repeat: not worth the memory
            if len(memo) >= _MEMO_SIZE // 2:  # two memos: together no more than one of _MEMO_SIZE
                memo.clear()
            memo[value] = result
        return result

    def _redact_cut(self, value: str, limit: int) -> str:
        """`value` redacted and cut to `limit`. Of a long text only the part that can be kept, and a window
        after it, is searched for secrets: the whole of a 10 MB file would cost seconds of the loop (the
        built-in patterns run at about 2 MB/s), and what lies past the window is dropped unread. A secret
        that starts in the kept part is redacted as before: every pattern but a URL password (which needs
        its `@`) matches its secret's first _REDACT_WINDOW characters on their own."""
        if len(value) <= limit + _REDACT_WINDOW:
            return self._cut(self._search(value), limit)
        head = self._search(value[: limit + _REDACT_WINDOW])
        unread = len(value) - limit - _REDACT_WINDOW
        return f"{head[:limit]}…[+{max(0, len(head) - limit) + unread} chars]"

    def tail(self, value: str, context: int = 16 * 1024) -> str:
        """The last `mask_length` characters of `value`, redacted as they read with up to `context` characters
        before them: a secret that began earlier (a private key's BEGIN line) is still found whole."""
        window = value[-(self._mask_length + context) :]
        return self._search(window)[-self._mask_length :]

    def redact(self, value: str) -> str:
        known = self._memo.get(value)
        if known is not None:
            return known
        result = self._search(value)
        if len(value) <= self._max_length:
            if len(self._memo) >= _MEMO_SIZE:
                self._memo.clear()
            self._memo[value] = result
        return result

    def _search(self, value: str) -> str:
        """`value` with every secret found in it replaced by its marker (no memo)."""
        if len(value) < 8:
            return value
        result = value
        builtin = self._builtin_for(value) if self._builtin is not None else None
        if builtin is not None:
            result = builtin.sub(self._replace, result)
        if self._custom is not None:
            result = self._custom.sub(self._replace, result)
        return result

    def _builtin_for(self, value: str) -> re.Pattern[str] | None:
        """The built-in patterns that can match in `value` (as one expression, in their order), None for none."""
        low = value.lower()
        if not any(trigger in low for trigger in _TRIGGERS):
            return None
        if not value.isascii():
            return self._builtin
        kinds = tuple(kind for kind, _ in self._builtin_patterns if any(t in low for t in _KIND_TRIGGERS[kind]))
        if kinds not in self._subsets:
            if len(self._subsets) >= _STEPS_PER_STATE:
                self._subsets.clear()
            self._subsets[kinds] = _compile([(k, p) for k, p in self._builtin_patterns if k in kinds])
        return self._subsets[kinds]

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

    def _state(self, nodes: tuple[_Node, ...]) -> _State:
        key = tuple(map(id, nodes))  # the nodes live as long as the masker
        state = self._states.get(key)
        if state is None:
            state = self._states[key] = _State(nodes)
        return state

    def _step(self, state: _State, name: str, index: int | None) -> Step:
        """Where key `name` (or array index `index`) leads from `state`: "erase", "mask" or "", and the state
        below it (None when no path goes deeper)."""
        cache: dict[Any, Step] = state.keys if index is None else state.items
        found = cache.get(name if index is None else index)
        if found is not None:
            return found
        below: list[_Node] = []
        for node in state.nodes:
            children = node.children
            child = children.get(name)
            if child is not None:
                below.append(child)
            child = children.get("*")
            if child is not None:
                below.append(child)
            if index is not None:  # an array is transparent to paths
                below.append(node)
        actions = {node.action for node in below}
        action = "erase" if "erase" in actions else "mask" if "mask" in actions else ""
        deeper = tuple({id(node): node for node in below if node.children}.values())
        step: Step = (action, self._state(deeper)) if deeper else (action, None) if action else _NO_PATH
        if len(cache) < _STEPS_PER_STATE:
            cache[name if index is None else index] = step
        return step

    def _walk(self, value: JSON, state: _State, *, masked: bool) -> JSON:
        if isinstance(value, str):
            return self.text(value, masked=masked)
        if isinstance(value, Mapping):
            limit = self._mask_length if masked else self._max_length
            memo = self._memos[limit]
            steps = state.keys
            out: dict[str, JSON] = {}
            for key, item in value.items():
                name = key if type(key) is str else str(key)
                if isinstance(item, str) and item and _secret_key(name):
                    out[name] = _REDACTED_KEY
                    continue
                step = steps.get(name) or self._step(state, name, None)
                if step is not _NO_PATH:
                    out[name] = self._child(step, item, masked)
                elif type(item) is str:  # most keys: no path goes through them, and most values are strings
                    known = memo.get(item)
                    out[name] = known if known is not None else self._string(item, limit)
                else:
                    out[name] = self._plain(item, limit)
            return out
        if isinstance(value, list | tuple):
            # an array is transparent to paths (`raw.llm_request.messages.content` reaches each
            # element's content), and an index matches `*` or the index itself
            return [self._child(self._step(state, str(i), i), item, masked) for i, item in enumerate(value)]
        return value

    def _child(self, step: Step, item: JSON, masked: bool) -> JSON:
        action, below = step
        if action == "erase":
            return _summary(item)
        masked = masked or action == "mask"
        if below is None:
            return self._plain(item, self._mask_length if masked else self._max_length)
        return self._walk(item, below, masked=masked)

    def _plain(self, value: JSON, limit: int) -> JSON:
        """`value` masked where no path reaches: every string redacted and cut to `limit`. The JSON that a
        payload decodes to (dict, list, str, numbers) takes the fast lane; any other type the general one."""
        kind = type(value)
        if kind is dict:
            memo = self._memos[limit]
            out: dict[str, JSON] = {}
            for key, item in value.items():
                name = key if type(key) is str else str(key)
                if type(item) is str:
                    if item and _secret_key(name):
                        out[name] = _REDACTED_KEY
                    else:
                        known = memo.get(item)
                        out[name] = known if known is not None else self._string(item, limit)
                elif item is None or type(item) in _SCALARS:
                    out[name] = item
                elif isinstance(item, str):
                    out[name] = _REDACTED_KEY if item and _secret_key(name) else self._string(item, limit)
                else:
                    out[name] = self._plain(item, limit)
            return out
        if kind is str:
            known = self._memos[limit].get(value)
            return known if known is not None else self._string(value, limit)
        if kind is list:
            return [self._plain(item, limit) for item in value]
        if value is None or kind in _SCALARS:
            return value
        return self._general(value, limit)

    def _general(self, value: JSON, limit: int) -> JSON:
        """`_plain` of a value of any other type: a str subclass, another Mapping, a tuple."""
        if isinstance(value, str):
            return self._string(value, limit)
        if isinstance(value, Mapping):
            return {
                str(key): _REDACTED_KEY
                if isinstance(item, str) and item and _secret_key(str(key))
                else self._plain(item, limit)
                for key, item in value.items()
            }
        if isinstance(value, list | tuple):
            return [self._plain(item, limit) for item in value]
        return value


_SCALARS = frozenset({bool, int, float})
_KEY_MEMO: dict[str, bool] = {}


def _secret_key(name: str) -> bool:
    """A key whose string value is redacted whole (`password`, `GITHUB_TOKEN`, …)."""
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
