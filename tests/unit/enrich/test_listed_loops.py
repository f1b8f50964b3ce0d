"""benign44 (blind-benign-18): `for f in $(LISTING); do … "$f" …; done` goes through the names its substitution's
search listed, as `LISTING | while read f` does (hookd.enrich.shell.build, searches' `listed_words`); and `git
ls-files` given several pathspecs of one ending prints what a glob below the directories they share matches
(searches' `tracked`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, effects

from hookd.enrich.shell.searches import tracked


def _from_stdin(command: str, proj: Path, op: str) -> set[tuple[str, bool]]:
    return {(e["path"], e["recursive"]) for e in effects(command, proj) if e["op"] == op and e.get("from_stdin")}


def _unknown(command: str, proj: Path) -> list[str]:
    return [e["op"] for e in effects(command, proj) if e.get("known") is False]


@pytest.mark.parametrize(
    ("command", "op", "below"),
    [
        ("""for f in $(git ls-files '*.py'); do printf '%s %s\\n' "$f" "$(wc -l < "$f")"; done""", "read", ""),
        ("""for f in `find src -name '*.py'`; do cat "$f"; done""", "read", "src"),
    ],
)
def test_a_loop_over_a_listing_goes_through_the_names_it_listed(command: str, op: str, below: str, proj: Path) -> None:
    assert _from_stdin(command, proj, op) == {(str(proj / below) if below else str(proj), True)}
    assert op not in _unknown(command, proj)  # was a file whose name is only known when the shell runs (asked)


def test_a_loop_over_a_listing_of_the_home_reads_the_home(proj: Path) -> None:
    assert _from_stdin("""for f in $(find ~ -type f); do cat "$f"; done""", proj, "read") == {(HOME, True)}


@pytest.mark.parametrize(
    "command",
    [
        """for f in $(cat list.txt); do cat "$f"; done""",  # a file's words: no listing
        """for f in $(git ls-files) extra; do cat "$f"; done""",  # more words than the substitution
        """for f in $(git ls-files | sed 's/^/x/'); do cat "$f"; done""",  # its last command lists nothing
    ],
)
def test_other_loop_words_stay_unknown(command: str, proj: Path) -> None:
    assert "read" in _unknown(command, proj)


@pytest.mark.parametrize(
    ("pathspecs", "stand_in"),
    [
        (["src/*.py", "tests/*.py"], "./**/*.py"),  # was None: one pathspec only
        (["src/a/*.ts", "src/b/*.ts"], "src/**/*.ts"),
        (["*.py", "*.ts"], None),  # two endings: no one glob
        (["src/*.py", "/etc/*.py"], None),
        (["src/*.py", ":(exclude)src/x.py"], None),
    ],
)
def test_several_pathspecs_of_one_ending(pathspecs: list[str], stand_in: str | None) -> None:
    assert tracked(["git", "ls-files", *pathspecs]) == stand_in


# a listed name put below another directory is another place: not the listed file (it was: `~/.{}` wrote the listing)
@pytest.mark.parametrize(
    "command",
    [
        'git ls-files "*.sh" | xargs -I{} cp {} ~/.{}',
        'ls *.dot | while read -r f; do ln -sf "$PWD/$f" ~/.${f%.dot}; done',
        'for f in $(ls *.dot); do ln -sf "$PWD/$f" ~/.${f%.dot}; done',
    ],
)
def test_a_listed_name_below_another_directory_is_not_the_listed_file(command: str, proj: Path) -> None:
    [target] = [e for e in effects(command, proj) if e["op"] == "write" and e.get("target_of")]
    assert target["known"] is False and target["raw"].startswith(HOME + "/.")


def test_a_listed_name_with_a_suffix_stays_in_its_place(proj: Path) -> None:
    command = 'find . -name "*.py" | xargs -I{} cp {} {}.bak'
    assert _from_stdin(command, proj, "write") == {(str(proj), True)}
