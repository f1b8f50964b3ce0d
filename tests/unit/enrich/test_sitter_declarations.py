"""benign44 (blind-benign-18): two shapes tree-sitter reads that the conversion refused, so the line fell to bashlex and
then to the fallback's guesses (a comment read as a command, `seen[$ip]=1` run as a program): a name a declaration is
given bare (`export PATH`, `declare -A seen`), and an array element set (`a[k]=v`), which runs its subscript's and
value's substitutions and leaves the array unknown (hookd.enrich.shell.sitter's `element`, LineState.assign)."""

from __future__ import annotations

from pathlib import Path

from effect_support import HOME, effects

from hookd.enrich.shell.analysis import analyse_shell

# the script-directory idiom makes the fast path decline, so the whole script is tree-sitter's
ACTIVATE = (
    '# This file must be used with "source bin/activate"\n'
    'VIRTUAL_ENV="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"\n'
    "export VIRTUAL_ENV\n"
    'PATH="$VIRTUAL_ENV/bin:$PATH"\n'
    "export PATH\n"
)


def _parsed(command: str, proj: Path) -> dict[str, object]:
    return analyse_shell(command, home=HOME, base_dir=str(proj), project_dir=str(proj))[0]


def test_a_bare_declared_name_is_a_word(proj: Path) -> None:
    shell = _parsed(ACTIVATE, proj)
    assert shell["parse_error"] is False  # was bashlex's error, then a comment's words run as `#`
    assert [c["argv"] for c in shell["commands"] if c["name"] == "export"] == [  # type: ignore[attr-defined]
        ["export", "VIRTUAL_ENV"],
        ["export", "PATH"],
    ]


def test_a_sourced_script_exporting_a_name_runs_nothing_else(proj: Path) -> None:
    (proj / ".venv" / "bin").mkdir(parents=True)
    (proj / ".venv" / "bin" / "activate").write_text(ACTIVATE)
    found = effects("bash -c 'set -euo pipefail; . .venv/bin/activate; python -m app --help'", proj)
    assert [e["program"] for e in found if e["op"] == "exec"] == ["."]


def test_an_array_element_set_in_a_loop_runs_no_program(proj: Path) -> None:
    command = "declare -A seen; while read -r ip _; do seen[$ip]=1; done < access.log; echo ${#seen[@]}"
    assert _parsed(command, proj)["parse_error"] is False
    assert not [e for e in effects(command, proj) if e["op"] == "exec"]  # was `seen[$ip]=1` run, built (asked)


def test_an_element_set_leaves_the_array_unknown(proj: Path) -> None:
    [delete] = [e for e in effects('a=(safe); a[0]=~/.ssh; rm -rf "${a[@]}"', proj) if e["op"] == "delete"]
    assert delete["known"] is False  # not `safe`: which element changed is known when it runs


def test_an_elements_subscript_and_value_run(proj: Path) -> None:
    assert [e["path"] for e in effects("a[$(rm -rf ~)]=1", proj) if e["op"] == "delete"] == [HOME]
    assert [e["path"] for e in effects("a[0]+=$(rm -rf ~/.ssh)", proj) if e["op"] == "delete"] == [f"{HOME}/.ssh"]
