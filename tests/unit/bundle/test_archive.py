"""Reading bundle tarballs safely: every unsafe member and every broken archive is refused by name."""

from __future__ import annotations

import gzip
import io
import tarfile

import pytest

from hookd.bundle.archive import Limits, read_tarball, write_tarball
from hookd.errors import BundleError


def tarball(*members: tarfile.TarInfo, contents: dict[str, bytes] | None = None) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info in members:
            data = (contents or {}).get(info.name, b"")
            info.size = len(data) if info.isreg() else 0
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue()


def member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = link
    return info


def test_round_trip_is_reproducible_and_uses_opa_names() -> None:
    files = {"a/p.rego": b"package a\n", ".manifest": b"{}"}
    data = write_tarball(files)
    assert data == write_tarball(dict(reversed(files.items())))
    assert read_tarball(data) == files
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        assert tar.getnames() == ["/.manifest", "/a/p.rego"]


@pytest.mark.parametrize(
    ("info", "reason"),
    [
        (member("../evil.rego"), "not a safe relative path"),
        (member("a/../../evil.rego"), "not a safe relative path"),
        (member("//etc/passwd"), "not a safe relative path"),
        (member("a\\b.rego"), "not a safe relative path"),
        (member("link.rego", tarfile.SYMTYPE, "/etc/passwd"), "not a regular file"),
        (member("hard.rego", tarfile.LNKTYPE, "a.rego"), "not a regular file"),
        (member("dev", tarfile.CHRTYPE), "not a regular file"),
        (member("fifo", tarfile.FIFOTYPE), "not a regular file"),
    ],
)
def test_unsafe_members_are_refused(info: tarfile.TarInfo, reason: str) -> None:
    with pytest.raises(BundleError, match=reason):
        read_tarball(tarball(info))


def test_leading_slash_as_opa_writes_it_is_accepted() -> None:
    assert read_tarball(tarball(member("/x.rego"), contents={"/x.rego": b"package x"})) == {"x.rego": b"package x"}


def test_duplicates_are_refused() -> None:
    data = tarball(member("a.rego"), member("/a.rego"), contents={"a.rego": b"1", "/a.rego": b"2"})
    with pytest.raises(BundleError, match="twice"):
        read_tarball(data)


def test_size_limits_hold_per_file_and_in_total() -> None:
    data = write_tarball({"a.rego": b"x" * 100, "b.rego": b"y" * 100})
    with pytest.raises(BundleError, match="over the limit of 50"):
        read_tarball(data, Limits(file_bytes=50))
    with pytest.raises(BundleError, match="over the limit of 150 bytes"):
        read_tarball(data, Limits(total_bytes=150))


def test_a_gzip_bomb_stops_at_the_limit() -> None:
    bomb = gzip.compress(b"\0" * (8 << 20))
    with pytest.raises(BundleError, match="expands beyond"):
        read_tarball(bomb, Limits(total_bytes=1 << 20))


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"not gzip at all", "no gzip header"),
        (write_tarball({"a.rego": b"package a\n" * 1000})[:-40], "corrupt bundle archive"),
        (b"\x1f\x8b" + b"\xff" * 64, "corrupt bundle archive"),
        (gzip.compress(b"this is not a tar file" * 100), "corrupt bundle archive"),
        (tarball(), "holds no files"),
    ],
    ids=["not-gzip", "cut-short", "bad-deflate", "not-tar", "empty"],  # gzip's mtime is in the bytes: no byte ids
)
def test_broken_archives_are_refused(data: bytes, reason: str) -> None:
    with pytest.raises(BundleError, match=reason):
        read_tarball(data)
