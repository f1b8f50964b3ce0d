"""Fixtures the unit tests share: the self-protection tests' world, the native quiet chunk's library."""

from __future__ import annotations

import ctypes
from pathlib import Path

import pytest

from hookd.shims.build import build_quiet, find_compiler
from hookd.transport import native_quiet


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    """A home and a project directory, each resolved (a link in tmp_path's own path would make them differ)."""
    home, project = (tmp_path / "home").resolve(), (tmp_path / "proj").resolve()
    home.mkdir()
    project.mkdir()
    return home, project


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    """The native quiet chunk's library, built from the shipped source (`hookd shim build`'s way) and loaded."""
    out = tmp_path_factory.mktemp("quiet")
    built = build_quiet(find_compiler(), out, out)
    assert built is not None, "the native quiet chunk's library did not compile"
    loaded = native_quiet.load(built)
    assert loaded is not None
    return loaded
