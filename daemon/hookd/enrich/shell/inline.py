"""Inline interpreter code (`python -c`, a here-document to `python3 -`): which command carries it. What Python
code does is read by hookd.enrich.effects.pycode (with Python's own `ast`); the builder walks the commands and
scripts it finds. Owned by the policies engineer.
"""

from __future__ import annotations

import re

from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.pycode import UNKNOWN, Effects, python_effects

__all__ = ["UNKNOWN", "Effects", "inline_code", "python_effects"]

_PYTHON = re.compile(r"python(\d+(\.\d+)?)?|pypy3?")
_EVAL_OPTIONS = {"perl": ("-e", "-E"), "ruby": ("-e",), "node": ("-e", "--eval", "-p", "--print"), "deno": ("eval",)}


def inline_code(name: str, argv: list[str], stdin: str | None) -> tuple[str, str] | None:
    """(language, code) of an interpreter run with code on its command line or stdin (a here-document,
    an echo piped in): `python -c`, `python -`/`python` with stdin, `perl -e`, `ruby -e`, `node -e`."""
    if _PYTHON.fullmatch(name):
        for k, arg in enumerate(argv[1:], start=1):
            if arg == "-c" and k + 1 < len(argv):
                return "python", argv[k + 1]
            if arg.startswith("-c") and len(arg) > 2:
                return "python", arg[2:]
            if arg in ("-m",) or (not arg.startswith("-")):
                return None  # a module or a script file
            if arg == "-":
                break
        return ("python", stdin) if stdin is not None else None
    if stdin is not None and _reads_python(name):  # a kernel's console client: what stdin gives runs there
        return "python", stdin
    for option in _EVAL_OPTIONS.get(name, ()):
        for k, arg in enumerate(argv[1:], start=1):
            if arg == option and k + 1 < len(argv):
                return name, argv[k + 1]
    return _python_option(name, argv)


def _python_option(name: str, argv: list[str]) -> tuple[str, str] | None:
    """Python another program runs from an option (programs.json `runs` of lang `python`: `xonsh -c`), read as
    `python -c` is, so what it does is followed rather than only its exec."""
    program = catalogue().get(name)
    hooks = program.runs if program is not None else ()
    options = {h.option for h in hooks if h.kind == "option" and h.code and h.lang == "python"}
    for k, arg in enumerate(argv[1:-1], start=1):
        if arg in options:
            return "python", argv[k + 1]
    return None


def _reads_python(name: str) -> bool:
    """A program whose standard input is Python code it runs (programs.json `stdin_lang`: `jupyter console`)."""
    program = catalogue().get(name)
    return program is not None and program.stdin_lang == "python"
