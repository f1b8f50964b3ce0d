"""The code a notebook a tool writes or edits runs when its cells are run (part of the code left for later,
enrich/later_code.py): each code cell's source read as a notebook kernel reads it (kernel_code.kernel_code_line: a
`%%bash` cell is shell, a `!` line a shell command, the rest Python), whether the tool writes the notebook whole
(nbformat's JSON, https://nbformat.readthedocs.io/en/latest/format_description.html: `cells`, each with its
`cell_type` and `source`) or one cell's source (Claude's NotebookEdit, Qwen's notebook_edit: `new_source`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from hookd.enrich.kernel_code import Kernel, kernel_code_line

NOTEBOOK_SUFFIX = ".ipynb"
MAX_CELLS = 64  # the cells of a notebook read one by one; a longer notebook's later cells are read as one


def notebook_lines(texts: list[str]) -> list[str]:
    """The shell line each code cell of the texts amounts to (a cell with no code amounts to none), each cell read
    in the kernel its notebook's earlier cells set up: their aliases defined, a later cell's shell lines run in the
    directory their `%cd`s moved to."""
    out: list[str] = []
    for text in texts:
        kernel = Kernel()
        for source in _sources(text):
            moved = list(kernel.moves)
            if (line := kernel_code_line(source, kernel)).strip():
                out.append("\n".join([*moved, line]))
    return out


def _sources(text: str) -> list[str]:
    """A notebook's code cells' sources when the text is a notebook's JSON, else the text itself: a cell's source."""
    try:
        parsed = json.loads(text) if text.lstrip().startswith("{") else None
    except ValueError:
        parsed = None
    cells = _cells(parsed) if isinstance(parsed, dict) else None
    if cells is None:
        return [text]
    code = [
        _joined(c.get("source", c.get("input"))) for c in cells if isinstance(c, dict) and c.get("cell_type") == "code"
    ]
    # past MAX_CELLS, the rest are read as one cell (judged, not dropped: a cell's magic then reads as code)
    return code if len(code) <= MAX_CELLS else [*code[: MAX_CELLS - 1], "\n".join(code[MAX_CELLS - 1 :])]


def _cells(notebook: dict[str, Any]) -> list[Any] | None:
    """A notebook's cells: nbformat 4's `cells`, or nbformat 3's `worksheets[].cells[]` (whose code is `input`:
    https://github.com/jupyter/nbformat/blob/main/nbformat/v3/nbformat.v3.schema.json)."""
    cells = notebook.get("cells")
    if isinstance(cells, list):
        return cells
    sheets = notebook.get("worksheets")
    if not isinstance(sheets, list):
        return None
    return [c for sheet in sheets if isinstance(sheet, dict) for c in sheet.get("cells") or () if isinstance(c, dict)]


def _joined(source: object) -> str:
    """A cell's source: one string, or nbformat's list of lines."""
    if isinstance(source, list):
        return "".join(s for s in source if isinstance(s, str))
    return source if isinstance(source, str) else ""


def cells_run(path: str, texts: list[str], tool_input: Mapping[str, Any]) -> list[str]:
    """The shell lines a notebook's code cells amount to, for a notebook `path` (its whole texts after the call:
    an edit of one cell's JSON reads as part of the notebook it lands in); none for any other file, nor for one
    cell the call says is no code (nbformat's `markdown` and `raw` cells: NotebookEdit's `cell_type`)."""
    if not path.endswith(NOTEBOOK_SUFFIX) or tool_input.get("cell_type") in _NOT_CODE:
        return []
    return notebook_lines(texts)


_NOT_CODE = frozenset({"markdown", "raw"})
