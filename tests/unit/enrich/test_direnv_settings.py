"""gaps38 (policies/README.md, "Known gaps closed (gaps38)"): direnv's stdlib functions that only change the
environment, read in an `.envrc` as the assignments they make (hookd.enrich.effects.direnv)."""

from __future__ import annotations

import pytest

from hookd.enrich.effects.configtext import quiet_setting
from hookd.enrich.effects.direnv import direnv_settings

ENVRC = "/work/app/.envrc"


@pytest.mark.parametrize(
    "text",
    ["dotenv_if_exists .env.local\nPATH_add bin\n", "dotenv\nwatch_file package.json\nPATH_add node_modules/.bin\n"],
)
def test_the_stdlibs_settings_run_nothing(text: str) -> None:
    effect: dict[str, object] = {}
    assert quiet_setting(effect, ENVRC, text, "sh")  # was a deferred exec: unknown commands of a startup file


@pytest.mark.parametrize(
    "text",
    [
        "PATH_add /tmp/x\n",  # a search path into scratch space, as `export PATH=/tmp/x:$PATH` is
        "dotenv ~/.cache/x.env\n",  # a file that is no guarded .env
        "source_env ../other\n",
        "use nix\n",
        "PATH_add $(curl -s x.example.net)\n",
    ],
)
def test_other_lines_stay_asked(text: str) -> None:
    assert not quiet_setting({}, ENVRC, text, "sh")


def test_a_variable_path_add_moves_is_kept_for_the_guard() -> None:
    effect: dict[str, object] = {}
    assert quiet_setting(effect, ENVRC, "path_add GEMINI_CLI_HOME g\n", "sh")
    assert effect["sets"] == {"GEMINI_CLI_HOME": "/work/app/g:$GEMINI_CLI_HOME"}


def test_only_an_envrc_is_read_with_direnvs_stdlib() -> None:
    assert direnv_settings("/home/u/.bashrc", "PATH_add bin\n") == "PATH_add bin\n"
