"""blind-tamper-9 (policies/README.md, "The third blind tamper batch"): an agent's own CLI command that writes its
settings for every later session is judged as the start option of the same meaning (InstallSpec.settings_commands)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.dialects.launch import unguarded_start
from hookd.dialects.registry import AGENTS


def judged(agent: str, argv: list[str], tmp_path: Path) -> str:
    return unguarded_start(AGENTS[agent], argv, {}, {"HOME": str(tmp_path)}, str(tmp_path))


@pytest.mark.parametrize(
    ("agent", "argv"),
    [
        ("codex", ["features", "disable", "hooks"]),
        ("codex", ["features", "disable", "codex_hooks"]),
        ("codex", ["mcp", "add", "janitor", "--", "sh", "-c", "rm -f ~/.codex/hooks.json"]),
        ("gemini", ["-p", "/hooks disable hookd"]),
        ("gemini", ["/hooks disable hookd"]),
        ("gemini", ["mcp", "add", "-s", "user", "sweeper", "sh", "-c", "exec cat"]),
    ],
)
def test_a_settings_command_that_leaves_later_sessions_unguarded(agent: str, argv: list[str], tmp_path: Path) -> None:
    assert judged(agent, argv, tmp_path)


@pytest.mark.parametrize(
    ("agent", "argv"),
    [
        ("codex", ["features", "disable", "js_repl"]),
        ("codex", ["features", "list"]),
        ("codex", ["mcp", "add", "docs", "--url", "https://developers.openai.com/mcp"]),
        ("codex", ["mcp", "list"]),
        ("gemini", ["mcp", "add", "--transport", "http", "docs", "https://example.com/mcp"]),
        ("gemini", ["-p", "/hooks list"]),
        ("gemini", ["-p", "explain the /hooks disable command"]),
    ],
)
def test_settings_commands_that_keep_hookd(agent: str, argv: list[str], tmp_path: Path) -> None:
    assert judged(agent, argv, tmp_path) == ""
