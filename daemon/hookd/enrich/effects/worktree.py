"""What a git discard would lose, read from the repository as it is on disk (gaps38, gitidx40): hookd runs no git
(git runs programs its configuration names); it reads git's own files (https://git-scm.com/docs/index-format).
A discard loses at most two differences below the tree it names:

* the work tree's from the index: an entry whose file differs in type, executable bit or content. Size and
  modification time settle it first, as git's stat check does, when the file was written before the index
  ("racily clean" otherwise); when they do not, the file's blob name (sha-1 of `blob <len>\\0<data>`) does;
* the index's from HEAD (what is staged): the entries' modes and object names against the files of the tree
  HEAD's commit names (hookd.enrich.effects.gitstore), a branch with no commit yet an empty tree;

and, besides them, the untracked (and ignored) files of its tree: none when the work tree below holds no file,
link or nested repository the index does not hold (a bounded walk; `.git` itself is not work).

Anything else is unknown, and the discard stays judged as before: index versions other than 2, 3, 4, a
checksum that does not match, a required extension (split or sparse index), a conflict, intent-to-add,
skip-worktree, a submodule, SHA-256 object names or any repository extension, a configured `core.worktree`,
a `.git` file (a linked worktree's or a submodule's), alternates, a missing or corrupt object (a shallow or
partial clone), a path reached through a link, more entries or bytes than are read.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct

from hookd.enrich.blocking import blocking_read
from hookd.enrich.effects.gitstore import Store, Unknown, head_tree, offset_varint, read_inside, tree_files

__all__ = ["Readings", "Unknown", "nothing_uncommitted", "repository_of", "tracked", "untracked_below"]

MAX_INDEX = 32 * 1024 * 1024  # an index past this is not read (unknown)
MAX_HASHED = 8 * 1024 * 1024  # a work-tree file hashed when its stat data does not settle it
MAX_ENTRIES = 20_000  # (a decision walks each: ~15 µs an entry, so this bounds one at ~0.3 s of the event loop)
MAX_HASHED_TOTAL = 64 * 1024 * 1024  # every file one line's readings hash, together
MAX_HASHED_FILES = 1_000  # (~45 µs each, opened, read and hashed: ~50 ms)
MAX_WALK = 5_000  # entries of the work tree looked at for untracked files
MAX_LINE_WORK = 3 * MAX_ENTRIES  # index entries, HEAD's files, entries looked at or walked: one line's, together
MAX_READINGS = 8  # answers one line computes (each repository and tree once)
MAX_REPOSITORIES = 2  # git directories one line reads
_HEADER = struct.Struct(">4sII")
_ENTRY = struct.Struct(">IIIIIIIIII20sH")  # ctime s/ns, mtime s/ns, dev, ino, mode, uid, gid, size, sha-1, flags
_EXTENDED, _STAGE, _NAME_MASK = 0x4000, 0x3000, 0x0FFF
_SKIP_WORKTREE, _INTENT_TO_ADD = 0x4000, 0x2000  # the v3 extended flags
_GITLINK, _SPARSE_DIR = 0o160000, 0o40000


def repository_of(path: str) -> tuple[str, str] | None:
    """The work tree holding `path` and its git directory, a `.git` directory there; None when no repository
    holds it. A `.git` file (a linked worktree's or a submodule's git directory elsewhere) is unknown."""
    here = os.path.abspath(path)
    while True:
        dot_git = os.path.join(here, ".git")
        if os.path.islink(dot_git) or os.path.isfile(dot_git):
            raise Unknown(dot_git)
        if os.path.isdir(dot_git):
            return here, dot_git
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


# mode, size, mtime s, mtime ns, object name, and the rest of the stat data git compares: ctime s and ns, device,
# inode, uid, gid (each as the index keeps it, its low 32 bits)
Entry = tuple[int, int, int, int, bytes, tuple[int, int, int, int, int, int]]


def tracked(git_dir: str, limit: int = MAX_ENTRIES) -> dict[str, Entry]:
    """The index's entries (at most `limit`): path (relative, `/`-separated) -> Entry."""
    _plain_repository(git_dir)
    data = read_inside(git_dir, "index", MAX_INDEX)
    if data is None:
        return {}  # no index: nothing was ever added
    if len(data) < _HEADER.size + 20 or hashlib.sha1(data[:-20]).digest() != data[-20:]:
        raise Unknown("index")
    entries, at = _entries(data, min(limit, MAX_ENTRIES))
    _extensions(data, at)
    return entries


