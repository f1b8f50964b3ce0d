"""Fixtures of the end-to-end tests: the network namespace every real agent runs in (tests/confine.py)."""

from __future__ import annotations

import pytest
from confine import Netns, shared_netns


@pytest.fixture(scope="session")
def netns() -> Netns:
    """The session's own network namespace, only `lo` up: fake model servers listen there, agents run there."""
    return shared_netns()
