"""The file a redirect feeds a command's standard input, and the script it is to a shell or an interpreter that
reads its script there (part of the effect model: code.py and code_files.py read code from it)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.catalogue import Program
from hookd.enrich.effects.ledger import CommandView


def fed_script(program: Program, view: CommandView) -> Mapping[str, Any] | None:
    """The file a redirect feeds a shell or interpreter that reads its script on stdin (`bash < F`, `python3 - < F`,
    `sh -s ARG < F`: the catalogue's `stdin_script`), placed as its script operand would be: it runs F as it runs
    `bash F` (a file the line downloaded, decoded or wrote unseen is that flow, known text is judged by what it
    does, a project file is the project's own code)."""
    fed = _fed_redirect(view)
    if not program.stdin_script or fed is None or fed["path"] == os.devnull:  # (`bash -i < /dev/null`: no script)
        return None
    return {"raw": fed.get("target"), "path": fed["path"], "in_project": fed.get("in_project")}


def fed_file(view: CommandView) -> str:
    fed = _fed_redirect(view)
    return str(fed["path"]) if fed is not None else ""


def _fed_redirect(view: CommandView) -> Mapping[str, Any] | None:
    """The redirect that feeds the command's standard input a file (`< F`, `0< F`, `<> F`; the last one: the shell
    opens them in order), when nothing else does (a pipe, a here-document); never a numbered one (`3< F`)."""
    if view.stdin != "none":
        return None
    fed = [r for r in view.redirects if r.get("op") in ("<", "<>") and r.get("path") and "fd" not in r]
    return fed[-1] if fed else None
