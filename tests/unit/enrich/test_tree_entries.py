"""fp48: a tree below the home read or copied whole carries the names at its top now (`entries`), so the rules
count a credential store below it only when the name it lies under is there (enrich/tree_entries.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookd.enrich.shell.analysis import analyse_shell


def _trees(command: str, home: Path, proj: Path) -> list[dict[str, Any]]:
    _, found = analyse_shell(command, home=str(home), base_dir=str(proj), project_dir=str(proj))
    return [e for e in found if e["op"] in ("read", "copy") and e.get("recursive")]


def test_a_copy_of_a_home_tree_carries_its_top_names(world: tuple[Path, Path]) -> None:
    home, proj = world
    (home / ".claude" / "projects").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text("{}")
    for command in ("rsync -a ~/.claude/ backup/", "cp -r ~/.claude ~/claude-backup", "grep -r model ~/.claude"):
        assert [e.get("entries") for e in _trees(command, home, proj)] == [["projects", "settings.json"]]


def test_no_names_where_they_are_not_known_now(world: tuple[Path, Path]) -> None:
    home, proj = world
    (home / ".claude").mkdir()
    for k in range(600):  # past MAX_ENTRIES
        (home / ".claude" / f"f{k}").write_text("")
    assert [e.get("entries") for e in _trees("rsync -a ~/.claude/ backup/", home, proj)] == [None]
    (home / ".config").mkdir()
    for command in (
        "echo x > ~/.config/gh/hosts.yml; grep -r token ~/.config",  # the line writes below it first
        'cp x "$D"; grep -r token ~/.config',  # a write whose place is not known
        "grep -r token ~/.missing",  # nothing to read
    ):
        assert all("entries" not in e for e in _trees(command, home, proj)), command


def test_trees_outside_the_home_carry_none(world: tuple[Path, Path]) -> None:
    home, proj = world
    (proj / "src").mkdir()
    assert all("entries" not in e for e in _trees("grep -r x src", home, proj))
