"""The paths a file tool touches, resolved: `input.paths` of docs/policies.md.

A path is made absolute (relative paths against a base directory, `~` against the caller's home),
normalised and symlink-resolved with `os.path.realpath`, which resolves the longest existing prefix
and treats the rest lexically. `in_project` is true iff the result is the realpath of the project
directory or lies under it. Nothing here raises on odd input: a path that cannot be resolved (an
embedded NUL byte, say) is normalised lexically instead.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hookd.enrich.braces import expand_braces
from hookd.enrich.patches import patch_files
from hookd.enrich.search_roots import anchor_arg, narrowed_roots
from hookd.enrich.tool_args import Inferred, inferred, unknown_entries
from hookd.types import NormalisedEvent, ToolSpec


def expand_tilde(raw: str, home: str) -> str:
    """`~` and `~/x` to the home directory; `~user` and everything else as written."""
    if raw == "~":
        return home
    if raw.startswith("~/"):
        return home.rstrip("/") + raw[1:]
    return raw


def _join(base: str, path: str) -> str:
    if path.startswith("/"):
        return path
    if not base:
        base = "/"
    return base + path if base.endswith("/") else base + "/" + path


# `/proc/self`, `/proc/thread-self` and `/dev/fd` name the process that looks them up: for the command, its
# own directory, root and descriptors, never hookd's (resolving them here would give the daemon's).
_OWN = re.compile(r"^/+(?:proc/+(?:self|thread-self)|dev/+fd)(?=/|$)")


def _as_caller(path: str, cwd: str) -> str:
    """`path` with a leading `/proc/self/cwd` (or `/proc/thread-self/cwd`, `/dev/fd/../cwd` …) put as the
    call's directory and `/proc/self/root` as `/`; other paths unchanged. A `..` is followed only up to
    those links: beyond them it belongs to their target, which the resolver walks."""
    match = _OWN.match(path)
    if match is None:
        return path
    at = ["proc", "self", "fd"] if match.group().endswith("fd") else ["proc", "self"]
    rest = [part for part in path[match.end() :].split("/") if part not in ("", ".")]
    while rest and at[:2] == ["proc", "self"] and at[2:] not in (["cwd"], ["root"]):
        part = rest.pop(0)
        if part == "..":
            at = at[:-1] or at
        else:
            at.append(part)
    if at[:2] == ["proc", "self"] and at[2:] in (["cwd"], ["root"]):
        base = cwd if at[2] == "cwd" else "/"
        return _join(base, "/".join(rest)) if rest else base
    return "/" + "/".join(at + rest)


def _own(path: str) -> bool:
    """A path through the looking process's own `/proc/self` (its descriptors, environment, …): judged as
    written, since resolving it here would give hookd's (`_as_caller` has spelled it `/proc/self`)."""
    return path == "/proc/self" or path.startswith("/proc/self/")


def realpath(path: str) -> str:
    """`os.path.realpath` that never raises (falls back to a lexical normalisation)."""
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return os.path.normpath(path)


# Whether a file system (by st_dev) folds case; learnt once per file system by looking up a name in the other case.
_FOLD_CACHE: dict[int, bool] = {}
_FOLD_CACHE_MAX = 1024
# Where no name with letters has shown it yet: the platform's default (APFS and HFS+ fold case by default).
FOLD_DEFAULT = sys.platform == "darwin"
MAX_DIR_SCAN = 4096  # entries read to find a name's spelling on disk; past it the folded name stands


# What the directory reads of one event may cost together (a command may hold thousands of globs, and a
# case-insensitive file system has names looked up by reading their directory): past either cap, the rest of
# the globs are reported not fully known and names are folded without reading.
MAX_EVENT_GLOB_ENTRIES = 8192
MAX_EVENT_GLOB_MATCHES = 256


class GlobBudget:
    """The directory entries (globs, spellings on disk) and glob matches left to one event."""

    __slots__ = ("entries", "matches")

    def __init__(self) -> None:
        self.entries = MAX_EVENT_GLOB_ENTRIES
        self.matches = MAX_EVENT_GLOB_MATCHES


def fold(name: str) -> str:
    """The spelling of a name that a case-insensitive file system treats as equal to every other."""
    return name.lower()


