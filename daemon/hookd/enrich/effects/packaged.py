"""A call of a package's exported function by its namespace in inline code (R's `renv::clean()`,
`lintr::lint_package()`: blind-benign-21's false positives): that package's code run, as its command-line tool
would be, so it is walked as the command `NS::FN ARG...`, a program hookd does not know, judged by the paths its
literal arguments name (`pkg::fn("~/.ssh/id_rsa")` reads a key). Only where every argument is a literal and the
package is none of the language's own (R's base packages, whose `system`, `unlink`, `download.file` are judged
as the language's calls): any other such call stays in the code, not followed (languages.json `packaged`)."""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Mapping
from typing import Any


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def packaged_runs(spec: Mapping[str, Any] | None, text: str) -> tuple[list[str], str]:
    """The commands the namespaced calls of `text` are, and `text` with those calls taken out."""
    if spec is None:
        return [], text
    commands: list[str] = []

    def walked(call: re.Match[str]) -> str:
        command = _command(spec, call)
        if command is None:
            return call.group(0)
        commands.append(command)
        return " "

    return commands, _compiled(str(spec["pattern"])).sub(walked, text)


def _command(spec: Mapping[str, Any], call: re.Match[str]) -> str | None:
    if call.group("ns") in spec["own"]:
        return None
    args = call.group("args")
    words: list[str] = []
    if args.strip():
        for part in args.split(","):  # (a literal holding a comma is split into parts no `argument` is: kept)
            argument = _compiled(str(spec["argument"])).fullmatch(part)
            if argument is None:
                return None
            if argument.group("text") is not None:
                words.append(_word(argument.group("text")))
    return " ".join([f"{call.group('ns')}::{call.group('fn')}", *words])


def _word(text: str) -> str:
    """A literal as a shell word: quoted, but a leading `~` left for the shell (R's file functions expand it)."""
    if text == "~" or text.startswith("~/"):
        return "~" + (shlex.quote(text[1:]) if len(text) > 1 else "")
    return shlex.quote(text) if text else "''"
