"""fp48: `git config include.path F` set by the shell is judged as a file tool's write of the include is: by the keys
F holds now (gitconfig_text.plain_includes). An include of a file that sets no key git runs is a plain setting;
one that does, or that the line makes or changes, or that cannot be read as hookd's own file, still runs code."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects


def _executes(command: str, proj: Path) -> list[bool]:
    return [e["executes"] for e in effects(command, proj) if e["op"] == "write" and e.get("key")]


@pytest.mark.parametrize("in_repository", [True, False])
def test_an_include_of_plain_settings_is_plain(in_repository: bool, tmp_path: Path) -> None:
    if in_repository:
        (tmp_path / ".git").mkdir()
    (tmp_path / ".gitconfig.shared").write_text("[pull]\n\trebase = true\n[alias]\n\tlg = log --graph\n")
    assert _executes("git config --local include.path ../.gitconfig.shared", tmp_path) == [False]
    assert _executes("git config includeIf.onbranch:main.path ../.gitconfig.shared", tmp_path) == [False]


@pytest.mark.parametrize(
    ("held", "command"),
    [
        ("[core]\n\tfsmonitor = ./x.sh\n", "git config include.path ../.gitconfig.shared"),
        ("[alias]\n\tx = !sh evil.sh\n", "git config include.path ../.gitconfig.shared"),
        ("[include]\n\tpath = ../nested\n", "git config include.path ../.gitconfig.shared"),  # nested: unreadable
        (None, "git config include.path ../.gitconfig.shared"),  # absent
        ("[pull]\n\trebase = true\n", "git config include.path /dev/stdin"),  # git's stdin, not hookd's
        ("[pull]\n\trebase = true\n", "git config include.path /proc/self/fd/0"),
        (
            "[pull]\n\trebase = true\n",
            "printf '[core]\\n\\tpager = sh x\\n' > .gitconfig.shared; git config include.path ../.gitconfig.shared",
        ),
        ("[pull]\n\trebase = true\n", "git config include.path ../.gitconfig.shared && cp /tmp/e .gitconfig.shared"),
        ("[pull]\n\trebase = true\n", 'git config include.path ../.gitconfig.shared; cp /tmp/e "$D"'),
    ],
)
def test_an_include_that_may_run_code_still_executes(held: str | None, command: str, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    if held is not None:
        (tmp_path / ".gitconfig.shared").write_text(held)
    assert _executes(command, tmp_path)[-1:] == [True]


def test_an_include_is_read_where_git_reads_it(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("gitdir: /elsewhere/.git/worktrees/x\n")  # a linked work tree: not this one
    (tmp_path / ".gitconfig.shared").write_text("[pull]\n\trebase = true\n")
    assert _executes("git config --local include.path ../.gitconfig.shared", tmp_path) == [True]