def _learn_fold(info: os.stat_result, parent: str, name: str) -> bool:
    """Whether the file system holding `parent/name` (whose lstat is `info`) ignores case: the name with its
    case swapped must find the same file."""
    known = _FOLD_CACHE.get(info.st_dev)
    if known is not None:
        return known
    swapped = name.swapcase()
    if swapped == name:
        return FOLD_DEFAULT  # no letters to try: undecided, not remembered
    try:
        folds = os.path.samestat(info, os.lstat(parent + "/" + swapped))
    except (OSError, ValueError):
        folds = False
    if len(_FOLD_CACHE) >= _FOLD_CACHE_MAX:
        _FOLD_CACHE.clear()
    _FOLD_CACHE[info.st_dev] = folds
    return folds


def _spelled_on_disk(parent: str, name: str, info: os.stat_result, budget: GlobBudget | None = None) -> str:
    """The name as the directory holds it (case-insensitive file systems answer to any spelling); the
    folded name when the directory is too large to look through, or the event's reads are spent."""
    try:
        with os.scandir(parent or "/") as entries:
            for count, entry in enumerate(entries):
                if budget is not None:
                    budget.entries -= 1
                if count >= MAX_DIR_SCAN or (budget is not None and budget.entries < 0):
                    break
                if entry.name == name or (fold(entry.name) == fold(name) and entry.inode() == info.st_ino):
                    return entry.name
    except (OSError, ValueError):
        pass
    return fold(name)


_LOOKUP_CHARS = 4096  # PATH_MAX: the longest path Linux looks up


def _walk(
    path: str, memo: dict[str, str], devices: dict[str, int], follow: bool = True, budget: GlobBudget | None = None
) -> str:
    """The canonical form of absolute `path` (see _realpath_memo); `memo` maps each spelled prefix to its
    canonical form, `devices` each canonical prefix to its file system (a missing one: its parent's)."""
    resolved = ""  # the root
    names = path.split("/")
    for at, name in enumerate(names):
        if len(resolved) > _LOOKUP_CHARS:  # no system call takes a path this long (ENAMETOOLONG): the rest is lexical
            return _lexical(resolved, names[at:])
        if not name or name == ".":
            continue
        if name == "..":
            resolved = resolved.rsplit("/", 1)[0]
            continue
        candidate = resolved + "/" + name
        hit = memo.get(candidate)
        if hit is None:
            hit = memo[candidate] = _component(resolved, name, memo, devices, follow, budget)
        resolved = hit
    return resolved or "/"


def _lexical(resolved: str, names: list[str]) -> str:
    """`resolved` followed by `names` without looking any up, in time linear in their length (each prefix looked up
    and remembered cost the square of it: `rm -rf /a/a/…/a`, 30,000 names, never finished)."""
    parts = resolved.split("/")
    for name in names:
        if name == ".." and len(parts) > 1:
            parts.pop()
        elif name not in ("", ".", ".."):
            parts.append(name)
    return "/".join(parts) or "/"


def _device_of(path: str, devices: dict[str, int]) -> int:
    device = devices.get(path or "/")
    if device is None:
        try:
            device = os.lstat(path or "/").st_dev
        except (OSError, ValueError):
            device = -1
        devices[path or "/"] = device
    return device


def _component(
    parent: str, name: str, memo: dict[str, str], devices: dict[str, int], follow: bool, budget: GlobBudget | None
) -> str:
    candidate = parent + "/" + name
    try:
        info = os.lstat(candidate)
    except (OSError, ValueError):  # missing (the rest is lexical, as realpath does), or a NUL byte
        device = _device_of(parent, devices)
        if _FOLD_CACHE.get(device, FOLD_DEFAULT):
            candidate = parent + "/" + fold(name)
        devices[candidate] = device  # what holds it once it exists
        return candidate
    if follow and stat.S_ISLNK(info.st_mode):
        target = realpath(candidate).rstrip("/")
        if target == candidate:
            return candidate
        # the link's target spelled as the file system holds it (a link loop stays as written)
        spelled = _walk(target, memo, devices, False, budget)
        return "" if spelled == "/" else spelled  # the root is the empty prefix
    folds = _FOLD_CACHE.get(info.st_dev)
    if folds is None:
        folds = _learn_fold(info, parent, name)
    if folds:
        candidate = parent + "/" + _spelled_on_disk(parent, name, info, budget)
    devices[candidate] = info.st_dev
    return candidate


