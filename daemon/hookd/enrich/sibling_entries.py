"""Entries of a sibling settings file that a written configuration names (part of the effect model's tool effects,
called by enrich/tool_effects.py): a new string value that is the `label`, `name` or `id` of an entry in another
settings file of the same directory makes that entry run when the written file's own entry does. VS Code's
`launch.json` `preLaunchTask` and `postDebugTask` name a `tasks.json` task by its label, and the task's command
runs before every debug session (https://CODE.VISUALSTUDIO.COM/docs/csharp/debugger-settings); the entry's
commands are judged as the written file's own would be."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from typing import Any

from hookd.enrich.config_commands import commands_in, parsed_settings
from hookd.enrich.holdings import head

_NAME_KEYS = frozenset({"label", "name", "id", "taskName"})
_SETTINGS = (".json", ".jsonc", ".json5", ".yml", ".yaml", ".toml")
_VALUE = re.compile(r':\s*"([^"\n\\]{1,128})"')  # a member's string value (a key names nothing)
# JSONC's (tasks.json and launch.json carry them); a line's own blanks (`^\s*` retried every blank line to the end)
_LINE_COMMENT = re.compile(r"^[^\S\n]*//.*$", re.MULTILINE)
MAX_SIBLINGS = 8
MAX_SIBLING_TEXT = 16 * 1024  # a settings file past this (a lockfile) is not read for entries
MAX_ENTRIES = 8


def sibling_commands(path: str, texts: list[str]) -> list[str]:
    """The command lines of the entries, in the settings files beside `path`, that the new texts name."""
    names = {m.group(1) for text in texts for m in _VALUE.finditer(text)}
    if not names or not path.endswith(_SETTINGS):
        return []
    lines: list[str] = []
    for sibling in _siblings(path):
        text = head(sibling, MAX_SIBLING_TEXT)
        parsed = parsed_settings(_LINE_COMMENT.sub("", text)) if text else None
        for entry in _named_entries(parsed, names, [MAX_ENTRIES]):
            lines.extend(commands_in(json.dumps(entry)))
    return list(dict.fromkeys(lines))


def _siblings(path: str) -> list[str]:
    directory = os.path.dirname(path)
    try:
        with os.scandir(directory) as entries:
            found = [e.path for _, e in zip(range(4 * MAX_SIBLINGS), entries, strict=False)]
    except (OSError, ValueError):
        return []
    return [p for p in found if p != path and p.endswith(_SETTINGS) and "lock" not in os.path.basename(p)][
        :MAX_SIBLINGS
    ]


def _named_entries(value: Any, names: set[str], budget: list[int], depth: int = 0) -> Iterator[dict[str, Any]]:
    """The mappings below `value` whose name key holds one of `names` (at most MAX_ENTRIES, 8 levels down)."""
    if depth > 8 or budget[0] <= 0:
        return
    if isinstance(value, dict):
        if any(value.get(k) in names for k in _NAME_KEYS if isinstance(value.get(k), str)):
            budget[0] -= 1
            yield value
            return
        children: Any = value.values()
    elif isinstance(value, list):
        children = value
    else:
        return
    for child in children:
        yield from _named_entries(child, names, budget, depth + 1)
