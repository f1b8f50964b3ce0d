"""False positives blind-benign-7's first run found, and those its mechanism shares (policies/README.md, "A seventh
blind batch, benign only"): what a command substitution prints when its words show it (shell/outputs.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, effects, ops

from hookd.enrich.shell.outputs import looked_up, printed_directory, work_tree
from hookd.enrich.shell.state import _Cwd


def _on(command: str, proj: Path, op: str) -> list[tuple[str, bool, str]]:
    return [(e["path"], e["known"], e.get("installed", "")) for e in ops(command, proj, op)]


def test_the_source_of_a_link_to_what_a_lookup_finds_is_that_program(proj: Path) -> None:
    links = _on("ln -sf $(poetry run which poetry) ~/.local/bin/poetry@local", proj, "link")
    assert links == [("", False, "poetry")]
    assert (f"{HOME}/.local/bin/poetry@local", True, "") in _on(
        "ln -sf $(poetry run which poetry) ~/.local/bin/poetry@local", proj, "write"
    )


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("file $(which node)", "node"),
        ('head -1 "$(command -v pip)"', "pip"),
        ("cat `type -P go`", "go"),
        ("cat $(type -p python3.11)", "python3.11"),
        ("cat $(/usr/bin/which rg)", "rg"),
        ("cat $(uv run which pytest)", "pytest"),
    ],
)
def test_a_read_of_what_a_lookup_finds_names_the_program(command: str, name: str, proj: Path) -> None:
    assert _on(command, proj, "read") == [("", False, name)]


@pytest.mark.parametrize(
    "command",
    [
        "PATH=~/.ssh:$PATH; cat $(which id_x)",  # the line's own search path: anything could be found there
        "export PATH=/tmp/x:$PATH && cat $(which tool)",
        "env PATH=/tmp cat $(which tool)",  # the command's own
        "cat $(env PATH=~/.ssh which x)",  # the lookup's own
        "which() { echo ~/.ssh/id_rsa; }; cat $(which x)",  # a function of the line prints something else
        "alias which='echo ~/.ssh/id_rsa'; cat $(which x)",
        "poetry() { echo ~/.ssh/id_rsa; }; cat $(poetry run which x)",  # the launcher is the line's own
        "cat $(which -a node)",  # every match, options other than the lookup's
        "cat $(command -V node)",  # a description, not a path
        "cat $(which ./x)",  # a path, not a lookup
        "cat $(which .env)",  # a hidden file's name
        'cat $(which "$N")',  # a name only known at run time
        "cat $(which node)/../lib",  # more than the substitution
        "cat $(ls node)",  # not a lookup
    ],
)
def test_what_the_words_do_not_show_stays_unknown(command: str, proj: Path) -> None:
    assert all(not e.get("installed") for e in effects(command, proj))


@pytest.mark.parametrize("command", ["cp evil $(which git)", "rm $(which node)", "mv $(which node) /tmp/n"])
def test_a_change_of_what_a_lookup_finds_stays_unknown(command: str, proj: Path) -> None:
    changed = [e for e in effects(command, proj) if e["op"] in ("write", "delete", "move")]
    assert changed and all(not e["known"] for e in changed if e.get("raw", "").startswith("$("))


def test_a_word_that_starts_with_pwds_substitution_is_below_the_directory(proj: Path) -> None:
    assert _on('ln -s "$(pwd)/bin/tool" ~/.local/bin/tool', proj, "link") == [(f"{proj}/bin/tool", True, "")]
    assert _on("cat `pwd -P`/README.md", proj, "read") == [(f"{proj}/README.md", True, "")]
    assert _on("cd src && cat $(pwd)/a.py", proj, "read") == [(f"{proj}/src/a.py", True, "")]


def test_a_secret_below_the_directory_is_read_by_name(proj: Path) -> None:
    assert _on('cat "$(pwd)/.env"', proj, "read") == [(f"{proj}/.env", True, "")]


@pytest.mark.parametrize(
    "command",
    [
        'cd "$D" && cat $(pwd)/f',  # a directory hookd does not follow
        "pwd() { echo ~/.ssh; }; cat $(pwd)/id_rsa",  # pwd made something else
        "alias pwd='echo ~/.ssh'; cat $(pwd)/id_rsa",
        "cat $(pwd)$X",  # the rest built at run time
        "cat $(pwd)x",  # another name beside the directory's
    ],
)
def test_pwd_the_line_makes_unknown_stays_unknown(command: str, proj: Path) -> None:
    assert all(not e["known"] for e in ops(command, proj, "read"))


def _repository(path: Path) -> Path:
    (path / ".git" / "objects").mkdir(parents=True)
    (path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (path / ".git" / "config").write_text("[core]\n\tbare = false\n")
    return path


def test_a_cd_to_what_pwd_prints_is_followed(proj: Path) -> None:
    assert _on('cd "$(pwd)/src" && rm -rf build', proj, "delete")[0][:2] == (f"{proj}/src/build", True)
    assert not [e for e in ops('cd "$(pwd)/src" && rm -rf build', proj, "delete") if e.get("after_cd")]


def test_the_top_of_the_work_tree_is_found_on_disk(proj: Path) -> None:
    _repository(proj)
    (proj / "cmd" / "tool").mkdir(parents=True)
    line = 'cd cmd/tool && cat "$(git rev-parse --show-toplevel)/go.mod"'
    assert _on(line, proj, "read") == [(f"{proj}/go.mod", True, "")]
    deletes = ops('cd cmd && cd "$(git rev-parse --show-toplevel)" && rm -rf build', proj, "delete")
    assert [(e["path"], e["known"], e.get("after_cd", False)) for e in deletes] == [(f"{proj}/build", True, False)]


@pytest.mark.parametrize(
    "command",
    [
        'git() { echo /; }; cat "$(git rev-parse --show-toplevel)/go.mod"',  # git made something else
        'GIT_WORK_TREE=/ ; cat "$(git rev-parse --show-toplevel)/go.mod"',  # another work tree
        'export GIT_DIR=/x/.git && cat "$(git rev-parse --show-toplevel)/go.mod"',
        'cat "$(git -C /x rev-parse --show-toplevel)/go.mod"',  # another directory's
        'cat "$(git rev-parse --show-toplevel)$F"',
    ],
)
def test_a_work_tree_the_line_makes_another_stays_unknown(command: str, proj: Path) -> None:
    _repository(proj)
    assert all(not e["known"] for e in ops(command, proj, "read"))


def test_outside_a_work_tree_or_inside_a_repository_there_is_none(tmp_path: Path) -> None:
    assert work_tree(str(tmp_path)) is None
    top = _repository(tmp_path / "top")
    (top / "a" / "b").mkdir(parents=True)
    assert work_tree(str(top / "a" / "b")) == str(top)
    assert work_tree(str(top / ".git" / "objects")) is None  # a repository's own directory
    linked = tmp_path / "linked"
    (linked / "src").mkdir(parents=True)
    (linked / ".git").write_text(f"gitdir: {top}/.git/worktrees/linked\n")  # a linked work tree, a submodule
    assert work_tree(str(linked / "src")) == str(linked)
    (top / ".git" / "config").write_text('[includeIf "gitdir:~/"]\n\tpath = ~/x.cfg\n')
    assert work_tree(str(top / "a")) is None
    (top / ".git" / "config").write_text("[core]\n\tworktree = /elsewhere\n")
    assert work_tree(str(top / "a")) is None


def test_the_words_read_without_a_line() -> None:
    assert printed_directory("$(pwd)", _Cwd("/p"), ()) == "/p"
    assert printed_directory("$( pwd -L )/a", _Cwd("/p/"), ()) == "/p/a"
    assert printed_directory("$(pwd)/a", _Cwd("/"), ()) == "/a"
    assert printed_directory("$(pwd)/a", _Cwd("/p", known=False), ()) is None
    assert looked_up("$(command -v node)") == "node"
    assert looked_up("$(sudo which node)") == "node"
    assert looked_up("$(which node)", ({"which": "x"},)) is None
    assert looked_up("$(which node") is None