def _realpath_memo(path: str, memo: dict[str, str], devices: dict[str, int] | None = None) -> str:
    """`os.path.realpath` of an absolute path (the same answer, symlink loops aside: those stay as
    written), one component at a time with the resolved prefixes kept in `memo`, so that paths
    sharing a directory cost one `lstat` each (the standard one takes ~25-35 µs for a four-level
    path, and a command has several). On a file system that ignores case, each existing name is
    spelled as the directory holds it and each missing one folded (`.Git/hooks` is `.git/hooks`)."""
    return _walk(path, memo, {} if devices is None else devices)


GLOB_CHARS = frozenset("*?[")
MAX_GLOB_MATCHES = 64  # paths one glob may add; past it the glob is reported not fully known
MAX_GLOB_ENTRIES = 4096  # directory entries one glob may read


def has_glob(text: str) -> bool:
    return not GLOB_CHARS.isdisjoint(text)


class _Glob:
    """One bounded expansion: every name read counts against MAX_GLOB_ENTRIES, every path found against
    MAX_GLOB_MATCHES; `complete` turns false when either cap stopped it."""

    def __init__(self, *, hidden: bool, files: bool, budget: GlobBudget) -> None:
        self.budget = budget
        self.hidden = hidden  # `*` matches a leading dot (tools); the shell's does not
        self.files = files  # the last component matches files only (a search reads files)
        self.entries = 0
        self.found: list[str] = []
        self.complete = True
        self.listed: dict[str, list[tuple[str, bool]]] = {}

    def expand(self, directory: str, parts: list[str]) -> None:
        if not self.complete:
            return
        if not parts:
            if len(self.found) >= MAX_GLOB_MATCHES or self.budget.matches <= 0:
                self.complete = False
            else:
                self.budget.matches -= 1
                self.found.append(directory or "/")
            return
        part, rest = parts[0], parts[1:]
        if part == "**":  # any depth, shallow first: what the caps leave out is the deepest
            level = [directory]
            while level and self.complete:
                below: list[str] = []
                for here in level:
                    self.expand(here, rest)
                    below.extend(
                        here + "/" + name
                        for name, is_dir in self._names(here)
                        if is_dir and (self.hidden or not name.startswith("."))
                    )
                level = below
            return
        folds = _FOLD_CACHE.get(self._device(directory), FOLD_DEFAULT)
        if not has_glob(part):  # a last name that is not there matches nothing (one that folds: not looked up)
            if rest or folds or os.path.lexists(directory + "/" + part):
                self.expand(directory + "/" + part, rest)
            return
        pattern = fold(part) if folds else part
        for name, is_dir in self._names(directory):
            if name.startswith(".") and not part.startswith(".") and not self.hidden:
                continue
            if (not is_dir if rest else is_dir and self.files) or not fnmatch.fnmatchcase(
                fold(name) if folds else name, pattern
            ):
                continue
            self.expand(directory + "/" + name, rest)

    @staticmethod
    def _device(directory: str) -> int:
        try:
            return os.stat(directory or "/").st_dev
        except (OSError, ValueError):
            return -1

    def _names(self, directory: str) -> list[tuple[str, bool]]:
        """The names in `directory` and whether each is a directory, sorted; read once per expansion."""
        known = self.listed.get(directory)
        if known is not None:
            return known
        out: list[tuple[str, bool]] = []
        try:
            with os.scandir(directory or "/") as entries:
                for entry in entries:
                    self.entries += 1
                    self.budget.entries -= 1
                    if self.entries > MAX_GLOB_ENTRIES or self.budget.entries < 0:
                        self.complete = False
                        break
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    out.append((entry.name, is_dir))
        except (OSError, ValueError):
            pass
        out.sort()
        self.listed[directory] = out
        return out


def expand_glob(
    path: str, *, hidden: bool = False, files: bool = False, budget: GlobBudget | None = None
) -> tuple[list[str], bool]:
    """The existing paths an absolute glob `path` matches (`*`, `?`, `[…]` in any component, `**` for any
    depth), and whether that list is complete (False past MAX_GLOB_MATCHES or MAX_GLOB_ENTRIES, or for
    braces beyond MAX_BRACE_ALTERNATIVES). Matched as the file system does: case-insensitively where it
    folds case; a leading dot is matched only by a pattern that spells it unless `hidden`; with `files` the last
    component matches no directory. `budget` is what the event's globs have left (a fresh one if None)."""
    budget = budget or GlobBudget()
    if budget.entries <= 0 or budget.matches <= 0:
        return [], False  # the event's reads are spent: not one directory more
    patterns = expand_braces(path)
    if patterns is None:
        return [], False
    glob = _Glob(hidden=hidden, files=files, budget=budget)
    for pattern in patterns:
        glob.expand("", [p for p in pattern.split("/") if p and p != "."])
    return list(dict.fromkeys(glob.found)), glob.complete


