"""gaps38 (policies/README.md, "Known gaps closed (gaps38)"): a jq filter that prints only the names of a value's
keys (or a count) shows nothing of the file's values (hookd.enrich.effects.filters)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops


@pytest.mark.parametrize(
    "line",
    [
        "jq -r '.auths | keys[]' ~/.docker/config.json",
        "jq 'keys' ~/.docker/config.json",
        "jq -r '.[\"credHelpers\"] | keys_unsorted' ~/.docker/config.json",
        "jq '.auths | length' ~/.docker/config.json",
    ],
)
def test_a_names_only_filter_shows_names(line: str, tmp_path: Path) -> None:
    assert [e.get("shows") for e in ops(line, tmp_path, "read")] == ["names"]  # was a credentials read, denied


@pytest.mark.parametrize(
    "line",
    [
        "jq -r '.auths' ~/.docker/config.json",
        "jq -r '.auths | keys[], .x' ~/.docker/config.json",  # a second output
        "jq '.auths | debug | keys' ~/.docker/config.json",  # debug prints its input to stderr
        "jq -r '.auths | to_entries[] | .value.auth' ~/.docker/config.json",
        "jq --rawfile n ~/.netrc '.auths | keys' ~/.docker/config.json",
        "jq -f keys.jq ~/.docker/config.json",  # the filter is in a file
    ],
)
def test_any_other_filter_shows_values(line: str, tmp_path: Path) -> None:
    assert not [e for e in ops(line, tmp_path, "read") if e.get("shows")]
