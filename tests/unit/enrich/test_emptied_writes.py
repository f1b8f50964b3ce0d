"""holes44: one file left with nothing of its own by a program that writes only what it reads (programs.json
`passes_input`) from inputs known empty, by an in-place edit whose code prints no line (`in_place_silent`), by a
size taken from a reference of none (`sized_by`), or by a copy, move or link of a file empty on disk
(enrich/effects/emptied.py, overwrites.py): the `emptied` delete destructive_shell's `home-file-lost` asks on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookd.enrich.shell.analysis import analyse_shell


def _emptied(command: str, tmp_path: Path) -> set[str]:
    home, proj = tmp_path / "home", tmp_path / "proj"
    proj.mkdir(exist_ok=True)
    home.mkdir(exist_ok=True)
    (home / "notes.txt").write_text("my notes\n")
    (home / "empty").write_text("")
    (home / "other").write_text("x\n")
    (proj / "template.txt").write_text("# Notes\n")
    shell, found = analyse_shell(command.replace("~", str(home)), home=str(home), base_dir=str(proj),
                                 project_dir=str(proj))  # fmt: skip
    assert shell["parse_error"] is False, shell["error"]
    deletes: list[dict[str, Any]] = [e for e in found if e["op"] == "delete" and e.get("emptied")]
    return {Path(e["path"]).name for e in deletes}


@pytest.mark.parametrize(
    "command",
    [
        "sort -o ~/notes.txt /dev/null",
        "tee ~/notes.txt </dev/null",
        "printf '' | tee ~/notes.txt",
        "tee ~/notes.txt < ~/empty",
        "cat ~/empty > ~/notes.txt",
        "uniq /dev/null ~/notes.txt",
        "cut -c1-3 /dev/null > ~/notes.txt",
        "sponge ~/notes.txt < /dev/null",
        "sed -i d ~/notes.txt",
        "sed -i '1,$d' ~/notes.txt",
        "sed -n -i 's/x/y/' ~/notes.txt",
        "sed -n -i 's/milk/eggs/' ~/notes.txt",  # the letters of a pattern are no commands
        "perl -ni -e 's/a/b/' ~/notes.txt",
        "perl -i -ne '' ~/notes.txt",
        "truncate -r /dev/null ~/notes.txt",
        "truncate --reference=~/empty ~/notes.txt",
        "cp -f ~/empty ~/notes.txt",
        "ln -f ~/empty ~/notes.txt",
        "ln -sf /dev/null ~/notes.txt",
    ],
)
def test_nothing_of_its_own_left(command: str, tmp_path: Path) -> None:
    assert "notes.txt" in _emptied(command, tmp_path)


@pytest.mark.parametrize(
    "command",
    [
        "tee -a ~/notes.txt < /dev/null",  # appends nothing
        "cat /dev/null >> ~/notes.txt",
        "sed -n -i '/milk/p' ~/notes.txt",  # prints the lines it keeps
        "sed -n -i 's/milk/eggs/p' ~/notes.txt",
        "sed -i '/^#/d' ~/notes.txt",  # deletes only some
        "perl -pi -e 's/a/b/' ~/notes.txt",
        "perl -ni -e 'print if /x/' ~/notes.txt",
        "truncate -r template.txt ~/notes.txt",
        "sort -o ~/notes.txt template.txt",
        "cp -f template.txt ~/notes.txt",  # a template with content: an edit
        "ln -f ~/other ~/notes.txt",
        "echo done | tee ~/notes.txt",
        "tee ~/notes.txt <<< 'new notes'",
        "echo x > ~/e && cp ~/e ~/notes.txt",  # the line wrote it: not empty
    ],
)
def test_content_kept_or_given(command: str, tmp_path: Path) -> None:
    assert "notes.txt" not in _emptied(command, tmp_path)