class PathResolver:
    """Resolves any number of paths against one project, sharing the `lstat`s of common prefixes;
    meant for one event (the file system is taken to stand still meanwhile)."""

    __slots__ = ("_devices", "_globs", "_matched", "_memo", "_prefix", "home", "project")

    def __init__(self, *, home: str, project_dir: str) -> None:
        self.home = home
        self._memo: dict[str, str] = {}
        self._devices: dict[str, int] = {}
        self._globs = GlobBudget()
        self._matched: dict[tuple[str, str, bool, bool, bool], tuple[list[str], int, int]] = {}
        self.project = _realpath_memo(_join("/", project_dir), self._memo, self._devices)
        self._prefix = self.project if self.project.endswith("/") else self.project + "/"

    def joined(self, raw: str, base_dir: str, *, tilde: bool = True) -> str:
        """`raw` made absolute from `base_dir` (relative to the project), not yet resolved."""
        path = expand_tilde(raw, self.home) if tilde else raw
        cwd = _join(self.project, base_dir)
        return _as_caller(path if path.startswith("/") else _join(cwd, path), cwd)

    def absolute(self, raw: str, base_dir: str, *, tilde: bool = True) -> str:
        """The absolute, normalised, symlink-resolved form of `raw` seen from `base_dir`."""
        path = self.joined(raw, base_dir, tilde=tilde)
        if _own(path):
            return path
        return _walk(path, self._memo, self._devices, True, self._globs)

    def contains(self, path: str) -> bool:
        return path == self.project or path.startswith(self._prefix)

    def resolve(self, raw: str, base_dir: str, *, tilde: bool = True) -> dict[str, Any]:
        path = self.absolute(raw, base_dir, tilde=tilde)
        return {"raw": raw, "path": path, "in_project": self.contains(path)}

    def matches(
        self, raw: str, base_dir: str, *, tilde: bool = True, hidden: bool = False, files: bool = False
    ) -> tuple[list[str], bool]:
        """The resolved paths the glob `raw` matches from `base_dir` (see expand_glob), and whether that
        is all of them. A glob met again in this event (a command's argument, then its effect) is not read
        from the disk again: its first complete expansion is given again and charged to the event's budget
        as reading it again would be, while the budget holds that much (else it is read again, and stops
        where the budget does)."""
        key = (raw, base_dir, tilde, hidden, files)
        budget = self._globs
        again = self._matched.get(key)
        if again is not None:
            resolved, entries, matches = again
            if budget.entries >= max(entries, 1) and budget.matches >= max(matches, 1):
                budget.entries -= entries
                budget.matches -= matches
                return list(resolved), True
        path = self.joined(raw, base_dir, tilde=tilde)
        before = (budget.entries, budget.matches)
        found, complete = expand_glob(path, hidden=hidden, files=files, budget=budget)
        spent = (before[0] - budget.entries, before[1] - budget.matches)
        resolved = [_walk(path, self._memo, self._devices, True, budget) for path in found]
        if complete:
            self._matched[key] = (resolved, *spent)
        return list(resolved), complete


def resolve_path(raw: str, *, home: str, base_dir: str, project_dir: str) -> dict[str, Any]:
    """`{"raw", "path", "in_project"}` for one path (see the module docstring)."""
    return PathResolver(home=home, project_dir=project_dir).resolve(raw, base_dir)


def search_glob(pattern: str) -> str | None:
    """A search tool's file filter (ripgrep's --glob) as a path glob under its root: a filter without
    `/` matches a file's name at any depth; a leading `/` anchors it at the root. None for an exclusion
    (`!x`), which narrows nothing."""
    if pattern.startswith("!"):
        return None
    if "/" not in pattern.rstrip("/"):
        return "**/" + pattern
    return pattern.lstrip("/")


