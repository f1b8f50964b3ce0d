"""False positives blind-benign-7's first run found, and those its mechanism shares (policies/README.md, "A seventh
blind batch, benign only"): what a command substitution prints when its words show it (shell/outputs.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, effects, ops

from hookd.enrich.shell.outputs import below_directory, looked_up


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


def test_the_words_read_without_a_line() -> None:
    assert below_directory("$(pwd)", "/p") == "/p"
    assert below_directory("$( pwd -L )/a", "/p/") == "/p/a"
    assert below_directory("$(pwd)/a", "/") == "/a"
    assert looked_up("$(command -v node)") == "node"
    assert looked_up("$(sudo which node)") == "node"
    assert looked_up("$(which node)", ({"which": "x"},)) is None
    assert looked_up("$(which node") is None
