"""The files an agent loads later because a tool wrote their names (hookd.enrich.tool_effects): an instruction
file's `@path` imports, a memory tool's, a context or command file's reads."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from hookd.enrich.command_files import is_command_file, prompt_reads
from hookd.enrich.context_files import context_files
from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.home_reach import added_lines, shell_effects
from hookd.enrich.paths import PathResolver
from hookd.enrich.tool_args import new_texts, words
from hookd.enrich.tool_entries import (
    path_effect,
    unknown_effect,
    written_paths,
)
from hookd.types import JSON, ToolKind, ToolSpec

# Words of a tool's name that make it save what it is given into a file the agent loads every session
# (Gemini's and Qwen's `save_memory`: ~/.gemini/GEMINI.md, ~/.qwen/QWEN.md).
_MEMORY_WORDS = frozenset({"memory", "memories", "remember"})
# An import line of an instruction file: `@~/x`, `@./x`, `@../x`, `@/x`, `@dir/file`, `@file.md` (not an email
# address, a decorator in a code span, a scoped npm package's `@scope/name` is a relative path and harmless).
_IMPORT = re.compile(r"(?<![\w@`/])@((?:~|\.{1,2})?/[^\s`'\"<>)\]]+|[\w.-]+/[^\s`'\"<>)\]]*|[\w-]*\.[A-Za-z][\w.-]*)")
MAX_IMPORTS = 32


def import_reads(
    effects: list[dict[str, JSON]],
    tool_input: Mapping[str, Any],
    program: str,
    memory_dir: str,
    home: str | None,
    project: str,
) -> list[dict[str, JSON]]:
    """An `@path` import written into a file an agent loads into every session's context (the catalogue's
    `instruction_files`: CLAUDE.md, GEMINI.md, …; any Markdown file, which they may import, and whose own imports
    the agents follow, Claude Code's to five hops, Gemini's memport; or a memory tool's own file): a `read` of
    that path, `deferred` (it reaches the model in every later session, outside the hooks), judged as any read is."""
    names = catalogue().instruction_files
    loaded = [
        (path.rpartition("/")[0], new_texts(tool_input))
        for e in effects
        if e["op"] == "write"
        and isinstance(path := e["path"], str)
        and (path.endswith(".md") or path.rpartition("/")[2] in names)
    ]
    if not loaded and ("mem" in program.lower() or "remember" in program.lower()) and words(program) & _MEMORY_WORDS:
        texts = [v for v in tool_input.values() if isinstance(v, str)]
        loaded = [(base, texts) for base in (memory_dir, project) if base]
    raws = [(base, m.group(1).rstrip(".,;:!?")) for base, texts in loaded for t in texts for m in _IMPORT.finditer(t)]
    raws += [(project, name) for name in context_files(written_paths(effects), lambda: _added_texts(tool_input))]
    if any(is_command_file(p) for p in written_paths(effects)):  # what its `@{path}` and marker lines put in the prompt
        shell = functools.partial(shell_effects, home=home or "/", project=project)
        raws += [(project, name) for name in prompt_reads(_added_texts(tool_input), shell)]
    if not raws:
        return []
    resolver = PathResolver(home=home or "/", project_dir=project)
    out: list[dict[str, JSON]] = []
    for base, raw in raws:
        if len(out) >= MAX_IMPORTS:
            return [*out, unknown_effect("read", program)]
        entry = {"arg": "import", **resolver.resolve(raw, base), "access": "read"}
        read = path_effect(entry, ToolSpec(ToolKind.READ), program, home=home, project=project)
        out.append({**read, "deferred": True, "import": raw})
    return out


def _added_texts(tool_input: Mapping[str, Any]) -> list[str]:
    """The texts a tool's input writes, a patch's as its added lines."""
    return [added_lines(t) for t in new_texts(tool_input)]
