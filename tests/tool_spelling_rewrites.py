"""Spellings of the path arguments of agents' own file, search, edit and patch tools that the tool resolves to
the same file, for the tool-side spelling-invariance harness (test_tool_spelling_invariance.py). Each rewrite
is a pure function over a corpus case (`client`, `tool_name`, `tool_input`, `cwd`, `world`) that returns the
re-spelled case, or None where it would change which file the tool touches.

The tools resolve a relative path against the session's working directory and take an absolute one as it is
(Gemini CLI's and Qwen Code's tools: "resolved relative to the root directory", docs/tools/file-system.md;
OpenCode/Kilo and Codex's apply_patch: `path.resolve(cwd, p)` / `cwd.join(p)`); Claude Code hands its hooks
`file_path` already absolute (claude-code-hooks.md, "File paths"), so its file tools are never given a
relative spelling. The file system then resolves every spelling as POSIX pathname resolution does (Base
Definitions 4.13; path_resolution(7)): `a//b` is `a/b`, `a/./b` is `a/b`, a trailing `/` names a directory,
`d/../d/x` is `d/x` when d is a directory that is not a symbolic link, and a symbolic link is followed. A glob
filter matches the same names when one literal character is written as a bracket expression of itself
(glob(7), "Character classes"). `~` is left out: no agent's tool documents expanding it (Claude expands it
before the hook, which then sees the absolute path this module already spells).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from typing import Any

from hookd.dialects.registry import AGENTS, DEFAULT_AGENT
from hookd.types import ToolSpec

Case = dict[str, Any]
ToolRewrite = Callable[[Case], Case | None]

# The corpus runner's throw-away directories are siblings named so (hookd.policytest.case_runner), which the
# corpus itself relies on (`../home/.ssh/…` from the project).
_ROOT_NAMES = {"${PROJECT}": "project", "${HOME}": "home"}
_GLOB = re.compile(r"[*?\[\]{}]")
_ALWAYS_ABSOLUTE = {("claude", "file_path"), ("claude", "notebook_path")}
LINK = "${PROJECT}/hp-link"


def tool_spec(case: Case) -> ToolSpec | None:
    if "tool_name" in case:
        agent = AGENTS.get(case.get("client", ""))
        return agent.tools.get(case["tool_name"]) if agent else None
    return None


def default_tool(case: Case) -> Case:
    """A case in no agent's words (`tool`: read/write/edit with `path`) as the default agent's tool call, so
    that one set of rewrites serves both shapes."""
    if "tool_name" in case or "tool" not in case:
        return case
    from hookd.policytest.corpus import _payload

    payload = _payload(case)
    out = {k: v for k, v in case.items() if k not in ("tool", "path", "content")}
    return out | {"client": DEFAULT_AGENT, "tool_name": payload["tool_name"], "tool_input": payload["tool_input"]}


def _cwd(case: Case) -> str:
    return str(case.get("cwd", "${PROJECT}"))


def _world_dirs(case: Case) -> set[str]:
    world = case.get("world") or {}
    dirs = {"${PROJECT}", "${HOME}"}
    for name in [*dict(world.get("files", {}))]:
        parts = name.split("/")
        dirs |= {"/".join(parts[:i]) for i in range(1, len(parts))}
    return dirs


def _links(case: Case) -> set[str]:
    return set(dict((case.get("world") or {}).get("links", {})))


def _through_link(path: str, links: set[str]) -> bool:
    return any(path == link or path.startswith(link + "/") for link in links)


def _root(value: str) -> str | None:
    return next((r for r in _ROOT_NAMES if value == r or value.startswith(r + "/")), None)


def _absolute(value: str, anchor: str) -> str | None:
    """The placeholder spelling of a path value as the tool resolves it (None: not one this module knows)."""
    if value.startswith(("${PROJECT}", "${HOME}")):
        return value if _root(value) else None
    if value.startswith(("/", "~", "$")) or not value:
        return None
    if anchor != "${PROJECT}" and not anchor.startswith("${PROJECT}/"):
        return None
    # Joined, not folded: `..` after a symbolic link is the link target's parent (path_resolution(7)).
    return f"{anchor}/{value.removeprefix('./')}".rstrip("/")


def _path_args(case: Case) -> Iterator[tuple[str, int | None, str]]:
    """(argument, index in its list or None, value) of every plain path argument: named in the tool's table,
    not a glob (globs are the bracket rewrite's), not anchored to another argument."""
    spec = tool_spec(case)
    if spec is None:
        return
    for name, _ in spec.paths:
        if name in spec.globs or name in spec.relative_to:
            continue
        value = case["tool_input"].get(name)
        values = value if isinstance(value, list) else [value]
        for index, item in enumerate(values):
            if isinstance(item, str) and item and not _GLOB.search(_bare(item)):
                yield name, (index if isinstance(value, list) else None), item


def _bare(value: str) -> str:
    return value.replace("${PROJECT}", "").replace("${HOME}", "")


def _set(case: Case, name: str, index: int | None, value: str) -> None:
    if index is None:
        case["tool_input"][name] = value
    else:
        case["tool_input"][name][index] = value


def path_rewrite(spell: Callable[[str, str, Case, str], str | None]) -> ToolRewrite:
    """Each plain path argument re-spelled by `spell(value, absolute, case, argument)`."""

    def rewrite(case: Case) -> Case | None:
        case = default_tool(case)
        out = copy.deepcopy(case)
        changed = False
        for name, index, value in list(_path_args(case)):
            resolved = _absolute(value, _cwd(case))
            if resolved is None:
                continue
            new = spell(value, resolved, case, name)
            if new is not None and new != value:
                _set(out, name, index, new)
                changed = True
        return out if changed else None

    return rewrite


def _relative_of(resolved: str, cwd: str) -> str | None:
    if cwd != "${PROJECT}":
        return None
    if resolved.startswith("${PROJECT}/"):
        return resolved.removeprefix("${PROJECT}/")
    if resolved.startswith("${HOME}/"):
        return "../home/" + resolved.removeprefix("${HOME}/")
    return None


def _to_absolute(value: str, resolved: str, case: Case, name: str) -> str | None:
    return resolved if not value.startswith("${") else None


def _to_relative(value: str, resolved: str, case: Case, name: str) -> str | None:
    if (case.get("client"), name) in _ALWAYS_ABSOLUTE or not value.startswith("${"):
        return None
    return _relative_of(resolved, _cwd(case))


def _dot(value: str, resolved: str, case: Case, name: str) -> str | None:
    root = _root(value)
    if root is None:
        return f"./{value}" if not value.startswith(".") else None
    return f"{root}/./{value[len(root) + 1 :]}" if len(value) > len(root) + 1 else None


def _double_slash(value: str, resolved: str, case: Case, name: str) -> str | None:
    root = _root(value)
    if root is not None:
        return f"{root}//{value[len(root) + 1 :]}" if len(value) > len(root) + 1 else None
    head, slash, tail = value.partition("/")
    return f"{head}//{tail}" if slash and head and tail else None


def _dotdot(value: str, resolved: str, case: Case, name: str) -> str | None:
    """`${PROJECT}/x` as `${PROJECT}/../project/x`: the directory's parent, then the directory by its name."""
    root = _root(value)
    if root is not None:
        return f"{root}/../{_ROOT_NAMES[root]}{value[len(root) :]}"
    return f"../project/{value}" if _cwd(case) == "${PROJECT}" and not value.startswith("../") else None


def _trailing_slash(value: str, resolved: str, case: Case, name: str) -> str | None:
    if value.endswith("/") or resolved not in _world_dirs(case) or _through_link(resolved, _links(case)):
        return None
    return value + "/"


def symlinked(case: Case) -> Case | None:
    """One plain path argument named through a symbolic link the case's world makes to its directory (the tool
    follows it): `${PROJECT}/hp-link -> D`, the argument `${PROJECT}/hp-link/NAME`. Only where D is a directory
    the world surely has (so the link does not dangle)."""
    case = default_tool(case)
    dirs, links = _world_dirs(case), _links(case)
    for name, index, value in list(_path_args(case)):
        resolved = _absolute(value, _cwd(case))
        if resolved is None or "/" not in resolved:
            continue
        parent, _, base = resolved.rpartition("/")
        if parent not in dirs or LINK in links or not base:
            continue
        out = copy.deepcopy(case)
        _set(out, name, index, f"{LINK}/{base}")
        world = out.setdefault("world", {}) or {}
        out["world"] = world
        world.setdefault("links", {})[LINK] = parent
        return out
    return None


def _bracket(pattern: str) -> str | None:
    """One literal letter of a glob (the last outside any bracket or brace) as a bracket expression of itself."""
    depth = 0
    spots = []
    for i, c in enumerate(pattern):
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif depth == 0 and c.isalpha() and (i == 0 or pattern[i - 1] != "\\") and not _in_placeholder(pattern, i):
            spots.append(i)
    if not spots:
        return None
    i = spots[-1]
    return f"{pattern[:i]}[{pattern[i]}]{pattern[i + 1 :]}"


def _in_placeholder(pattern: str, i: int) -> bool:
    return any(0 <= i - pattern.find(p) < len(p) for p in _ROOT_NAMES if p in pattern)


def glob_bracket(case: Case) -> Case | None:
    """Every glob or file-filter argument with one literal letter as a bracket expression of itself: the same
    names match."""
    case = default_tool(case)
    spec = tool_spec(case)
    if spec is None:
        return None
    out = copy.deepcopy(case)
    changed = False
    for name in {*spec.globs, *spec.relative_to}:
        value = case["tool_input"].get(name)
        values = value if isinstance(value, list) else [value]
        for index, item in enumerate(values):
            if isinstance(item, str) and (new := _bracket(item)) is not None:
                _set(out, name, index if isinstance(value, list) else None, new)
                changed = True
    return out if changed else None


_CODEX_HEADER = re.compile(r"^(\*\*\* (?:Add File|Update File|Delete File|Move to): )(.+)$", re.M)
_DIFF_HEADER = re.compile(r"^((?:---|\+\+\+) [ab]/)(\S.*)$", re.M)


def patch_rewrite(spell: Callable[[str, str, Case], str | None]) -> ToolRewrite:
    """The file each header of a patch names (Codex's `*** Add/Update/Delete File:`/`*** Move to:`, a unified
    diff's `--- a/`/`+++ b/`) re-spelled; the tool resolves each against the cwd as it does its paths."""

    def rewrite(case: Case) -> Case | None:
        spec = tool_spec(case)
        if spec is None or not spec.patches:
            return None
        out = copy.deepcopy(case)
        changed = False
        for name in spec.patches:
            text = case["tool_input"].get(name)
            if not isinstance(text, str):
                continue

            def one(m: re.Match[str], diff: bool) -> str:
                value = m.group(2).strip()
                resolved = None if diff else _absolute(value, _cwd(case))
                new = spell(value, resolved or "", case) if (diff or resolved) else None
                if (diff and value.startswith("${")) or new is None:
                    return m.group(0)
                return m.group(1) + new

            new_text = _CODEX_HEADER.sub(lambda m: one(m, False), text)
            new_text = _DIFF_HEADER.sub(lambda m: one(m, True), new_text)
            if new_text != text:
                out["tool_input"][name] = new_text
                changed = True
        return out if changed else None

    return rewrite


def _patch_dot(value: str, resolved: str, case: Case) -> str | None:
    return _dot(value, resolved, case, "")


def _patch_absolute(value: str, resolved: str, case: Case) -> str | None:
    return resolved if resolved and not value.startswith("${") else None


def _patch_double_slash(value: str, resolved: str, case: Case) -> str | None:
    return _double_slash(value, resolved, case, "")


TOOL_REWRITES: dict[str, ToolRewrite] = {
    "absolute": path_rewrite(_to_absolute),
    "relative": path_rewrite(_to_relative),
    "dot": path_rewrite(_dot),
    "double-slash": path_rewrite(_double_slash),
    "dotdot": path_rewrite(_dotdot),
    "trailing-slash": path_rewrite(_trailing_slash),
    "symlink": symlinked,
    "glob-bracket": glob_bracket,
    "patch-dot": patch_rewrite(_patch_dot),
    "patch-absolute": patch_rewrite(_patch_absolute),
    "patch-double-slash": patch_rewrite(_patch_double_slash),
}
