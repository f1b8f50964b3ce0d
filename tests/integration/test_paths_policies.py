"""The default policies on paths as the file system has them (issue 26): globs expanded against the real files
in the call's directory, search tools judged by the files their filters reach, patches by the files they
write, for each agent's own tools. A real project and home in tmp_path; the whole pipeline in process."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from hookd.assembly import build_pipeline, load_engine
from hookd.config import Config, bundled_policies_dir
from hookd.pipeline import Pipeline
from hookd.types import Caller, Deadline, Handled, HookRequest

CALLER = Caller(uid=os.getuid(), gid=os.getgid(), pid=0, ppid=0)


@pytest.fixture(scope="module")
def pipeline() -> Pipeline:
    config = Config()
    built, _ = build_pipeline(config, load_engine(config, bundled_policies_dir()), probe=lambda _pid: True)
    return built


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    home, project = tmp_path / "home", tmp_path / "home" / "proj"
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text("[default]\n")
    (project / "config").mkdir(parents=True)
    (project / "config" / "prod.env").write_text("API_KEY=hk-test-0123456\n")  # a value: one holding none is no secret
    (project / "config" / "app.toml").write_text("")
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("")
    return home.resolve(), project.resolve()


def decide(pipeline: Pipeline, world: tuple[Path, Path], client: str, tool: str, tool_input: dict[str, Any]) -> Handled:
    home, project = world
    event = "BeforeTool" if client == "gemini" else "PreToolUse"
    payload = {"session_id": "s", "transcript_path": "", "cwd": str(project), "hook_event_name": event,
               "tool_name": tool, "tool_input": tool_input}  # fmt: skip
    env = {"HOME": str(home)}
    request = HookRequest(client, event, json.dumps(payload).encode(), env, str(project), CALLER, Deadline.after(10))
    return asyncio.run(pipeline.handle(request))


def outcome(handled: Handled) -> tuple[str, set[str]]:
    return handled.decision.outcome.name.lower(), {f"{v.policy_id}:{v.rule_id}" for v in handled.decision.verdicts}


SHELL = {"claude": "Bash", "gemini": "run_shell_command", "codex": "Bash", "qwen": "run_shell_command",
         "copilot": "bash"}  # fmt: skip


@pytest.mark.parametrize("client", sorted(SHELL))
@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("cat ~/.a?s/credentials", "hookd.secret_reads:credentials-file"),
        ("cat ~/.[a]ws/cred*", "hookd.secret_reads:credentials-file"),
        ("cat config/*", "hookd.secret_reads:env-file"),
        ("head -n 5 conf*/p*", "hookd.secret_reads:env-file"),
    ],
)
def test_a_shell_glob_is_judged_by_what_it_matches(
    pipeline: Pipeline, world: tuple[Path, Path], client: str, command: str, rule: str
) -> None:
    verdict, rules = outcome(decide(pipeline, world, client, SHELL[client], {"command": command}))
    assert verdict == "deny" and rule in rules, rules


@pytest.mark.parametrize("client", sorted(SHELL))
def test_a_glob_matching_no_secret_is_allowed(pipeline: Pipeline, world: tuple[Path, Path], client: str) -> None:
    assert (
        outcome(decide(pipeline, world, client, SHELL[client], {"command": "cat src/*.py config/*.toml"}))[0] == "allow"
    )


@pytest.mark.parametrize(
    ("client", "tool", "tool_input"),
    [
        ("claude", "Grep", {"pattern": "KEY", "glob": "prod.*"}),
        ("gemini", "grep_search", {"pattern": "KEY", "include_pattern": "p*"}),
        ("gemini", "read_many_files", {"include": ["config/*"]}),
        ("qwen", "grep_search", {"pattern": "KEY", "glob": "**/p*"}),
        ("copilot", "grep", {"pattern": "KEY", "path": "config", "glob": "*"}),
        ("copilot", "rg", {"pattern": "KEY", "glob": "[p]rod*"}),
    ],
)
def test_a_search_tool_reaching_a_secret_is_a_read_of_it(
    pipeline: Pipeline, world: tuple[Path, Path], client: str, tool: str, tool_input: dict[str, Any]
) -> None:
    """The filters name no secret (`prod.*`, `p*`): only the files on disk show that they reach one."""
    verdict, rules = outcome(decide(pipeline, world, client, tool, tool_input))
    assert verdict == "deny" and "hookd.secret_reads:env-file" in rules, rules


@pytest.mark.parametrize(
    ("client", "tool", "tool_input"),
    [
        ("claude", "Grep", {"pattern": "def", "glob": "*.py"}),
        ("qwen", "grep_search", {"pattern": "x", "glob": "*.toml"}),
        ("copilot", "grep", {"pattern": "x", "path": "src"}),
    ],
)
def test_a_search_reaching_no_secret_is_allowed(
    pipeline: Pipeline, world: tuple[Path, Path], client: str, tool: str, tool_input: dict[str, Any]
) -> None:
    assert outcome(decide(pipeline, world, client, tool, tool_input))[0] == "allow"


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"])


@pytest.mark.parametrize(
    ("client", "tool", "tool_input", "rule"),
    [
        ("codex", "apply_patch", {"command": patch("*** Add File: .git/hooks/pre-commit", "+x")}, "git-internals"),
        ("codex", "apply_patch", {"command": patch("*** Add File: ~HOME~/.ssh/authorized_keys", "+k")}, "ssh-dir"),
        ("codex", "apply_patch", {"command": patch("*** Update File: src/a.py", "*** Move to: .env")}, "env-file"),
        # an agent's hook settings are self-protection's (docs/self-protection.md), whichever agent's tool
        (
            "codex",
            "apply_patch",
            {"command": patch("*** Delete File: .claude/settings.json")},
            "hookd.self_protection:hookd-self-protection",
        ),
        ("copilot", "apply_patch", {"input": patch("*** Add File: .git/config", "+x")}, "git-internals"),
        (
            "codex",
            "Bash",
            {"command": "git apply <<'EOF'\n--- a/.git/config\n+++ b/.git/config\n@@\n+x\nEOF"},
            "git-internals",
        ),
        (
            "qwen",
            "run_shell_command",
            {"command": "patch -p1 <<'EOF'\n--- a/.env\n+++ b/.env\n@@\n+x\nEOF"},
            "env-file",
        ),
    ],
)
def test_a_patch_is_judged_by_the_files_it_writes(
    pipeline: Pipeline, world: tuple[Path, Path], client: str, tool: str, tool_input: dict[str, Any], rule: str
) -> None:
    home, _project = world
    tool_input = json.loads(json.dumps(tool_input).replace("~HOME~", str(home)))
    verdict, rules = outcome(decide(pipeline, world, client, tool, tool_input))
    expected = rule if rule.startswith("hookd.") else f"hookd.protected_paths:{rule}"
    assert verdict == "deny" and expected in rules, rules


def test_a_patch_into_the_project_is_allowed(pipeline: Pipeline, world: tuple[Path, Path]) -> None:
    tool_input = {
        "command": patch("*** Add File: src/b.py", "+x", "*** Update File: src/a.py", "*** Move to: src/c.py")
    }
    assert outcome(decide(pipeline, world, "codex", "apply_patch", tool_input))[0] == "allow"


@pytest.mark.parametrize(
    ("client", "tool", "root_arg"),
    [("claude", "Grep", "path"), ("gemini", "grep_search", "dir_path"), ("qwen", "grep_search", "path"),
     ("copilot", "grep", "path"), ("copilot", "rg", "paths")],
)  # fmt: skip
def test_a_search_of_a_home_with_no_filter_reads_the_secrets_in_it(
    pipeline: Pipeline, world: tuple[Path, Path], client: str, tool: str, root_arg: str
) -> None:
    home, _project = world
    verdict, rules = outcome(decide(pipeline, world, client, tool, {"pattern": "aws_secret", root_arg: str(home)}))
    assert verdict == "deny" and "hookd.secret_reads:credentials-file" in rules, rules


def test_a_search_of_the_project_with_no_filter_stands_on_its_directory(
    pipeline: Pipeline, world: tuple[Path, Path]
) -> None:
    handled = decide(pipeline, world, "claude", "Grep", {"pattern": "def", "path": "src"})
    assert outcome(handled)[0] == "allow"
    assert [e["arg"] for e in handled.event.facts["paths"]] == ["path"]
