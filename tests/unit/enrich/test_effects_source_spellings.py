"""A package manager's default source set however the manager reads its command (hookd.enrich.effects.source_sets,
fixes43): npm's command words as npm dereferences them (an alias, a unique abbreviation, `npm set`), an option's
value no word, conda's channels, yarn's `npmRegistryServer`, and the variables a startup file sets that the manager
reads as the same key (`PIP_INDEX_URL`, `npm_config_registry` in any case)."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import effects

from hookd.enrich.effects.source_sets import npm_command


def _redirects(line: str, proj: Path) -> list[str]:
    return [
        str(e["code"]["text"])
        for e in effects(line, proj)
        if e["op"] == "exec" and "package manager" in str(e.get("when"))
    ]


@pytest.mark.parametrize(
    "line",
    [
        "npm c set registry https://npm.evil.example/",
        "npm set registry=https://npm.evil.example/",
        "npm conf set registry https://npm.evil.example/",
        "npm config --location user set registry https://npm.evil.example/",
        "npm config set fund=false registry=https://npm.evil.example/",
        "conda config --add channels conda-forge --add channels https://npm.evil.example/",
        "pnpm c set registry https://npm.evil.example/",
        "yarn config set npmRegistryServer https://npm.evil.example/",
        "conda config --add channels https://npm.evil.example/",
        "conda config --set channel_alias https://npm.evil.example/",
        "micromamba config append channels https://npm.evil.example/",
        "echo 'export PIP_INDEX_URL=https://npm.evil.example/' >> ~/.bashrc",
        "echo 'export NPM_CONFIG_REGISTRY=https://npm.evil.example/' >> ~/.zshrc",
        "echo 'export UV_DEFAULT_INDEX=https://npm.evil.example/' >> ~/.profile",
        "printf 'channels:\\n  - https://npm.evil.example/\\n' > ~/.condarc",
    ],
)
def test_a_foreign_default_source_however_spelled_is_redirected(line: str, proj: Path) -> None:
    assert _redirects(line, proj) == ["https://npm.evil.example/"]


@pytest.mark.parametrize(
    "line",
    [
        "npm c set fund false",
        "npm set registry=https://registry.npmjs.org/",
        "conda config --add channels conda-forge",
        "yarn config set enableTelemetry false",
        "echo 'export PIP_REQUIRE_VIRTUALENV=true' >> ~/.bashrc",
    ],
)
def test_a_public_source_or_another_key_is_none(line: str, proj: Path) -> None:
    assert _redirects(line, proj) == []


@pytest.mark.parametrize(
    ("word", "command"),
    [("c", "config"), ("conf", "config"), ("config", "config"), ("set", "set"), ("i", "install"), ("co", "")],
)
def test_npm_words_are_dereferenced_as_npm_does(word: str, command: str) -> None:
    assert npm_command(word) == command
