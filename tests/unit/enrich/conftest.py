from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    """An empty project directory (a module whose tests need more in it defines its own)."""
    (tmp_path / "proj").mkdir()
    return tmp_path / "proj"