def _glob_entries(
    resolver: PathResolver, arg: str, raw: str, base: str, style: str, access: str
) -> list[dict[str, Any]]:
    """The entries of what one glob argument reaches: each match, with `glob` (the pattern); and when the
    matches are not all known (a cap stopped the expansion), the pattern itself with `"known": false`. A
    directory given where the tool takes globs (`read_many_files`) reaches every file below it."""
    pattern = search_glob(raw) if style == "search" else raw
    if (
        pattern is not None
        and style == "path"
        and not has_glob(pattern)
        and os.path.isdir(resolver.absolute(raw, base))
    ):
        pattern = pattern.rstrip("/") + "/**/*"  # a directory named where globs are taken: every file in it
    if pattern is None or not (has_glob(pattern) or style == "search"):
        return []
    found, complete = resolver.matches(pattern, base, hidden=True, files=style == "search" or pattern != raw)
    if style == "path" and pattern == raw:  # a directory a glob matches is read whole, as one named (`~/.config/g[h]`)
        for directory in [p for p in found if os.path.isdir(p)]:
            below, done = resolver.matches(directory + "/**/*", "/", hidden=True, files=True)
            found, complete = [*found, *below], complete and done
    out = [
        {"arg": arg, "raw": path, "path": path, "in_project": resolver.contains(path), "access": access, "glob": raw}
        for path in found
    ]
    if not complete:
        out.append({**resolver.resolve(pattern, base), "arg": arg, "access": access, "glob": raw, "known": False})
    return out


def _anchors(
    resolver: PathResolver, spec: ToolSpec, tool_input: Mapping[str, Any], arg: str, base_dir: str
) -> list[str]:
    """The directories an anchored argument is relative to: its anchor argument's, one or a list (rg's `paths`)."""
    named = anchor_arg(spec, tool_input, arg)
    anchor = tool_input.get(named) if named is not None else None
    anchors = anchor if isinstance(anchor, list) else [anchor]
    return [resolver.absolute(a, base_dir) for a in anchors if isinstance(a, str) and a]


def _unfiltered_search(
    resolver: PathResolver, spec: ToolSpec, tool_input: Mapping[str, Any], base_dir: str
) -> list[dict[str, Any]]:
    """A search tool given no file filter reads every file under its directory: outside the project (a home,
    `/`, another tree) each file it reaches is an entry, as its filter `*` would give (inside the project the
    directory's own entry stands: a search there is everyday work)."""
    out: list[dict[str, Any]] = []
    for arg, style in spec.globs.items():
        if style != "search" or tool_input.get(arg):
            continue
        named = str(anchor_arg(spec, tool_input, arg))
        for root in _anchors(resolver, spec, tool_input, arg, base_dir):
            if not resolver.contains(root):
                out.extend(_glob_entries(resolver, named, "*", root, "search", "read"))
    return out


def _patch_entries(resolver: PathResolver, arg: str, text: str, base: str) -> list[dict[str, Any]]:
    """The entries of the files a patch argument writes, deletes or moves (`op`); a move's entry names its
    destination (`to`), which has an entry of its own too (`"moved": true`), written."""
    out: list[dict[str, Any]] = []
    for patched in patch_files(text):
        entry = {"arg": arg, **resolver.resolve(patched.path, base, tilde=False), "access": "write", "op": patched.op}
        out.append(entry)
        if patched.to:
            to = resolver.resolve(patched.to, base, tilde=False)
            entry["to"] = to["path"]
            out.append({"arg": arg, **to, "access": "write", "op": "write", "moved": True})
    return out


