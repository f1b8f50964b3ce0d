"""hookd.dialects.approvals judged by what a rule grants (review42): an allow rule whose program is a shell, an
interpreter or a launcher with the words after it left open, or whose program is a glob, approves every call; a
profile's or an agent's keys count wherever they are; a value the agent fills in before parsing is not seen."""

from __future__ import annotations

from typing import Any

import pytest

from hookd.dialects.approvals import APPROVALS, approvals_off, approving_keys, grants_every_command
from hookd.enrich.effects.catalogue import runs_anything


@pytest.mark.parametrize(
    ("pattern", "prefix", "grants"),
    [
        ("bash:*", False, True),
        ("sh -c:*", False, True),
        ("**", False, True),
        ("*sh *", False, True),  # a glob where the program is: a shell among what it matches
        ("node -e *", False, True),
        ("env:*", False, True),  # a launcher: the program after it
        ("bash", True, True),  # Gemini reads `run_shell_command(bash)` as every command that starts so
        ("bash", False, False),  # Claude: that exact command, no more
        ("npm run lint", False, False),
        ("git:*", False, False),
        ("python3 scripts/lint.py:*", False, False),  # the script given: what follows are its arguments
        ("npm run test:*", False, False),
    ],
)
def test_a_pattern_grants_every_command_by_what_its_program_runs(pattern: str, prefix: bool, grants: bool) -> None:
    assert grants_every_command(pattern, prefix, runs_anything) is grants


@pytest.mark.parametrize(
    ("agent", "doc", "approves"),
    [
        ("claude", {"permissions": {"allow": ["Bash(npm run lint)", "Bash(bash:*)"]}}, True),
        ("claude", {"permissions": {"allow": ["Bash(sh -c:*)"]}}, True),
        ("claude", {"permissions": {"allow": ["Bash(**)"]}}, True),
        ("claude", {"permissions": {"allow": ["Bash(npm run lint)", "Bash(git diff:*)", "Read(**)"]}}, False),
        ("gemini", {"tools": {"allowed": ["run_shell_command(bash)"]}}, True),
        ("gemini", {"tools": {"allowed": ["ShellTool"]}}, True),
        ("gemini", {"tools": {"allowed": ["run_shell_command(git status)"]}}, False),
        ("codex", {"profile": "fast", "profiles": {"fast": {"approval_policy": "never"}}}, True),
        ("codex", {"profiles": {"fast": {"approval_policy": "on-request", "model": "o3"}}}, False),
        ("opencode", {"agent": {"build": {"permission": {"bash": "allow"}}}}, True),
        ("opencode", {"permission": {"bash": {"rm *": "ask", "**": "allow"}}}, True),
        ("opencode", {"permission": {"bash": {"bash *": "allow"}}}, True),
        ("opencode", {"permission": {"bash": {"git *": "allow", "*": "ask"}}}, False),
        ("opencode", {"permission": "{file:/tmp/p.txt}"}, True),  # filled in before parsing: not seen
        ("opencode", {"permission": {"bash": "{env:OPENCODE_PERM}"}}, True),
        ("droid", {"autonomyLevel": "auto-high"}, True),  # saved for the next session (shellfp45)
        ("droid", {"autonomyLevel": "auto-medium", "model": "custom:fast"}, False),
    ],
)
def test_a_settings_document_approves_every_call_by_what_its_rules_grant(
    agent: str, doc: dict[str, Any], approves: bool
) -> None:
    assert bool(approving_keys(doc, APPROVALS[agent], runs_anything)) is approves


@pytest.mark.parametrize(
    ("agent", "words", "approves"),
    [
        ("claude", ["--allowedTools", "Bash"], True),
        ("claude", ["--allowedTools", "Bash(git:*),Bash(bash:*)"], True),
        ("claude", ["--allowedTools", "Bash(git diff:*) Edit"], False),
        ("gemini", ["--allowed-tools", "run_shell_command"], True),
        ("gemini", ["--allowed-tools=run_shell_command(sh)"], True),
        ("copilot", ["--allow-tool", "shell"], True),
        ("copilot", ["--allow-tool", "shell(git:*)"], False),
    ],
)
def test_a_starts_rule_options_are_judged_as_the_settings_rules(agent: str, words: list[str], approves: bool) -> None:
    assert bool(approvals_off(agent, words, runs_anything)) is approves
