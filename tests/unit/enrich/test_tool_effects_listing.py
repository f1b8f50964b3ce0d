"""pkgsrc50: a listing tool (Gemini's and Qwen's list_directory, Claude's and Droid's LS, OpenCode's and Kilo's list,
an MCP server's list_directory and directory_tree) lists names, as the shell's `ls DIR` does: a `list` effect
of the directory, no read of the files below it (ToolSpec.lists; tool_args for MCP tools)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.enrich.test_tool_effects import HOME, effects, enriched


@pytest.mark.parametrize(
    ("client", "tool", "arg"),
    [("gemini", "list_directory", "dir_path"), ("qwen", "list_directory", "path"), ("claude", "LS", "path"),
     ("droid", "LS", "directory_path"), ("opencode", "list", "path"), ("kilo", "list", "path"),
     ("claude", "mcp__filesystem__list_directory", "path"), ("claude", "mcp__filesystem__directory_tree", "path")],
)  # fmt: skip
def test_a_listing_tool_lists_names(client: str, tool: str, arg: str, proj: Path) -> None:
    assert effects(enriched(client, tool, {arg: f"{HOME}/.kube"}, proj)) == [("list", f"{HOME}/.kube", True)]


@pytest.mark.parametrize(
    ("client", "tool", "arg"),
    [("gemini", "read_file", "file_path"), ("claude", "mcp__filesystem__read_text_file", "path"),
     ("claude", "mcp__filesystem__search_files", "path")],
)  # fmt: skip
def test_a_reading_tool_still_reads(client: str, tool: str, arg: str, proj: Path) -> None:
    assert all(op != "list" for op, _, _ in effects(enriched(client, tool, {arg: f"{HOME}/.kube/config"}, proj)))
