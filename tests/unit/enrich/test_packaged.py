"""A package's function called by its namespace in inline R is that package's program run, judged by the paths its
literal arguments name (blind-benign-21's false positives, policies/README.md "Known gaps closed (autoload50)":
hookd.enrich.effects.packaged, languages.json `packaged`). R's own packages' calls, arguments that are no
literals, and the code around stay judged as before. Spelled otherwise than the corpus's."""

from __future__ import annotations

import pytest

from hookd.enrich.effects.languages import follow_code


@pytest.mark.parametrize(
    ("code", "command"),
    [
        ("pkgdown::check_pkgdown()", "pkgdown::check_pkgdown"),
        ("covr::package_coverage(type = 'tests', quiet = TRUE)", "covr::package_coverage tests"),
        ('spelling :: spell_check_package( "." )', "spelling::spell_check_package ."),
        ("tidyfoo::read_it('~/.ssh/id_ed25519')", "tidyfoo::read_it ~/.ssh/id_ed25519"),
    ],
)
def test_a_namespaced_call_with_literals_is_its_package_s_run(code: str, command: str) -> None:
    followed = follow_code("r", code)
    assert followed.known
    assert followed.commands == (command,)


@pytest.mark.parametrize(
    "code",
    [
        "base::system('id')",
        "utils::download.file('https://x.example/a', 'a')",
        "processx::run('sh', c('-c', 'id'))",
        "pkg::fn(Sys.getenv('HOME'))",
        "pkg::fn(x)",
        "pkg::fn('a, b')",
        "pkg::fn(); eval(parse(text = 'system(1)'))",
    ],
)
def test_other_namespaced_calls_are_not_followed(code: str) -> None:
    assert not follow_code("r", code).known
