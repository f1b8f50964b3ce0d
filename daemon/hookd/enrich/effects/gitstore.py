"""git's object store and refs, read in pure Python (no git process: git runs programs its configuration names,
fsmonitor and hooks among them): HEAD and the refs it names (loose, `packed-refs`, symbolic), the commit HEAD
names and its tree, from loose objects (zlib) or packs (`.idx` version 2 with its `.pack`, OFS and REF deltas)
(https://git-scm.com/docs/gitformat-pack, https://git-scm.com/docs/gitrepository-layout).

The files are the agent's to write: every size is capped (an object inflated, a delta's output, its chain's
depth, a tree's entries), every read is of a regular file inside the git directory (no link followed out of it),
and anything not read with certainty raises `Unknown`: the caller keeps its judgement.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import re
import stat
import struct
import zlib

MAX_OBJECT = 16 * 1024 * 1024  # an object inflated past this is not read
MAX_FILE = 64 * 1024 * 1024  # a ref or config file read whole
MAX_PACKED_REFS = 16 * 1024 * 1024  # (~300,000 refs; read twice a reading, ~3 ms a MiB)
MAX_PACK = 4 << 30  # a pack is mapped, not read
MAX_IDX_FILES = 16  # packs of one repository (`git gc` keeps one; `gc.autoPackLimit` repacks past 50)
MAX_IDX_TOTAL = 256 * 1024 * 1024  # their indexes together, mapped (each lookup reads a few pages)
MAX_DEPTH = 64  # deltas on deltas
MAX_INFLATED = 64 * 1024 * 1024  # every object and delta one Store inflates, together: the work stays bounded
MAX_TREE_ENTRIES = 20_000  # entries of every tree below HEAD's, together
_HEX = re.compile(rb"[0-9a-f]{40}")
_REF = re.compile(r"refs/[A-Za-z0-9._/-]+")
_COMMIT, _TREE, _BLOB, _TAG, _OFS_DELTA, _REF_DELTA = 1, 2, 3, 4, 6, 7
_TYPES = {b"commit": _COMMIT, b"tree": _TREE, b"blob": _BLOB, b"tag": _TAG}
_TREE_MODE = 0o40000
_CHUNK = 64 * 1024


class Unknown(Exception):
    """The repository's state cannot be read with certainty."""


def open_inside(git_dir: str, relative: str, limit: int) -> int | None:
    """A descriptor of a regular file of the git directory of at most `limit` bytes (None when absent), never
    opened through a link out of it."""
    path = os.path.join(git_dir, relative)
    top = os.path.realpath(git_dir)
    if os.path.commonpath([os.path.realpath(path), top]) != top:
        raise Unknown(relative)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise Unknown(relative) from error
    found = os.fstat(fd)
    if not stat.S_ISREG(found.st_mode) or found.st_size > limit:
        os.close(fd)
        raise Unknown(relative)
    return fd


def read_inside(git_dir: str, relative: str, limit: int = MAX_FILE) -> bytes | None:
    """A regular file of the git directory, read whole (None when absent)."""
    fd = open_inside(git_dir, relative, limit)
    if fd is None:
        return None
    with os.fdopen(fd, "rb") as handle:
        return handle.read(limit + 1)


def head_tree(git_dir: str) -> bytes | None:
    """The tree HEAD's commit names, as its binary object name; None for a branch with no commit yet."""
    _own_objects(git_dir)
    commit = _resolve(git_dir, "HEAD", 0)
    if commit is None:
        return None
    kind, body = Store(git_dir).object(commit)
    if kind != _COMMIT or not body.startswith(b"tree ") or not _HEX.fullmatch(body[5:45]):
        raise Unknown("HEAD")
    return bytes.fromhex(body[5:45].decode())


def _own_objects(git_dir: str) -> None:
    """Refs and objects are this directory's, as written: not a common directory's (`commondir`), and no object
    stands for another (`refs/replace/`, git-replace(1); `info/grafts`)."""
    replaced = os.path.join(git_dir, "refs", "replace")
    if os.path.lexists(os.path.join(git_dir, "commondir")) or os.path.lexists(os.path.join(git_dir, "info/grafts")):
        raise Unknown(git_dir)
    if (os.path.isdir(replaced) and os.listdir(replaced)) or b"refs/replace/" in (
        read_inside(git_dir, "packed-refs", MAX_PACKED_REFS) or b""
    ):
        raise Unknown("refs/replace")


