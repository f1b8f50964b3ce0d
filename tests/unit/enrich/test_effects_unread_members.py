"""An archive extracted whose members hookd cannot read (effects/tar.py `unread_members`): the directory's write is a
write of unknown names below it, asked outside the project and scratch space; one whose members are read, or one
extracted into the project or /tmp, keeps a known write."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest
from effect_support import HOME, ops


def _unread(command: str, proj: Path) -> list[tuple[str, str]]:
    return [(e["path"], e.get("fixed", "")) for e in ops(command, proj, "write") if e.get("members") == "unread"]


@pytest.mark.parametrize(
    "command",
    ["tar --zstd -xf x.tar.zst -C ~", "tar -xf /tmp/x.tar.zst -C ~", "tar -I lz4 -xf x.tar.lz4 -C ~",
     "zstd -dc x.zst | tar -x -C ~", "tar -xf dots.tar -C ~ --wildcards '*rc'", "python3 -m tarfile -e dots.tar ~",
     "python3 -m zipfile -e dots.zip ~", "cd ~ && cpio -idmu < /tmp/d.cpio", "unzip /tmp/absent.zip -d ~"],
)  # fmt: skip
def test_members_not_read_are_unknown_names_below_the_directory(command: str, tmp_path: Path) -> None:
    assert _unread(command, tmp_path) == [(HOME, "elsewhere")]
    assert all(e["known"] is False for e in ops(command, tmp_path, "write") if e["path"] == HOME)


def test_an_archive_over_the_member_budget_is_not_read(tmp_path: Path) -> None:
    from hookd.enrich.effects.archive_members import MAX_MEMBERS

    with tarfile.open(tmp_path / "big.tar", "w") as archive:
        for k in range(MAX_MEMBERS + 1):
            archive.addfile(tarfile.TarInfo(f"f{k}"))
    assert _unread("tar -xf big.tar -C /opt/x", tmp_path) == [("/opt/x", "elsewhere")]


def test_an_archive_read_keeps_its_known_writes(tmp_path: Path) -> None:
    with tarfile.open(tmp_path / "small.tar", "w") as archive:
        archive.addfile(tarfile.TarInfo("docs/a.txt"))
    assert not _unread("tar -xf small.tar -C /opt/x", tmp_path)
    assert "/opt/x/docs/a.txt" in [e["path"] for e in ops("tar -xf small.tar -C /opt/x", tmp_path, "write")]


@pytest.mark.parametrize(
    ("command", "where"),
    [("tar --zstd -xf x.tar.zst -C build", "project"), ("curl -sL https://x.example/a.tgz | tar -xz -C /tmp/a",
      "scratch"), ("python3 -m tarfile -e x.tar vendor", "project"), ("tar -xf x.tar.zst", "project")],
)  # fmt: skip
def test_unread_members_in_the_project_or_scratch_are_placed_there(command: str, where: str, tmp_path: Path) -> None:
    assert [w for _, w in _unread(command, tmp_path)] == [where]


def test_listing_an_archive_writes_nothing(tmp_path: Path) -> None:
    assert not ops("python3 -m tarfile -l dots.tar", tmp_path, "write")
    assert not ops("tar -tf x.tar.zst", tmp_path, "write")
