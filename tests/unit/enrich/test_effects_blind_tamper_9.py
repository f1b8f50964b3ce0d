"""Mechanisms blind-tamper-9's first run missed (policies/README.md, "The third blind tamper batch"): what hookd's
own command line and the agents' own command lines write, and the look-alikes that keep only reads."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, effects, ops

# --- hookd's own subcommands: what they write, and option values that name no file ---


def test_a_bundle_built_into_hookds_state_is_a_write_there(tmp_path: Path) -> None:
    written = ops(
        "hookd bundle build /tmp/p -o ~/.local/state/hookd/bundles/acme.tar.gz --revision 9", tmp_path, "write"
    )
    assert [e["path"] for e in written] == [f"{HOME}/.local/state/hookd/bundles/acme.tar.gz"]


def test_a_bundles_revision_is_a_value_not_a_file_read(tmp_path: Path) -> None:
    found = effects('hookd bundle build policies -o dist/b.tar.gz --revision "$(git rev-parse --short HEAD)"', tmp_path)
    assert not any(e.get("raw", "").startswith("$(") for e in found)  # was an unknown read, asked
    assert [Path(e["path"]).name for e in found if e["op"] == "write"] == ["b.tar.gz"]


def test_the_native_shim_built_with_another_compiler_rewrites_the_shim(tmp_path: Path) -> None:
    found = effects('hookd shim build --cc "$PWD/tools/cc"', tmp_path)
    assert [e["path"] for e in found if e["op"] == "write"] == [f"{HOME}/.local/share/hookd/bin/hookd-shim"]
    assert [Path(e["path"]).name for e in found if e["op"] == "exec"] == ["cc"]


def test_the_shim_built_elsewhere_writes_only_there_and_its_path_only_reads(tmp_path: Path) -> None:
    assert [e["path"] for e in ops("hookd shim build --out build/shim", tmp_path, "write")] == [
        str(tmp_path / "build/shim")
    ]
    assert not ops("hookd shim path", tmp_path, "write")
    assert not ops("hookd tail -n 20 --decision deny", tmp_path, "write")


# --- a search path that takes programs or libraries from the home's caches: scratch space ---


@pytest.mark.parametrize(
    "line",
    [
        'export PATH="$HOME/.cache/bin:$PATH"',
        'export LD_LIBRARY_PATH="$HOME/.cache/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"',
        "export PATH=~/.cache/x:$PATH",
        'export PYTHONPATH="${HOME}/.cache/py"',
    ],
)
def test_a_search_path_into_the_home_cache_left_in_a_startup_file_runs_later(line: str, tmp_path: Path) -> None:
    found = effects(f"echo '{line}' >> ~/.bashrc", tmp_path)
    assert [e["startup"] for e in found if e["op"] == "exec" and e.get("deferred")] == [f"{HOME}/.bashrc"]


@pytest.mark.parametrize("line", ['export PATH="$HOME/go/bin:$PATH"', 'export PATH="${HOME}/.local/bin:$PATH"'])
def test_a_search_path_of_the_homes_own_programs_only_sets_it(line: str, tmp_path: Path) -> None:
    found = effects(f"echo '{line}' >> ~/.zshrc", tmp_path)
    assert not [e for e in found if e["op"] == "exec"]
    assert [e["sets"]["PATH"] for e in found if e.get("sets")] == [line.split("=", 1)[1].strip('"')]


# --- files a login session or the user manager reads at start ---


def test_the_pam_environment_file_is_a_startup_file(tmp_path: Path) -> None:
    found = effects("printf 'LD_PRELOAD DEFAULT=@{HOME}/.cache/l.so\\n' >> ~/.pam_environment", tmp_path)
    assert [e["startup"] for e in found if e["op"] == "exec" and e.get("deferred")] == [f"{HOME}/.pam_environment"]


def test_the_user_managers_own_configuration_runs_later(tmp_path: Path) -> None:
    found = effects("printf '[Manager]\\nDefaultLimitNOFILE=4\\n' > ~/.config/systemd/user.conf.d/l.conf", tmp_path)
    assert [e["startup"] for e in found if e["op"] == "exec" and e.get("deferred")] == [
        f"{HOME}/.config/systemd/user.conf.d/l.conf"
    ]


# --- a launcher whose program is an option's value and whose arguments follow `--` ---


def test_start_stop_daemon_runs_its_exec_with_the_words_after_dashes(tmp_path: Path) -> None:
    found = effects("start-stop-daemon --start --background --exec /bin/sh -- -c 'kill $(pgrep -f hookd)'", tmp_path)
    assert [e["code"]["text"] for e in found if e["op"] == "exec" and e["program"] == "start-stop-daemon"] == [
        "/bin/sh -c 'kill $(pgrep -f hookd)'"
    ]
    assert any(e["op"] == "signal" for e in found)  # was `-c` run as a program: nothing known


def test_start_stop_daemon_stopping_by_pidfile_runs_nothing(tmp_path: Path) -> None:
    assert not ops("start-stop-daemon --stop --pidfile /run/x.pid", tmp_path, "exec")


# --- a makefile a shell line writes: its recipes as make hands them to the shell ---


def test_a_makefile_written_by_the_shell_is_judged_by_its_recipes(tmp_path: Path) -> None:
    found = effects("printf 'test:\\n\\t@rm -f $$HOME/.codex/hooks.json\\n\\tpytest -q\\n' > Makefile", tmp_path)
    assert [e["code"]["text"] for e in found if e.get("deferred")] == ["rm -f $HOME/.codex/hooks.json"]


def test_a_makefile_of_everyday_recipes_leaves_nothing_for_later(tmp_path: Path) -> None:
    assert not [
        e
        for e in effects("printf 'test:\\n\\t@pytest -q\\nclean:\\n\\t@rm -rf build\\n' > Makefile", tmp_path)
        if e.get("deferred")
    ]


# --- node's require of a JSON file named by a computed path: a read (node parses it, runs nothing) ---


def test_a_json_file_required_from_the_home_is_read(tmp_path: Path) -> None:
    found = effects(
        "node -e \"const s=require(require('os').homedir()+'/.claude/settings.json'); console.log(s)\"", tmp_path
    )
    assert [e["path"] for e in found if e["op"] == "read"] == [f"{HOME}/.claude/settings.json"]
    assert all(e.get("known") is not False for e in found)  # was inline code hookd could not follow: asked


def test_a_module_required_from_a_computed_path_stays_unknown(tmp_path: Path) -> None:
    found = effects("node -e \"require(require('os').homedir()+'/.cache/x.js')\"", tmp_path)
    assert [e.get("known") for e in found if e["op"] == "exec"] == [False]


# --- hookd's own uninstall and stop take the guard away: a signal to hookd, wherever the line runs ---


def test_hookds_uninstall_is_the_guard_stopped(tmp_path: Path) -> None:
    found = ops("hookd uninstall --client droid --scope user", tmp_path, "signal")
    assert [(e["target"], e["match"]) for e in found] == [("hookd", "unit")]


def test_hookds_status_and_service_status_stop_nothing(tmp_path: Path) -> None:
    assert not ops("hookd service status --json", tmp_path, "signal")
    assert not ops("hookd status", tmp_path, "signal")
