"""A `.env` made from the project's template of it (`.env.example`, `.env.sample`, `.env.template`, `.env.dist`:
the file a project ships for every developer to copy and fill, https://12factor.net/config and dotenv's
conventions, https://github.com/motdotla/dotenv#should-i-commit-my-env-file): a new `.env` (none there yet, so no
secret is overwritten) whose text is only `NAME=value` lines, every NAME one its template names, none a variable
that makes a program run code (`words.runs_nothing`: NODE_OPTIONS, LD_PRELOAD, a PATH into scratch space). Its write
is the template filled in, as `cp .env.example .env` is (protected_paths' `_from_template`); the effect carries the
template (`template`). So is a write of an env file already there that keeps every line it had and adds only lines of
names its template lists (running nothing): more of the template filled in, no secret lost (blind-benign-17). A
change whose every line added or taken is a framework's public variable (`public`: below) is one too. Any other write
of an env file stays one."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

from hookd.enrich.effects.public_lines import PUBLIC_PREFIXES
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
    return _template_listing(path, names)


def _template_listing(path: str, names: set[str]) -> str | None:
    """The template beside `path` (an `.env` name with an example word) that lists every one of `names`, or None."""
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


def mark_templates(
    effects: list[dict[str, Any]], texts: dict[str, str], after: Callable[[str], list[str] | None] | None = None
) -> None:
    """Marks each write of an env file whose text (`texts`, by path) fills in its template (`template`), or that
    adds and takes only public variables' lines (`public`): `after` gives the whole texts a file tool leaves."""
    for effect in effects:
        path = effect.get("path")
        if effect.get("op") != "write" or not isinstance(path, str):
            continue
        template = template_of(path, texts[path]) if path in texts else None
        if template is None and env_name(os.path.basename(path)):
            whole = after(path) if after is not None else None  # else what is written: all of it kept, or none
            template = template_kept(path, whole if whole is not None else [texts[path]] if path in texts else None)
        if template is not None:
            effect["template"] = template
        elif env_name(os.path.basename(path)) and _public_write(path, texts.get(path), after):
            effect["public"] = True


def template_kept(path: str, texts: list[str] | None) -> str | None:
    """The template whose names every text in `texts` (the whole texts a file tool leaves in the env file at
    `path`, there already) adds, keeping every line the file holds now and running nothing; None otherwise."""
    before = head(path, _MAX_TEXT + 1) if os.path.lexists(path) else None
    if before is None or len(before) > _MAX_TEXT or _names(before) is None or not texts:
        return None  # a new file (template_of's), a link, a device, a file too long to read whole
    old, added, had = Counter(_assignments(before)), set(), _names(before) or set()
    for text in texts:
        new = _names(text)
        if new is None or len(text) > _MAX_TEXT or not runs_nothing(text) or old - Counter(_assignments(text)):
            return None  # a line that is no assignment, a variable that runs code, a line of the file taken away
        added |= {m[1] for line in Counter(_assignments(text)) - old if (m := _LINE.fullmatch(line))}
    if not added or added & had:  # a name set again below its line: dotenv takes the last, so a value changed
        return None
    return _template_listing(path, added)


def public_change(before: str, after: str) -> bool:
    """Every line `after` adds to `before` or takes from it assigns a framework's public variable a plain value
    (PUBLIC_PREFIXES; no `$` or backquote, which dotenv-expand and shells fill with another variable's value), both
    texts are dotenv lines, and `after` runs nothing: no secret is lost or added, and no setting a program obeys."""
    if _names(before) is None or _names(after) is None or not runs_nothing(after):
        return False
    old, new = Counter(_assignments(before)), Counter(_assignments(after))
    changed = (old - new) + (new - old)
    return bool(changed) and all(_public(line) for line in changed)


def _public_write(path: str, text: str | None, after: Callable[[str], list[str] | None] | None) -> bool:
    """The write of `path` changes only public lines: judged against the file's text now (none for a new file),
    the whole texts it leaves (`after`, or `text` where no file is there yet: a shell's append is not known)."""
    before = "" if not os.path.lexists(path) else head(path, _MAX_TEXT + 1)
    if before is None or len(before) > _MAX_TEXT:
        return False  # a link, a device, a file too long to read whole
    texts = after(path) if after is not None else None
    if texts is None:
        texts = [text] if text is not None and not before and not os.path.lexists(path) else None
    return bool(texts) and all(public_change(before, t) for t in texts or ())


def _assignments(text: str) -> list[str]:
    """The lines of a dotenv text that set something (blank lines and comments set nothing), split where dotenv
    splits them: at a newline only (a form feed or U+2028 is no line end to dotenv, nor to grep)."""
    lines = (line.strip(" \t\r") for line in text.split("\n"))
    return [line for line in lines if line and not line.startswith("#")]


def _public(line: str) -> bool:
    """A public variable's plain value: no expansion, and no control or line-separating character, which another
    reader splits where dotenv does not (`VITE_A=1\fAPI_SECRET=…`)."""
    match = _LINE.fullmatch(line)
    value = line.partition("=")[2]
    odd = any((ord(c) < 32 and c != "\t") or c in "\x7f\x85\u2028\u2029" for c in line)
    return match is not None and match[1].startswith(PUBLIC_PREFIXES) and not odd and not any(c in value for c in "$`")


def _names(text: str) -> set[str] | None:
    """The names a dotenv text sets; None when a line is something else (a command, a continued value)."""
    names = set()
    for raw in text.split("\n"):
        line = raw.strip(" \t\r")
        if not line or line.startswith("#"):
            continue
        match = _LINE.fullmatch(line)
        if match is None:
            return None
        names.add(match[1])
    return names
