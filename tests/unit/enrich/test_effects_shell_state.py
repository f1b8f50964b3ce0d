"""Shell state a line sets up for its later commands: aliases and `hash -p` names, `${x@P}` (a value
expanded as a prompt, its substitutions run) and text held on a descriptor for a later `<&N`."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, analysed, ops

from hookd.enrich.shell.state import LOOP_WALKS


def _deleted(command: str, proj: Path) -> list[str]:
    return [e["path"] for e in ops(command, proj, "delete")]


@pytest.mark.parametrize(
    "command",
    [
        "shopt -s expand_aliases\nalias wipe='rm -rf'\nwipe ~/Documents",
        "alias wipe='rm -r -f --'; wipe ~/Documents",
        "alias wipe='rm -rf' tidy='ls'; tidy; wipe ~/Documents",
        "hash -p /bin/rm ls; ls -rf ~/Documents",
        "hash -p /usr/bin/rm ll la; la -rf ~/Documents",
        "BASH_ALIASES[w]='rm -rf'; w ~/Documents",
        "BASH_CMDS[ls]=/bin/rm; ls -rf ~/Documents",
    ],
)
def test_a_name_the_line_rebinds_runs_what_it_was_bound_to(command: str, tmp_path: Path) -> None:
    assert _deleted(command, tmp_path) == ["/home/u/Documents"]


def test_an_alias_with_shell_syntax_runs_with_the_words_after_it(tmp_path: Path) -> None:
    assert "/home/u/Documents" in _deleted("alias w='cd ~;'; w rm -rf Documents", tmp_path)


def test_an_everyday_alias_keeps_its_meaning(tmp_path: Path) -> None:
    argvs, found = analysed("alias ll='ls -la'; ll src", tmp_path)
    assert ["ls", "-la", "src"] in argvs
    assert [e["op"] for e in found] == ["list"]


@pytest.mark.parametrize(
    "command",
    [
        "x='$(rm -rf ~/Documents)'; echo \"${x@P}\"",
        "p='`rm -rf ~/Documents`'; printf '%s' \"${p@P}\"",
    ],
)
def test_a_prompt_expansion_runs_the_substitutions_in_the_value(command: str, tmp_path: Path) -> None:
    assert _deleted(command, tmp_path) == ["/home/u/Documents"]


def test_a_prompt_expansion_of_a_value_not_on_the_line_is_built_at_run_time(tmp_path: Path) -> None:
    assert [(e["known"], e["built"]) for e in ops('echo "${PS1@P}"', tmp_path, "exec")] == [(False, True)]


def test_a_plain_value_expanded_as_a_prompt_runs_nothing(tmp_path: Path) -> None:
    assert ops("x='build ok'; echo \"${x@P}\"", tmp_path, "exec") == []


@pytest.mark.parametrize(
    "command",
    [
        "exec 3<<<'rm -rf ~/Documents'; bash <&3",
        "exec 7<<EOF\nrm -rf ~/Documents\nEOF\nsh 0<&7",
        "exec {fd}<<<'rm -rf ~/Documents'; bash <&$fd",
        "printf 'rm -rf ~/Documents' > /tmp/x.sh; exec 3< /tmp/x.sh; bash <&3",
    ],
)
def test_text_held_on_a_descriptor_is_the_script_of_a_shell_reading_it(command: str, tmp_path: Path) -> None:
    assert _deleted(command, tmp_path) == ["/home/u/Documents"]


def test_a_descriptor_duplicated_with_nothing_held_is_no_script(tmp_path: Path) -> None:
    argvs, _ = analysed("exec 3<&0; cat <&3", tmp_path)
    assert argvs[-1] == ["cat"]


@pytest.mark.parametrize(
    "command",
    [
        "sh -c 'rm -rf \"$1\"' _ ~/Documents",
        "bash -c 'rm -rf \"$@\"' name ~/Documents",
        "sh -c 'rm -rf $2' a b ~/Documents",
        "sh -c 'shift; rm -rf \"$1\"' _ build ~/Documents",
    ],
)
def test_a_command_string_runs_with_the_words_after_its_name_as_its_positional_parameters(
    command: str, tmp_path: Path
) -> None:
    assert "/home/u/Documents" in _deleted(command, tmp_path)


def test_a_command_string_deletes_what_find_hands_it_as_find_would(tmp_path: Path) -> None:
    (tmp_path / "a.pyc").write_text("")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "b.pyc").write_text("")
    deleted = _deleted("find . -name '*.pyc' -exec sh -c 'rm \"$1\"' _ {} \\;", tmp_path)
    assert deleted and all(path.startswith(str(tmp_path)) and path.endswith(".pyc") for path in deleted)
    home = _deleted("find ~ -maxdepth 1 -name Documents -exec sh -c 'rm -rf \"$1\"' _ {} \\;", tmp_path)
    assert "/home/u/**/Documents" in home  # what find selects below the home


@pytest.mark.parametrize(
    "command",
    [
        'set -- build ~/Documents; shift; rm -rf "$1"',
        'set -- build; set -e -- ~/Documents; rm -rf "$1"',
        'set -- build; set -euo pipefail ~/Documents; rm -rf "$1"',
        'set -- build; set - ~/Documents; rm -rf "$1"',
        'set -- build x ~/Documents; shift 2; rm -rf "$@"',
    ],
)
def test_the_builtins_that_change_the_positional_parameters_change_them(command: str, tmp_path: Path) -> None:
    assert _deleted(command, tmp_path) == ["/home/u/Documents"]


@pytest.mark.parametrize(
    "command",
    [
        'set -- build ~/Documents; shift $n; rm -rf "$1"',
        'x=build; unset x; x=${x:-~/Documents}; rm -rf "$x"',
        "a=(build); unset 'a[0]'; rm -rf \"${a[@]:-$HOME/Documents}\"",
        'OPTARG=build; getopts d: o -d ~/Documents; rm -rf "$OPTARG"',
    ],
)
def test_a_value_a_builtin_changes_as_it_runs_is_no_longer_the_one_set_before(command: str, tmp_path: Path) -> None:
    assert str(tmp_path / "build") not in _deleted(command, tmp_path)
    assert _deleted(command, tmp_path)  # the delete is still there, of a path not known


def test_options_alone_keep_the_positional_parameters(tmp_path: Path) -> None:
    assert _deleted('set -- build; set -euo pipefail; rm -rf "$1"', tmp_path) == [str(tmp_path / "build")]


def test_find_hands_its_command_string_only_the_way_it_runs_it(tmp_path: Path) -> None:
    # not also as a command line handed to a program with no table (untabled.runs_without_table): `$@` unknown there
    found = ops("find . -name '*.orig' -exec sh -c 'rm -- \"$@\"' _ {} +", tmp_path, "delete")
    assert [(e["path"], e["known"]) for e in found] == [(f"{tmp_path}/**/*.orig", True)]


@pytest.mark.parametrize(
    "command",
    [
        "x=build; sh -c 'x=~/Documents; rm -rf \"$x\"'",
        "d=build; eval 'd=~/Documents; rm -rf $d'",
        "x=build; echo 'x=~/Documents; rm -rf \"$x\"' | sh",
        "x=build; bash -c $'x=~/Documents; rm -rf \"\\x24x\"'",
        "x=build; x=~/Documents sh -c 'rm -rf \"$x\"'",
        "x=build; x=~/Documents eval 'rm -rf \"$x\"'",
        "x=build; export x; env x=~/Documents sh -c 'rm -rf \"$x\"'",
    ],
)
def test_a_quoted_dollar_is_the_scripts_own_not_the_lines(command: str, tmp_path: Path) -> None:
    # `'…$x…'` is text: the shell that runs it expands `$x`, with what it set or was given, not the line's value
    assert "/home/u/Documents" in _deleted(command, tmp_path)
    assert str(tmp_path / "build") not in _deleted(command, tmp_path)


@pytest.mark.parametrize(
    "command",
    ["tmp=$(mktemp -d); trap 'rm -rf \"$tmp\"' EXIT", "eval 'for f in *.txt; do wc -l \"$f\"; done'"],
)
def test_quoted_code_for_the_same_shell_is_known_text(command: str, tmp_path: Path) -> None:
    assert [e["known"] for e in ops(command, tmp_path, "exec")] == [True]


def test_a_file_the_shell_reads_sets_what_its_text_sets(tmp_path: Path) -> None:
    (tmp_path / "env.sh").write_text("x=~/Documents\n")  # written by an earlier call: read (enrich/sourced.py)
    assert _deleted('x=build; . ./env.sh; rm -rf "$x"', tmp_path) == ["/home/u/Documents"]
    assert _deleted('set -- build; source ./env.sh; rm -rf "$1"', tmp_path) == [str(tmp_path / "build")]


def test_a_file_the_shell_reads_but_hookd_does_not_may_set_any_variable(tmp_path: Path) -> None:
    (tmp_path / "env.sh").write_text("x=~/Documents\n" * 2048)  # past enrich/sourced.py's MAX_SOURCED
    for command in ('x=build; . ./env.sh; rm -rf "$x"', 'set -- build; source ./env.sh; rm -rf "$1"'):
        assert str(tmp_path / "build") not in _deleted(command, tmp_path)
        assert _deleted(command, tmp_path)  # a delete of a path not known


def test_a_file_that_is_not_there_sets_nothing(tmp_path: Path) -> None:
    assert _deleted('x=build; . ./missing.sh; rm -rf "$x"', tmp_path) == [str(tmp_path / "build")]


@pytest.mark.parametrize(
    "command",
    [
        'coproc bc -l; echo \'2*21\' >&"${COPROC[1]}"; read -r ans <&"${COPROC[0]}"',
        'coproc CALC { bc -l; }; echo 1 >&"${CALC[1]}"',
        'fd=3; exec 3>build.log; echo hi >&"$fd"',
    ],
)
def test_a_duplication_of_a_descriptor_named_by_a_variable_writes_no_file(command: str, tmp_path: Path) -> None:
    assert [e for e in ops(command, tmp_path, "write") + ops(command, tmp_path, "read") if not e["known"]] == []


def test_a_variable_naming_a_file_after_the_ampersand_is_still_that_file(tmp_path: Path) -> None:
    assert [e["path"] for e in ops('x=~/.bashrc; echo hi >&"$x"', tmp_path, "write")] == ["/home/u/.bashrc"]


def test_the_null_command_reads_none_of_its_words(tmp_path: Path) -> None:
    assert ops(': "${KEY:=~/.ssh/id_rsa}"', tmp_path, "read") == []


@pytest.mark.parametrize(
    ("command", "deleted"),
    [
        ("mapfile -t pyc < <(find . -name '*.pyc'); rm -f \"${pyc[@]}\"", "{proj}"),
        ('readarray -t d < <(find ~/Documents -maxdepth 1); rm -rf "${d[@]}"', "/home/u/Documents"),
    ],
)
def test_each_element_mapfile_fills_from_a_listing_is_a_name_it_listed(
    command: str, deleted: str, tmp_path: Path
) -> None:
    assert _deleted(command, tmp_path) == [deleted.format(proj=tmp_path)]


def test_every_word_of_a_long_for_list_is_judged(tmp_path: Path) -> None:
    """A word past the sixteenth of a `for` list was never walked: `for d in a … r ~; do rm -rf $d; done` hid `~`."""
    words = " ".join(f"w{n}" for n in range(40))
    assert _deleted(f"for d in {words} ~/Documents; do rm -rf $d; done", tmp_path)[-1] == "/home/u/Documents"


def test_the_walks_of_loops_in_loops_are_bounded_and_what_is_left_is_unknown(tmp_path: Path) -> None:
    """Each word of every list is walked until the line has used LOOP_WALKS walks (four nested loops of 16 words
    once took 65,536); the rest is walked once more with the variable not known, so the delete is of an unknown path."""
    sixteen = " ".join(map(str, range(16)))
    line = "".join(f"for {v} in {sixteen}; do " for v in "abcd") + "rm -rf $a$b$c$d" + "; done" * 4
    commands, effects = analysed(line, tmp_path)
    assert len(commands) <= LOOP_WALKS + 4
    assert any(e["op"] == "delete" and not e["known"] for e in effects)
    many = " ".join(f"w{n}" for n in range(LOOP_WALKS + 10))
    deletes = ops(f"for d in {many}; do rm -rf $d; done", tmp_path, "delete")
    assert len(deletes) == LOOP_WALKS + 1 and deletes[-1]["known"] is False


@pytest.mark.parametrize(
    ("command", "deleted"),
    [
        ('cd /srv/a && cd /srv/b && rm -rf "$OLDPWD/x"', "/srv/a/x"),  # bash: OLDPWD is where the last cd left
        ("cd /srv/a; cd /srv/b; cd -; rm -rf x", "/srv/a/x"),  # `cd -` goes there
        ("cd /srv/a && cd /srv/b && rm -rf ~-/x", "/srv/a/x"),  # `~-` is $OLDPWD
        ('(cd /srv/b && rm -rf "$OLDPWD/y")', "{proj}/y"),  # the line's own working directory before it
        ("pushd /srv/a && cd /srv/b && cd - && rm -rf x", "/srv/a/x"),
    ],
)
def test_the_directory_before_the_lines_last_cd_is_known(command: str, deleted: str, tmp_path: Path) -> None:
    for directory in ("a", "b"):
        (tmp_path / "srv" / directory).mkdir(parents=True)
    command, deleted = (text.replace("/srv/", f"{tmp_path}/srv/") for text in (command, deleted))
    assert [e["path"] for e in ops(command, tmp_path, "delete")] == [deleted.format(proj=tmp_path)]


def test_the_directory_before_the_line_is_not(tmp_path: Path) -> None:
    """The agent's shell's own OLDPWD (a persistent session's, or none) is not the line's to know."""
    assert [e["known"] for e in ops('rm -rf "$OLDPWD/x"', tmp_path, "delete")] == [False]
    assert [e.get("after_cd") for e in ops("cd -; rm -rf x", tmp_path, "delete")] == [True]


@pytest.mark.parametrize(
    ("command", "deleted"),
    [
        ("cd /srv/a; cd /srv/b; OLDPWD=/srv/c; cd -; rm -rf x", "/srv/c/x"),  # `cd -` is `cd "$OLDPWD"`
        ("cd /srv/a; cd /srv/b; OLDPWD=/srv/c; rm -rf ~-/x", "/srv/c/x"),
        ('cd /srv/a && OLDPWD=/srv/c && cd /srv/b && rm -rf "$OLDPWD/x"', "/srv/a/x"),  # each cd sets it again
    ],
)
def test_the_lines_own_oldpwd_is_the_one_used(command: str, deleted: str, tmp_path: Path) -> None:
    for directory in ("a", "b", "c"):
        (tmp_path / directory).mkdir()
    command = command.replace("/srv/", f"{tmp_path}/")
    assert [e["path"] for e in ops(command, tmp_path, "delete")] == [deleted.replace("/srv/", f"{tmp_path}/")]


@pytest.mark.parametrize(
    "command",
    [
        'cd /srv/a; cd /srv/b; unset OLDPWD; rm -rf "$OLDPWD"/*',  # bash: `/*`
        'read -r OLDPWD < f; rm -rf "$OLDPWD"/x',
        'cd /srv/a; cd /srv/nowhere; rm -rf "$OLDPWD"/x',  # a cd into nothing fails: OLDPWD is as it was
        'unset PWD; rm -rf "$PWD"/*',
    ],
)
def test_a_directory_variable_the_line_unsets_or_reads_is_not_known(command: str, tmp_path: Path) -> None:
    for directory in ("a", "b"):
        (tmp_path / directory).mkdir()
    command = command.replace("/srv/", f"{tmp_path}/")
    assert [e["known"] for e in ops(command, tmp_path, "delete")] == [False]


def test_an_arithmetic_command_is_read_by_the_tree(tmp_path: Path) -> None:
    """`((…))` runs its substitutions and assigns numbers; it was a parse error (`while ((n < 3))` read a file `3`)."""
    effects = analysed("n=0; while ((n < 3)); do n=$((n+1)); done; ((i++)); echo $((n))", tmp_path)[1]
    assert not [e for e in effects if e["op"] == "read"]
    assert [e["path"] for e in ops("(( $(rm -rf ~/x) ))", tmp_path, "delete")] == [f"{HOME}/x"]
    assert [e["known"] for e in ops("p=/srv/x; ((p=0)); rm -rf $p", tmp_path, "delete")] == [False]  # a number now
