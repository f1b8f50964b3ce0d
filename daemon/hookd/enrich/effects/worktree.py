"""What a git discard would lose, read from the repository as it is on disk (gaps38): git's own `git status`
compares each index entry's recorded stat data with the file in the work tree, and lists the files the index does
not hold (https://git-scm.com/docs/index-format, https://git-scm.com/docs/git-status). hookd runs no git; it reads
the index file and stats the files itself, the same comparison, and decides only when every step is certain:

* uncommitted changes: none when every entry of the index below the discarded tree is a regular file or link
  whose type, executable bit, size and modification time match what the index recorded, at stage 0 (no conflict),
  neither intent-to-add nor skip-worktree, and written before the index (a file changed in the index's own second,
  "racily clean", is counted as changed, as git re-reads it). A repository with no index has no tracked file.
* untracked (and ignored) files: none when the work tree below the discarded tree holds no file, link or nested
  repository the index does not hold (a bounded walk; `.git` itself is not work).

Anything else is unknown, and the discard stays judged as before: an index format past version 3, SHA-256 object
names, a configured `core.worktree`, a work tree or index moved by the environment (GIT_DIR, GIT_WORK_TREE,
GIT_INDEX_FILE), more entries or files than are read, a path that cannot be stat'ed.
"""

from __future__ import annotations

import os
import stat
import struct
from collections.abc import Iterator

MAX_INDEX = 32 * 1024 * 1024  # an index past this is not read (unknown)
MAX_ENTRIES = 50_000
MAX_WALK = 5_000  # entries of the work tree looked at for untracked files
_HEADER = struct.Struct(">4sII")
_ENTRY = struct.Struct(">IIIIIIIIII20sH")  # ctime s/ns, mtime s/ns, dev, ino, mode, uid, gid, size, sha-1, flags
_EXTENDED, _STAGE, _NAME_MASK = 0x4000, 0x3000, 0x0FFF
_SKIP_WORKTREE, _INTENT_TO_ADD = 0x4000, 0x2000  # the v3 extended flags
_GITLINK = 0o160000


class Unknown(Exception):
    """The repository's state cannot be read with certainty."""


def repository_of(path: str) -> tuple[str, str] | None:
    """The work tree holding `path` and its git directory (`.git`, or the directory a `.git` file points to); None
    when no repository holds it."""
    here = os.path.abspath(path)
    while True:
        dot_git = os.path.join(here, ".git")
        if os.path.isdir(dot_git):
            return here, dot_git
        if os.path.isfile(dot_git):
            return here, _linked_git_dir(here, dot_git)
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _linked_git_dir(top: str, dot_git: str) -> str:
    """A `.git` file's `gitdir: DIR` (a linked worktree's or a submodule's), relative to the work tree."""
    with open(dot_git, encoding="utf-8", errors="replace") as handle:
        line = handle.readline(4096).strip()
    if not line.startswith("gitdir:"):
        raise Unknown(dot_git)
    return os.path.normpath(os.path.join(top, line.partition(":")[2].strip()))


def tracked(git_dir: str) -> dict[str, tuple[int, int, int, int]]:
    """The index's stage-0 entries: path (relative, `/`-separated) -> (mode, size, mtime s, mtime ns)."""
    _plain_repository(git_dir)
    index = os.path.join(git_dir, "index")
    try:
        size = os.path.getsize(index)
    except FileNotFoundError:
        return {}  # no index: nothing was ever added
    if size > MAX_INDEX:
        raise Unknown(index)
    with open(index, "rb") as handle:
        data = handle.read()
    return dict(_entries(data))


def _plain_repository(git_dir: str) -> None:
    """A repository whose work tree is where its `.git` is and whose object names are SHA-1's (the index's layout
    depends on both); its configuration is read as text, a key's spelling in any case."""
    try:
        with open(os.path.join(git_dir, "config"), encoding="utf-8", errors="replace") as handle:
            config = handle.read(256 * 1024).lower()
    except FileNotFoundError:
        return
    if "worktree" in config or "objectformat" in config or "sparse" in config:
        raise Unknown(git_dir)


