"""The member names of an archive that is on disk when the call is judged (`tar -xf dots.tar -C ~`, `unzip dots.zip
-d ~` with no member named): where each lands below the extraction directory is then known, where the directory
written whole is left to what lands there (a home, a project root: policies/self_protection). Only names are read,
under a budget of members and of decompressed bytes; past it, or for a format not read here, None."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import tarfile
import zipfile

MAX_MEMBERS = 512
MAX_BYTES = 16 << 20  # of the archive as stored, and of a tar stream once decompressed


class _OverBudget(Exception):
    pass


class _Budget(io.RawIOBase):
    """A stream that refuses to give more than `left` bytes (a compressed tar can expand without bound)."""

    def __init__(self, stream: io.BufferedIOBase, left: int) -> None:
        self._stream, self._left = stream, left

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        data = self._stream.read(min(len(buffer), self._left + 1))
        self._left -= len(data)
        if self._left < 0:
            raise _OverBudget
        buffer[: len(data)] = data
        return len(data)


def archive_members(path: str) -> list[str] | None:
    """The members' names of the tar (plain or gzip, bzip2, xz) or zip archive at `path`; None when it is not
    there, not one of them, or over the budget."""
    try:
        if not path or not os.path.isfile(path) or os.path.getsize(path) > MAX_BYTES:
            return None
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                names = archive.namelist()
            return names if len(names) <= MAX_MEMBERS else None
        return _tar_members(path)
    except (OSError, EOFError, _OverBudget, tarfile.TarError, zipfile.BadZipFile, lzma.LZMAError, ValueError):
        return None


def _tar_members(path: str) -> list[str] | None:
    with _decompressed(path) as stream, tarfile.open(fileobj=_Budget(stream, MAX_BYTES), mode="r|") as archive:
        names: list[str] = []
        for member in archive:
            if len(names) == MAX_MEMBERS:
                return None
            names.append(member.name)
    return names


def _decompressed(path: str) -> io.BufferedIOBase:
    with open(path, "rb") as file:
        magic = file.read(6)
    if magic.startswith(b"\x1f\x8b"):
        return gzip.open(path, "rb")
    if magic.startswith(b"BZh"):
        return bz2.open(path, "rb")
    if magic.startswith(b"\xfd7zXZ\x00"):
        return lzma.open(path, "rb")
    return open(path, "rb")  # closed by the caller's `with`
