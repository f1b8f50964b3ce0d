"""Every code cell of a notebook is read, however many it has (enrich/notebook_code.py)."""

from __future__ import annotations

import json

from hookd.enrich.notebook_code import MAX_CELLS, notebook_lines


def test_a_cell_past_the_limit_is_still_read() -> None:
    cells = [{"cell_type": "code", "source": f"x = {i}"} for i in range(MAX_CELLS)]
    cells.append({"cell_type": "code", "source": "import shutil; shutil.rmtree('/home/u/Documents')"})
    lines = notebook_lines([json.dumps({"cells": cells})])
    assert len(lines) == MAX_CELLS and "shutil.rmtree" in lines[-1]
