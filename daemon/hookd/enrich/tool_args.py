"""What the arguments of a tool hookd has no table for name: an MCP server's file tools (`read_file`,
`write_file`, `move_file`, `read_multiple_files` of the reference filesystem server, an editor's
`search_files`, a browser's `file_upload`) and any agent's tool added after its module was written.

Such a tool's ToolSpec (its dialect's fallback: kind `mcp` or `other`, no path arguments) would leave every
path it touches unjudged. Its spec is inferred instead, from its input alone: an argument whose name says it
holds a path (`path`, `paths`, `filePath`, `source`, `destination`, `directory`, …) is a path argument, and
the words of the tool's own name say what it does to them (read, write, delete, move, copy); a tool whose
name says none of these is taken to both read and write them, so that neither a secret read nor a write into
a protected place slips through a name hookd cannot read. The effects follow from the spec as for any file
tool (enrich/paths.py, enrich/tool_effects.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from hookd.types import JSON, ToolCall, ToolKind, ToolSpec

# Words of an argument's name (snake, kebab or camel case) that make it a path argument.
_PATH_WORDS = frozenset({
    "path", "paths", "file", "files", "filename", "filenames", "filepath", "filepaths", "dir", "dirs",
    "directory", "directories", "folder", "folders", "source", "sources", "src", "destination", "dest", "dst",
    "target", "root", "location", "cwd", "workdir", "notebook", "attachment", "attachments",
})  # fmt: skip
# Words of an argument's name that make it where a move or copy lands.
_TO_WORDS = frozenset({"destination", "dest", "dst", "target", "to", "new", "output", "out"})
# Words of a tool's name that say what it does to its paths.
_DELETE = frozenset({"delete", "remove", "rm", "unlink", "rmdir", "trash", "erase", "purge", "wipe"})
_MOVE = frozenset({"move", "rename", "mv"})
_COPY = frozenset({"copy", "cp", "duplicate", "clone"})
_WRITE = frozenset({
    "write", "create", "edit", "update", "modify", "patch", "append", "save", "put", "set", "replace",
    "insert", "apply", "touch", "mkdir", "make", "new", "add", "overwrite", "truncate", "store", "upsert",
    "chmod", "chown", "extract", "unzip", "download", "screenshot", "export",
})  # fmt: skip
_READ = frozenset({
    "read", "get", "view", "list", "ls", "search", "find", "grep", "glob", "cat", "open", "show", "load",
    "stat", "info", "tree", "head", "tail", "query", "inspect", "describe", "diff", "upload", "attach", "send",
})  # fmt: skip
_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
MAX_NAME = 200  # longer argument or tool names are not split into words


def words(name: str) -> frozenset[str]:
    """`filePath`, `file_path`, `file-path` as {"file", "path"} (and the whole name, lower-cased)."""
    if len(name) > MAX_NAME:
        return frozenset()
    return frozenset({name.lower(), *(w.lower() for w in _WORD.findall(name))})


@dataclass(frozen=True, slots=True)
class Inferred:
    """An unknown tool's path arguments and what it does to them: `op` is "read", "write", "delete",
    "move", "copy" or "read+write" (its name says none of these); `to` the arguments a move or copy lands in."""

    spec: ToolSpec
    op: str
    to: frozenset[str]


def _op(tool: ToolCall) -> str:
    name = tool.mcp.get("tool", tool.name) if tool.mcp else tool.name
    said = words(name)
    for verbs, op in ((_DELETE, "delete"), (_MOVE, "move"), (_COPY, "copy"), (_WRITE, "write"), (_READ, "read")):
        if said & verbs:
            return op
    return "read+write"


def _names_a_path(value: JSON) -> bool:
    if isinstance(value, list):
        return any(_names_a_path(v) for v in value)
    return isinstance(value, str) and 0 < len(value) <= 4096 and "\n" not in value and "\x00" not in value


def inferred(tool: ToolCall) -> Inferred | None:
    """The inferred spec of a tool hookd has no path table for (kind mcp or other), or None: for a tool
    whose spec names its paths, or one with no argument that names a path."""
    spec = tool.spec
    if spec is None or spec.paths or spec.patches or tool.kind not in (ToolKind.MCP, ToolKind.OTHER):
        return None
    args = [k for k, v in tool.input.items() if words(k) & _PATH_WORDS and _names_a_path(v)]
    if not args:
        return None
    op = _op(tool)
    to = frozenset(a for a in args if words(a) & _TO_WORDS) if op in ("move", "copy") else frozenset()
    access = "read" if op == "read" else "write"
    paths = tuple((a, "write" if a in to else access) for a in args)
    content = next(
        (k for k, v in tool.input.items() if k in ("content", "text", "file_text") and isinstance(v, str)), ""
    )
    kind = ToolKind.READ if op == "read" else ToolKind.WRITE
    return Inferred(ToolSpec(kind, paths, content=content if access == "write" else ""), op, to)


def named_paths(tool_input: Mapping[str, JSON], spec: ToolSpec) -> int:
    """How many paths the spec's arguments name (a list counts each)."""
    values = (tool_input.get(arg) for arg, _access in spec.paths)
    return sum(len(value) if isinstance(value, list) else 1 for value in values if value is not None)