def _resolve(git_dir: str, name: str, depth: int) -> bytes | None:
    if depth > 5:
        raise Unknown(name)
    data = read_inside(git_dir, name, 4096)
    if data is None:
        return _packed_ref(git_dir, name)
    text = data.strip()
    if text.startswith(b"ref:"):
        target = text[4:].strip().decode("utf-8", "replace")
        if not _REF.fullmatch(target) or ".." in target:
            raise Unknown(target)
        return _resolve(git_dir, target, depth + 1)
    if not _HEX.fullmatch(text):
        raise Unknown(name)
    return bytes.fromhex(text.decode())


def _packed_ref(git_dir: str, name: str) -> bytes | None:
    """The ref's line in `packed-refs`; None (a branch yet to have a commit) when neither file holds it. Found by
    a search of the bytes (a million tags split into lines cost 0.3 s on the event loop)."""
    if name == "HEAD":
        raise Unknown(name)
    lines = b"\n" + (read_inside(git_dir, "packed-refs", MAX_PACKED_REFS) or b"") + b"\n"
    wanted = b" " + name.encode() + b"\n"
    at = lines.find(wanted)
    while at >= 0:
        if at >= 41 and lines[at - 41 : at - 40] == b"\n":  # `<40 hex> <ref>` is the whole line
            value = lines[at - 40 : at]
            if not _HEX.fullmatch(value):
                raise Unknown(name)
            return bytes.fromhex(value.decode())
        at = lines.find(wanted, at + 1)
    return None


def tree_files(store: Store, tree: bytes | None, limit: int = MAX_TREE_ENTRIES) -> dict[str, tuple[int, bytes]]:
    """Every file below a tree: path -> (mode, object name), in a bounded walk."""
    found: dict[str, tuple[int, bytes]] = {}
    pending = [("", tree)] if tree is not None else []
    seen = 0
    while pending:
        prefix, name = pending.pop()
        kind, body = store.object(name or b"")
        if kind != _TREE:
            raise Unknown("tree")
        for mode, path, child in _tree_entries(body):
            seen += 1
            if seen > min(limit, MAX_TREE_ENTRIES):
                raise Unknown("tree")
            if mode == _TREE_MODE:
                pending.append((f"{prefix}{path}/", child))
            else:
                found[prefix + path] = (mode, child)
    return found


def _tree_entries(body: bytes) -> list[tuple[int, str, bytes]]:
    entries, at = [], 0
    while at < len(body):
        space, end = body.find(b" ", at), body.find(b"\0", at)
        if space < 0 or end < space or end + 21 > len(body):
            raise Unknown("tree")
        name = body[space + 1 : end].decode("utf-8", "surrogateescape")
        if not name or "/" in name or name in (".", ".."):
            raise Unknown("tree")
        entries.append((int(body[at:space], 8), name, body[end + 1 : end + 21]))
        at = end + 21
    return entries


def inflate(data: bytes | memoryview, limit: int = MAX_OBJECT) -> bytes:
    """The zlib stream at the start of `data` inflated to at most `limit` bytes, fed in chunks (the input left
    over is never copied); more, or a broken or cut stream, is unknown."""
    inflater, out, at = zlib.decompressobj(), bytearray(), 0
    try:
        while not inflater.eof and at < len(data):
            out += inflater.decompress(data[at : at + _CHUNK], limit + 1 - len(out))
            if inflater.unconsumed_tail or len(out) > limit:
                raise Unknown("zlib")
            at += _CHUNK
    except zlib.error as error:
        raise Unknown("zlib") from error
    if not inflater.eof:
        raise Unknown("zlib")
    return bytes(out)


