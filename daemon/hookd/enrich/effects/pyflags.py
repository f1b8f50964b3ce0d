"""The mode a Python call opens its file in (hookd.enrich.effects.pycode): `open()`'s mode string, or `os.open()`'s
flags (https://docs.python.org/3/library/os.html#os.open: O_RDONLY is 0; O_WRONLY, O_RDWR, O_APPEND, O_TRUNC and
O_CREAT write), so that `os.ftruncate(os.open(p, os.O_WRONLY), 0)` is the write of `p` it is."""

from __future__ import annotations

import ast

OPENS = frozenset({"io.open", "codecs.open", "builtins.open", "os.open"})  # the calls that open a file by path
_WRITE_FLAGS = frozenset({"O_WRONLY", "O_RDWR", "O_APPEND", "O_TRUNC", "O_CREAT"})


def open_mode(mode: ast.expr | None) -> str:
    """The mode: a literal mode string as written; flags that name a write flag (`os.O_WRONLY |
    os.O_TRUNC`, `O_RDWR` imported) or a number other than O_RDONLY's 0 are "w"; anything else "r"."""
    if isinstance(mode, ast.Constant):
        if isinstance(mode.value, str):
            return mode.value
        return "w" if isinstance(mode.value, int) and mode.value != 0 else "r"
    names = (
        {
            n.attr if isinstance(n, ast.Attribute) else n.id
            for n in ast.walk(mode)
            if isinstance(n, ast.Attribute | ast.Name)
        }
        if mode
        else set()
    )
    return "w" if names & _WRITE_FLAGS else "r"
