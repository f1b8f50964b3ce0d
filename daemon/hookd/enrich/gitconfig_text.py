"""The keys a file tool writes into a git configuration file, read from the text it writes: a write or edit
of `~/.gitconfig`, `~/.config/git/config`, `/etc/gitconfig`, a repository's `config` (a `.git` directory's,
a worktree's or a submodule's) that sets a key whose value git runs (git.json's executing keys, the same
the shell's `git config` is judged on: `core.fsmonitor`, `core.pager`, `alias.x = !…`, `filter.*.smudge`).
Built for enrich/tool_effects.py, which adds one `write` effect with `key`, `value` and `executes` per key.
"""

from __future__ import annotations

import re

from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.gitops import executing

_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$')
_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*?))?\s*$")
_CONFIG = re.compile(r"(?:^|/)(?:\.gitconfig|etc/gitconfig|\.config/git/config|\.git/(?:.+/)?config(?:\.worktree)?)$")
MAX_TEXT = 1 << 20  # a longer text is not read line by line: its keys are not known (the write is asked)


def is_git_config(path: str) -> bool:
    """Whether git reads `path` as a configuration file (for this user, the machine, or a repository)."""
    return _CONFIG.search(path) is not None


def _unquote(value: str) -> str:
    value = value.split(" #", 1)[0].split(" ;", 1)[0].strip()
    return value[1:-1] if len(value) > 1 and value[0] == value[-1] == '"' else value


def _names_of_executing_keys() -> frozenset[str]:
    data = catalogue().git
    names = {key.rsplit(".", 1)[-1] for key in data["executing_keys"]}
    names |= {pattern.rsplit(".", 1)[-1] for pattern in data["executing_patterns"] if pattern.count(".") == 2}
    return frozenset(names)


def _runs(key: str, value: str, section_known: bool) -> bool:
    if key.startswith("alias.") or (not section_known and value.startswith("!")):
        # an alias runs a shell command (`!…`) or git with options that run one (`-c core.pager=…`)
        return value.startswith("!") or "-c" in value.split() or "--config-env" in value or "--exec-path" in value
    if value in catalogue().git["plain_values"]["values"]:
        return False
    if section_known:
        return executing(key)
    return key.rsplit(".", 1)[-1] in _names_of_executing_keys()


def executing_keys(text: str) -> list[tuple[str, str]] | None:
    """The (key, value) pairs of `text` whose value git runs; a key below no section header in `text` (an
    edit's new lines) is judged by its name against every section's executing keys. None past MAX_TEXT."""
    if len(text) > MAX_TEXT:
        return None
    section = ""
    found: list[tuple[str, str]] = []
    for raw in text.splitlines():
        line = raw[1:] if raw.startswith("+") and not raw.startswith("+++") else raw  # a patch's added line
        header = _SECTION.match(line)
        if header:
            name, sub, rest = header.groups()
            section = f"{name.lower()}.{sub}" if sub is not None else name.lower()
            line = rest
        match = _KEY.match(line)
        if not match or line.lstrip().startswith(("#", ";")):
            continue
        name, value = match.group(1).lower(), _unquote(match.group(2) or "")
        key = f"{section}.{name}" if section else name
        if _runs(key, value, bool(section)):
            found.append((key, value))
    return found
