"""A `.env` made from the project's template of it (`.env.example`, `.env.sample`, `.env.template`, `.env.dist`:
the file a project ships for every developer to copy and fill, https://12factor.net/config and dotenv's
conventions, https://github.com/motdotla/dotenv#should-i-commit-my-env-file): a new `.env` (none there yet, so no
secret is overwritten) whose text is only `NAME=value` lines, every NAME one its template names, none a variable
that makes a program run code (`words.runs_nothing`: NODE_OPTIONS, LD_PRELOAD, a PATH into scratch space). Its write
is the template filled in, as `cp .env.example .env` is (protected_paths' `_from_template`); the effect carries the
template (`template`). Any other write of an env file stays one."""

from __future__ import annotations

import os
import re
from typing import Any

from hookd.enrich.effects.words import runs_nothing
from hookd.enrich.holdings import head

TEMPLATE_WORDS = ("example", "sample", "template", "dist")
_MAX_TEXT = 16 * 1024
_MAX_ENTRIES = 256  # the directory's entries looked at for a template
_LINE = re.compile(r"(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=.*")


def env_name(base: str) -> bool:
    """`.env`, `.env.local`, `prod.env`: an env file's name (protected_paths' test), never a template's."""
    named = base == ".env" or base.startswith(".env.") or base.endswith(".env")
    return named and not any(w in TEMPLATE_WORDS for w in base.lower().split("."))


def template_of(path: str, text: str | None) -> str | None:
    """The template beside `path` that the new env file's `text` fills in, or None."""
    if text is None or len(text) > _MAX_TEXT or not env_name(os.path.basename(path)) or os.path.lexists(path):
        return None
    names = _names(text)
    if not names or not runs_nothing(text):
        return None
    directory = os.path.dirname(path) or "."
    try:
        with os.scandir(directory) as entries:
            found = [e.name for _, e in zip(range(_MAX_ENTRIES), entries, strict=False)]
    except (OSError, ValueError):
        return None
    for name in sorted(found):
        words = name.lower().split(".")
        if name.startswith(".env") and any(w in TEMPLATE_WORDS for w in words):
            template = os.path.join(directory, name)
            given = _names(head(template, _MAX_TEXT) or "")
            if given and names <= given:
                return template
    return None


def mark_templates(effects: list[dict[str, Any]], texts: dict[str, str]) -> None:
    """Marks each write of an env file whose text (`texts`, by path) fills in its template (`template`)."""
    for effect in effects:
        path = effect.get("path")
        if effect.get("op") == "write" and isinstance(path, str) and path in texts:
            template = template_of(path, texts[path])
            if template is not None:
                effect["template"] = template


def _names(text: str) -> set[str] | None:
    """The names a dotenv text sets; None when a line is something else (a command, a continued value)."""
    names = set()
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _LINE.fullmatch(line)
        if match is None:
            return None
        names.add(match[1])
    return names
