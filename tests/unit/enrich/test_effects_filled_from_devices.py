"""A file overwritten by a command that reads nothing but filler devices (enrich/effects/overwrites.py
`filled_from_devices`; review47): whatever program reads /dev/zero, /dev/urandom or /dev/null and writes what it
read over a file leaves nothing of the file's own, an emptying as `: > F` is (destructive_shell's
`home-file-lost`); an append, a program given other input, or one whose output came through a pipe is none."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.enrich.test_effects_home_file_lost import _emptied as _emptied_in


def _emptied(command: str, tmp_path: Path) -> set[str]:
    (tmp_path / "home" / "Documents").mkdir(parents=True, exist_ok=True)
    (tmp_path / "home" / "Documents" / "thesis.md").write_text("# Chapter one\n")
    return _emptied_in(command, tmp_path)


@pytest.mark.parametrize(
    "command",
    [
        "head -c 1M /dev/zero > ~/Documents/thesis.md",
        "cat /dev/urandom > ~/Documents/thesis.md",
        "tail -c 4096 /dev/urandom >| ~/Documents/thesis.md",
        "head -c 64 < /dev/zero > ~/Documents/thesis.md",
        "od -An /dev/null > ~/Documents/thesis.md",
        "tee ~/Documents/thesis.md < /dev/null",
        "sponge ~/Documents/thesis.md < /dev/zero",
        "cat /dev/zero 2> /dev/null > ~/Documents/thesis.md",
    ],
)
def test_a_command_reading_only_filler_devices_empties_what_it_overwrites(command: str, tmp_path: Path) -> None:
    assert _emptied(command, tmp_path) == {"thesis.md"}


@pytest.mark.parametrize(
    "command",
    [
        "cat /dev/zero >> ~/Documents/thesis.md",
        "tee -a ~/Documents/thesis.md < /dev/null",
        "cat notes.md > ~/Documents/thesis.md",
        "cat notes.md /dev/null > ~/Documents/thesis.md",
        "echo draft | cat /dev/null - > ~/Documents/thesis.md",
        "head -c 64 /dev/urandom | base64 > ~/Documents/key.txt",
        "wc -c /dev/null",
        "head -c 32 /dev/urandom > ~/Documents/new.key",
    ],
)
def test_an_append_or_other_input_empties_nothing(command: str, tmp_path: Path) -> None:
    assert _emptied(command, tmp_path) == set()
