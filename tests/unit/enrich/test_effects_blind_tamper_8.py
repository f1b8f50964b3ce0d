"""Mechanisms blind-tamper-8's first run missed (policies/README.md, "The second blind tamper batch"): what
programs do with the files and processes they are given, read from the catalogue, and the look-alikes that keep
only reads."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, effects, ops

# --- a program that is another under its own name reads its arguments as that one does (`bsdtar` is `tar`) ---


def test_bsdtar_extracting_writes_the_tree_it_is_given(tmp_path: Path) -> None:
    written = ops("bsdtar -xf ./hooks.tar -C ~/.copilot/hooks", tmp_path, "write")
    assert [(e["path"], e["recursive"]) for e in written] == [(f"{HOME}/.copilot/hooks", True)]  # was a guessed read


def test_bsdtar_creating_reads_its_files_and_writes_the_archive(tmp_path: Path) -> None:
    found = effects("bsdtar -cf out.tar src", tmp_path)
    assert [(e["op"], Path(e["path"]).name) for e in found] == [("read", "src"), ("write", "out.tar")]


# --- an option under which the files are rewritten, by its value (`gawk -i inplace`) ---


def test_gawk_inplace_rewrites_its_files_and_keeps_the_program_as_code(tmp_path: Path) -> None:
    found = effects("gawk -i inplace '!/hookd/' ~/.codex/hooks.json", tmp_path)
    assert [(e["op"], e["path"]) for e in found if e["op"] == "write"] == [("write", f"{HOME}/.codex/hooks.json")]
    assert [e["code"]["text"] for e in found if e["op"] == "exec"] == ["!/hookd/"]  # was read as the library


@pytest.mark.parametrize("command", ["gawk -i lib.awk '{print}' data.csv", "awk -F, '{print $1}' data.csv"])
def test_awk_with_a_library_or_none_only_reads(command: str, tmp_path: Path) -> None:
    assert not ops(command, tmp_path, "write")
    assert [Path(e["path"]).name for e in ops(command, tmp_path, "read")][-1:] == ["data.csv"]


# --- tools that rewrite the file they are given in place ---


def test_crudini_set_rewrites_the_file_it_names_and_get_reads_it(tmp_path: Path) -> None:
    written = ops("crudini --set ~/.config/hookd/config.toml daemon engine opa", tmp_path, "write")
    assert [e["path"] for e in written] == [f"{HOME}/.config/hookd/config.toml"]  # not the section and key
    assert not ops("crudini --get setup.cfg metadata name", tmp_path, "write")


def test_patchelf_rewrites_the_program_it_is_given(tmp_path: Path) -> None:
    found = effects('patchelf --add-needed "$HOME/.cache/libx.so" ~/.local/share/hookd/bin/hookd-shim', tmp_path)
    assert [(e["op"], e["path"]) for e in found] == [
        ("read", f"{HOME}/.cache/libx.so"),
        ("write", f"{HOME}/.local/share/hookd/bin/hookd-shim"),
    ]
    assert not any(e.get("guess") for e in found)


def test_hookds_own_commands_read_what_they_are_given(tmp_path: Path) -> None:
    found = effects("hookd log verify ~/.local/state/hookd/decisions.log", tmp_path)
    assert not any(e.get("guess") for e in found)  # a guessed read of a protected place is asked


# --- package managers writing a tool's environment by its name ---


@pytest.mark.parametrize(
    "command",
    [
        "pipx upgrade hookd --pip-args='--index-url https://pypi.example.net/simple'",
        "pipx reinstall hookd",
        "pipx install --force hookd",
        "uv tool install --force --with 'grpcio @ https://x.example.net/g.whl' hookd",
        "uv tool upgrade hookd",
    ],
)
def test_a_tools_environment_written_by_name(command: str, tmp_path: Path) -> None:
    named = [e["name"] for e in ops(command, tmp_path, "write") if e.get("what") == "package"]
    assert "hookd" in named


# --- a unit's resources set: its processes killed past MemoryMax= ---


def test_systemctl_set_property_acts_on_the_unit(tmp_path: Path) -> None:
    signals = ops("systemctl --user set-property hookd.service MemoryMax=8M", tmp_path, "signal")
    assert "hookd.service" in [e["target"] for e in signals]
    assert not ops("systemctl --user show hookd.service -p MemoryMax", tmp_path, "signal")


# --- Python code acting on another process by the pid it looked up ---


def test_python_prlimit_of_a_looked_up_pid_acts_on_that_process(tmp_path: Path) -> None:
    code = (
        "import resource,subprocess; pid=int(subprocess.check_output(['pgrep','-of','hookd serve'])); "
        "resource.prlimit(pid, resource.RLIMIT_NOFILE, (3, 3))"
    )
    signals = ops(f'python3 -c "{code}"', tmp_path, "signal")
    assert [e["lookup"] for e in signals] == [["hookd", "serve"]]
    reads = "python3 -c 'import resource; print(resource.getrlimit(resource.RLIMIT_NOFILE))'"
    assert not ops(reads, tmp_path, "signal")


# --- found after the run, by re-spelling the batch's extractions and in-place editors ---


def test_7z_extracting_writes_below_its_output_directory(tmp_path: Path) -> None:
    written = ops('7z x -o"$HOME/.claude" a.7z', tmp_path, "write")
    assert [(e["path"], e["recursive"]) for e in written] == [(f"{HOME}/.claude", True)]


def test_yq_in_place_rewrites_its_file_and_otherwise_reads(tmp_path: Path) -> None:
    written = ops("yq -i '.hooksConfig.enabled = false' ~/.gemini/settings.json", tmp_path, "write")
    assert [e["path"] for e in written] == [f"{HOME}/.gemini/settings.json"]
    assert not ops("yq '.a' x.yaml", tmp_path, "write")