def _entries(data: bytes) -> Iterator[tuple[str, tuple[int, int, int, int]]]:
    if len(data) < _HEADER.size:
        raise Unknown("index")
    signature, version, count = _HEADER.unpack_from(data)
    if signature != b"DIRC" or version not in (2, 3) or count > MAX_ENTRIES:
        raise Unknown("index")
    at = _HEADER.size
    for _ in range(count):
        if at + _ENTRY.size > len(data):
            raise Unknown("index")
        fields = _ENTRY.unpack_from(data, at)
        mtime_s, mtime_ns, mode, size, flags = fields[2], fields[3], fields[6], fields[9], fields[11]
        start = at + _ENTRY.size
        extended = 0
        if flags & _EXTENDED:
            (extended,) = struct.unpack_from(">H", data, start)
            start += 2
        end = data.find(b"\0", start)
        if end < 0 or (flags & _NAME_MASK) not in (end - start, _NAME_MASK):
            raise Unknown("index")
        if flags & _STAGE or extended & (_SKIP_WORKTREE | _INTENT_TO_ADD) or mode == _GITLINK:
            raise Unknown("index")  # a conflict, a path kept out of the work tree, a submodule: not read here
        at += (end - at + 8) // 8 * 8  # entries are NUL-padded to a multiple of eight bytes
        yield data[start:end].decode("utf-8", "surrogateescape"), (mode, size, mtime_s, mtime_ns)


def unchanged(top: str, git_dir: str, below: str) -> bool:
    """No tracked file below `below` (a directory of the work tree `top`, or `top` itself) differs from what the
    index recorded."""
    entries = tracked(git_dir)
    try:
        written = os.stat(os.path.join(git_dir, "index")).st_mtime_ns
    except FileNotFoundError:
        written = 0
    prefix = _relative(top, below)
    return all(
        _same(os.path.join(top, name), *recorded, written)
        for name, recorded in entries.items()
        if not prefix or name == prefix or name.startswith(prefix + "/")
    )


def _same(path: str, mode: int, size: int, mtime_s: int, mtime_ns: int, written: int) -> bool:
    try:
        found = os.lstat(path)
    except OSError:
        return False  # deleted from the work tree: a change
    kind = stat.S_IFMT(mode)
    if stat.S_IFMT(found.st_mode) != kind or (kind == stat.S_IFREG and (found.st_mode & 0o100) != (mode & 0o100)):
        return False
    on_disk = found.st_mtime_ns
    if found.st_size & 0xFFFFFFFF != size or on_disk // 1_000_000_000 != mtime_s:
        return False
    if mtime_ns and on_disk % 1_000_000_000 != mtime_ns:
        return False
    return on_disk < written - 1_000_000_000 or not written  # racily clean: changed in the index's own second


def untracked_below(top: str, git_dir: str, below: str) -> bool:
    """Whether the work tree below `below` holds a file, link or nested repository the index does not hold."""
    names = set(tracked(git_dir))
    seen = 0
    for directory, subdirs, files in os.walk(below):
        if os.path.abspath(directory) == os.path.abspath(top):
            subdirs[:] = [d for d in subdirs if d != ".git"]
        seen += len(subdirs) + len(files)
        if seen > MAX_WALK:
            raise Unknown(below)
        for sub in [d for d in subdirs if os.path.islink(os.path.join(directory, d))]:
            if _relative(top, os.path.join(directory, sub)) not in names:
                return True  # a link to a directory is one untracked file
        if any(os.path.exists(os.path.join(directory, d, ".git")) for d in subdirs):
            return True  # a nested repository
        if any(_relative(top, os.path.join(directory, f)) not in names for f in files):
            return True
    return False


def _relative(top: str, path: str) -> str:
    relative = os.path.relpath(os.path.abspath(path), os.path.abspath(top))
    if relative == ".":
        return ""
    if relative.startswith(".."):
        raise Unknown(path)
    return relative.replace(os.sep, "/")
