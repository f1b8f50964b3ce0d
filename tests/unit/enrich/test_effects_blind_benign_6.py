"""False positives blind-benign-6's first run found (policies/README.md, "A sixth blind batch, benign only"): the
effects their mechanisms now give, and the attacks that share the spelling keep theirs."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, ops


def _reads(command: str, proj: Path) -> list[tuple[str, bool]]:
    return [(e["path"], e["known"]) for e in ops(command, proj, "read")]


def test_an_operand_a_search_prints_is_what_the_search_selects_below_its_root(proj: Path) -> None:
    (proj / "build-install/lib/site-packages/numpy").mkdir(parents=True)
    reads = _reads("python tools/check.py $(find ./build-install -path '*/site-packages/numpy')", proj)
    assert (f"{proj}/build-install/**/numpy", True) in reads
    assert (f"{proj}/build-install/lib/site-packages/numpy", True) in reads
    assert all(known for _, known in reads)


def test_a_search_for_a_secret_reads_it_by_name_and_on_disk(proj: Path) -> None:
    (proj / ".env").write_text("A=1\n")
    assert _reads('cat "$(find . -name .env)"', proj)[:2] == [(f"{proj}/**/.env", True), (f"{proj}/.env", True)]


def test_a_searchs_star_matches_a_leading_dot_as_the_shells_does_not(proj: Path) -> None:
    (proj / ".env").write_text("A=1\n")
    (proj / "a.py").write_text("x = 1\n")
    assert (f"{proj}/.env", True) in _reads("cat `find . -maxdepth 1 -type f -name '*'`", proj)


@pytest.mark.parametrize(
    "word",
    [
        "$(find . -name x -o -name .env)",  # an -o: either
        "$(find . ! -name '*.py')",  # a negation
        "$(find . -name x -printf '%p')",  # an action printing something else than the names
        "$(find . -name x -exec cat {} +)",  # the files' text, not their names
        "$(find -L . -name x)",  # links followed out of the root
        "$(find . -path 'src/*/*.en[v]')",  # a -path whose last segment is a pattern after a directory's
        '$(find "$D" -name x)',  # a root only known at run time
        "$(find . -name x; echo .env)",  # more than the search
        "$(find . -name x)/.env",  # more than the substitution
        "$(ls)",  # not a search
        "$(find src lib -name x)",  # more roots than one
    ],
)
def test_an_operand_whose_selection_the_words_do_not_show_stays_unknown(word: str, proj: Path) -> None:
    assert (("", False) in _reads(f"cat {word}", proj)) or not ops(f"cat {word}", proj, "read")


def test_a_search_below_a_directory_the_line_went_to_unknown_stays_unknown(proj: Path) -> None:
    assert _reads('cd "$D" && cat $(find . -name config)', proj) == [("", False)]


def test_a_search_past_what_may_be_read_of_the_disk_stays_unknown(proj: Path) -> None:
    (proj / "big").mkdir()
    for k in range(80):  # past MAX_GLOB_MATCHES: the disk does not show all it selects
        (proj / "big" / f"f{k}.txt").write_text("x\n")
    assert _reads("cat $(find big -name '*')", proj) == [("", False)]


def test_a_delete_of_what_a_search_prints_is_of_what_it_selects(proj: Path) -> None:
    deletes = ops("rm -rf $(find ~ -name node_modules)", proj, "delete")
    assert (deletes[0]["path"], deletes[0]["recursive"], deletes[0].get("selected")) == (
        f"{HOME}/**/node_modules",
        True,
        True,
    )
    assert all(e.get("selected") for e in deletes)  # and each place the disk shows for it


def _later(command: str, proj: Path) -> list[str]:
    return [e["startup"] for e in ops(command, proj, "exec") if e.get("deferred") and e.get("startup")]


@pytest.mark.parametrize(
    "command",
    [
        "register-python-argcomplete pytest >> ~/.bashrc",  # pytest's documented bash completion
        "register-python-argcomplete --shell zsh pytest tox >> ~/.zshrc",
        "kubectl completion bash >> ~/.bashrc",
        "pyenv init - >> ~/.bashrc",
    ],
)
def test_a_tools_own_shell_setup_appended_to_a_startup_file_runs_nothing_of_the_line(command: str, proj: Path) -> None:
    assert _later(command, proj) == []


@pytest.mark.parametrize(
    "command",
    [
        "register-python-argcomplete -e helper pytest >> ~/.bashrc",  # -e: a script the completion runs
        "register-python-argcomplete ./tool >> ~/.bashrc",  # not a program looked up on PATH
        "PYENV_ROOT=/tmp/x pyenv init - >> ~/.bashrc",  # an environment that changes what it prints
        "export PATH=/tmp/x:$PATH; kubectl completion bash >> ~/.bashrc",  # another program of that name
        "./gen-completion.sh >> ~/.bashrc",  # no tool's own setup
        "register-python-argcomplete pytest | tee -a ~/.bashrc",  # written by another program
        "kubectl get pods -o name >> ~/.bashrc",  # not the words that ask for the setup
    ],
)
def test_other_output_appended_to_a_startup_file_still_runs_later(command: str, proj: Path) -> None:
    assert _later(command, proj) == [f"{HOME}/.bashrc"]
