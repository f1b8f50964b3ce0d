"""The other names a file has, where the policies match paths by their shape (a `.ssh` segment, `~/.bashrc`, a
`.git/hooks` file, `~/.gitconfig`): a canonical path is the one the kernel reaches, and a file kept elsewhere
and linked into place has its protected name only on the link.

* A dotfile of the home that is a link (GNU Stow and every dotfiles manager: `~/.bashrc -> ~/dotfiles/bashrc`,
  `~/.ssh -> ~/dotfiles/ssh`, `~/.gitconfig -> …`), and each link directly in `~/.config`: the file it points
  at, and everything below it, is also the link's path (`~/dotfiles/ssh/authorized_keys` is
  `~/.ssh/authorized_keys`).
* A project whose `.git` is a file (`gitdir: <dir>`: `--separate-git-dir`, a worktree, a submodule): that
  directory is the project's `.git` (its `hooks/` run on the next commit, its `config` is the repository's).

The links are read once per state of the directories that hold them (their modification times: making,
removing or retargeting a link changes them), never walked.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping

from hookd.enrich.paths import realpath

MAX_ENTRIES = 4096  # entries of one directory looked at for links; past it the rest have no other name
MAX_GITFILE = 4096  # a `.git` file longer than this names no directory


def other_names(path: str, home: str | None, project: str, names: Mapping[str, str] | None = None) -> list[str]:
    """The other names of the canonical `path`: one per link (or `.git` file) whose target holds it (`names`:
    `linked(home, project)`, when the caller has it for several paths)."""
    if not path.startswith("/"):
        return []
    names = linked(home, project) if names is None else names
    out = []
    for target, name in names.items():
        if path == target:
            out.append(name)
        elif path.startswith(target + "/"):
            out.append(name + path[len(target) :])
    return out


def linked(home: str | None, project: str) -> Mapping[str, str]:
    """The canonical target of each link (or `.git` file) -> the name it gives it."""
    home = home.rstrip("/") if home else ""
    gitfile = project + "/.git"
    stamps = (stamp(home), stamp(home + "/.config"), stamp(gitfile)) if home else (None, None, stamp(gitfile))
    last = _LAST.get((home, gitfile))
    if last is not None and last[0] == stamps:
        return last[1]
    names = _read(home, stamps[:2], gitfile, stamps[2])
    if len(_LAST) >= 64:
        _LAST.clear()
    _LAST[(home, gitfile)] = (stamps, names)
    return names


_LAST: dict[tuple[str, str], tuple[tuple[tuple[int, int] | None, ...], Mapping[str, str]]] = {}


def stamp(path: str, *, follow: bool = False) -> tuple[int, int] | None:
    """A file's state as a cache key (inode, modification time), None when there is none: a directory's changes
    when an entry is made, removed or renamed in it; `follow` stats what a link points at."""
    try:
        st = os.stat(path) if follow else os.lstat(path)
    except (OSError, ValueError):
        return None
    return (st.st_ino, st.st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _read(
    home: str, stamps: tuple[tuple[int, int] | None, ...], gitfile: str, gitstamp: tuple[int, int] | None
) -> Mapping[str, str]:
    del stamps, gitstamp  # the cache's key: a changed directory or .git file is read again
    names: dict[str, str] = {}
    if home:
        for directory, dotted in ((home, True), (f"{home}/.config", False)):
            for entry in _links(directory, dotted):
                target = realpath(entry)
                if target != entry and not f"{home}/".startswith(target.rstrip("/") + "/"):
                    names.setdefault(target, entry)  # (a link to the home or above it names everything)
    gitdir = _gitdir(gitfile)
    if gitdir:
        names.setdefault(gitdir, gitfile)
    return names


def _links(directory: str, dotted: bool) -> list[str]:
    out = []
    try:
        with os.scandir(directory) as entries:
            for count, entry in enumerate(entries):
                if count >= MAX_ENTRIES:
                    break
                if (entry.name.startswith(".") or not dotted) and entry.is_symlink():
                    out.append(entry.path)
    except (OSError, ValueError):
        return []
    return out


def _gitdir(gitfile: str) -> str:
    """The directory a `.git` file names ("" when `.git` is no such file)."""
    try:
        if not os.path.isfile(gitfile) or os.path.islink(gitfile):
            return ""
        with open(gitfile, "rb") as handle:
            text = handle.read(MAX_GITFILE + 1)
    except (OSError, ValueError):
        return ""
    if len(text) > MAX_GITFILE or not text.startswith(b"gitdir:"):
        return ""
    try:
        value = text[len(b"gitdir:") :].decode("utf-8").strip()
    except UnicodeDecodeError:
        return ""
    if not value or "\n" in value:
        return ""
    return realpath(os.path.join(os.path.dirname(gitfile), value))
