"""hookd.enrich.fed_input: a configured command is fed by the agent on its standard input; a shell or interpreter
started there with no program of its own runs what the agent writes, code hookd never sees."""

from __future__ import annotations

import pytest

import hookd.enrich.shell  # noqa: F401  (registers the shell's analysis)
from hookd.enrich.fed_input import runs_its_input

HOME, PROJECT = "/nonexistent-hookd-home/alice", "/nonexistent-hookd-home/alice/shop"


@pytest.mark.parametrize(
    ("line", "runs"),
    [
        ("sh", True),
        ("python3", True),
        ("bash -s", True),
        ("node dist/server.js", False),
        ("npx -y @upstash/context7-mcp@1.0.14", False),
        ("uv --directory tools/bookmarks run bookmarks.py", False),
        ("jq -r .model.display_name", False),
    ],
)
def test_a_program_taking_its_code_from_its_input_runs_what_the_agent_writes(line: str, runs: bool) -> None:
    assert runs_its_input(line, HOME, PROJECT) is runs
