"""The programs hookd's hooks run (hookd.selfprotect): each agent runs the command of hookd's hook in its settings
for every call (`/opt/hookd/bin/hookd-shim claude PreToolUse`, a shim found on PATH) and reads what it prints; the
program replaced by one that prints nothing and exits 0 (`cp /bin/true …`) answers allow to every call. Each such
program is protected as the shims hookd installs itself are, wherever the settings put it."""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from hookd.dialects.registry import AGENTS
from hookd.dialects.spec import AgentSpec, settings_doc

_LARGEST = 1 << 20  # a settings file larger than this is not read for its hooks (selfprotect.MAX_JUDGED_BYTES)
_COMMAND_KEYS = ("command", "bash")  # the handler key holding the command line (Copilot's `bash`)


def program_places(home: str, project: str, env: Mapping[str, str]) -> Iterator[tuple[Path, str]]:
    for program in hook_programs(home, project, env.get("PATH", "")):
        yield Path(program), "the program an agent runs for hookd's hook"


def hook_programs(home: str, project: str, search_path: str) -> Iterator[str]:
    """The program each hook of hookd's in every agent's settings runs, by the path the agent starts it from (the
    name resolved on `search_path`, `~` and `$HOME` as the home) and, when that is a link, the file it leads to."""
    for spec in AGENTS.values():
        for scope in spec.install.scopes:
            path = spec.install.settings_path(scope, Path(home), Path(project), {})
            for hook in _hookd_handlers(spec, _document(path, spec.install.jsonc)):
                program = _program(hook, home, search_path)
                if program:
                    yield program
                    if os.path.islink(program):
                        yield os.path.realpath(program)


def _document(path: Path, jsonc: bool) -> Mapping[str, Any]:
    try:
        if path.stat().st_size > _LARGEST:
            return {}
        return settings_doc(path, path.read_text(encoding="utf-8"), jsonc)
    except (OSError, UnicodeDecodeError, ValueError):
        return {}


def _hookd_handlers(spec: AgentSpec, doc: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    hooks = doc.get("hooks")
    for definitions in hooks.values() if isinstance(hooks, Mapping) else ():
        for definition in definitions if isinstance(definitions, list) else ():
            inner = definition.get("hooks") if isinstance(definition, Mapping) else None
            for hook in inner if isinstance(inner, list) else [definition]:
                ours = spec.install.own_file is not None or hook.get(spec.install.identity) in ("hookd", "hookd-shim")
                if isinstance(hook, Mapping) and ours:
                    yield hook


def _program(hook: Mapping[str, Any], home: str, search_path: str) -> str:
    line = next((v for k in _COMMAND_KEYS if isinstance(v := hook.get(k), str) and v.strip()), "")
    try:
        words = shlex.split(line)
    except ValueError:
        return ""
    if not words:
        return ""
    first = words[0]
    for prefix in ("~/", "$HOME/", "${HOME}/"):
        if first.startswith(prefix):
            first = home.rstrip("/") + "/" + first[len(prefix) :]
    if "/" in first:
        return first if first.startswith("/") else ""
    found = shutil.which(first, path=search_path)
    return os.path.abspath(found) if found else ""
