"""routing.facts (hookd.engines.rego.gates): a package is evaluated only when one of the facts it names holds
something, alone or together with a shell condition; the facts it names are made for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.engines.rego.policyset import load_policy_set

GATED = """package hookd.gated
routing := {{"events": ["BeforeTool"], {routing}}}
deny contains {{"id": "gated", "reason": "no"}}
"""


def engine(tmp_path: Path, routing: str) -> RegoEmbeddedEngine:
    (tmp_path / "p.rego").write_text(GATED.format(routing=routing))
    return RegoEmbeddedEngine.load(tmp_path)


def shell(command: str, **facts: object) -> dict[str, object]:
    commands = [{"name": command.split(maxsplit=1)[0], "argv": command.split(), "redirects": []}]
    return {"event": "BeforeTool", "tool": {"kind": "shell", "name": "run_shell_command"},
            "shell": {"source": command, "parse_error": False, "commands": commands}, **facts}  # fmt: skip


@pytest.mark.parametrize(
    ("hookd", "evaluated"),
    [
        ({"protected": [{"path": "/h/.gemini/settings.json"}], "starts": []}, True),
        ({"protected": [], "starts": [{"program": "gemini"}]}, True),
        ({"protected": [], "starts": []}, False),
        ({}, False),
        (None, False),
    ],
)
def test_a_gated_package_is_evaluated_only_when_a_named_fact_holds(
    tmp_path: Path, hookd: dict[str, object] | None, evaluated: bool
) -> None:
    gated = engine(tmp_path, '"facts": ["hookd.protected", "hookd.starts"]')
    document = shell("ls -la") if hookd is None else shell("ls -la", hookd=hookd)
    assert bool(gated.evaluate_sync(document)) is evaluated
    write = {"event": "BeforeTool", "tool": {"kind": "write", "name": "write_file"}}
    assert bool(gated.evaluate_sync({**write, "hookd": hookd})) is evaluated  # any tool kind, not shell only


def test_a_gate_and_a_shell_condition_must_both_hold(tmp_path: Path) -> None:
    gated = engine(tmp_path, '"commands": ["rm"], "facts": ["hookd.protected"]')
    protected = {"protected": [{"path": "/h/.claude"}]}
    assert gated.evaluate_sync(shell("rm -rf x", hookd=protected))
    assert not gated.evaluate_sync(shell("ls x", hookd=protected))
    assert not gated.evaluate_sync(shell("rm -rf x", hookd={"protected": []}))
    unparsed = {**shell("rm -rf x", hookd=protected), "shell": {"parse_error": True}}
    assert gated.evaluate_sync(unparsed)  # a line hookd could not read: every shell-routed package, gates held


def test_the_facts_a_gate_names_are_made_whatever_the_rules_read(tmp_path: Path) -> None:
    (tmp_path / "p.rego").write_text(GATED.format(routing='"facts": ["hookd.starts"]'))
    assert load_policy_set(tmp_path).reads == {"hookd"}
