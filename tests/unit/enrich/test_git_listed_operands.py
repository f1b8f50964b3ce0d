"""A substitution of `git ls-files PATHSPEC` as a command's operands (`sed -i … $(git ls-files 'src/*.ts')`) stands
for the working tree's files its pathspec selects, as `$(find src -name '*.ts')` does (enrich/shell/searches.py,
`tracked`): blind-benign-16's mass rename over git's file list was asked as a write of unknown files. What the
stand-in cannot show stays unknown."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops

from hookd.enrich.shell.searches import tracked


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    for name in ("src/cart.ts", "src/ui/button.ts", "src/notes.md", ".git/hooks/pre-commit", ".env"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    return tmp_path


def test_the_files_git_lists_are_what_the_command_writes(proj: Path) -> None:
    writes = ops("sed -i 's/formatPrice/formatMoney/g' $(git ls-files 'src/*.ts')", proj, "write")
    assert all(e["known"] for e in writes)
    assert {str(proj / "src/cart.ts"), str(proj / "src/ui/button.ts")} <= {e["path"] for e in writes}
    assert str(proj / "src/notes.md") not in {e["path"] for e in writes}


def test_an_env_file_git_lists_is_read_as_one(proj: Path) -> None:
    reads = ops("cat $(git ls-files -o -i --exclude-standard '*.env')", proj, "read")
    assert str(proj / ".env") in {e["path"] for e in reads}


@pytest.mark.parametrize(
    ("argv", "stand_in"),
    [
        (["git", "ls-files", "src/*.ts"], "src/**/*.ts"),
        (["git", "ls-files", "-z", "--", "*.py"], "./**/*.py"),
        (["git", "ls-files", "./packages/*/src/*.tsx"], "packages/**/*.tsx"),
        (["git", "ls-files"], None),  # every file: `.git`'s too, as a glob
        (["git", "ls-files", "--format=%(path)", "*.ts"], None),
        (["git", "ls-files", "-s", "*.ts"], None),
        (["git", "ls-files", "*.ts", "*.tsx"], None),
        (["git", "ls-files", "x*.ts"], None),  # `*` takes in directories: `xdir/a.ts`
        (["git", "ls-files", "../*.ts"], None),
        (["git", "ls-files", ":(glob)**/*.ts"], None),
        (["git", "-C", "../x", "ls-files", "*.ts"], None),
        (["git", "log", "*.ts"], None),
    ],
)
def test_what_git_ls_files_prints(argv: list[str], stand_in: str | None) -> None:
    assert tracked(argv) == stand_in


def test_a_listing_the_stand_in_cannot_show_stays_unknown(proj: Path) -> None:
    writes = ops("sed -i 's/a/b/' $(git ls-files 'x*.ts')", proj, "write")
    assert writes and not all(e["known"] for e in writes)
