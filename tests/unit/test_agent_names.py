"""An agent is one module: no code outside daemon/hookd/dialects/ names an agent (issue 27.1). Install,
uninstall, doctor, self-protection and the policies ask the agent's module; a string equal to an agent's
registry name or title anywhere else (docstrings and comments aside) is a leak this test reports."""

from __future__ import annotations

import ast
from pathlib import Path

from hookd.dialects.registry import AGENTS
from support import ROOT

PACKAGE = ROOT / "daemon" / "hookd"
NAMES = set(AGENTS) | {spec.title for spec in AGENTS.values()}
GENERATED = {PACKAGE / "v1"}  # protobuf output


def leaks(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    return [
        f"{where}:{node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and id(node) not in docstrings and node.value in NAMES
    ]


def test_no_code_outside_the_dialects_names_an_agent() -> None:
    found = [
        leak
        for path in sorted(PACKAGE.rglob("*.py"))
        if not path.is_relative_to(PACKAGE / "dialects") and not any(path.is_relative_to(g) for g in GENERATED)
        for leak in leaks(path)
    ]
    assert found == [], "\n".join(found)


def test_the_check_finds_a_name(tmp_path: Path) -> None:
    """The control: a constant that names an agent is found, a docstring that does is not."""
    probe = tmp_path / "probe.py"
    name = next(iter(AGENTS))
    probe.write_text(f'"""{name} in a docstring."""\nCLIENT = {name!r}\n')
    assert [leak.split(": ", 1)[1] for leak in leaks(probe)] == [repr(name)]
