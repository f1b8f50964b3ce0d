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


def _lint_copy(tmp_path: Path, plant: str, into: str) -> subprocess.CompletedProcess[str]:
    """lint-imports over a copy of the package with one import planted in one module."""
    import shutil

    shutil.copytree(ROOT / "daemon" / "hookd", tmp_path / "hookd", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / ".importlinter", tmp_path / ".importlinter")
    module = tmp_path / "hookd" / into
    module.write_text(module.read_text() + f"\n{plant}\n")
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=tmp_path, env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_an_upward_import_under_type_checking_is_caught(tmp_path: Path) -> None:
    done = _lint_copy(tmp_path, "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import hookd.cli", "types.py")
    assert done.returncode == 1 and "hookd imports downwards only BROKEN" in done.stdout, done.stdout[-3000:]


def test_an_import_between_two_independent_siblings_is_caught(tmp_path: Path) -> None:
    done = _lint_copy(tmp_path, "import hookd.v1", "types.py")  # one layer, joined by "|"
    assert done.returncode == 1 and "hookd imports downwards only BROKEN" in done.stdout, done.stdout[-3000:]


def test_a_cycle_inside_a_package_is_caught(tmp_path: Path) -> None:
    done = _lint_copy(tmp_path, "import hookd.audit.writer", "audit/mask.py")
    assert done.returncode == 1 and "at any depth BROKEN" in done.stdout, done.stdout[-3000:]
    assert "hookd imports downwards only KEPT" in done.stdout, done.stdout[-3000:]
