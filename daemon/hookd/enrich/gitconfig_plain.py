"""A file tool's write of a repository's git configuration judged by the keys it adds or changes: when every
(key, value) of the resulting text that the file did not hold before is one of git.json's `plain_keys` (keys git
neither runs, sends to, nor reads a file by: `pull.rebase`, `branch.main.merge`, `core.autocrlf`), the write
effect is marked `plain: "git_config"`, which protected_paths' `git-internals` rule lets through. Keys the file
already held are not judged again (its `remote.origin.url`); a line this reader does not take whole (a value
quoted or continued, a key on its header's line) makes the text not plain, so it is judged as before.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from hookd.enrich.edit_texts import read_text
from hookd.enrich.effects.catalogue import catalogue
from hookd.types import JSON

_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"([^"\\]*)")?\s*\]\s*(?:[#;].*)?$')
_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*([^\"\\#;]*))?(?:[#;].*)?$")
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*")  # a remote's name: no `:` or `/` of a URL or a path
_REPOSITORY_CONFIG = re.compile(r"/\.git/(?:.+/)?config(?:\.worktree)?$")


def pairs(text: str) -> list[tuple[str, str]] | None:
    """The (key, value) pairs of a git configuration text (section and name lowered, a subsection as written);
    None when a line is not taken whole."""
    section = ""
    found: list[tuple[str, str]] = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith(("#", ";")):
            continue
        header = _SECTION.match(line)
        if header:
            name, sub = header.groups()
            section = f"{name.lower()}.{sub}" if sub is not None else name.lower()
            continue
        key = _KEY.match(line)
        if key is None or not section:
            return None
        found.append((f"{section}.{key.group(1).lower()}", (key.group(2) or "true").strip()))
    return found


@functools.lru_cache(maxsize=1)
def _table() -> tuple[frozenset[str], tuple[str, ...]]:
    data: dict[str, Any] = catalogue().git["plain_keys"]
    return frozenset(data["keys"]), tuple(data["remote_names"])


def _generic(key: str) -> str:
    """`branch.main.merge` as git-config(1) names it: `branch.*.merge`."""
    parts = key.split(".")
    return f"{parts[0]}.*.{parts[-1]}" if len(parts) > 2 else key


def plain_pair(key: str, value: str) -> bool:
    keys, remote_names = _table()
    generic = _generic(key)
    if generic not in keys:
        return False
    return not any(fnmatch.fnmatchcase(generic, n) for n in remote_names) or _NAME.fullmatch(value) is not None


def plain_change(before: str, after: str) -> bool:
    """Whether every (key, value) `after` holds beyond what `before` held is a plain one."""
    old, new = pairs(before), pairs(after)
    if new is None:
        return False
    added = Counter(new) - Counter(old or [])  # an old text not read whole: every key of the new is judged
    return all(plain_pair(k, v) for k, v in added)


def mark_plain_git_configs(effects: list[dict[str, JSON]], texts_after: Callable[[str], list[str] | None]) -> None:
    """Mark each write of a repository's config whose every resulting text adds or changes plain keys only."""
    for effect in effects:
        path = effect.get("path")
        if effect.get("op") != "write" or not isinstance(path, str) or not _REPOSITORY_CONFIG.search(path):
            continue
        texts = texts_after(path)
        if not texts:
            continue
        exists, before = read_text(path)
        if all(plain_change(before if exists and before is not None else "", t) for t in texts):
            effect["plain"] = "git_config"
