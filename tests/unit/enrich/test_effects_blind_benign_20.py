"""blind-benign-20's false positive closed by mechanism: the environment filtered by a word of plain settings' names
(`env | grep -i proxy`) prints those settings, not the whole environment (hookd.enrich.effects.beyond,
programs.json `plain_environment`). awk's literals: tests/unit/enrich/test_effects_languages.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.enrich.shell.analysis import analyse_shell


def _environment(command: str, proj: Path) -> list[object]:
    _, effects = analyse_shell(command, home="/home/u", base_dir=str(proj), project_dir=str(proj))
    return [e.get("variables") for e in effects if e.get("path") == "/proc/self/environ"]


@pytest.mark.parametrize(
    "command",
    ["env | grep -i proxy", "env | grep -i _proxy", "printenv | grep -i PROXY", "env | grep PATH",
     "printenv | grep -i HTTPS_PROXY",
     "env | grep -i locale", "env | egrep -i editor"],
)  # fmt: skip
def test_a_word_of_plain_settings_names_prints_those_settings(command: str, proj: Path) -> None:
    assert _environment(command, proj) == []


@pytest.mark.parametrize(
    "command",
    [  # a credential's family, a token's prefix, a word shorter than four letters, more words, another option
        "env | grep -i token", "env | grep -i aws", "env | grep -i home", "env | grep -i node", "env | grep ghp_",
        "env | grep -i glpat", "env | grep -i pro", "env | grep -i PROXY_TOKEN",
        "env | grep -i 'proxy\\|token'", "env | grep -iE 'proxy|token'",
        "env | grep -iv proxy", "env | grep -i -A2 proxy", "env | grep -w proxy", "env | sort | grep -i proxy",
        "env; grep -i proxy notes.txt",
    ],
)  # fmt: skip
def test_any_other_filter_leaves_the_whole_environment(command: str, proj: Path) -> None:
    assert _environment(command, proj) == [[]]
