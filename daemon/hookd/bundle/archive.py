"""Bundle tarballs: read one into memory with strict safety, write one reproducibly.

Reading refuses what could escape or exhaust the extraction: absolute paths, `..`, links, devices and
other non-regular members, duplicate names, a file over the per-file limit and an archive over the
total limit (both counted on the decompressed bytes, so a gzip bomb stops at the limit).
"""

from __future__ import annotations

import gzip
import io
import tarfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

from hookd.errors import BundleError

MAX_FILE_BYTES = 32 * 1024 * 1024
MAX_TOTAL_BYTES = 128 * 1024 * 1024
MAX_FILES = 10_000


@dataclass(frozen=True, slots=True)
class Limits:
    file_bytes: int = MAX_FILE_BYTES
    total_bytes: int = MAX_TOTAL_BYTES
    files: int = MAX_FILES


def read_tarball(data: bytes, limits: Limits = Limits()) -> dict[str, bytes]:
    """The regular files of a gzipped tarball, by normalised relative path ("a/b.rego")."""
    if data[:2] != b"\x1f\x8b":
        raise BundleError("not a gzipped tarball (no gzip header)")
    try:
        raw = _gunzip(data, limits.total_bytes + 1024 * 1024)
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
            return _members(tar, limits)
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        raise BundleError(f"corrupt bundle archive: {' '.join(str(exc).split()) or type(exc).__name__}") from None


def _gunzip(data: bytes, limit: int) -> bytes:
    out = bytearray()
    with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
        while chunk := stream.read(1 << 20):
            out += chunk
            if len(out) > limit:
                raise BundleError(f"bundle archive expands beyond {limit} bytes")
    return bytes(out)


def _members(tar: tarfile.TarFile, limits: Limits) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    total = 0
    for member in tar:
        name = safe_name(member.name)
        if member.isdir():
            continue
        if not member.isreg():
            raise BundleError(f"bundle member {member.name!r} is not a regular file (links and devices are refused)")
        if name in files:
            raise BundleError(f"bundle holds {name!r} twice")
        if member.size > limits.file_bytes:
            raise BundleError(f"bundle file {name!r} is {member.size} bytes, over the limit of {limits.file_bytes}")
        total += member.size
        if total > limits.total_bytes or len(files) >= limits.files:
            raise BundleError(f"bundle is over the limit of {limits.total_bytes} bytes or {limits.files} files")
        handle = tar.extractfile(member)
        if handle is None:
            raise BundleError(f"bundle member {name!r} cannot be read")
        content = handle.read()
        if len(content) != member.size:
            raise BundleError(f"bundle file {name!r} is truncated")
        files[name] = content
    if not files:
        raise BundleError("bundle archive holds no files")
    return files


def safe_name(name: str) -> str:
    """A member name as a relative path; absolute-looking names are only accepted as OPA writes them
    ("/data.json"), and `..`, empty segments beyond that and backslashes are refused."""
    stripped = name.removeprefix("/").removeprefix("./")
    parts = stripped.split("/")
    if stripped.endswith("/"):
        parts = parts[:-1]
    if (
        not stripped
        or "\\" in name
        or "\0" in name
        or name.startswith("//")
        or any(part in ("", ".", "..") for part in parts)
    ):
        raise BundleError(f"bundle member name {name!r} is not a safe relative path")
    return "/".join(parts)


def write_tarball(files: Mapping[str, bytes]) -> bytes:
    """A reproducible gzipped tarball: sorted names with OPA's leading slash, zero times, root owner."""
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w:", format=tarfile.PAX_FORMAT) as tar,
    ):
        for name in sorted(files):
            info = tarfile.TarInfo("/" + safe_name(name))
            info.size = len(files[name])
            info.mode = 0o644
            info.mtime = 0
            tar.addfile(info, io.BytesIO(files[name]))
    return buffer.getvalue()
