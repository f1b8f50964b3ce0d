"""A key below the project's test data (Go's `testdata`, `test/fixtures`, `spec/fixtures`, `cypress/fixtures`:
enrich/holdings.py `in_test_data`, blind-benign-17) is the tests' own fixture and is marked `holds: "test-data"`;
one reached through a link, one outside the project, one in another directory of it: not marked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hookd.enrich.holdings import in_test_data, mark_holdings


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for rel in ("test/fixtures/id_rsa", "pkg/tls/testdata/server.key", "cypress/fixtures/key.pem", "certs/dev.key"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("-----BEGIN PRIVATE KEY-----\n(test fixture)\n-----END PRIVATE KEY-----\n")
    return root


@pytest.mark.parametrize("rel", ["test/fixtures/id_rsa", "pkg/tls/testdata/server.key", "cypress/fixtures/key.pem"])
def test_a_key_below_test_data_is_the_tests_own(project: Path, rel: str) -> None:
    assert in_test_data(str(project / rel), str(project))
    marked = mark_holdings([{"op": "read", "path": str(project / rel)}], str(project.parent / "home"), str(project))
    assert marked[0]["holds"] == "test-data"


def test_a_key_elsewhere_or_through_a_link_is_not(project: Path, tmp_path: Path) -> None:
    home_key = tmp_path / "home" / ".ssh" / "id_rsa"
    home_key.parent.mkdir(parents=True)
    home_key.write_text("key\n")
    (project / "test/fixtures/stolen").symlink_to(home_key)
    linked_dir = project / "spec"
    linked_dir.mkdir()
    (linked_dir / "fixtures").symlink_to(home_key.parent)
    os.link(home_key, project / "test/fixtures/hard")  # a hard link: another name of the home's key
    for path in (
        project / "test/fixtures/hard",
        project / "certs/dev.key",  # a directory of the project that is no test data's
        project / "test/fixtures/stolen",  # a link to the home's key
        linked_dir / "fixtures/id_rsa",  # a test data directory that is a link
        home_key,  # outside the project
        project / "test/fixtures",  # the directory itself
    ):
        assert not in_test_data(str(path), str(project))
    assert not in_test_data(str(project / "fixtures/id_rsa"), str(project))  # `fixtures` alone names no test tool's
