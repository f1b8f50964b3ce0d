"""Fixtures the unit tests of hookd's self-protection share."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    """A home and a project directory, each resolved (a link in tmp_path's own path would make them differ)."""
    home, project = (tmp_path / "home").resolve(), (tmp_path / "proj").resolve()
    home.mkdir()
    project.mkdir()
    return home, project
