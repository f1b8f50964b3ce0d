"""What a `find` selects, wherever its names go: handed to xargs by a pipe, to `-exec` by `{}`, or to a command
by a substitution; read from every test that names what it selects (`-iname`, `-path '*.env'`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops

from hookd.enrich.paths import expand_glob
from hookd.enrich.shell.searches import any_case, search_word, selection


@pytest.fixture
def world(proj: Path) -> Path:
    (proj / "config").mkdir()
    (proj / "config" / "prod.env").write_text("TOKEN=x\n")
    (proj / ".env").write_text("TOKEN=x\n")
    (proj / "src").mkdir()
    (proj / "src" / "app.py").write_text("print(1)\n")
    return proj


@pytest.mark.parametrize(
    ("argv", "selected"),
    [
        (["find", ".", "-name", ".env"], "./**/.env"),
        (["find", ".", "-iname", ".ENV"], "./**/.[eE][nN][vV]"),
        (["find", "d", "-iname", "*.[Ee]nv"], "d/**/*.[Ee][nN][vV]"),
        (["find", ".", "-path", "*.en[v]"], "./**/*.en[v]"),
        (["find", ".", "-ipath", "*/config/PROD.ENV"], "./**/[pP][rR][oO][dD].[eE][nN][vV]"),
        (["find", ".", "-type", "f", "-name", "*.log", "-print0"], "./**/*.log"),
        (["find", ".", "-name", "x", "-o", "-name", "y"], "./**/{x,y}"),  # an `-o`: the union (holes46)
        (["find", ".", "-name", "x", "-o", "-name", "{a,b}"], None),  # a braced pattern in a union: not read
        (["find", ".", "-path", "*/a*/b*"], None),  # a path pattern past its last segment: not read
        (["find", ".", "-type", "f"], None),  # no name test: it selects nothing by name (what it prints: below)
        # each test holds of what it selects, whatever their order: the name its last segment, the path's on the way
        (["find", "/c", "-path", "*hookd*", "-name", "cgroup.freeze"], "/c/**/*hookd*/**/cgroup.freeze"),
        (["find", "/c", "-name", "cgroup.freeze", "-path", "*hookd*"], "/c/**/*hookd*/**/cgroup.freeze"),
    ],
)
def test_what_a_search_selects_is_read_from_its_tests(argv: list[str], selected: str | None) -> None:
    assert selection(argv) == selected


def test_a_pattern_in_any_case_keeps_a_negated_class() -> None:
    assert any_case("[!a]b") == "[!aA][bB]"
    assert any_case("a\\*") is None


def test_a_search_as_a_substitution_only_when_its_selection_is_read() -> None:
    assert search_word(["find", ".", "-name", ".env"]) == "$(find . -name .env)"
    assert search_word(["find", ".", "-type", "f"]) == "$(find . -type f)"  # every file below: `.env` too
    assert search_word(["grep", "-rl", "x"]) == "$(find . -type f)"  # names below: benign45's listings
    assert search_word(["grep", "-Rl", "x"]) is None  # links followed


@pytest.mark.parametrize(
    "command",
    [
        "find . -name .env | xargs cat",
        "find . -name .env -print0 | xargs -0 cat",
        "find . -iname .ENV -exec cat {} +",
        "find . -path '*.en[v]' -exec cat {} \\;",
        "cat $(find . -iname '.ENV')",
    ],
)
def test_the_files_a_search_selects_are_what_its_names_are_handed_to(command: str, world: Path) -> None:
    assert str(world / ".env") in [e["path"] for e in ops(command, world, "read")]


def test_what_xargs_is_fed_by_a_search_is_also_what_it_was_before(world: Path) -> None:
    found = ops("find . -name '*.py' | xargs wc -l", world, "read")
    assert str(world / "src" / "app.py") in [e["path"] for e in found]
    assert any(e.get("from_stdin") and e["path"] == str(world) for e in found)  # the listed root, read below


def test_a_literal_name_a_glob_ends_with_matches_only_where_it_is(world: Path) -> None:
    found, complete = expand_glob(f"{world}/**/prod.env", hidden=True)
    assert (found, complete) == ([f"{world}/config/prod.env"], True)
    assert expand_glob(f"{world}/*/missing.txt", hidden=True) == ([], True)


@pytest.mark.parametrize(
    ("command", "known"),
    [
        ('eval "$(kubectl completion bash)"', True),
        ('export PATH="$HOME/.local/bin:$PATH"; eval "$(pyenv init -)"', True),
        ('export PATH=/tmp/x:$PATH; eval "$(kubectl completion bash)"', False),  # a kubectl planted in scratch
        ('PATH=.:$PATH eval "$(pyenv init -)"', False),
        ("d=$(mktemp -d); PATH=$d:$PATH; source <(kubectl completion bash)", False),
    ],
)
def test_a_tools_own_setup_code_is_its_own_only_on_a_path_nothing_planted(
    command: str, known: bool, proj: Path
) -> None:
    runs = [e["known"] for e in ops(command, proj, "exec") if e["program"] in ("eval", "source")]
    assert runs and all(k is known for k in runs), (command, runs)


def test_a_search_without_a_name_test_reads_every_file_below_its_root(tmp_path: Path) -> None:
    # `find . -type f | xargs cat` prints `.env` as well: every name below the root is read (it was unknown, allowed)
    (tmp_path / ".env").write_text("STRIPE_SECRET_KEY=sk_live_51H8xQ2eZvKYlo2C0aBcDeFgHiJkLmNoPqRsTuVwXyZ\n")
    for line in ("find . -type f | xargs cat", "cat $(find . -type f)", "find . -type f -print0 | xargs -0 head"):
        assert f"{tmp_path}/**/*" in [e["path"] for e in ops(line, tmp_path, "read")], line
