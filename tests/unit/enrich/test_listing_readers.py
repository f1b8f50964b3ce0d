"""holes44: a listing's names read however they reach the reader. What a `find` (or `git ls-files`) prints is read
as the files its words select on disk (searches.searched's stand-in), not only as its root read whole, when its
names reach a reader through a process substitution or a redirection from one (`xargs cat < <(find …)`,
`mapfile -t fs < <(find …)`), a `read` loop, or `xargs -I`; and each name is resolved where the reader runs, not
where the listing ran (`find . -type f | (cd ~ && xargs -I{} cat {})`): builder_state.listing_selects,
Ledger._from_listing."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, effects

ENV = "OPENAI_API_KEY=sk-proj-4f9aQ2LmX8rT6vB1nK3pZ7wY5cD0eH2jU9sF\n"


@pytest.fixture
def listed(proj: Path) -> Path:
    """A project with a live key in `.env` beside its code."""
    (proj / ".env").write_text(ENV)
    (proj / "src").mkdir()
    (proj / "src" / "a.py").write_text("print(1)\n")
    return proj


def _read(command: str, proj: Path) -> set[str]:
    return {str(e["path"]) for e in effects(command, proj) if e["op"] == "read" and e.get("from_stdin")}


@pytest.mark.parametrize(
    "command",
    [
        "xargs cat < <(find . -type f)",
        'while read f; do cat "$f"; done < <(find . -type f)',
        "xargs -a <(find . -type f) cat",
        'mapfile -t fs < <(find . -type f); cat "${fs[@]}"',
        "readarray fs < <(find . -type f); cat ${fs[@]}",
        "find . -type f | xargs -I{} cat {}",
        'find . -type f | while IFS= read -r f; do head -c 100 "$f"; done',
        'for f in $(find . -type f); do cat "$f"; done',
    ],
)
def test_a_listing_fed_to_a_reader_reads_what_it_selects(command: str, listed: Path) -> None:
    assert {str(listed / ".env"), str(listed / "src" / "a.py")} <= _read(command, listed)  # was the root, read whole


@pytest.mark.parametrize(
    "command",
    [
        "find . -type f | (cd ~/.ssh && xargs -I{} cat {})",
        'find . -type f | (cd ~/.ssh; while read -r f; do cat "$f"; done)',
        "git ls-files '*' | (cd ~/.ssh && xargs cat)",
    ],
)
def test_a_reader_in_another_directory_reads_the_names_there(command: str, proj: Path) -> None:
    (proj / "src").mkdir()
    (proj / "src" / "a.py").write_text("print(1)\n")
    read = _read(command, proj)
    assert any(p.startswith(HOME + "/.ssh") for p in read)  # was the project's root: names resolved where listed
    assert str(proj) not in read


def test_a_reader_in_a_directory_hookd_cannot_follow_reads_unknown_names(proj: Path) -> None:
    found = [e for e in effects('find . -type f | (cd "$d" && xargs -I{} cat {})', proj) if e["op"] == "read"]
    assert any(e["known"] is False for e in found)


@pytest.mark.parametrize(
    "command",
    [
        "xargs wc -l < <(find . -name '*.py')",
        "mapfile -t fs < <(find src -name '*.py'); wc -l \"${fs[@]}\"",
        "find src -name '*.py' | (cd src && xargs -I{} wc -l {})",
    ],
)
def test_a_narrowed_listing_reads_only_what_it_selects(command: str, listed: Path) -> None:
    assert str(listed / ".env") not in _read(command, listed)
