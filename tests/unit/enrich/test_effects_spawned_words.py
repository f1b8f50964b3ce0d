"""A command a spawner runs (`find -exec`, `docker run`) gets the words the line gave it, already expanded: a word
the line quoted is its text, not expanded a second time (`$$` is no process number there); a makefile the line
wrote and `make -f` runs is read as make reads it (`$$` in a recipe is the shell's `$`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, effects

from hookd.enrich.shell import parse_shell


def _argvs(line: str, tmp_path: Path) -> list[list[str]]:
    result = parse_shell(line, home=HOME, base_dir=str(tmp_path), project_dir=str(tmp_path))
    return [c["argv"] for c in result["commands"]]


@pytest.mark.parametrize(
    ("line", "inner"),
    [
        ("find . -maxdepth 0 -exec echo 'a $$HOME' \\;", ["echo", "a $$HOME"]),
        ("find . -maxdepth 0 -exec bash -c 'echo \"$$\"' \\;", ["bash", "-c", 'echo "$$"']),
        ("find . -maxdepth 0 -exec sh -c 'echo \"$1\"' _ {} \\;", ["echo", "."]),
    ],
)
def test_a_spawned_word_the_line_quoted_is_its_text(line: str, inner: list[str], tmp_path: Path) -> None:
    assert inner in _argvs(line, tmp_path)


@pytest.mark.parametrize(
    "line",
    [
        "printf 'all:\\n\\trm -f $$HOME/.config/app/state.db\\n' > /tmp/mk && make -s -f /tmp/mk",
        "find . -maxdepth 0 -exec bash -c "
        "'printf '\\''all:\\n\\trm -f $$HOME/.config/app/state.db\\n'\\'' > /tmp/mk && make -s -f /tmp/mk' \\;",
    ],
)
def test_a_makefile_the_line_wrote_is_read_as_make_reads_it(line: str, tmp_path: Path) -> None:
    deleted = [e["path"] for e in effects(line, tmp_path) if e["op"] == "delete"]
    assert deleted == [f"{HOME}/.config/app/state.db"]


@pytest.mark.parametrize(
    ("line", "written"),
    [
        ("gunzip ~/.bash_login", f"{HOME}/.bash_login"),  # gzip tries `~/.bash_login.gz` and writes the name given
        ("gunzip -Nf data.gz", ""),  # the name the archive stored: not known here
    ],
)
def test_what_a_decompressor_writes(line: str, written: str, tmp_path: Path) -> None:
    writes = [e["path"] for e in effects(line, tmp_path) if e["op"] == "write"]
    assert writes == [written]
