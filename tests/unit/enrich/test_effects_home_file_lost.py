"""A file's content lost without `rm` (enrich/effects/overwrites.py, fallocate's catalogue entry) and the `holds`
a delete carries (ledger.holds_nothing): what destructive_shell's `home-file-lost` asks on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookd.enrich.shell.analysis import analyse_shell


def _deletes(command: str, tmp_path: Path) -> list[dict[str, Any]]:
    home, proj = tmp_path / "home", tmp_path / "proj"
    proj.mkdir(exist_ok=True)
    (home / "Documents").mkdir(parents=True, exist_ok=True)
    shell, found = analyse_shell(command.replace("~", str(home)), home=str(home), base_dir=str(proj),
                                 project_dir=str(proj))  # fmt: skip
    assert shell["parse_error"] is False, shell["error"]
    return [e for e in found if e["op"] == "delete"]


def _emptied(command: str, tmp_path: Path) -> set[str]:
    return {Path(e["path"]).name for e in _deletes(command, tmp_path) if e.get("emptied")}


@pytest.mark.parametrize(
    "command",
    [
        "dd if=/dev/zero of=~/Documents/thesis.md bs=1k count=4 conv=notrunc",
        "dd if=/dev/urandom of=~/Documents/thesis.md bs=1M count=1",
        "cp /dev/zero ~/Documents/thesis.md",
        "touch blank && mv -f blank ~/Documents/thesis.md",
        "touch blank; cp blank ~/Documents/thesis.md",
        "fallocate --punch-hole --offset 0 --length 1G ~/Documents/thesis.md",
        "fallocate -p -o 0 -l 4096 ~/Documents/thesis.md",
        "fallocate --zero -o 0 -l 4096 ~/Documents/thesis.md",
        "fallocate -c -o 0 -l 4096 ~/Documents/thesis.md",
    ],
)
def test_an_overwrite_with_nothing_of_its_own_empties_the_file(command: str, tmp_path: Path) -> None:
    assert _emptied(command, tmp_path) == {"thesis.md"}


@pytest.mark.parametrize(
    "command",
    [
        "dd if=disk.img of=~/Documents/thesis.md",
        "cp README.md ~/Documents/thesis.md",
        "fallocate -l 1G ~/Documents/thesis.md",
        "fallocate --dig-holes ~/Documents/thesis.md",
        "touch ~/Documents/thesis.md",
    ],
)
def test_an_overwrite_with_content_or_an_allocation_empties_nothing(command: str, tmp_path: Path) -> None:
    assert _emptied(command, tmp_path) == set()


def test_a_touched_file_that_holds_text_already_is_not_empty(tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "draft.md").write_text("chapter one\n")
    assert _emptied("touch draft.md && mv -f draft.md ~/Documents/thesis.md", tmp_path) == set()


def _holds(command: str, tmp_path: Path) -> list[bool]:
    return [e.get("holds", True) for e in _deletes(command, tmp_path) if not e.get("recursive")]


def test_a_delete_holds_what_a_file_with_bytes_or_an_unseen_one_has(tmp_path: Path) -> None:
    (tmp_path / "home" / "Documents").mkdir(parents=True)
    (tmp_path / "home" / "Documents" / "thesis.md").write_text("chapter one\n")
    assert _holds("rm ~/Documents/thesis.md", tmp_path) == [True]
    assert _holds(": > ~/Documents/thesis.md", tmp_path) == [True]
    assert _holds("rm -f ~/Documents/never-seen.md", tmp_path) == [True]


def test_a_delete_of_a_link_an_empty_file_or_what_the_line_made_holds_nothing(tmp_path: Path) -> None:
    docs = tmp_path / "home" / "Documents"
    docs.mkdir(parents=True)
    (docs / "thesis.md").write_text("chapter one\n")
    (docs / "link.md").symlink_to(docs / "thesis.md")
    (docs / "empty.lock").write_text("")
    assert _holds("rm ~/Documents/link.md", tmp_path) == [False]
    assert _holds("rm -f ~/Documents/empty.lock", tmp_path) == [False]
    assert _holds("echo draft > ~/Documents/new.md && rm ~/Documents/new.md", tmp_path) == [False]


def test_an_empty_file_filled_by_a_copy_is_not_empty_when_moved(tmp_path: Path) -> None:
    assert _emptied("touch a.md && cp README.md a.md && mv -f a.md ~/Documents/thesis.md", tmp_path) == set()
    assert _emptied("cp /dev/null a.md && mv -f a.md ~/Documents/thesis.md", tmp_path) == {"a.md", "thesis.md"}
