"""hookd.enrich.shell: commands run by other commands (the runner table), the expansions bash does first,
inline interpreter code, and links made earlier on the same line: each judged as what really runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookd.enrich.shell import parse_shell
from hookd.enrich.shell.expand import braces
from hookd.enrich.shell.inline import python_effects
from hookd.enrich.shell.runners import XARGS_INPUT

HOME = "/nonexistent-hookd-home/alice"


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    project = (tmp_path / "proj").resolve()
    project.mkdir()
    return project


def commands(command: str, proj: Path) -> list[dict[str, Any]]:
    result = parse_shell(command, home=HOME, base_dir=str(proj), project_dir=str(proj))
    assert result["parse_error"] is False, result["error"]
    return list(result["commands"])


def runs(command: str, proj: Path) -> list[list[str]]:
    return [c["argv"] for c in commands(command, proj)]


@pytest.mark.parametrize(
    ("source", "runner"),
    [
        ("busybox rm -rf ~", "busybox"),
        ("setsid rm -rf ~", "setsid"),
        ("flock /tmp/l rm -rf ~", "flock"),
        ("chroot / rm -rf ~", "chroot"),
        ("unbuffer rm -rf ~", "unbuffer"),
        ("systemd-run --user -p X=1 rm -rf ~", "systemd-run"),
        ("strace -f -o log rm -rf ~", "strace"),
        ("setpriv --reuid=0 rm -rf ~", "setpriv"),
        ("runuser -u root -- rm -rf ~", "runuser"),
        ("screen -dmS s rm -rf ~", "screen"),
    ],
)
def test_argv_runners_are_peeled(proj: Path, source: str, runner: str) -> None:
    (rm,) = commands(source, proj)
    assert (rm["argv"], rm["wrappers"]) == (["rm", "-rf", HOME], [runner])


@pytest.mark.parametrize(
    "source",
    [
        "script -qc 'rm -rf ~' /dev/null",
        "flock /tmp/l -c 'rm -rf ~'",
        "watch -n 1 rm -rf ~",
        "tmux new-session -d -s x 'rm -rf ~'",
        "tmux send-keys -t x 'rm -rf ~' Enter",
        "echo 'rm -rf ~' | at now",
        "echo 'rm -rf ~' | bash",
        "bash <<'EOF'\nrm -rf ~\nEOF",
        "sh -s <<< 'rm -rf ~'",
        "find . -exec rm -rf ~ \\;",
    ],
)
def test_scripts_of_runners_are_parsed(proj: Path, source: str) -> None:
    assert ["rm", "-rf", HOME] in runs(source, proj)


def test_a_shell_with_a_script_file_does_not_run_its_stdin(proj: Path) -> None:
    assert runs("echo 'rm -rf ~' | bash build.sh", proj) == [["echo", "rm -rf ~"], ["bash", "build.sh"]]


def test_find_exec_stands_for_what_find_finds(proj: Path) -> None:
    found = commands("find ~ -name 'id_*' -exec cat {} +", proj)[1]
    assert (found["argv"], found["wrappers"]) == (["cat", f"{HOME}/**/id_*"], ["find"])
    # the start point is depth 0 (find(1)): it is selected too, as itself
    assert runs("find /srv -execdir rm {} \\;", proj)[1:] == [["rm", "/srv"], ["rm", "/srv/*"]]


def test_xargs_operands_from_stdin_are_unknown(proj: Path) -> None:
    assert runs("cat list | xargs rm -rf", proj)[1] == ["rm", "-rf", XARGS_INPUT]
    assert runs("cat list | xargs -I{} rm -rf {}/x", proj)[1] == ["rm", "-rf", f"{XARGS_INPUT}/x"]


def test_xargs_operands_the_line_shows_are_known(proj: Path) -> None:
    assert runs("echo ~ | xargs rm -rf", proj)[1] == ["rm", "-rf", HOME]
    assert runs("echo / | xargs -I{} rm -rf {}x", proj)[1] == ["rm", "-rf", "/x"]


def test_parallel_runs_its_command_with_its_inputs(proj: Path) -> None:
    assert runs("parallel rm -rf ::: ~ /tmp", proj)[1:] == [["rm", "-rf", HOME, "/tmp"]]
    assert runs("parallel gzip {} ::: a b", proj)[1:] == [["gzip", "a"], ["gzip", "b"]]


def test_container_commands_are_judged_on_the_host_paths_they_mount(proj: Path) -> None:
    assert runs("docker run -v /:/host alpine rm -rf /host/etc", proj)[1] == ["rm", "-rf", "/etc"]
    assert runs("podman run --rm -v ~:/h alpine rm -rf /h", proj)[1] == ["rm", "-rf", HOME]
    assert runs("docker run --rm alpine rm -rf /", proj) == [["docker", "run", "--rm", "alpine", "rm", "-rf", "/"]]


@pytest.mark.parametrize(
    ("source", "argv"),
    [
        ("rm -{r,f} ~", ["rm", "-r", "-f", HOME]),
        ("{rm,-rf,~}", ["rm", "-rf", HOME]),
        ("rm${IFS}-rf${IFS}~", ["rm", "-rf", HOME]),
        ("rm -rf ~root/x", ["rm", "-rf", "/root/x"]),
        ("rm -rf ~bob", ["rm", "-rf", "/home/bob"]),
        ("echo '{a,b}'", ["echo", "{a,b}"]),
        ("awk '{print $1,$2}' f", ["awk", "{print $1,$2}", "f"]),
        ("find . -exec ls {} +", ["find", ".", "-exec", "ls", "{}", "+"]),
    ],
)
def test_expansions_bash_does_first(proj: Path, source: str, argv: list[str]) -> None:
    assert runs(source, proj)[0] == argv


def test_variables_set_earlier_on_the_line_are_known(proj: Path) -> None:
    assert runs("X=rm; $X -rf ~", proj)[-1] == ["rm", "-rf", HOME]
    assert runs("a=r; b=m; $a$b -rf ~", proj)[-1] == ["rm", "-rf", HOME]
    assert runs("X=$(date); $X -rf ~", proj)[-1][0] == "$X"  # not known: stays dynamic


@pytest.mark.parametrize(
    ("source", "argv"),
    [
        # inside double quotes an expansion stays one word, as bash keeps it: `-c` gets the whole script
        ('X="rm -rf ~"; sh -c "$X"', ["sh", "-c", "rm -rf ~"]),
        ('X="rm -rf ~"; sh -c "echo; ${X}"', ["sh", "-c", "echo; rm -rf ~"]),
        ('X="rm -rf ~"; if true; then sh -c "$X"; fi', ["sh", "-c", "rm -rf ~"]),
        ('f="my file"; rm "$f"', ["rm", "my file"]),
        # outside them it is split, and `"$@"`, `"${a[@]}"` give a word per element
        ('X="rm -rf ~"; sh -c $X', ["sh", "-c", "rm", "-rf", HOME]),
        ('X="-r -f"; rm "a"$X', ["rm", "a-r", "-f"]),
        ('a=(-r -f); rm "${a[@]}" ~', ["rm", "-r", "-f", HOME]),
    ],
)
def test_a_quoted_expansion_is_one_word(proj: Path, source: str, argv: list[str]) -> None:
    assert argv in runs(source, proj)


def test_attributes_that_change_a_value_make_it_unknown(proj: Path) -> None:
    # a name reference reads and sets the variable it names; one whose target is named at run time is unknown
    assert runs('declare -n r=HOME; rm -rf "$r"', proj)[-1] == ["rm", "-rf", HOME]
    assert runs('X=build; declare -n r=X; r=~; rm -rf "$X"', proj)[-1] == ["rm", "-rf", HOME]
    assert runs('X=build; declare -n r="$1"; r=~; rm -rf "$X"', proj)[-1] == ["rm", "-rf", "$X"]
    assert runs("declare -l c=RM; $c -rf ~", proj)[-1][0] == "$c"  # lower-cased when the shell runs it
    assert runs('declare -r x=build; rm -rf "$x"', proj)[-1] == ["rm", "-rf", "build"]


def test_ifs_set_on_the_line_splits_values(proj: Path) -> None:
    assert runs('IFS=,; x="rm,-rf,/"; $x', proj)[-1] == ["rm", "-rf", "/"]


def test_code_that_runs_later_is_judged_where_it_is_defined(proj: Path) -> None:
    assert ["rm", "-rf", HOME] in runs("trap 'rm -rf ~' EXIT", proj)
    assert runs("trap - EXIT; trap INT", proj) == [["trap", "-", "EXIT"], ["trap", "INT"]]
    tmp = runs("t=$(mktemp -d); trap 'rm -rf \"$t\"' EXIT", proj)[-1]
    assert tmp[:2] == ["rm", "-rf"] and tmp[2].startswith("/tmp/")  # its own shell's variables
    assert ["rm", "-rf", HOME] in runs("alias x='rm -rf ~'\nx", proj)


def test_a_redirect_target_takes_the_variables_set_before(proj: Path) -> None:
    (command,) = [c for c in commands('out=build/log; make > "$out"', proj) if c["argv"][:1] == ["make"]]
    assert command["redirects"][0]["path"] == str(proj / "build" / "log")


def test_substitutions_that_only_echo_literal_words_are_their_output(proj: Path) -> None:
    assert runs("$(echo rm) -rf ~", proj)[0] == ["rm", "-rf", HOME]
    assert runs("`echo pwd`", proj)[0] == ["pwd"]
    assert runs("rm -rf x$(echo -n y z)", proj)[0] == ["rm", "-rf", "xy", "z"]
    assert runs("$(echo $HOME) x", proj)[0][0] == "$(echo $HOME)"  # not literal: stays dynamic
    assert runs("$(echo -e 'r\\x6d') x", proj)[0][0].startswith("$(")
    assert runs("$(ls) x", proj)[0][0] == "$(ls)"


def test_brace_ranges_and_limits() -> None:
    assert braces("f{1..3}") == ["f1", "f2", "f3"]
    assert braces("{a,b}{c,d}") == ["ac", "ad", "bc", "bd"]
    assert len(braces("{" + ",".join("x" * 2 for _ in range(30)) + "}" * 1 + "{1..99}")) == 256


@pytest.mark.parametrize(
    ("code", "argv"),
    [
        ("import shutil; shutil.rmtree('/')", ["rm", "-r", "-f", "/"]),
        ("import subprocess; subprocess.run(['rm', '-rf', '/'])", ["rm", "-rf", "/"]),
        ("print(open('/root/.ssh/id_rsa').read())", ["cat", "/root/.ssh/id_rsa"]),
        ("open('out', 'w').write('x')", ["tee", "out"]),
        ("import pathlib; pathlib.Path('.git/config').write_text('x')", ["tee", ".git/config"]),
        ("import os; os.remove(os.path.expanduser('~/.bashrc'))", ["rm", "~/.bashrc"]),
    ],
)
def test_python_effects_are_commands(code: str, argv: list[str]) -> None:
    effects = python_effects(code)
    assert effects.commands == [argv] and not effects.dynamic


def test_python_that_builds_what_it_runs_is_dynamic() -> None:
    assert python_effects("import sys; exec(sys.stdin.read())").dynamic
    assert python_effects("getattr(__import__('os'), 'sys' + 'tem')('x')").dynamic
    assert python_effects("def (:").parsed is False
    assert python_effects("import os; os.system('rm -rf ~')").scripts == ["rm -rf ~"]
    assert not python_effects("import json, sys; print(json.load(sys.stdin))").dynamic


def test_inline_python_is_judged_as_its_effects(proj: Path) -> None:
    cmds = commands("python3 -c \"import os; os.system('rm -rf ~')\"", proj)
    assert cmds[0]["inline"]["language"] == "python" and cmds[0]["inline"]["dynamic"] is False
    assert ["rm", "-rf", HOME] in [c["argv"] for c in cmds]
    heredoc = commands("python3 - <<'PY'\nimport shutil\nshutil.rmtree('/srv')\nPY", proj)
    assert (heredoc[1]["argv"], heredoc[1]["wrappers"]) == (["rm", "-r", "-f", "/srv"], ["python"])
    assert commands("perl -e 'system(1)'", proj)[0]["inline"] == {
        "language": "perl", "parsed": False, "dynamic": True, "code": "system(1)"
    }  # fmt: skip
    assert "inline" not in commands("python3 -m pytest", proj)[0]


def test_writes_through_a_link_made_earlier_land_where_it_points(proj: Path) -> None:
    cmds = commands("ln -s ~/.ssh s && printf k >> s/authorized_keys", proj)
    assert cmds[1]["redirects"][0]["path"] == f"{HOME}/.ssh/authorized_keys"
    assert cmds[1]["redirects"][0]["in_project"] is False
    relative = commands("ln -s ../.git/hooks h && touch h/pre-commit", proj)
    assert relative[1]["args"][0]["path"] == f"{proj.parent}/.git/hooks/pre-commit"
    plain = commands("ln -s build/app app && cat app/x", proj)
    assert plain[1]["args"][0]["path"] == f"{proj}/build/app/x"


def test_expansion_never_drops_a_word(proj: Path) -> None:
    words = " ".join(f"f{i}" for i in range(600))
    assert runs(f"rm -rf {words} ~", proj)[0][-1] == HOME
    some = " ".join("{a,b}{c,d}{e,f}{g,h}" for _ in range(60))
    argv = runs(f"echo {some} ~", proj)[0]
    assert argv[-1] == HOME and len(argv) == 60 * 16 + 2
    many = " ".join("{a,b}{c,d}{e,f}{g,h}" for _ in range(600))  # past the line's walk: not known, none left out
    result = parse_shell(f"echo {many} ~", home=HOME, base_dir=str(proj), project_dir=str(proj))
    assert result["parse_error"] is True and "words" in str(result["error"])


@pytest.mark.parametrize(
    ("words", "text"),
    [
        (["printf", "\\162\\155 %s\\045s\\n", "x"], "rm x%s\n"),  # an escaped `%` is output, not a conversion
        (["printf", "\\045s %s", "a", "b"], "%s a%s b"),
        (["printf", "%s-%%\\n", "a"], "a-%\n"),
        (["printf", "%b", "\\x72m"], "rm"),
    ],
)
def test_printf_finds_its_conversions_in_the_format_as_written(words: list[str], text: str) -> None:
    from hookd.enrich.shell.runners import printed

    assert printed(words) == text


def test_a_line_printf_spells_in_octal_escapes_is_the_line(proj: Path) -> None:
    line = "printf 'rm -rf %s\\n' ~/Documents | sh"
    encoded = "".join(f"\\{b:03o}" for b in line.encode())
    ran = [c["argv"] for c in commands(f"printf '{encoded}' | sh", proj)]
    assert ["rm", "-rf", f"{HOME}/Documents"] in ran
