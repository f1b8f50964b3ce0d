"""False positives blind-benign-9's first run found, and what their mechanisms share (policies/README.md, "A ninth
blind batch, benign only")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookd.enrich.shell.analysis import analyse_shell

HOME = "/home/u"


def _deletes(command: str, proj: Path) -> list[dict[str, Any]]:
    shell, found = analyse_shell(command, home=HOME, base_dir=str(proj), project_dir=str(proj))
    assert shell["parse_error"] is False, shell["error"]
    return [{k: e[k] for k in ("path", "recursive", "what") if k in e} for e in found if e["op"] == "delete"]


@pytest.fixture
def tests_dir(proj: Path) -> Path:
    (proj / "tests" / "regression").mkdir(parents=True)
    (proj / "tests" / "regression" / "test_issue_812.py").write_text("def test_812():\n    assert False\n")
    return proj / "tests"


@pytest.mark.parametrize(
    "command",
    [
        "git clean -fd -- tests/regression/test_issue_812.py",
        "git clean -f tests/regression/test_issue_812.py",
        "git clean -fdx -- ./tests/regression/test_issue_812.py",
        "cd tests && git clean -fd regression/test_issue_812.py",
    ],
)
def test_a_clean_of_one_named_file_deletes_that_file_as_rm_would(command: str, proj: Path, tests_dir: Path) -> None:
    """git-clean(1): with a pathspec, `-d` is irrelevant; a pathspec naming a regular file removes that file or
    nothing, which is what `rm FILE` takes (a plain delete, no work lost beyond it)."""
    target = str(tests_dir / "regression" / "test_issue_812.py")
    assert _deletes(command, proj) == [{"path": target, "recursive": False}]


@pytest.mark.parametrize(
    ("command", "what"),
    [
        ("git clean -fd -- tests/", "untracked-trees"),  # a directory: every untracked file below it
        ("git clean -fd -- tests/regression", "untracked-trees"),
        ("git clean -f -- 'tests/regression/*.py'", "untracked"),  # a pattern matches files not named
        ("git clean -f -- tests/regression/test_issue_9??.py", "untracked"),
        ("git clean -f -- ':!tests/regression/test_issue_812.py'", "untracked"),  # magic: all but this file
        ("git clean -fx -- tests/regression/missing.py", "ignored"),  # not there: not known to be one file
        ('git clean -fd -- "$T"', "untracked-trees"),  # built at run time
    ],
)
def test_a_clean_of_a_directory_pattern_or_unknown_name_still_loses_work(
    command: str, what: str, proj: Path, tests_dir: Path
) -> None:
    lost = [e for e in _deletes(command, proj) if "what" in e]
    assert [e["what"] for e in lost] == [what]


def test_a_clean_through_a_link_to_a_directory_is_a_tree(proj: Path, tests_dir: Path) -> None:
    (proj / "fixtures").symlink_to(tests_dir)
    assert [e["what"] for e in _deletes("git clean -fd -- fixtures", proj) if "what" in e] == ["untracked-trees"]
