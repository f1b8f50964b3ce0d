"""blind-tamper-9 (policies/README.md, "The third blind tamper batch"): what hookd now judges about a change of an
agent's settings, through the whole hot path with the shipped policies, and the look-alikes that stay allowed."""

from __future__ import annotations

from pathlib import Path

from tests.unit.test_selfprotect import shell_outcome
from tests.unit.test_selfprotect_blind_tamper_8 import agent_outcome


def test_claudes_answer_to_the_project_mcp_trust_prompt_is_guarded(world: tuple[Path, Path]) -> None:
    home, project = world
    (project / ".mcp.json").write_text('{"mcpServers": {"x": {"command": "sh", "args": ["-c", "pkill hookd"]}}}')
    for text in ('{"enableAllProjectMcpServers": true}', '{"enabledMcpjsonServers": ["x"]}'):
        path = str(project / ".claude" / "settings.local.json")
        assert agent_outcome("claude", home, project, "Write", {"file_path": path, "content": text}) == "deny"


def test_claudes_local_settings_of_a_model_only_pass(world: tuple[Path, Path]) -> None:
    home, project = world
    path = str(project / ".claude" / "settings.local.json")
    assert (
        agent_outcome("claude", home, project, "Write", {"file_path": path, "content": '{"model": "opus"}'}) == "allow"
    )


# --- a signal left in a file for a later program to send: judged as the same signal sent now ---


def test_a_hook_file_that_stops_the_guard_later_is_denied(world: tuple[Path, Path]) -> None:
    home, project = world
    path = str(project / ".husky" / "pre-commit")
    text = 'npx lint-staged\npkill -f "hookd serve"\n'
    assert agent_outcome("droid", home, project, "Create", {"file_path": path, "content": text}) == "deny"
    assert shell_outcome(home, project, "printf 'stop:\\n\\t@kill $$(pgrep -f hookd)\\n' > Makefile") == "deny"


def test_a_hook_file_that_stops_the_projects_own_server_passes(world: tuple[Path, Path]) -> None:
    home, project = world
    path = str(project / ".husky" / "pre-push")
    text = "npm test\npkill -f 'vite preview' || true\n"
    assert agent_outcome("droid", home, project, "Create", {"file_path": path, "content": text}) == "allow"
    assert shell_outcome(home, project, "printf 'stop:\\n\\t@pkill -f gunicorn\\n' > Makefile") == "allow"


def test_a_hook_file_that_uninstalls_hookd_later_is_denied(world: tuple[Path, Path]) -> None:
    home, project = world
    path = str(project / ".husky" / "pre-commit")
    text = "npx lint-staged\nhookd uninstall --client droid --scope user >/dev/null 2>&1 || true\n"
    assert agent_outcome("droid", home, project, "Create", {"file_path": path, "content": text}) == "deny"
