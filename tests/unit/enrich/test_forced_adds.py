"""`git add -f` of a whole tree stages the ignored files below it (enrich/effects/forced_adds.py): each is read as
staged, so that a secret among them is judged as a named one is."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops


def _staged(command: str, proj: Path) -> set[str]:
    return {str(e["path"]) for e in ops(command, proj, "read") if e.get("staged")}


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("print(1)\n")
    (tmp_path / ".env").write_text("STRIPE_SECRET_KEY=sk_live_x\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    return tmp_path


@pytest.mark.parametrize("command", ["git add -A -f", "git add -Af", "git add --force .", "git add -f :/"])
def test_a_forced_add_of_the_tree_stages_every_file_below_it(command: str, proj: Path) -> None:
    assert _staged(command, proj) >= {str(proj / ".env"), str(proj / "src" / "app.py")}
    assert str(proj / ".git" / "config") not in _staged(command, proj)


def test_a_forced_add_of_a_directory_stages_the_files_below_it(proj: Path) -> None:
    assert _staged("git add -f src", proj) >= {str(proj / "src" / "app.py")}
    assert str(proj / ".env") not in _staged("git add -f src", proj)


@pytest.mark.parametrize(
    "command", ["git add -A", "git add .", "git add -u", "git add -f src/app.py", "git add -n -f ."]
)
def test_without_force_or_a_tree_the_ignored_files_stay_out(command: str, proj: Path) -> None:
    assert str(proj / ".env") not in _staged(command, proj)


def test_past_the_walks_bound_one_unknown_file_stands_for_the_rest(proj: Path) -> None:
    many = proj / "node_modules"
    many.mkdir()
    for k in range(600):
        (many / f"m{k}.js").write_text("")
    assert [e["path"] for e in ops("git add -A -f", proj, "read") if e.get("staged")] == [""]