class Store:
    """The objects of one repository: loose files first, then each pack's index."""

    def __init__(self, git_dir: str) -> None:
        self.git_dir = git_dir
        self._packs: list[tuple[str, memoryview]] | None = None  # (pack path, its index mapped)
        self._data: dict[str, memoryview] = {}
        self._left = MAX_INFLATED
        if read_inside(git_dir, "objects/info/alternates") is not None:
            raise Unknown("alternates")  # objects kept in another repository

    def object(self, name: bytes, depth: int = 0) -> tuple[int, bytes]:
        """(type, body) of an object, its name checked against what was read."""
        if len(name) != 20 or depth > MAX_DEPTH:
            raise Unknown("object")
        hexname = name.hex()
        loose = read_inside(self.git_dir, f"objects/{hexname[:2]}/{hexname[2:]}")
        if loose is not None:
            raw = inflate(loose, MAX_OBJECT + 64)
            header, _, body = raw.partition(b"\0")
            kind, _, size = header.partition(b" ")
            if kind not in _TYPES or not size.isdigit() or int(size) != len(body):
                raise Unknown("object")
            found = (_TYPES[kind], body)
        else:
            found = self._packed(name, depth)
        self._spend(len(found[1]))
        if hashlib.sha1(_header(*found) + found[1]).digest() != name:  # (git's object name: sha-1)
            raise Unknown("object")
        return found

    def _packed(self, name: bytes, depth: int) -> tuple[int, bytes]:
        for pack, idx in self._indexes():
            offset = _idx_offset(idx, name)
            if offset is not None:
                return self._at(pack, offset, depth)
        raise Unknown("missing object")  # a shallow or partial clone, or a corrupt store

    def _indexes(self) -> list[tuple[str, memoryview]]:
        """Each pack's index, mapped (only the pages a lookup touches are read); more of them, or larger together,
        than MAX_IDX_FILES and MAX_IDX_TOTAL is unknown."""
        if self._packs is None:
            directory = os.path.join(self.git_dir, "objects", "pack")
            names = sorted(os.listdir(directory)) if os.path.isdir(directory) else []
            files = [n for n in names if n.endswith(".idx")]
            if len(files) > MAX_IDX_FILES:
                raise Unknown("packs")
            packs, left = [], MAX_IDX_TOTAL
            for file in files:
                idx = self._mapped(f"objects/pack/{file}", left)
                left -= len(idx)
                packs.append((f"objects/pack/{file[:-4]}.pack", idx))
            self._packs = packs
        return self._packs

    def _at(self, pack: str, offset: int, depth: int) -> tuple[int, bytes]:
        """The object at `offset` of a pack, its deltas applied (at most MAX_DEPTH of them)."""
        if depth > MAX_DEPTH:
            raise Unknown("delta depth")
        data = self._pack_data(pack)
        if offset < 12 or offset >= len(data):
            raise Unknown("pack")
        kind, size, at = _pack_header(data, offset)
        if kind == _OFS_DELTA:
            back, at = offset_varint(data, at)
            if back <= 0 or back > offset:
                raise Unknown("pack")
            base = self._at(pack, offset - back, depth + 1)
        elif kind == _REF_DELTA:
            base = self.object(bytes(data[at : at + 20]), depth + 1)
            at += 20
        elif kind in (_COMMIT, _TREE, _BLOB, _TAG):
            body = inflate(data[at:], size)
            if len(body) != size:
                raise Unknown("pack")
            return kind, body
        else:
            raise Unknown("pack")
        delta = inflate(data[at:], size)
        self._spend(len(delta))
        return base[0], apply_delta(base[1], delta)

    def _spend(self, size: int) -> None:
        """A chain of deltas read again for each object it builds: the bytes inflated in all are bounded."""
        self._left -= size
        if self._left < 0:
            raise Unknown("inflated too much")

    def _pack_data(self, pack: str) -> memoryview:
        """The pack, mapped (its pages read as they are used)."""
        if pack not in self._data:
            data = self._mapped(pack, MAX_PACK)
            if bytes(data[:4]) != b"PACK" or struct.unpack_from(">I", data, 4)[0] not in (2, 3):
                raise Unknown(pack)
            self._data[pack] = data
        return self._data[pack]

    def _mapped(self, relative: str, limit: int) -> memoryview:
        fd = open_inside(self.git_dir, relative, limit)
        if fd is None:
            raise Unknown(relative)
        try:
            return memoryview(mmap.mmap(fd, 0, access=mmap.ACCESS_READ))
        except (OSError, ValueError) as error:
            raise Unknown(relative) from error
        finally:
            os.close(fd)


