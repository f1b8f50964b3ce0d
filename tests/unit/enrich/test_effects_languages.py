"""Inline code in another language (hookd.enrich.effects.languages, languages.json): the shell commands it runs
as literals, and whether anything else in it reaches the system."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookd.enrich.effects.catalogue import DATA, catalogue
from hookd.enrich.effects.languages import follow_code
from hookd.enrich.shell.build import analyse_shell

HOME = "/home/u"


def execs(command: str, tmp_path: Path) -> list[dict[str, Any]]:
    shell, found = analyse_shell(command, home=HOME, base_dir=str(tmp_path), project_dir=str(tmp_path))
    assert shell["parse_error"] is False, shell["error"]
    return [e for e in found if e["op"] == "exec"]


def test_every_language_names_its_documentation() -> None:
    languages = json.loads((DATA / "languages.json").read_text())["languages"]
    assert languages and all(str(spec["source"]).startswith("https://") for spec in languages.values())
    hooked = {h.lang for p in catalogue().programs.values() for h in p.runs if h.code or h.kind == "argv-code"}
    assert set(languages) <= hooked  # each is the `lang` of some interpreter's code hook


@pytest.mark.parametrize(
    ("command", "lang"),
    [("python -c 'print(1)'", "python"), ("python3 -c 'import json; print(json.dumps({}))'", "python"),
     ("awk '{print $1}' f", "awk"), ("gawk -F: '{n++} END {print n}' f", "awk"), ("sed -n 1p f", "sed"),
     ("sed 's/a/b/g' f", "sed"), ("perl -ne 'print if /x/' f", "perl"), ("ruby -e 'puts 1'", "ruby"),
     ("node -e 'console.log(1)'", "node"), ("deno eval 'console.log(1)'", "deno"),
     ("sqlite3 db 'select 1'", "sqlite"), ("psql -c 'select 1'", "sql")],
)  # fmt: skip
def test_everyday_inline_code_is_known(command: str, lang: str, tmp_path: Path) -> None:
    (run,) = execs(command, tmp_path)
    assert run["code"]["lang"] == lang and run["known"] is True


@pytest.mark.parametrize(
    ("command", "lang"),
    [("python3 -c 'exec(input())'", "python"), ("python3 -c 'import os; os.system(cmd)'", "python"),
     ("awk '{print > \"/etc/x\"}' f", "awk"), ("sed 's/a/b/e' f", "sed"), ("sed -n 'w out' f", "sed"),
     ("perl -e 'unlink \"x\"'", "perl"), ("perl -e 'system(\"rm $x\")'", "perl"),
     ("ruby -e 'File.delete(\"x\")'", "ruby"),
     ("node -e 'require(\"fs\").rmSync(\"x\")'", "node"), ("deno eval 'Deno.removeSync(\"x\")'", "deno"),
     ("sqlite3 db '.output /etc/x'", "sqlite"), ("php -r 'echo 1;'", "php"), ("lua -e 'print(1)'", "lua")],
)  # fmt: skip
def test_code_that_reaches_the_system_unfollowed_is_not_known(command: str, lang: str, tmp_path: Path) -> None:
    (run,) = [e for e in execs(command, tmp_path) if e["code"]["lang"] == lang]
    assert run["known"] is False  # (a language without an entry, php or lua here, is never followed)


@pytest.mark.parametrize(
    ("command", "runs"),
    [("awk 'BEGIN{system(\"make test\")}'", "make test"), ("awk 'BEGIN{\"date\" | getline d; print d}'", "date"),
     ("perl -e 'system(\"ls -la\")'", "ls -la"), ("perl -e 'print `id`'", "id"), ("ruby -e 'puts %x(uname)'", "uname"),
     ("sqlite3 db '.shell ls'", "ls"), ("psql -c '\\! ls'", "ls")],
)  # fmt: skip
def test_a_literal_command_is_an_exec_of_its_own_and_walked(command: str, runs: str, tmp_path: Path) -> None:
    found = execs(command, tmp_path)
    assert {"lang": "sh", "text": runs} in [e["code"] for e in found]
    assert all(e["known"] for e in found)


def test_what_a_literal_command_does_is_judged_as_itself(tmp_path: Path) -> None:
    _, found = analyse_shell(
        "awk 'BEGIN{system(\"rm -rf ~\")}'", home=HOME, base_dir=str(tmp_path), project_dir=str(tmp_path)
    )
    assert [(e["path"], e["recursive"]) for e in found if e["op"] == "delete"] == [(HOME, True)]


def test_a_literal_with_more_besides_still_asks() -> None:
    followed = follow_code("node", 'require("child_process").execSync("ls")')
    assert followed.commands == ("ls",) and followed.known is False  # the require of child_process remains


def test_code_on_an_interpreters_standard_input(tmp_path: Path) -> None:
    (run,) = execs("python3 - <<'EOF'\nexec('x')\nEOF", tmp_path)
    assert run["code"]["lang"] == "python" and run["known"] is False
    (run,) = execs("echo 'print(1)' | python3", tmp_path)
    assert run["known"] is True
    assert execs("echo data | python3 script.py", tmp_path)[0]["code"]["text"] == ""  # the script, not stdin


@pytest.mark.parametrize(
    ("lang", "code"),
    [("perl", 'system "rm", "-rf", $ENV{HOME}'), ("perl", "system('rm -rf ' . $d)"),
     ("ruby", 'system("rm", "-rf", dir)'), ("awk", '{print | "sh " $1}'), ("awk", 'BEGIN{system("rm -rf " d)}'),
     ("node", "execSync('rm -rf ' + d)")],
)  # fmt: skip
def test_a_command_built_from_pieces_is_not_followed(lang: str, code: str) -> None:
    """Only a literal that is the whole command is followed: a list of arguments or a concatenation asks."""
    assert follow_code(lang, code).known is False