def tool_paths(
    spec: ToolSpec, tool_input: Mapping[str, Any], *, home: str, base_dir: str, project_dir: str
) -> list[dict[str, Any]]:
    """The `input.paths` list of a file tool call, from the path arguments of its dialect's ToolSpec;
    arguments that are missing or not strings (or, for list arguments, elements that are not
    strings) are skipped. A glob argument (ToolSpec.globs) adds what it matches; a patch argument
    (ToolSpec.patches) adds the files the patch touches."""
    if not spec.paths and not spec.patches:
        return []
    resolver = PathResolver(home=home, project_dir=project_dir)
    out: list[dict[str, Any]] = []
    for arg, access in spec.paths:
        value = tool_input.get(arg)
        values = value if isinstance(value, list) else [value]
        bases = (spec.relative_to and _anchors(resolver, spec, tool_input, arg, base_dir)) or [base_dir]
        style = spec.globs.get(arg)
        for item in values:
            if not isinstance(item, str):
                continue
            for base in bases:
                if style is None:
                    out.append({"arg": arg, **resolver.resolve(item, base), "access": access})
                    if arg in spec.relative_to and any(
                        c != "**" and has_glob(c) for c in item.rpartition("/")[0].split("/")
                    ):
                        # a glob tool's pattern with a glob in a directory name (`~/.ss[h]/*`; not `**`): the
                        # names it lists are what it matches, which its text does not show
                        out.extend(_glob_entries(resolver, arg, item, base, "list", access))
                    continue
                # each brace alternative as written, then what it matches (braces expand first: `{src,/etc}/*`)
                alternatives = expand_braces(item) or [item]
                out.extend({"arg": arg, **resolver.resolve(alt, base), "access": access} for alt in alternatives)
                out.extend(e for alt in alternatives for e in _glob_entries(resolver, arg, alt, base, style, access))
    searched = [*out, *_unfiltered_search(resolver, spec, tool_input, base_dir)] if spec.globs else out
    out = narrowed_roots(searched, spec, tool_input, resolver, search_glob)  # (and a listing tool's directory)
    for arg in spec.patches:
        text = tool_input.get(arg)
        if isinstance(text, str):
            out.extend(_patch_entries(resolver, arg, text, base_dir))
    return out


def event_home(event: NormalisedEvent) -> str:
    """The caller's home directory: the `home` fact when an enricher set it, else this process's."""
    home = event.facts.get("home")
    if isinstance(home, str) and home:
        return home
    try:
        return str(Path.home())
    except (RuntimeError, KeyError):  # no $HOME and no passwd entry
        return "/"


def enrich_paths(event: NormalisedEvent) -> NormalisedEvent:
    """Adds `paths` to tool events of tools whose ToolSpec names path arguments; others pass unchanged."""
    tool = event.tool
    if tool is None or tool.spec is None:
        return event
    guess = inferred(tool)
    spec = guess.spec if guess is not None else tool.spec
    if not (spec.paths or spec.patches):
        return event
    home = event_home(event)
    bases = relative_bases(event)
    tool_input = guess.input if guess is not None else tool.input
    found = [tool_paths(spec, tool_input, home=home, base_dir=b, project_dir=event.project_dir) for b in bases]
    if guess is not None:
        found = [_as_inferred([*entries, *unknown_entries(guess)], guess) for entries in found]
    if len(found) == 1:
        return event.with_facts(paths=found[0])
    paths: list[dict[str, Any]] = []
    seen: set[tuple[tuple[str, Any], ...]] = set()
    for entry in (e for entries in found for e in entries):
        key = tuple(sorted(entry.items()))
        if key not in seen:
            seen.add(key)
            paths.append(entry)
    return event.with_facts(paths=paths)


def _as_inferred(entries: list[dict[str, Any]], guess: Inferred) -> list[dict[str, Any]]:
    """The entries of a tool whose spec was inferred (enrich/tool_args.py), with what its name says it does:
    each path also read where the name says nothing; deleted; or moved to where the move lands."""
    if guess.op == "read+write":
        return [x for e in entries for x in (e, {**e, "access": "read"})]
    if guess.op == "delete":  # a directory's delete takes everything below it
        return [{**e, "op": "delete", "recursive": os.path.isdir(e["path"])} for e in entries]
    if guess.op != "move":
        return entries
    landing = [e for e in entries if e["arg"] in guess.to]
    to = landing[0]["path"] if len(landing) == 1 else ""
    moved = [{**e, "op": "move", "to": to} if e["arg"] not in guess.to else {**e, "moved": True} for e in entries]
    return moved if to else [{**e, "op": "write"} if e["arg"] not in guess.to else e for e in entries]


def relative_bases(event: NormalisedEvent) -> list[str]:
    """The directories a file tool's relative path may be taken from, each once: the project's (Gemini's and
    Qwen's workspace root) and the call's own directory (where Claude, Codex, Copilot and OpenCode take it,
    which differs once the agent has moved: a relative `.bashrc` from a session in the home is the home's)."""
    return list(dict.fromkeys(d for d in (event.project_dir, event.cwd) if d))
