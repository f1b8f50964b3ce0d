"""hookd.enrich.gitconfig_text: the executing keys a file tool writes into a git configuration file."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.enrich.gitconfig_text import executing_keys, is_git_config
from tests.unit.enrich.test_tool_effects import HOME, enriched


@pytest.mark.parametrize(
    ("path", "config"),
    [
        ("/home/a/.gitconfig", True),
        ("/home/a/.config/git/config", True),
        ("/etc/gitconfig", True),
        ("/p/.git/config", True),
        ("/p/.git/worktrees/w/config.worktree", True),
        ("/p/.git/modules/sub/config", True),
        ("/p/config", False),
        ("/p/docs/gitconfig.md", False),
        ("/p/.gitmodules", False),
    ],
)
def test_which_files_git_reads_as_configuration(path: str, config: bool) -> None:
    assert is_git_config(path) is config


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("[core]\n\tfsmonitor = sh -c id\n", [("core.fsmonitor", "sh -c id")]),
        ('[filter "x"]\n\tsmudge = ./x.sh\n', [("filter.x.smudge", "./x.sh")]),
        ("[alias]\n\tst = !sh -c id\n\tco = checkout\n", [("alias.st", "!sh -c id")]),
        ("[alias]\n\tx = -c core.pager=id log\n", [("alias.x", "-c core.pager=id log")]),
        ("[core]\n\tpager = delta\n\teditor = vim\n[credential]\n\thelper = store\n", []),
        ("\tsshCommand = ssh -o ProxyCommand=id\n", [("sshcommand", "ssh -o ProxyCommand=id")]),  # no header
        ("[user]\n\tname = A\n[core] hooksPath = /tmp/h\n", [("core.hookspath", "/tmp/h")]),
        ("+[core]\n+\tpager = sh -c id\n", [("core.pager", "sh -c id")]),  # a patch's added lines
    ],
)
def test_the_keys_whose_value_git_runs(text: str, keys: list[tuple[str, str]]) -> None:
    assert executing_keys(text) == keys


def test_a_tool_writing_an_executing_key_into_the_global_git_config(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    write = {"file_path": f"{HOME}/.gitconfig", "content": "[core]\n\tfsmonitor = sh -c id\n"}
    event = enriched("claude", "Write", write, proj)
    keyed = [e for e in event.facts["effects"] if e.get("key")]
    assert keyed == [
        {**keyed[0], "op": "write", "path": f"{HOME}/.gitconfig", "key": "core.fsmonitor", "executes": True}
    ]
    edit = {"file_path": f"{HOME}/.gitconfig", "edits": [{"old_string": "a", "new_string": "[alias]\n\tx = !id"}]}
    assert any(e.get("key") == "alias.x" for e in enriched("claude", "MultiEdit", edit, proj).facts["effects"])
    plain = {"file_path": f"{HOME}/.gitconfig", "content": "[user]\n\tname = A\n"}
    assert not any(e.get("key") for e in enriched("claude", "Write", plain, proj).facts["effects"])
