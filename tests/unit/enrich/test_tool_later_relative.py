"""A server's relative command in a configuration the agent reads in every project (hookd.enrich.tool_later,
fixes43): `./serve` or `node dist/server.js` runs whichever file the next project holds, so it is code not known
there; the same line in the project's own configuration runs the project's file and is judged as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.enrich.tool_later import judged_later, started_relative

HOME = "/home/u"


@pytest.mark.parametrize(
    "line",
    [
        "./serve",
        "bin/mcp-server --stdio",
        "node dist/server.js",
        "python3 tools/mcp.py",
        "node server.js",
        "bash run.sh",
    ],
)
def test_a_relative_program_or_script_starts_relative(line: str) -> None:
    assert started_relative(line)


@pytest.mark.parametrize(
    "line", ["npx -y @modelcontextprotocol/server-filesystem /home/u/src", "uvx mcp-server-git", "/opt/x"]
)
def test_a_program_on_path_or_absolute_does_not(line: str) -> None:
    assert not started_relative(line)


def test_a_home_configuration_s_relative_command_is_not_known(tmp_path: Path) -> None:
    project = str(tmp_path)
    (tmp_path / "serve").write_text("#!/bin/sh\nexec node dist/server.js\n")
    [later] = judged_later(["./serve"], f"{HOME}/.claude.json", "Write", HOME, project)
    assert later["known"] is False and later["deferred"] is True


def test_the_project_s_own_configuration_runs_its_own_file(tmp_path: Path) -> None:
    (tmp_path / "serve").write_text("#!/bin/sh\nexec node dist/server.js\n")
    assert judged_later(["./serve"], f"{tmp_path}/.mcp.json", "Write", HOME, str(tmp_path)) == []