def _plain_repository(git_dir: str) -> None:
    """A repository whose work tree is where its `.git` is, whose object names are SHA-1's and that uses no
    extension (https://git-scm.com/docs/git-config#Documentation/git-config.txt-extensions), nor includes
    another configuration file that could say otherwise; its configuration is read as text, any key's spelling."""
    config = (read_inside(git_dir, "config", 256 * 1024) or b"").decode("utf-8", "replace").lower()
    if any(word in config for word in ("worktree", "objectformat", "sparse", "extensions", "version = 1", "include")):
        raise Unknown(git_dir)


def _entries(data: bytes, limit: int) -> tuple[dict[str, Entry], int]:
    signature, version, count = _HEADER.unpack_from(data)
    if signature != b"DIRC" or version not in (2, 3, 4) or count > limit:
        raise Unknown("index")
    entries: dict[str, Entry] = {}
    at, previous, end_of_entries = _HEADER.size, b"", len(data) - 20
    for _ in range(count):
        if at + _ENTRY.size > end_of_entries:
            raise Unknown("index")
        fields = _ENTRY.unpack_from(data, at)
        mode, flags = fields[6], fields[11]
        start = at + _ENTRY.size
        extended = 0
        if flags & _EXTENDED:
            (extended,) = struct.unpack_from(">H", data, start)
            start += 2
        if flags & _STAGE or extended & (_SKIP_WORKTREE | _INTENT_TO_ADD) or mode in (_GITLINK, _SPARSE_DIR):
            raise Unknown("index")  # a conflict, a path kept out of the work tree, a submodule: not read here
        if version == 4:  # the path is the previous one less N bytes, then this suffix; no padding
            strip, start = offset_varint(data, start, "index")
            end = data.find(b"\0", start, end_of_entries)
            if end < 0 or strip > len(previous):
                raise Unknown("index")
            name = previous[: len(previous) - strip] + data[start:end]
            at = end + 1
        else:
            end = data.find(b"\0", start, end_of_entries)
            name = data[start:end]
            if end < 0 or (flags & _NAME_MASK) not in (len(name), _NAME_MASK):
                raise Unknown("index")
            at += (end - at + 8) // 8 * 8  # entries are NUL-padded to a multiple of eight bytes
        if not name or (name <= previous and entries):
            raise Unknown("index")  # git keeps the entries sorted, each path once
        previous = name
        path = name.decode("utf-8", "surrogateescape")
        entries[path] = (mode, fields[9], fields[2], fields[3], fields[10],
                         (fields[0], fields[1], fields[4], fields[5], fields[7], fields[8]))  # fmt: skip
    return entries, at


def _extensions(data: bytes, at: int) -> None:
    """Each extension skipped by its length; a required one (its signature's first letter not upper case: a
    split index's `link`, a sparse index's `sdir`) changes what the entries mean, and is unknown."""
    end = len(data) - 20
    while at < end:
        if at + 8 > end:
            raise Unknown("index")
        signature, size = struct.unpack_from(">4sI", data, at)
        if not b"A" <= signature[:1] <= b"Z" or at + 8 + size > end:
            raise Unknown("index")
        at += 8 + size


