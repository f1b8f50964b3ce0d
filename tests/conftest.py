"""Fixtures shared by every test; the helpers behind them are in support.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import hookd  # noqa: F401  # first: it turns gRPC's fork handlers off before any test module imports grpc
from support import RunningDaemon, start_daemon


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[RunningDaemon]:
    running = start_daemon(tmp_path)
    try:
        yield running
    finally:
        running.stop()
