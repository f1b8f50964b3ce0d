"""Policies judge effects, not spellings (issue 26): which programs do what is the effect model's data
(enrich/effects/data/*.json), never a name in a policy. This scans a policy package's Rego (its rules, not its
tests or comments) and its data.json for any word the catalogue knows as a program."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hookd.enrich.effects.catalogue import DATA, catalogue

ROOT = Path(__file__).resolve().parents[3]

# The effect schema's own words (docs/policies.md, "The effect model"): `e.op == "chmod"` names an effect, not
# the program.
EFFECT_OPS = {
    "read", "write", "delete", "move", "copy", "link", "chmod", "exec", "fetch", "device", "privilege", "signal",
    "list",
}  # fmt: skip

# `sh` is the schema's language of shell code (`code.lang`), not the program.
EFFECT_WORDS = EFFECT_OPS | {"sh"}

_RULE_ID = re.compile(r'"id":\s*"[^"]*"')
_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')


def rego_literals(text: str) -> set[str]:
    """The string literals of the rules: comments and rule ids (`{"id": "sudo", …}` names a rule) left out."""
    found: set[str] = set()
    for line in text.splitlines():
        code = "" if line.lstrip().startswith("#") else line.split(" # ", 1)[0]
        found.update(_LITERAL.findall(_RULE_ID.sub("", code)))
    return found


def data_strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from data_strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from data_strings(item)


def program_names_in(package: str) -> set[str]:
    directory = ROOT / "policies" / package
    words: set[str] = set()
    for path in directory.glob("*.rego"):
        if not path.name.endswith("_test.rego"):
            words |= rego_literals(path.read_text())
    data = directory / "data.json"
    if data.exists():
        words |= set(data_strings(json.loads(data.read_text())))
    return (words & set(catalogue().programs)) - EFFECT_WORDS


def test_destructive_shell_names_no_program() -> None:
    """Its git, eval/source and inline-code rules too judge effects (issue 26): the list of names left is empty."""
    assert program_names_in("destructive_shell") == set()


def test_destructive_shell_names_no_git_subcommand_nor_language() -> None:
    directory = ROOT / "policies" / "destructive_shell"
    words = rego_literals((directory / "policy.rego").read_text()) | set(
        data_strings(json.loads((directory / "data.json").read_text()))
    )
    subcommands = set(json.loads((DATA / "git.json").read_text())["discards"])
    languages = set(catalogue().languages)
    assert words & (subcommands | languages) == set()


def test_the_scan_sees_a_name_in_a_rule_and_in_data() -> None:
    rego = 'x if c.name == "rm" # "dd"\n# "mkfs"\ny := {"id": "sudo", "reason": "r"}'
    assert rego_literals(rego) == {"rm", "reason", "r"}
    assert set(data_strings({"tools": ["wipefs"], "shred": 1})) == {"tools", "wipefs", "shred"}
    assert {"rm", "wipefs", "shred", "sudo"} <= set(catalogue().programs)
