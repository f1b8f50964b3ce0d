"""`chmod` modes that make a file private (`tightens`: the owner keeps read, no one else gets anything, no set-id
bit; execute only on a directory): `chmod 600 ~/.ssh/id_ed25519`, `chmod 700 ~/.ssh` (what OpenSSH requires) are
no change protected_paths stops; `chmod 644` of a key, `-R`, or `--reference=FILE` (no mode word) still are."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.enrich.effects.files import tightens
from hookd.enrich.shell.analysis import analyse_shell


@pytest.mark.parametrize(
    ("mode", "private"),
    [("600", True), ("400", True), ("0600", True), ("700", True), ("go-rwx", True), ("u=rw,go=", True),
     ("o-r", True), ("u+rw", True), ("644", False), ("000", False), ("200", False), ("4600", False), ("+x", False),
     ("u+x", False), ("a-r", False), ("go=r", False), ("u-r", False), ("755", False), ("g+w", False)],
)  # fmt: skip
def test_which_modes_make_a_file_private(mode: str, private: bool) -> None:
    assert tightens(mode) is private


def test_execute_counts_as_private_on_a_directory_only(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_text("")
    _, found = analyse_shell("chmod 700 d f", home="/home/u", base_dir=str(tmp_path), project_dir=str(tmp_path))
    assert [(e["path"].rsplit("/", 1)[-1], e.get("tightens", False)) for e in found] == [("d", True), ("f", False)]


@pytest.mark.parametrize(
    "command", ["chmod -R 600 ~/.ssh", "chmod 644 ~/.ssh/id_rsa", "chmod --reference=/tmp/x ~/.ssh/k"]
)
def test_a_mode_that_is_not_made_private_is_a_change(command: str, tmp_path: Path) -> None:
    _, found = analyse_shell(command, home="/home/u", base_dir=str(tmp_path), project_dir=str(tmp_path))
    changes = [e for e in found if e["op"] == "chmod"]
    assert changes and not any(e.get("tightens") for e in changes)
