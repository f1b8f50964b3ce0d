"""The native quiet chunk's library is loaded from disk into the stream lane: a protected place, wherever the
data directory is (hookd.selfprotect)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.config import Config
from hookd.transport.native_quiet import library_path
from tests.unit.test_selfprotect import protected, shell_outcome


def test_the_native_quiet_chunk_is_protected(
    world: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, project = world
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    library = library_path()
    assert library == tmp_path / "data" / "hookd" / "bin" / "libhookd-quiet.so"
    assert str(library) in protected(Config(), home, project)
    assert shell_outcome(home, project, f"cp /tmp/evil.so {library}") == "deny"
