"""An agent's global install pinned to a release, however npm is told it is global (hookd.selfprotect_installs,
review43): npm's config reader takes flags, `--key=value`, `--key value`, short groups and `npm_config_*`; an
`npm:` alias and a registry tarball name the package they install."""

from __future__ import annotations

import shlex
import tarfile
from pathlib import Path

import pytest

from hookd.selfprotect_installs import pinned_installs


def _pinned(line: str, env: dict[str, str] | None = None) -> bool:
    argv = shlex.split(line)
    return bool(pinned_installs([{"argv": argv, "name": argv[0], "env": env or {}}]))


@pytest.mark.parametrize(
    "line",
    [
        "npm install --location global @anthropic-ai/claude-code@0.2.9",
        "npm --location=global install @anthropic-ai/claude-code@0.2.9",
        "npm install --global=true @anthropic-ai/claude-code@0.2.9",
        "npm install --global true @anthropic-ai/claude-code@0.2.9",
        "npm i -gf @anthropic-ai/claude-code@0.2.9",
        "npm install -g claude-old@npm:@anthropic-ai/claude-code@0.2.9",
        "npm install -g https://registry.npmjs.org/@anthropic-ai/claude-code/-/claude-code-0.2.9.tgz",
        "npm --registry https://registry.npmjs.org install -g @anthropic-ai/claude-code@0.2.9",
    ],
)
def test_a_global_install_as_npm_reads_it_is_pinned(line: str) -> None:
    assert _pinned(line)  # was passed: only `-g`, `--global`, `--location=global` as whole words were read


def test_the_environments_npm_config_global_makes_it_global() -> None:
    line = "npm install @anthropic-ai/claude-code@0.2.9"
    assert _pinned(line, {"npm_config_global": "true"}) and _pinned(line, {"NPM_CONFIG_LOCATION": "global"})
    assert not _pinned(line, {"npm_config_global": "false"})


@pytest.mark.parametrize(
    "line",
    [
        "npm install --global=false @anthropic-ai/claude-code@0.2.9",
        "npm install -g --no-global @anthropic-ai/claude-code@0.2.9",
        "npm install --location project @anthropic-ai/claude-code@0.2.9",
        "npm install -f @anthropic-ai/claude-code@0.2.9",
        "npm install -g claude-new@npm:@anthropic-ai/claude-code@latest",
    ],
)
def test_a_local_install_or_a_dist_tag_is_no_pin(line: str) -> None:
    assert not _pinned(line)


def _local(line: str, cwd: str) -> list[str]:
    argv = shlex.split(line)
    return [str(s["agent"]) for s in pinned_installs([{"argv": argv, "name": argv[0], "env": {}}], cwd)]


def _package(path: Path, bins: str) -> Path:
    path.mkdir(parents=True)
    (path / "package.json").write_text('{"name": "@acme/x", "bin": ' + bins + "}")
    return path


def test_a_local_package_providing_an_agent_s_program_is_pinned(tmp_path: Path) -> None:
    fork = _package(tmp_path / "gemini-fork", '{"gemini": "dist/index.js"}')
    assert _local(f"npm install -g {fork}", str(tmp_path)) == ["Gemini CLI"]
    assert _local("npm link", str(fork)) == ["Gemini CLI"]
    assert _local(f"npm link {fork}", str(tmp_path)) == ["Gemini CLI"]
    with tarfile.open(tmp_path / "g.tgz", "w:gz") as archive:
        archive.add(fork / "package.json", arcname="package/package.json")
    assert _local("npm i -g ./g.tgz", str(tmp_path)) == ["Gemini CLI"]


def test_a_local_package_that_cannot_be_read_may_be_any_agent(tmp_path: Path) -> None:
    assert _local("npm install -g ~/.cache/nohooks.tgz", str(tmp_path)) == ["an agent"]


def test_a_local_package_of_other_programs_or_installed_into_the_project_is_not(tmp_path: Path) -> None:
    ui = _package(tmp_path / "ui", '{"ui-docs": "bin/docs.js"}')
    assert _local(f"npm link {ui}", str(tmp_path)) == []
    assert _local("npm install ./shop-1.0.0.tgz", str(tmp_path)) == []
    assert _local("npm link @acme/ui", str(tmp_path)) == []
