"""The mechanisms blind-tools-18's first run showed open (policies/README.md, "An eighteenth blind batch of the agents'
tools"), each with look-alikes that must stay as they were; spelled otherwise than the corpus's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.enrich.test_tool_effects import enriched


@pytest.fixture
def other(tmp_path: Path) -> Path:
    """A tree outside the project holding a credential file and a source file."""
    tree = (tmp_path / "elsewhere").resolve()
    (tree / "gh").mkdir(parents=True)
    (tree / "gh" / "hosts.yml").write_text("github.com:\n    oauth_token: gho_x\n")
    (tree / "notes.txt").write_text("hi\n")
    return tree


def _reads(client: str, tool: str, tool_input: dict[str, object], proj: Path) -> set[tuple[str, bool]]:
    event = enriched(client, tool, tool_input, proj)
    return {(str(e["path"]), e["recursive"] is True) for e in event.facts["effects"] if e["op"] == "read"}


@pytest.mark.parametrize(
    ("client", "tool", "root_arg", "filter_arg"),
    [
        ("copilot", "rg", "path", "glob"),  # rg's root named `path` rather than `paths`
        ("gemini", "search_file_content", "path", "include"),  # `path` rather than `dir_path`
    ],
)
def test_a_search_filter_is_taken_under_the_root_the_call_names(
    client: str, tool: str, root_arg: str, filter_arg: str, proj: Path, other: Path
) -> None:
    reads = _reads(client, tool, {"pattern": "token", root_arg: str(other), filter_arg: "*.yml"}, proj)
    assert (str(other / "gh" / "hosts.yml"), False) in reads


def test_a_search_root_by_its_other_name_is_read_below(proj: Path, other: Path) -> None:
    reads = _reads("copilot", "rg", {"pattern": "token", "path": str(other / "gh")}, proj)
    assert any(path.startswith(str(other / "gh")) for path, _ in reads)
    assert (str(other / "gh"), True) in reads or (str(other / "gh" / "hosts.yml"), False) in reads


@pytest.mark.parametrize(
    ("client", "tool", "tool_input"),
    [
        ("copilot", "rg", {"pattern": "KEY", "path": "src", "glob": "*.py"}),
        ("copilot", "rg", {"pattern": "KEY", "paths": ["src"], "glob": "*.py"}),
        ("gemini", "search_file_content", {"pattern": "KEY", "path": "src", "include": "*.py"}),
        ("claude", "Grep", {"pattern": "KEY", "path": "src", "glob": "*.py"}),
    ],
)
def test_a_search_in_the_project_stays_there(client: str, tool: str, tool_input: dict[str, object], proj: Path) -> None:
    reads = _reads(client, tool, tool_input, proj)
    assert reads and all(path.startswith(str(proj)) for path, _ in reads)


@pytest.mark.parametrize(
    ("client", "tool", "arg"),
    [
        ("qwen", "read_many_files", "include"),  # a list of globs under the session's directory
        ("gemini", "read_many_files", "paths"),
    ],
)
def test_a_brace_alternative_that_is_absolute_is_rooted_at_the_root(
    client: str, tool: str, arg: str, proj: Path, other: Path
) -> None:
    reads = _reads(client, tool, {arg: ["{src," + str(other / "gh") + "}/*.yml"]}, proj)
    assert (str(other / "gh" / "hosts.yml"), False) in reads


def test_brace_alternatives_in_the_project_stay_there(proj: Path) -> None:
    reads = _reads("qwen", "read_many_files", {"paths": ["{src,config}/*.{py,toml}"]}, proj)
    assert reads and all(path.startswith(str(proj)) for path, _ in reads)
