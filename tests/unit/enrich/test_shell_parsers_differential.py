"""The full parse path, tree-sitter-bash against bashlex (hookd.enrich.shell.sitter, .parser): over every
command of the policy corpus and case files, as written and inside a subshell, after a comment and in an
`if` (which sends each through the full path), both give the same `input.shell`, or bashlex fails or
misreads where tree-sitter does not. Each kind of difference is named below."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from corpus_share import in_share

from hookd.enrich.shell import parse_shell
from hookd.enrich.shell import parser as shell_parser

ROOT = Path(__file__).resolve().parents[3]
FORMS = ("{}", "( {}\n)", "# note\n{}", "if true; then\n{}\nfi")


def corpus_commands() -> list[str]:
    found: list[str] = []
    for path in sorted((ROOT / "policies").rglob("corpus/*.jsonl")):
        lines = map(json.loads, path.read_text().splitlines())
        found += [c["command"] for c in lines if "command" in c and _taken(c["command"])]
    for path in sorted((ROOT / "policies").rglob("cases/*.json")):
        found += [
            c["payload"]["tool_input"]["command"]
            for c in json.loads(path.read_text())
            if isinstance(c.get("payload", {}).get("tool_input", {}).get("command"), str)
        ]
    return list(dict.fromkeys(found))


def parse_with(parser: str, script: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setattr(shell_parser, "FULL_PARSER", parser)
    shell_parser._parse_cached.cache_clear()
    try:
        return parse_shell(script, home="/home/u", base_dir="/p", project_dir="/p")
    finally:
        shell_parser._parse_cached.cache_clear()


def _taken(command: str) -> bool:
    """The corpus's share (tests/corpus_share.py), and every line the parsers are known to read apart."""
    special = (heredoc_in_compound, arithmetic_command, single_quoted_substitution)
    return in_share(command) or any(test(form.format(command)) for test in special for form in FORMS)


def heredoc_in_compound(script: str) -> bool:
    """bashlex reads a here-document's body inside `( … )`, `if … fi` or a function's `{ … }` as commands of the
    compound."""
    return "<<" in script and (script.startswith(("(", "if ")) or re.search(r"\(\)\s*\{[^}]*<<", script) is not None)


def arithmetic_command(script: str) -> bool:
    """bashlex reads an arithmetic command `(( status ))` as nested subshells running its words (`status`)."""
    return re.search(r"(?:^|[;&|]|\bif|\bwhile|\buntil|\belif)\s*\(\(", script, re.M) is not None


def single_quoted_substitution(script: str) -> bool:
    """bashlex reads a `$(` inside single quotes joined to an option (`--eval='$(shell …)'`) as a substitution."""
    return re.search(r"='[^']*\$\(", script) is not None


def live_glob(command: str) -> bool:
    """A glob over /proc expands to the processes running at that moment: two parses may list different ones."""
    return "/proc/" in command and re.search(r"/proc/[^ '\"]*[*?\[]", command) is not None


def element_assignment(script: str) -> bool:
    """bashlex reads an array element set (`a[$(cmd)]=1`, `seen[$ip]=1`) as a command named by the whole word."""
    return re.search(r"(?:^|[\s;&|({])[A-Za-z_][A-Za-z0-9_]*\[[^\]]*\]\+?=", script) is not None


def scripts() -> Iterator[str]:
    for command in corpus_commands():
        if live_glob(command):
            continue
        for form in FORMS:
            yield form.format(command)


