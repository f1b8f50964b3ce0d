"""The file a redirect feeds a command's standard input, and the script it is to a shell or an interpreter that
reads its script there (part of the effect model: code.py and code_files.py read code from it)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.catalogue import Program
from hookd.enrich.effects.ledger import CommandView
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.words import STDIN_FILES


def fed_script(program: Program, view: CommandView) -> Mapping[str, Any] | None:
    """The file a redirect feeds a shell or interpreter that reads its script on stdin (`bash < F`, `python3 - < F`,
    `sh -s ARG < F`: the catalogue's `stdin_script`), placed as its script operand would be: it runs F as it runs
    `bash F` (a file the line downloaded, decoded or wrote unseen is that flow, known text is judged by what it
    does, a project file is the project's own code)."""
    fed = _fed_redirect(view)
    if not _reads_stdin(program, view) or fed is None or fed["path"] == os.devnull:  # (`bash -i < /dev/null`)
        return None
    return {"raw": fed.get("target"), "path": fed["path"], "in_project": fed.get("in_project")}


def _reads_stdin(program: Program, view: CommandView) -> bool:
    """It reads its script on stdin: given none, where its entry says it does; given `-` where `-` means stdin to
    it; given `/dev/stdin` (or a descriptor's path for it) always, as any program that opens that file does."""
    named = [w for w in view.argv[1:] if w in STDIN_FILES]
    return program.stdin_script or any(w != "-" or program.stdin_script_named for w in named)


def after_verb(program: Program, parsed: Parsed) -> Parsed:
    """The command's words as its script operand is found among them: past the verb that runs a script (`bun run
    -`, `dart run bin/main.dart`: the catalogue's `script_after`)."""
    if parsed.operands[:1] and parsed.operands[0] in program.script_after:
        return dataclasses.replace(parsed, operands=parsed.operands[1:])
    return parsed


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
