"""A tool's input as the call it amounts to, where its arguments hide what it touches in two ways the words of
their names cannot show (blind-tools-21):

* **a call inside a call**: a tool that calls another tool hands that call's arguments on as a JSON text (Kilo's
  `use_mcp_tool` `arguments`, https://kilocode.ai/docs/features/tools/use-mcp-tool; an MCP gateway's `call_tool`):
  the text is read as the object it is, so that its `path`, `url` or `command` is judged as the inner tool's;
* **a path given as a base and a member of it**: rclone's remote-control API names every file or directory by a
  file system (`fs`, `srcFs`, `dstFs`: a local directory, or a configured remote `name:`) and a path relative to it
  (`remote`, `srcRemote`, `dstRemote`: https://rclone.org/rc/#operations-purge): a local pair is the one path
  they name, under the prefix's own name (`srcPath`), so that `operations_purge {fs: ~, remote: work}` deletes
  `~/work`, not `~` nor `work` in the project.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from hookd.types import JSON

MAX_TEXT = 1 << 20  # a JSON text longer than this is not read as an object (it stays a text)
MAX_DEPTH = 100  # as tool_args.MAX_DEPTH: deeper input is left as it is
_BASE = re.compile(r"(?i)(.*?)fs")  # `fs`, `srcFs`, `dst_fs`: the prefix before a file system argument
_REMOTE_NAME = re.compile(r"[^/]*:")  # `gdrive:`, `s3:bucket`: a configured remote, not a local directory
# The arguments that name the tool a call inside a call runs (`use_mcp_tool`'s `tool_name`).
_INNER_NAMES = ("tool_name", "toolName")
# The names of an argument holding a call's arguments (`arguments`, `args`, `params`, `toolInput`): only such a JSON
# text is read as an object; a file's content that is JSON (`content: "{\"path\": …}"`) stays the text it writes.
_ARGUMENTS = re.compile(r"(?i)(?:^|_|(?<=[a-z]))(?:arguments|args|params|parameters|input)$")


def expanded(value: Mapping[str, Any], depth: int = 0) -> dict[str, JSON]:
    """The input with each JSON text of an object read as that object, and each local base-and-member pair joined
    into one path, at any depth (linear in the input: each text is parsed once, when it starts with `{`)."""
    out: dict[str, JSON] = {}
    for key, item in value.items():
        out[str(key)] = _value(item, depth + 1, _ARGUMENTS.search(str(key)[:200]) is not None)
    return _joined(out)


def _value(item: Any, depth: int, arguments: bool = False) -> Any:
    if depth > MAX_DEPTH:
        return item
    if arguments and isinstance(item, str) and len(item) <= MAX_TEXT and item.lstrip()[:1] == "{":
        try:
            parsed = json.loads(item)
        except (ValueError, RecursionError):  # not JSON (json.JSONDecodeError), or nested past the parser's stack
            return item
        return expanded(parsed, depth) if isinstance(parsed, Mapping) else item
    if isinstance(item, Mapping):
        return expanded(item, depth)
    if isinstance(item, list):
        return [_value(v, depth + 1) for v in item]
    return item


def _joined(given: dict[str, JSON]) -> dict[str, JSON]:
    """Each `<prefix>fs` with its `<prefix>remote` (any case, `_` between) as one `<prefix>path` argument."""
    out = dict(given)
    for key, base in given.items():
        match = _BASE.fullmatch(key)
        if match is None or not isinstance(base, str) or _REMOTE_NAME.match(base):
            continue
        prefix = match.group(1)
        wanted = f"{prefix}remote".lower().replace("_", "")
        remote = next((k for k in given if k.lower().replace("_", "") == wanted), None)
        member = given.get(remote) if remote is not None else ""
        if not isinstance(member, str):
            continue
        out.pop(key, None)
        out.pop(remote or "", None)
        joined = f"{base.rstrip('/')}/{member.lstrip('/')}" if member else base
        out[f"{prefix}{'Path' if prefix else 'path'}"] = joined
    return out


# What a verb glued to its object is done to (rclone's `deletefile`, `movefile`, `copyfile`, `copyurl`, `rmdirs`).
_GLUED = re.compile(r"([a-z]{2,12}?)(?:files?|dirs?|directory|directories|folders?|url)")


def unglued(said: frozenset[str]) -> frozenset[str]:
    """The words of a tool's name with each verb glued to its object also as the verb alone (`deletefile`: `delete`)."""
    return said | {m.group(1) for w in said if (m := _GLUED.fullmatch(w))}


# Words of a tool's name that say it unpacks an archive: the names it writes come from the archive, not the call.
_UNPACK = frozenset({"extract", "unzip", "untar", "unpack", "decompress", "unarchive", "inflate"})


def unpacked_trees(effects: list[dict[str, JSON]], said: frozenset[str], is_dir: Callable[[str], bool]) -> None:
    """Marks each write of an existing directory by a tool whose name says it unpacks (`extract_all` to `~`) as a
    whole tree written there (`recursive`), as the shell's `tar -x -C ~` is: any file below may be replaced."""
    if not unglued(said) & _UNPACK:
        return
    for effect in effects:
        if effect["op"] == "write" and isinstance(path := effect["path"], str) and path and is_dir(path):
            effect["recursive"] = True


def inner_tool(value: Mapping[str, Any]) -> str:
    """The name of the tool a call inside a call runs (`use_mcp_tool`'s `tool_name`), or "" for a plain call."""
    return next((v for k in _INNER_NAMES if isinstance(v := value.get(k), str) and len(v) <= 200), "")
