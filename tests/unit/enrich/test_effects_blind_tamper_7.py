"""Mechanisms blind-tamper-7's first run missed (policies/README.md, "The blind tamper batch"): the effects they
now have, and the everyday look-alikes that keep none."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, analysed, effects

# --- `${NAME:-WORD}` whose word holds quotes or expansions: one expansion, its value unknown ---


@pytest.mark.parametrize(
    ("command", "raw"),
    [
        ('chmod 000 "${XDG_RUNTIME_DIR:-/run/user/$(id -u)}/hookd"', "${XDG_RUNTIME_DIR:-/run/user/$(id -u)}/hookd"),
        ('tee -a "${CODEX_HOME:-$HOME/.codex}/config.toml" < x', "${CODEX_HOME:-$HOME/.codex}/config.toml"),
        ('echo x > "${LOG:-"$HOME/.bashrc"}"', '${LOG:-"$HOME/.bashrc"}'),
    ],
)
def test_a_parameter_with_a_default_that_expands_is_one_unknown_expansion(
    command: str, raw: str, tmp_path: Path
) -> None:
    changed = [e for e in effects(command, tmp_path) if e["op"] in ("chmod", "write") and not e["path"]]
    assert [(e["raw"], e["fixed"]) for e in changed] == [(raw, "elsewhere")]  # was a quoted project path


def test_the_substitution_in_a_default_still_runs(tmp_path: Path) -> None:
    argv, _ = analysed('touch "${D:-$(mktemp -d)}/x"', tmp_path)
    assert ["mktemp", "-d"] in argv


def test_a_default_of_plain_words_keeps_its_reading(tmp_path: Path) -> None:
    argv, _ = analysed('echo "${X:-plain}" "$HOME/a"', tmp_path)
    assert argv == [["echo", "${X:-plain}", f"{HOME}/a"]]


# --- the variables a startup file's settings set, kept on the write for hookd.selfprotect ---


@pytest.mark.parametrize(
    ("command", "sets"),
    [
        ("echo 'export CLAUDE_CODE_SIMPLE=1' >> ~/.zshenv", {"CLAUDE_CODE_SIMPLE": "1"}),
        ("echo 'set -gx CODEX_HOME /tmp/c' >> ~/.config/fish/config.fish", {"CODEX_HOME": "/tmp/c"}),
        ("echo 'export EDITOR=\"nvim\"' >> ~/.bashrc", {"EDITOR": "nvim"}),
    ],
)
def test_a_startup_files_settings_are_kept_on_its_write(command: str, sets: dict[str, str], tmp_path: Path) -> None:
    assert [e["sets"] for e in effects(command, tmp_path) if "sets" in e] == [sets]


# --- programs that write what they name: a file (`sponge`), a directory tree (`pip --target`), a package's
# environment by its name (`pipx inject`, `pipx runpip NAME install`) ---


def test_sponge_writes_the_file_it_names(tmp_path: Path) -> None:
    written = [
        e["path"] for e in effects("jq . a.json | sponge ~/.gemini/settings.json", tmp_path) if e["op"] == "write"
    ]
    assert written == [f"{HOME}/.gemini/settings.json"]


@pytest.mark.parametrize("option", ["--target", "-t", "--prefix", "--root"])
def test_pip_writes_below_the_directory_an_option_names(option: str, tmp_path: Path) -> None:
    command = f"python3 -m pip install {option} ~/.hookd/lib/python3.11/site-packages ./patched"
    trees = [e["path"] for e in effects(command, tmp_path) if e["op"] == "write" and e["recursive"]]
    assert trees == [f"{HOME}/.hookd/lib/python3.11/site-packages"]


@pytest.mark.parametrize(
    ("command", "names"),
    [
        ("pipx inject hookd https://x.example.net/g.whl", ["hookd", "https://x.example.net/g.whl"]),
        ("pipx runpip hookd install --no-deps ./s.whl", ["hookd", "install", "./s.whl"]),
        ("pipx runpip hookd list --format=freeze", []),  # pip reads the environment: nothing changes
        ("pipx list --short", []),
    ],
)
def test_pipx_writes_into_the_environment_it_names(command: str, names: list[str], tmp_path: Path) -> None:
    found = [e["name"] for e in effects(command, tmp_path) if e["op"] == "write" and e.get("what") == "package"]
    assert found == names


# --- a signal sent from Python code: `os.kill` of a pid the code looked up is `kill $(that lookup)` ---


@pytest.mark.parametrize(
    ("code", "lookup"),
    [
        (
            "import os,subprocess; [os.kill(int(p),9) for p in subprocess.check_output(['pgrep','hookd']).split()]",
            ["hookd"],
        ),
        ("import os; os.killpg(int(open('/run/user/1/hookd/hook.pid').read()), 15)", ["/run/user/1/hookd/hook.pid"]),
    ],
)
def test_os_kill_of_a_pid_the_code_looked_up_signals_what_it_looked_up(
    code: str, lookup: list[str], tmp_path: Path
) -> None:
    signals = [e for e in effects(f'python3 -c "{code}"', tmp_path) if e["op"] == "signal"]
    assert [e.get("lookup") for e in signals] == [lookup]


def test_os_kill_of_a_literal_pid_is_that_pid(tmp_path: Path) -> None:
    signals = [e for e in effects("python3 -c 'import os; os.kill(4242, 15)'", tmp_path) if e["op"] == "signal"]
    assert [(e["target"], "lookup" in e) for e in signals] == [("4242", False)]


# --- `printf '%s\0' ARGS | xargs -0 PROG`: an item built at run time is one item, the others stay known ---


def test_xargs_minus_0_keeps_the_known_items_around_one_built_at_run_time(tmp_path: Path) -> None:
    command = "printf '%s\\0' -p \"$(pgrep -f 'hookd serve')\" -batch | xargs -0 gdb"
    argv, found = analysed(command, tmp_path)
    assert ["gdb", "-p", "$(pgrep -f 'hookd serve')", "-batch"] in argv
    assert [e.get("lookup") for e in found if e["op"] == "signal"] == [["hookd", "serve"]]


# --- a process's own files: a write acts on the process (/proc/PID/mem, oom_score_adj); a path through a PID
# lookup's output is that process's file, known by its name ---


@pytest.mark.parametrize("entry", ["mem", "oom_score_adj", "oom_adj"])
def test_a_write_to_a_process_file_acts_on_the_process_it_names(entry: str, tmp_path: Path) -> None:
    command = f"echo 1000 | tee /proc/$(pgrep -f 'hookd serve')/{entry}"
    acts = [(e["target"], e["acts"]) for e in effects(command, tmp_path) if e["op"] == "signal"]
    assert acts == [("$(pgrep -f 'hookd serve')", "process")]


def test_other_proc_files_written_act_on_no_process(tmp_path: Path) -> None:
    assert not [e for e in effects("echo 3 > /proc/sys/vm/drop_caches", tmp_path) if e["op"] == "signal"]


@pytest.mark.parametrize(
    ("command", "path"),
    [
        ("grep -i vmrss /proc/$(pgrep -of 'node server.js')/status", "/proc/PID/status"),
        ("cat /proc/$(pidof node)/environ", "/proc/PID/environ"),
        ("cat /proc/$(cat name.txt)/status", ""),  # not a PID lookup: its output may hold `/` and `..`
    ],
)
def test_a_path_through_a_pid_lookup_is_that_processs_file(command: str, path: str, tmp_path: Path) -> None:
    assert [e["path"] for e in effects(command, tmp_path) if e["op"] == "read" and "proc" in e.get("raw", "")] == [path]


# --- logrotate rewrites the files each stanza of a configuration it loads names ---


def test_logrotate_rewrites_the_files_its_configuration_names(tmp_path: Path) -> None:
    written = "printf '%s {\\n  rotate 0\\n}\\n' \"$HOME/.local/state/hookd/decisions.log\" > /tmp/lr.conf && "
    rewrites = [e["path"] for e in effects(written + "logrotate -f /tmp/lr.conf", tmp_path) if e["op"] == "write"]
    assert f"{HOME}/.local/state/hookd/decisions.log" in rewrites
    debug = [e["path"] for e in effects(written + "logrotate -d /tmp/lr.conf", tmp_path) if e["op"] == "write"]
    assert f"{HOME}/.local/state/hookd/decisions.log" not in debug  # -d: nothing is rotated
