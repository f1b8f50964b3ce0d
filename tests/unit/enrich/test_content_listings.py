"""benign45 (blind-benign-19): a content search that prints only the names of the files it searches (`grep -rl`,
`rg -l`, `rg --files`) hands xargs names of files below its root, as `find ROOT -type f` does: the reader is judged on
every file below the root where the reader runs (`.env` files too) and on the listed root (hookd.enrich.effects.
listings, hookd.enrich.shell.searches). Review46 took the listing back because it was read as the searched directory
only; a loop's variable still gets no listing (unknown), nor a search that follows links or has more roots."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, effects


@pytest.fixture
def tree(proj: Path) -> Path:
    (proj / "src" / "utils").mkdir(parents=True)
    (proj / "src" / "utils" / "money.ts").write_text("export const m = 1;\n")
    (proj / "src" / "a.ts").write_text("import './utils/money';\n")
    (proj / ".env").write_text("API_KEY=live\n")
    return proj


def _unknown(command: str, proj: Path, op: str) -> bool:
    return any(e["op"] == op and not e["known"] for e in effects(command, proj))


def _paths(command: str, proj: Path, op: str) -> set[str]:
    return {str(e["path"]) for e in effects(command, proj) if e["op"] == op and e["known"]}


@pytest.mark.parametrize(
    "command",
    [
        "grep -rl 'utils/money' src | xargs sed -i 's#utils/money#lib/money#g'",
        "grep --recursive --files-with-matches money src | xargs sed -i s/a/b/",
        "egrep -rlZ 'm(oney)?' src | xargs -0 sed -i s/a/b/",
        "rg -l money src | xargs sed -i s/a/b/",
        "rg --files src | xargs sed -i s/a/b/",
        "sed -i s/a/b/ $(grep -rl money src)",
    ],
)
def test_the_names_are_files_below_the_root(command: str, tree: Path) -> None:
    assert not _unknown(command, tree, "write")  # was a write of ${xargs_input}: asked
    assert {str(tree / "src/a.ts"), str(tree / "src/utils/money.ts")} <= _paths(command, tree, "write")


@pytest.mark.parametrize(
    ("command", "secret"),
    [
        ("grep -rl API_KEY . | xargs cat", ".env"),
        ("grep -rl API_KEY | xargs cat", ".env"),  # (no root: the working directory)
        ("rg -l KEY | xargs cat", ".env"),
        ("cat $(rg -l KEY)", ".env"),
    ],
)
def test_every_file_below_the_root_is_read(command: str, secret: str, tree: Path) -> None:
    assert str(tree / secret) in _paths(command, tree, "read")


def test_a_reader_elsewhere_reads_its_own_directory(tree: Path) -> None:
    assert f"{HOME}/**/*" in _paths("rg --files | (cd ~ && xargs cat)", tree, "read")


@pytest.mark.parametrize(
    "command",
    [
        'for f in $(grep -rl KEY .); do cat "$f"; done',  # a loop's variable: no listing
        'grep -rl KEY . | while read -r f; do cat "$f"; done',
        "grep -Rl KEY . | xargs cat",  # links followed
        "grep --dereference-recursive -l KEY . | xargs cat",
        "grep -rl --derefer KEY . | xargs cat",  # may abbreviate --dereference-recursive
        "rg -L -l KEY . | xargs cat",
        "rg -l KEY src tests | xargs cat",  # two roots
        'grep -rl KEY "$D" | xargs cat',  # a root built at run time
        "grep -l KEY src/a.ts | xargs cat",  # not recursive
        "grep -rn KEY . | xargs cat",  # lines, not names
    ],
)
def test_other_searches_stay_unknown(command: str, tree: Path) -> None:
    assert _unknown(command, tree, "read")