@pytest.mark.timeout(900)  # grows with the corpus; the limit only stops a stuck run
def test_tree_sitter_reads_what_bashlex_reads_and_more(monkeypatch: pytest.MonkeyPatch) -> None:
    same = better = heredocs = quoted = 0
    for script in scripts():
        old = parse_with("bashlex", script, monkeypatch)
        new = parse_with("tree-sitter", script, monkeypatch)
        if old == new:
            same += 1
        elif old["parse_error"] and not new["parse_error"]:
            better += 1  # `case`, `[[ ]]` after a comment, `time`, `$((…))`, a comment alone
        elif heredoc_in_compound(script):
            assert not new["parse_error"] and old["commands"][0]["argv"] == new["commands"][0]["argv"], script
            heredocs += 1  # tree-sitter: the body is the command's stdin (a shell's script, one level deeper)
        elif arithmetic_command(script):
            assert not new["parse_error"], script  # tree-sitter: an arithmetic test, no command
        elif single_quoted_substitution(script):
            # tree-sitter: no substitution in single quotes (bashlex's extra commands may come before those the
            # quoted code itself runs: `--eval='$(shell …)'`, whose make text is walked)
            assert not new["parse_error"] and all(
                c["argv"] in [o["argv"] for o in old["commands"]] for c in new["commands"]
            ), script
            quoted += 1
        elif element_assignment(script):
            # tree-sitter: an assignment (benign44), which runs what its subscript and value substitute, as bashlex
            assert not new["parse_error"] and all(
                c["argv"] in [o["argv"] for o in old["commands"]] for c in new["commands"] if c["argv"]
            ), script
        else:
            raise AssertionError(f"{script!r}\nbashlex:     {old}\ntree-sitter: {new}")
    assert same > 3000 and better >= 20 and heredocs >= 4 and quoted >= 1, (
        same,
        better,
        heredocs,
        quoted,
    )  # docs/policies.md


@pytest.mark.parametrize(
    ("script", "argvs"),
    [
        ('case "$1" in a) echo a;; *) rm -rf ~;; esac', [["echo", "a"], ["rm", "-rf", "/home/u"]]),
        ('f() { rm -rf "$1"; }; f ~', [["f", "/home/u"], ["rm", "-rf", "/home/u"]]),
        ("select x in a; do rm -rf /; done", [["rm", "-rf", "/"]]),
        ("for f in $(ls); do rm $f; done # c", [["ls"], ["rm", "$f"]]),
        ("while read l; do echo $l; done < in.txt", [["read", "l"], ["echo", "$l"]]),
        ("ln -s ~/.ssh s && printf x >> s/k # c", [["ln", "-s", "/home/u/.ssh", "s"], ["printf", "x"]]),
        ("echo foo`git reset --hard`bar # c", [["echo", "foo`git reset --hard`bar"], ["git", "reset", "--hard"]]),
    ],
)
def test_what_only_the_full_path_reads(script: str, argvs: list[list[str]]) -> None:
    shell = parse_shell(script, home="/home/u", base_dir="/p", project_dir="/p")
    assert not shell["parse_error"], shell["error"]
    assert [c["argv"] for c in shell["commands"]] == argvs


def test_a_redirect_after_a_list_is_the_last_commands() -> None:
    shell = parse_shell("ln -s ~/.ssh s && printf x >> s/k # c", home="/home/u", base_dir="/p", project_dir="/p")
    assert [[r["path"] for r in c["redirects"]] for c in shell["commands"]] == [[], ["/home/u/.ssh/k"]]


def test_a_word_tree_sitter_drops_sends_the_script_to_bashlex() -> None:
    shell = parse_shell("python3 - <<'PY'\nprint(1)\nPY\n# c", home="/home/u", base_dir="/p", project_dir="/p")
    assert shell["commands"][0]["argv"] == ["python3", "-"]


def test_a_redirect_after_a_here_document_is_the_commands() -> None:
    shell = parse_shell("# c\ncat <<EOF > .env\nK=$(id)\nEOF", home="/home/u", base_dir="/p", project_dir="/p")
    assert not shell["parse_error"]
    assert [(c["argv"], [r["target"] for r in c["redirects"]]) for c in shell["commands"]] == [
        (["cat"], ["EOF", ".env"]),
        (["id"], []),
    ]


@pytest.mark.parametrize(
    "script",
    [
        "if true; then\nc='rm -rf ~/Documents'; if false; then c=ls; fi; $c\nfi",
        'if a; then if b; then x=~/Documents; fi; rm -rf "$x"; fi',
        "if a; then b; elif c; then if d; then x=1; else x=2; fi; rm -rf $x; else e; fi",
        "( c='rm -rf ~/Documents'; c=ls & $c\n)",  # and `&` inside a subshell: what it ends is a subshell too
        "f() { c=ls & $c; }; c='rm -rf ~/Documents'; f",
    ],
)
def test_an_if_inside_a_branch_is_a_statement_of_that_branch(script: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """tree-sitter read an `if` statement inside a branch as a new branch of the outer `if`: the commands after it
    went into a block of their own that may not run, so what the branch set before it was not known there."""
    assert parse_with("tree-sitter", script, monkeypatch) == parse_with("bashlex", script, monkeypatch)