def _header(kind: int, body: bytes) -> bytes:
    spelled = next(k for k, v in _TYPES.items() if v == kind)
    return spelled + b" " + str(len(body)).encode() + b"\0"


def _idx_offset(idx: memoryview, name: bytes) -> int | None:
    """Where a version 2 pack index puts an object in its pack (None: not in it), found without reading the
    index whole: the fanout table bounds the names starting with the object's first byte, a binary search over
    them finds it (gitformat-pack(5)). Names out of order at worst miss an object (unknown: missing); what is
    found is checked against its content (Store.object)."""
    if len(idx) < 8 + 1024 or bytes(idx[:8]) != b"\377tOc\0\0\0\2":
        raise Unknown("idx")
    count = struct.unpack_from(">I", idx, 8 + 255 * 4)[0]
    if 8 + 1024 + count * 28 > len(idx):
        raise Unknown("idx")
    first = name[0]
    low = struct.unpack_from(">I", idx, 8 + (first - 1) * 4)[0] if first else 0
    high = struct.unpack_from(">I", idx, 8 + first * 4)[0]
    if not low <= high <= count:
        raise Unknown("idx")
    while low < high:
        middle = (low + high) // 2
        found = bytes(idx[1032 + 20 * middle : 1052 + 20 * middle])
        if found == name:
            return _offset(idx, count, middle)
        low, high = (middle + 1, high) if found < name else (low, middle)
    return None


def _offset(idx: memoryview, count: int, k: int) -> int:
    small = 1032 + count * 24 + 4 * k  # after the names and their CRCs
    (value,) = struct.unpack_from(">I", idx, small)
    if not value & 0x80000000:
        return int(value)
    large = 1032 + count * 28 + 8 * (value & 0x7FFFFFFF)
    if large + 8 > len(idx):
        raise Unknown("idx")
    return int(struct.unpack_from(">Q", idx, large)[0])


def _pack_header(data: memoryview, at: int) -> tuple[int, int, int]:
    """An object's type and inflated size, and where its data starts."""
    byte = data[at]
    kind, size, shift = (byte >> 4) & 7, byte & 15, 4
    while byte & 0x80:
        at += 1
        if at >= len(data) or shift > 35:
            raise Unknown("pack")
        byte = data[at]
        size |= (byte & 0x7F) << shift
        shift += 7
    if size > MAX_OBJECT:
        raise Unknown("pack")
    return kind, size, at + 1


def offset_varint(data: memoryview | bytes, at: int, what: str = "pack") -> tuple[int, int]:
    """git's offset encoding (an OFS_DELTA's distance back to its base, the index v4 prefix length): each
    continuation byte adds one before shifting."""
    byte = data[at]
    value = byte & 0x7F
    for _ in range(8):
        if not byte & 0x80:
            return value, at + 1
        at += 1
        byte = data[at]
        value = ((value + 1) << 7) | (byte & 0x7F)
    raise Unknown(what)


def _size_varint(delta: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(delta) or shift > 35:
            raise Unknown("delta")
        byte = delta[at]
        value |= (byte & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if not byte & 0x80:
            return value, at


def apply_delta(base: bytes, delta: bytes) -> bytes:
    """git's delta: the base's size, the result's, then copies from the base and inserted bytes."""
    source, at = _size_varint(delta, 0)
    target, at = _size_varint(delta, at)
    if source != len(base) or target > MAX_OBJECT:
        raise Unknown("delta")
    out = bytearray()
    while at < len(delta):
        op = delta[at]
        at += 1
        if op & 0x80:
            offset = size = 0
            for bit in range(7):
                if op & (1 << bit):
                    if at >= len(delta):
                        raise Unknown("delta")
                    value = delta[at] << (8 * (bit if bit < 4 else bit - 4))
                    offset, size = (offset | value, size) if bit < 4 else (offset, size | value)
                    at += 1
            size = size or 0x10000
            if offset + size > len(base):
                raise Unknown("delta")
            out += base[offset : offset + size]
        elif op:
            out += delta[at : at + op]
            at += op
        else:
            raise Unknown("delta")
        if len(out) > target:
            raise Unknown("delta")
    if len(out) != target:
        raise Unknown("delta")
    return bytes(out)
