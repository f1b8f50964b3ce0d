"""A project file the line sources is read and walked as the line's own text (hookd.enrich.sourced): what it
sets, the later commands see; what it runs or defines is judged where it is sourced."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops

from hookd.enrich.sourced import MAX_SOURCED, sourced_text


def _project(tmp_path: Path, name: str, text: str) -> Path:
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(text)
    return tmp_path


def _deleted(command: str, proj: Path) -> list[tuple[str, bool]]:
    return [(e["path"], e["known"]) for e in ops(command, proj, "delete")]


@pytest.mark.parametrize("spelling", [". ./env.sh", "source env.sh", "builtin source ./env.sh"])
def test_a_variable_a_sourced_project_file_sets_is_known_after_it(spelling: str, tmp_path: Path) -> None:
    proj = _project(tmp_path, "env.sh", 'OUT_DIR="$HOME/Documents"\n')
    assert _deleted(f'{spelling} && rm -rf "$OUT_DIR"', proj) == [("/home/u/Documents", True)]
    proj = _project(tmp_path, "env.sh", "OUT_DIR=./build\n")
    assert _deleted(f'{spelling} && rm -rf "$OUT_DIR"', proj) == [(f"{tmp_path}/build", True)]


def test_what_a_sourced_library_defines_is_judged(tmp_path: Path) -> None:
    proj = _project(tmp_path, "lib/common.sh", 'cleanup() {\n  rm -rf "$HOME/.ssh"\n}\n')
    assert ("/home/u/.ssh", True) in _deleted("source ./lib/common.sh; cleanup", proj)


def test_the_file_bash_env_names_is_sourced_first(tmp_path: Path) -> None:
    proj = _project(tmp_path, "ci/setup.sh", 'rm -rf "$HOME/Documents"\n')
    assert ("/home/u/Documents", True) in _deleted('BASH_ENV=./ci/setup.sh bash -c "make test"', proj)


def test_a_file_outside_the_project_or_too_long_is_not_read(tmp_path: Path) -> None:
    proj = _project(tmp_path, "big.sh", "x=1\n" * (MAX_SOURCED // 4 + 1))
    assert sourced_text(str(proj / "big.sh"), str(proj)) is None
    outside = tmp_path.parent / "outside.sh"
    outside.write_text("x=1\n")
    assert sourced_text(str(outside), str(proj)) is None
    (proj / "link.sh").symlink_to(outside)
    assert sourced_text(str(proj / "link.sh"), str(proj)) is None
    assert _deleted('. ./big.sh && rm -rf "$x"', proj) == [("", False)]
