"""Files an agent's settings load into every session's context (part of the effect model's tool effects,
called by enrich/tool_effects.py `_imports`): Gemini CLI's and Qwen Code's `context.fileName` (the names of
its context files, read from the project and the home: naming `.env` loads the project's secrets into every
session), OpenCode's and Kilo's `instructions` (files and globs, `~/` allowed), Aider's `read` (files added
read-only to every chat: https://aider.chat/docs/config/aider_conf.html). By the words of the key, not by one
agent's schema: a string (or list of strings) under a key whose words say instructions or read, or a file's
name or path under a `context` or `memory` section, in JSON, TOML or YAML settings. Each is then an `import`
read, judged as an `@path` import is (secret_reads, protected_paths)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from hookd.enrich.config_commands import parsed_settings

MAX_NAMES = 32
MAX_DEPTH = 8
MAX_NODES = 4096  # the mappings of a parsed settings text walked (YAML's aliases repeat a node)
MAX_SETTINGS_TEXT = 256 * 1024
_SETTINGS_SUFFIXES = (".json", ".jsonc", ".toml", ".yaml", ".yml")
_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_LOADS = frozenset({"instruction", "instructions", "read"})
_SECTIONS = frozenset({"context", "memory"})
_FILE_WORDS = frozenset({"file", "files", "filename", "filenames", "path", "paths"})


def context_files(written: list[str], texts: Callable[[], list[str]]) -> list[str]:
    """The file names or paths that the JSON or TOML settings `texts` (only asked for when a path `written`
    is such a file) have their agent load into every session's context."""
    if not any(path.endswith(_SETTINGS_SUFFIXES) for path in written):
        return []
    return [name for text in texts() for name in _names(text)][:MAX_NAMES]


def _names(text: str) -> list[str]:
    if len(text) > MAX_SETTINGS_TEXT or not any(
        w in text.lower() for w in ("instruction", "context", "memory", "read")
    ):
        return []
    doc = parsed_settings(text)
    return _walk(doc, False, 0, [MAX_NODES]) if isinstance(doc, dict) else []


def _words(key: str) -> set[str]:
    return {w.lower() for w in _WORDS.findall(key)}


def _walk(value: Any, in_section: bool, depth: int, budget: list[int]) -> list[str]:
    budget[0] -= 1
    if depth > MAX_DEPTH or budget[0] < 0 or not isinstance(value, dict):
        return []
    out: list[str] = []
    for key, item in value.items():
        words = _words(str(key))
        names = [item] if isinstance(item, str) else item if isinstance(item, list) else []
        if words & _LOADS or (in_section and words & _FILE_WORDS):
            out.extend(n for n in names if isinstance(n, str) and n.strip())
        out.extend(_walk(item, in_section or bool(words & _SECTIONS), depth + 1, budget))
    return out
