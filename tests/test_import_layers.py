"""The package keeps its import layers (.importlinter): a cycle or an upward import fails here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support import ROOT

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def test_imports_follow_the_layers() -> None:
    assert LINT_IMPORTS.is_file(), f"{LINT_IMPORTS} is missing: the test extra (pyproject.toml) installs it"
    done = subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