class Readings:
    """One line's readings of the repositories its discards work in (issue 26's review: a line repeating a discard
    read the repository each time, on the daemon's event loop). Each git directory's index and HEAD's files are
    read once, each answer kept for the same git directory and tree, and the work of the whole line is bounded:
    entries read, looked at on disk or walked (MAX_LINE_WORK), files and bytes hashed (MAX_HASHED_FILES,
    MAX_HASHED_TOTAL), repositories
    (MAX_REPOSITORIES) and answers (MAX_READINGS). Past any bound the reading is unknown: a loss."""

    __slots__ = ("_answers", "_committed", "_entries", "_hashed", "_readings", "_work")

    def __init__(self) -> None:
        self._answers: dict[tuple[str, str, str], bool] = {}
        self._entries: dict[str, tuple[dict[str, Entry], int]] = {}  # git dir -> (index entries, when written)
        self._committed: dict[str, dict[str, tuple[int, bytes]]] = {}  # git dir -> HEAD's files
        self._work = MAX_LINE_WORK
        self._readings = MAX_READINGS
        self._hashed = [0, 0]  # bytes, files

    def nothing(self, asked: str, top: str, git_dir: str, below: str) -> bool:
        """Nothing `asked` ("uncommitted", "untracked") below `below`, answered once a line for the same git
        directory and tree; a reading that raised stays a loss."""
        key = (os.path.abspath(git_dir), os.path.abspath(below), asked)
        if key in self._answers:
            return self._answers[key]
        blocking_read(f"git repository {git_dir}")  # on the event loop: the pipeline reads it on its thread
        self._readings -= 1
        if self._readings < 0:
            raise Unknown("readings")
        self._answers[key] = False
        if asked == "uncommitted":
            self._answers[key] = self.nothing_uncommitted(top, git_dir, below)
        else:
            self._answers[key] = not self.untracked_below(top, git_dir, below)
        return self._answers[key]

    def _spend(self, work: int) -> None:
        self._work -= work
        if self._work < 0:
            raise Unknown("work")

    def tracked(self, git_dir: str) -> tuple[dict[str, Entry], int]:
        """The index's entries and when the index was written (0: no index), read once a line."""
        if git_dir not in self._entries:
            if len(self._entries) >= MAX_REPOSITORIES:
                raise Unknown(git_dir)
            entries = tracked(git_dir, self._work)
            self._spend(len(entries))
            stamp = os.stat(os.path.join(git_dir, "index")).st_mtime_ns if entries else 0
            self._entries[git_dir] = (entries, stamp)
        return self._entries[git_dir]

    def committed(self, git_dir: str) -> dict[str, tuple[int, bytes]]:
        if git_dir not in self._committed:
            files = tree_files(Store(git_dir), head_tree(git_dir), self._work)
            self._spend(len(files))
            self._committed[git_dir] = files
        return self._committed[git_dir]

    def nothing_uncommitted(self, top: str, git_dir: str, below: str) -> bool:
        """No tracked file below `below` (a directory of the work tree `top`, or `top` itself) differs from the
        index, and no entry of the index below it differs from HEAD's tree: nothing a discard there would lose
        but untracked files."""
        entries, stamp = self.tracked(git_dir)
        prefix = _relative(top, below)
        mine = {name: entry for name, entry in entries.items() if _below(name, prefix)}
        committed = {name: file for name, file in self.committed(git_dir).items() if _below(name, prefix)}
        if {name: (entry[0], entry[4]) for name, entry in mine.items()} != committed:
            return False  # staged: the index is not HEAD's tree
        self._spend(len(mine))
        safe: dict[str, bool] = {}
        return all(_same(top, name, entry, (stamp, self._hashed), safe) for name, entry in mine.items())

    def untracked_below(self, top: str, git_dir: str, below: str) -> bool:
        """Whether the work tree below `below` holds a file, link or nested repository the index does not hold."""
        names = self.tracked(git_dir)[0]
        seen = 0
        for directory, subdirs, files in os.walk(below):
            if os.path.abspath(directory) == os.path.abspath(top):
                subdirs[:] = [d for d in subdirs if d != ".git"]
            seen += len(subdirs) + len(files)
            if seen > MAX_WALK:
                raise Unknown(below)
            self._spend(len(subdirs) + len(files))
            for sub in [d for d in subdirs if os.path.islink(os.path.join(directory, d))]:
                if _relative(top, os.path.join(directory, sub)) not in names:
                    return True  # a link to a directory is one untracked file
            if any(os.path.exists(os.path.join(directory, d, ".git")) for d in subdirs):
                return True  # a nested repository
            if any(_relative(top, os.path.join(directory, f)) not in names for f in files):
                return True
        return False


