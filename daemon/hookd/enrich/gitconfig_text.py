"""The keys a file tool writes into a git configuration file, read from the text it writes: a write or edit
of `~/.gitconfig`, `~/.config/git/config`, `/etc/gitconfig`, a repository's `config` (a `.git` directory's,
a worktree's or a submodule's) that sets a key whose value git runs (git.json's executing keys, the same
the shell's `git config` is judged on: `core.fsmonitor`, `core.pager`, `alias.x = !…`, `filter.*.smudge`).
Built for enrich/tool_effects.py, which adds one `write` effect with `key`, `value` and `executes` per key.
A write whose resulting text cannot be judged whole (an edit of a file that cannot be read, a move or copy onto
the file, any shell write but `git config KEY VALUE`) is an `exec` of code not known (`unjudged_write`).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from typing import Any

from hookd.enrich.aliases import stamp
from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.gitops import alias_runs, executing, plain_value
from hookd.enrich.effects.gitremotes import own_tool, stored_url_runs
from hookd.enrich.holdings import head
from hookd.types import JSON

_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$')
# One way to match each line, so the time is linear in its length: the value is taken whole and its trailing
# blanks are stripped after (a lazy value before `\s*$` tried every split of a run of blanks: quadratic).
_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$")
# `git/config` wherever `$XDG_CONFIG_HOME` points; `x.git/config`: a bare repository's
_CONFIG = re.compile(r"(?:^|/)(?:\.gitconfig|etc/gitconfig|git/config|[^/]*\.git/(?:.+/)?config(?:\.worktree)?)$")
MAX_TEXT = 1 << 20  # a longer text is not read line by line: its keys are not known (the write is asked)


def is_git_config(path: str) -> bool:
    """Whether git reads `path` as a configuration file (for this user, the machine, or a repository)."""
    return _CONFIG.search(path) is not None


def _unquote(value: str) -> str:
    value = value.split(" #", 1)[0].split(" ;", 1)[0].strip()
    return value[1:-1] if len(value) > 1 and value[0] == value[-1] == '"' else value


def _names_of_executing_keys() -> frozenset[str]:
    data = catalogue().git
    names = {key.rsplit(".", 1)[-1] for key in data["executing_keys"]}
    names |= {pattern.rsplit(".", 1)[-1] for pattern in data["executing_patterns"] if pattern.count(".") == 2}
    return frozenset(names)


def _runs(key: str, value: str, section_known: bool, place: tuple[str, str, int] = ("", "", 0)) -> bool:
    if key.startswith("alias.") or (not section_known and value.startswith("!")):
        return alias_runs(value)
    if section_known and stored_url_runs(key, value):
        return True
    if plain_value(key, value) or own_tool(key, value) or (section_known and _plain_include(key, value, place)):
        return False
    if section_known:
        return executing(key)
    return key.rsplit(".", 1)[-1] in _names_of_executing_keys()


def executing_keys(text: str, config: str = "", home: str = "", depth: int = 0) -> list[tuple[str, str]] | None:
    """The (key, value) pairs of `text` whose value git runs; a key below no section header in `text` (an
    edit's new lines) is judged by its name against every section's executing keys. None past MAX_TEXT. With the
    configuration's path and the home, an include of a file that exists and sets no such key itself is plain."""
    if len(text) > MAX_TEXT:
        return None
    section = ""
    found: list[tuple[str, str]] = []
    for raw in text.splitlines():
        line = raw[1:] if raw.startswith("+") and not raw.startswith("+++") else raw  # a patch's added line
        header = _SECTION.match(line)
        if header:
            name, sub, rest = header.groups()
            section = f"{name.lower()}.{sub}" if sub is not None else name.lower()
            line = rest
        match = _KEY.match(line)
        if not match or line.lstrip().startswith(("#", ";")):
            continue
        name, value = match.group(1).lower(), _unquote((match.group(2) or "").rstrip())
        key = f"{section}.{name}" if section else name
        if _runs(key, value, bool(section), (config, home, depth)):
            found.append((key, value))
    return found


def _plain_include(key: str, value: str, place: tuple[str, str, int]) -> bool:
    """An include (`include.path`, `includeIf.<condition>.path`) of a file that exists now and whose own text sets
    no key git runs, nor includes one that does (read at decision time: a later write of that file is judged as
    one into the git configuration, since included_configs names it): a work email's `~/.gitconfig-work`."""
    config, home, depth = place
    if not home or depth >= MAX_INCLUDE_DEPTH or not (key == "include.path" or _INCLUDE_IF.fullmatch(key)):
        return False
    target = _expand(value, home, os.path.dirname(config) or home)
    if any(p.startswith(_PER_PROCESS) for p in (os.path.normpath(target), os.path.realpath(target))):
        return False  # `/dev/stdin`, `/proc/self/fd/0`: what git's own process reads there, not hookd's
    text = head(target, MAX_TEXT + 1, follow=True)
    return text is not None and executing_keys(text, target, home, depth + 1) == []


_INCLUDE_IF = re.compile(r"includeif\..+\.path")
_PER_PROCESS = ("/dev/", "/proc/")  # names whose file is the opening process's own (proc(5), /dev/fd)
_CHANGES = frozenset({"write", "delete", "copy", "link", "fetch"})


def plain_includes(effects: list[dict[str, Any]], home: str, made: Mapping[str, str]) -> None:
    """`git config --local include.path ../.gitconfig.shared`: an include set by the shell is judged as a file
    tool's write of it is (`_plain_include`): by the keys the included file holds now, when no command of the line
    makes or changes it (then what it will hold is not read here) and nothing of the line is written where it
    cannot be placed. An include of a file that sets none git runs is a plain setting (`executes` false)."""
    includes = [e for e in effects if e.get("executes") and e["op"] == "write" and _is_include(str(e.get("key")))]
    given = [e for e in effects if e["op"] == "exec" and "included" in e]  # `git -c include.path=F`
    if not (includes or given) or any(e["op"] in _CHANGES and not e["known"] for e in effects):
        return
    changed = {str(e.get(k) or "") for e in effects if e["op"] in _CHANGES for k in ("path", "to")} | set(made)
    for effect in given:  # git takes no relative include from its command line: an absolute or home path only
        value = str(effect["included"])
        target = os.path.realpath(_expand(value, home, "/"))
        if (
            value.startswith(("/", "~/"))
            and target not in changed
            and _plain_include(str(effect["key"]).lower(), value, ("", home, 0))
        ):
            effects.remove(effect)
    for effect in includes:
        config, value = str(effect["path"]), str(effect.get("value") or "")
        if not value.startswith(("/", "~")) and _outside_repositories(os.path.dirname(config)):
            value = os.path.normpath(os.path.join(os.path.dirname(config), value))  # git fails: nothing is set
        target = os.path.realpath(_expand(value, home, os.path.dirname(config) or home))
        if target not in changed and _plain_include(str(effect["key"]).lower(), value, (config, home, 0)):
            effect["executes"] = False


def _outside_repositories(directory: str) -> bool:
    """`git config --local` where no repository holds the directory (no `.git` in it or above): git refuses
    to run, so the relative include is read as if the `.git` directory were there."""
    path = directory
    while not os.path.lexists(path):
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent
    return not any(os.path.lexists(os.path.join(p, ".git")) for p in _ancestors(path))


def _ancestors(path: str) -> list[str]:
    found = [path]
    while os.path.dirname(found[-1]) != found[-1]:
        found.append(os.path.dirname(found[-1]))
    return found


def _is_include(key: str) -> bool:
    return key.lower() == "include.path" or _INCLUDE_IF.fullmatch(key.lower()) is not None


def unjudged_write(path: str, program: str, via: str) -> dict[str, JSON]:
    """What a write into the git configuration `path` whose resulting text cannot be judged whole does (a move,
    copy or link onto it, a shell's redirect or program, an edit of a file that cannot be read): whatever it
    holds then, git may run (a value of `core.fsmonitor`, `alias.x = !…`); code not known (asked)."""
    return {"op": "exec", "path": "", "known": False, "recursive": False, "to": "", "program": "git", "via": via,
            "class": "unresolved", "code": {"lang": "sh", "text": ""}, "config": path,
            "raw": f"the git configuration {path}, which {program} writes"}  # fmt: skip


def unjudged_shell_writes(effects: list[dict[str, JSON]], home: str, project: str) -> list[dict[str, JSON]]:
    """For a shell line's effects: a write into a git configuration file other than `git config` setting one key
    (judged by that key) writes a text hookd cannot judge whole; one exec effect per such file. A file the user's
    or the project's configuration includes is one too (`>> ~/.gitconfig-work`), as it is for the file tools."""
    found: dict[str, dict[str, JSON]] = {}
    included: frozenset[str] | None = None  # looked up on the first plain write only: most lines write nothing
    for effect in effects:
        path = effect.get("path")
        if effect.get("op") != "write" or not isinstance(path, str) or effect.get("key") or path in found:
            continue
        if not is_git_config(path):
            included = included_configs(home, project) if included is None else included
            if path not in included:
                continue
        found[path] = unjudged_write(path, str(effect.get("program") or ""), "shell")
    return list(found.values())


def may_set_executing_key(text: str) -> bool:
    """Whether `text` names a key git runs anywhere (a last name of git.json's executing keys and patterns,
    `alias`, `path` of an include): a cheap test before the configuration's includes are looked up."""
    lowered = text.lower()  # substring searches: an alternation of ~50 names ignoring case took 0.36 s on 300 KB
    return any(name in lowered for name in _key_names())


@functools.lru_cache(maxsize=1)
def _key_names() -> tuple[str, ...]:
    return tuple(sorted({n.lower() for n in _names_of_executing_keys()} | {"alias", "path"}))


MAX_INCLUDE_DEPTH = 4  # git's own limit is 10; configurations nest one or two deep in practice
MAX_INCLUDES = 64


def included_configs(home: str, project: str) -> frozenset[str]:
    """The canonical files the user's and the project's git configuration include (`[include] path = …`,
    `[includeIf "…"] path = …`, and what those include in turn): each is git configuration too, so a write of an
    executing key there is judged as one into `~/.gitconfig` (a dotfiles repository's `aliases.inc`). Read once
    per state of the configuration files (inode, modification time)."""
    roots = (f"{home}/.gitconfig", f"{home}/.config/git/config", f"{project}/.git/config") if home else ()
    return _included(tuple((root, stamp(root, follow=True)) for root in roots), home)


@functools.lru_cache(maxsize=64)
def _included(roots: tuple[tuple[str, tuple[int, int] | None], ...], home: str) -> frozenset[str]:
    found: set[str] = set()
    pending = [(root, 0) for root, stamp in roots if stamp is not None]
    while pending and len(found) < MAX_INCLUDES:
        path, depth = pending.pop()
        for value in _include_paths(path):
            target = os.path.realpath(_expand(value, home, os.path.dirname(path)))
            if target not in found:
                found.add(target)
                if depth + 1 < MAX_INCLUDE_DEPTH:
                    pending.append((target, depth + 1))
    return frozenset(found)


def _expand(value: str, home: str, base: str) -> str:
    if value == "~" or value.startswith("~/"):
        return home + value[1:]
    return value if value.startswith("/") else os.path.join(base, value)


def _include_paths(path: str) -> list[str]:
    text = head(path, MAX_TEXT + 1, follow=True)  # a regular file only: an included FIFO would stall the decision
    if text is None or len(text) > MAX_TEXT:
        return []
    out: list[str] = []
    section = ""
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header:
            section = header.group(1).lower()
            continue
        key = _KEY.match(line)
        if key and section in ("include", "includeif") and key.group(1).lower() == "path" and key.group(2):
            value = _unquote(key.group(2).rstrip())
            if value:
                out.append(value)
    return out
