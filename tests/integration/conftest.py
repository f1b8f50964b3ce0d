"""Fixtures the shim suites share: the native shim built once per session, and each shim by kind."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from attacker import require_privileges
from attacker import shared_tmp as make_shared_tmp
from shims import KINDS, Shim, build_native


@pytest.fixture(scope="session")
def native_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_native(tmp_path_factory.mktemp("native-shim"))


@pytest.fixture(params=KINDS)
def shim(request: pytest.FixtureRequest) -> Shim:
    if request.param == "native":
        return Shim.native(request.getfixturevalue("native_binary"))
    return Shim.python()


@pytest.fixture(scope="module")
def privileged() -> None:
    """Root and setpriv, to act as another uid (tests/attacker.py)."""
    require_privileges()


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    with make_shared_tmp() as tmp:
        yield tmp
