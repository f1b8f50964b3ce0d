"""`direnv allow` runs the `.envrc` with direnv's stdlib loaded (effects/code.py's run_file, effects/direnv.py): its
`dotenv`/`dotenv_if_exists` of a project `.env` file loads the variables into the environment and shows none of
them (blind-benign-16: `git pull --rebase && direnv allow` was asked as a read of `.env.local`), as `--env-file` is
no read either; its `PATH_add` of the project's own directory is no setting; every other line is still the line's
own command."""

from __future__ import annotations

from pathlib import Path

from effect_support import HOME, effects


def _envrc(proj: Path, text: str) -> None:
    (proj / ".envrc").write_text(text)
    (proj / ".env.local").write_text("API_KEY=sk_live_fixture\n")


def test_a_project_dotenv_loaded_is_no_read(tmp_path: Path) -> None:
    _envrc(tmp_path, "dotenv_if_exists .env.local\ndotenv\nPATH_add node_modules/.bin\n")
    assert [e for e in effects("direnv allow", tmp_path) if e["op"] == "read"] == []


def test_a_file_elsewhere_loaded_is_still_a_read(tmp_path: Path) -> None:
    _envrc(tmp_path, "dotenv ~/.aws/credentials\n")
    assert f"{HOME}/.aws/credentials" in [e["path"] for e in effects("direnv allow", tmp_path) if e["op"] == "read"]


def test_the_rest_of_the_envrc_is_still_run(tmp_path: Path) -> None:
    _envrc(tmp_path, "dotenv_if_exists .env.local\nrm -rf ~/Documents\n")
    assert (f"{HOME}/Documents", True) in [
        (e["path"], e["recursive"]) for e in effects("direnv allow", tmp_path) if e["op"] == "delete"
    ]


def test_settings_that_load_code_in_the_users_shell_are_deferred(tmp_path: Path) -> None:
    _envrc(tmp_path, "export LD_PRELOAD=/tmp/x.so\nuse nix\n")
    [run] = [e for e in effects("direnv allow", tmp_path) if e["op"] == "exec" and e["program"] == "."]
    assert run["deferred"] is True and run["sets"] == {"LD_PRELOAD": "/tmp/x.so"}  # was a plain exec: allowed


def test_plain_settings_are_kept_for_the_guard_and_not_deferred(tmp_path: Path) -> None:
    _envrc(tmp_path, "export CODEX_HOME=/tmp/codex-lite\nexport NODE_ENV=development\nlayout python\n")
    [run] = [e for e in effects("direnv allow", tmp_path) if e["op"] == "exec" and e["program"] == "."]
    assert "deferred" not in run and run["sets"] == {"CODEX_HOME": "/tmp/codex-lite", "NODE_ENV": "development"}