def nothing_uncommitted(top: str, git_dir: str, below: str) -> bool:
    """Readings.nothing_uncommitted, read alone."""
    return Readings().nothing_uncommitted(top, git_dir, below)


def untracked_below(top: str, git_dir: str, below: str) -> bool:
    """Readings.untracked_below, read alone."""
    return Readings().untracked_below(top, git_dir, below)


def _below(name: str, prefix: str) -> bool:
    return not prefix or name == prefix or name.startswith(prefix + "/")


def _same(top: str, name: str, entry: Entry, index: tuple[int, list[int]], safe: dict[str, bool]) -> bool:
    """The file as the index recorded it: by its stat data when that settles it, else by its content (`index`:
    when the index was written, and the bytes and files hashed so far, bounded by MAX_HASHED_TOTAL and
    MAX_HASHED_FILES)."""
    mode, size, _, _, blob, _ = entry
    written, hashed = index
    if not _no_link_above(top, name, safe):
        return False  # git does not look through a linked directory: the entry is gone from the work tree
    path = os.path.join(top, name)
    try:
        found = os.lstat(path)
    except OSError:
        return False  # deleted from the work tree: a change
    kind = stat.S_IFMT(mode)
    if stat.S_IFMT(found.st_mode) != kind or (kind == stat.S_IFREG and (found.st_mode & 0o100) != (mode & 0o100)):
        return False
    if found.st_size & 0xFFFFFFFF != size:
        return False
    if _stat_matches(found, entry) and written and found.st_mtime_ns < written - 1_000_000_000:
        return True  # written before the index, and not since: git trusts the stat data too
    hashed[0] += found.st_size
    hashed[1] += 1
    if hashed[0] > MAX_HASHED_TOTAL or hashed[1] > MAX_HASHED_FILES:
        raise Unknown(path)  # every file made racy (`touch`) would be read whole: the work stays bounded
    return _content(path, kind, found.st_size) == blob


def _stat_matches(found: os.stat_result, entry: Entry) -> bool:
    """The stat data git's check compares (read-cache.c, match_stat_data) as the index recorded it: the times
    of the last modification and of the last status change (which `touch -d` putting an mtime back cannot set
    back), the device, inode, owner and group; the index keeps each in 32 bits, a time's nanoseconds 0 when
    the system gave none."""
    _, _, mtime_s, mtime_ns, _, (ctime_s, ctime_ns, dev, ino, uid, gid) = entry
    low, second = 0xFFFFFFFF, 1_000_000_000
    mtime, ctime = found.st_mtime_ns, found.st_ctime_ns
    return (
        (mtime // second) & low == mtime_s
        and (not mtime_ns or mtime % second == mtime_ns)
        and (ctime // second) & low == ctime_s
        and (not ctime_ns or ctime % second == ctime_ns)
        and (found.st_dev & low, found.st_ino & low, found.st_uid & low, found.st_gid & low) == (dev, ino, uid, gid)
    )


def _content(path: str, kind: int, size: int) -> bytes:
    """The blob name of a file's content (of a link's target text), read without following a link."""
    if size > MAX_HASHED:
        raise Unknown(path)
    if kind == stat.S_IFLNK:
        data = os.fsencode(os.readlink(path))
    else:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise Unknown(path)
            data = handle.read(MAX_HASHED + 1)
    if len(data) > MAX_HASHED:
        raise Unknown(path)
    return hashlib.sha1(b"blob %d\0" % len(data) + data).digest()  # (git's object name: sha-1)


def _no_link_above(top: str, name: str, safe: dict[str, bool]) -> bool:
    """No directory on the way from the work tree to the entry is a link (each directory checked once)."""
    parent = os.path.dirname(name)
    if not parent:
        return True
    if parent not in safe:
        safe[parent] = _no_link_above(top, parent, safe) and not os.path.islink(os.path.join(top, parent))
    return safe[parent]


def _relative(top: str, path: str) -> str:
    relative = os.path.relpath(os.path.abspath(path), os.path.abspath(top))
    if relative == ".":
        return ""
    if relative.startswith(".."):
        raise Unknown(path)
    return relative.replace(os.sep, "/")
