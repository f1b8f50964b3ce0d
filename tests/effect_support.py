"""The effect model as the enrich unit tests call it: one shell line analysed in a project, with a fixed home."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hookd.enrich.shell.analysis import analyse_shell

HOME = "/home/u"


def analysed(command: str, proj: Path) -> tuple[list[list[str]], list[dict[str, Any]]]:
    """The argv of each command of the line, and the line's effects."""
    shell, found = analyse_shell(command, home=HOME, base_dir=str(proj), project_dir=str(proj))
    assert shell["parse_error"] is False, shell["error"]
    return [c["argv"] for c in shell["commands"]], found


def effects(command: str, proj: Path) -> list[dict[str, Any]]:
    return analysed(command, proj)[1]


def ops(command: str, proj: Path, op: str) -> list[dict[str, Any]]:
    return [e for e in effects(command, proj) if e["op"] == op]
