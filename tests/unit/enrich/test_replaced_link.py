"""A link or a move onto a symbolic link replaces the link itself (enrich/effects/files._named): its
write is of the link's own path, where a program on the search path is judged, not of the file it points at."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.enrich.shell.analysis import analyse_shell


def _written(command: str, tmp_path: Path) -> set[str]:
    home, proj = tmp_path / "home", tmp_path / "proj"
    proj.mkdir()
    versions = home / ".local" / "share" / "tool" / "versions"
    versions.mkdir(parents=True)
    (versions / "2.0").write_text("#!/bin/sh\n")
    (home / ".local" / "bin").mkdir(parents=True)
    (home / ".local" / "bin" / "tool").symlink_to(versions / "2.0")
    (proj / "current").symlink_to(versions / "2.0")
    shell, found = analyse_shell(command.replace("~", str(home)), home=str(home), base_dir=str(proj),
                                 project_dir=str(proj))  # fmt: skip
    assert shell["parse_error"] is False, shell["error"]
    return {str(Path(e["path"]).relative_to(tmp_path)) for e in found if e["op"] == "write"}


@pytest.mark.parametrize(
    "command",
    ["ln -sfn ~/.local/share/tool/versions/1.0 ~/.local/bin/tool", "ln -sf ~/x ~/.local/bin/tool",
     "mv -f ~/x ~/.local/bin/tool"],
)  # fmt: skip
def test_a_link_or_move_onto_a_link_replaces_the_link(command: str, tmp_path: Path) -> None:
    assert _written(command, tmp_path) == {"home/.local/bin/tool"}


def test_a_relative_link_in_the_project_is_replaced_where_it_is(tmp_path: Path) -> None:
    assert _written("ln -sfn ../v3 current", tmp_path) == {"proj/current"}


def test_a_copy_onto_a_link_writes_the_file_it_points_at(tmp_path: Path) -> None:
    assert _written("cp ~/x ~/.local/bin/tool", tmp_path) == {"home/.local/share/tool/versions/2.0"}
