"""Texts of interactive programs' startup files that only set options (psql's `.psqlrc`, sqlite3's `.sqliterc`,
lldb's `.lldbinit`, IRB's `.irbrc`, R's `.Rprofile`: runs_later in programs.json, any write asked): each
program's grammar of plain settings from its documentation, the settings that name a program, a file written or
code loaded left out (data/repl_settings.json). Any other line (an SQL statement, a shell escape, a call, a form
spanning lines) is code run at the program's next start and stays asked (blind-tools-22's false positives)."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from hookd.enrich.effects.catalogue import DATA, catalogue

# (a double-quoted string's `#{…}` is Ruby run: one left in fails the grammar)
_RUBY_LITERAL = r"""(?:-?[0-9][0-9_.]*|true|false|nil|:[A-Za-z_][A-Za-z0-9_]*|'[^'\\\n]*'|"(?:[^"\\\n#]|#(?!\{))*")"""
_IRB_SET = re.compile(rf"IRB\.conf\[:([A-Z_]+)\]\s*=\s*({_RUBY_LITERAL})\s*;?")
# what a string's `#{…}` may hold and still run nothing: the environment's values, the home, literals, `||`, `+`
_RUBY_PLAIN_PART = re.compile(r"""ENV\[(?:'[A-Z_]+'|"[A-Z_]+")\]|Dir\.home|'[^'\\\n#]*'|\|\||\+|\s+""")
_R_LITERAL = r"""(?:-?[0-9][0-9.eEL]*|TRUE|FALSE|NULL|NA|T|F|'[^'\\\n]*'|"[^"\\\n]*")"""
_R_ITEM = rf"(?:[A-Za-z.][A-Za-z0-9._]*\s*=\s*)?{_R_LITERAL}"
_R_VALUE = rf"(?:{_R_LITERAL}|c\(\s*(?:{_R_ITEM}\s*,?\s*)*\))"
_R_OPTIONS = re.compile(rf"options\(\s*((?:[A-Za-z.][A-Za-z0-9._]*\s*=\s*{_R_VALUE}\s*,?\s*)+)\)\s*;?")
_R_NAME = re.compile(rf"([A-Za-z.][A-Za-z0-9._]*)\s*=\s*{_R_VALUE}")


@functools.lru_cache(maxsize=1)
def _table() -> Mapping[str, Any]:
    table: Mapping[str, Any] = json.loads((DATA / "repl_settings.json").read_text(encoding="utf-8"))
    return table


def repl_settings_only(path: str, text: str) -> bool | None:
    """Whether `text`, written into an interactive program's startup file `path`, only sets options (see the
    module doc); None when `path` is no such file."""
    base = path.rpartition("/")[2]
    for program, grammar in _GRAMMARS.items():
        entry = _table()[program]
        if base in entry["names"]:
            lines = _lines(text, grammar[0])
            return all(not line or line.startswith(grammar[0]) or grammar[1](line, entry) for line in lines)
    return None


def _lines(text: str, comment: str) -> list[str]:
    """The lines, a trailing comment with no quote in it taken off."""
    trailing = re.compile(rf"\s+{re.escape(comment)}[^'\"]*$")
    return [trailing.sub("", line.strip()) for line in text.splitlines()]


def _unsafe(name: str, entry: Mapping[str, Any]) -> bool:
    return any(name == u or (u.endswith(".") and name.startswith(u)) for u in entry["unsafe_settings"])


def _meta_setting(line: str, entry: Mapping[str, Any]) -> bool:
    """psql's `\\set NAME value`, sqlite3's `.mode box`, lldb's `settings set NAME value`: an inert command,
    no second command on the line, no backquoted text (psql and lldb run it), no `${…}` (lldb's script calls)."""
    words = line.split()
    if words[0] not in entry["commands"] or any(m in line[len(words[0]) :] for m in ("\\", "`", "${", "|")):
        return False
    # (the first word no option names the setting: lldb's `settings set -g -- NAME VALUE`)
    named = [w for w in words[2 if words[0] == "settings" else 1 :] if not w.startswith("-")][:1]
    return not any(_unsafe(name, entry) for name in named)


def _irb_setting(line: str, entry: Mapping[str, Any]) -> bool:
    """`IRB.conf[:KEY] = literal`; a string's `#{…}` only of the environment's values and the home; a file a
    setting names (HISTORY_FILE) not one that runs later."""
    if (setting := _IRB_SET.fullmatch(_interpolations_checked(line))) is None:
        return False
    key, value = setting.group(1), setting.group(2)
    if key in entry["file_settings"]:
        return _inert_file(value.strip("'\"").rpartition("}")[2])
    return not _unsafe(key, entry)


def _interpolations_checked(line: str) -> str:
    """`line` with each `#{…}` that runs nothing removed; one that may run code is kept (and fails the grammar)."""

    def plain(found: re.Match[str]) -> str:
        return "" if _RUBY_PLAIN_PART.sub("", found.group(1)) == "" else found.group(0)

    return re.sub(r"#\{([^{}]*)\}", plain, line)


def _inert_file(path: str) -> bool:
    known = catalogue()
    base = path.rpartition("/")[2]
    names = {*known.startup_files.names, *known.runs_later.names}
    return ".." not in path and base not in names and not any(path.endswith(b) for b in known.runs_later.below)


def _r_setting(line: str, entry: Mapping[str, Any]) -> bool:
    """`options(name = literal, ...)` with no option that names a program or holds code."""
    if (call := _R_OPTIONS.fullmatch(line)) is None:
        return False
    return not any(_unsafe(found.group(1), entry) for found in _R_NAME.finditer(call.group(1)))


# each program's comment marker and line grammar
_GRAMMARS: dict[str, tuple[str, Callable[[str, Mapping[str, Any]], bool]]] = {
    "psql": ("--", _meta_setting),
    "sqlite3": ("--", _meta_setting),
    "lldb": ("#", _meta_setting),
    "irb": ("#", _irb_setting),
    "R": ("#", _r_setting),
}
