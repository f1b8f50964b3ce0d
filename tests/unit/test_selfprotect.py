"""hookd.selfprotect: the protected set is derived from the agents' modules and the running config, and a
file tool's change to an agent's settings passes only when the agent's module judges that it leaves hookd's
hooks, their switches and trust as they were (issue 25.1; docs/self-protection.md)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hookd.config import Config, LogConfig, parse_config
from hookd.dialects.registry import AGENTS
from hookd.enrich.paths import enrich_paths
from hookd.enrich.shell import enrich_shell
from hookd.install import command_plan, install
from hookd.install.ledger import ledger_path
from hookd.selfprotect import ProtectedSet
from hookd.types import Caller, Deadline, HookRequest, NormalisedEvent


def protected(config: Config, home: Path, project: Path) -> dict[str, str]:
    listed, _ = ProtectedSet(config, env={}).places(str(home), str(project))
    return {str(e["path"]): str(e["what"]) for e in listed}  # type: ignore[index]


def test_every_agents_settings_in_every_scope_are_protected(world: tuple[Path, Path]) -> None:
    home, project = world
    places = protected(Config(), home, project)
    for spec in AGENTS.values():
        for scope in spec.install.scopes:
            path = os.path.realpath(spec.install.settings_path(scope, home, project, {}))
            assert path in places, f"{spec.name} {scope}: {path}"


def test_a_session_in_a_subdirectory_protects_the_project_settings_of_every_directory_up_to_the_home(
    world: tuple[Path, Path],
) -> None:
    """Any of them can become the repository's root (a `.git` made later, or by the same command), so none
    depends on a `.git` being there when the set is derived: the set is the same with one or without."""
    home, _ = world
    project = home / "repo"
    sub = project / "src" / "pkg"
    sub.mkdir(parents=True)
    without = protected(Config(), home, sub)
    for folder in (home, project, project / "src", sub):
        assert str(folder / ".claude" / "settings.json") in without
        assert str(folder / ".codex" / "config.toml") in without
    assert str(home.parent / ".claude" / "settings.json") not in without  # above the home: no project of its
    (project / ".git").mkdir()
    assert protected(Config(), home, sub) == without


def test_a_session_outside_the_home_protects_the_project_settings_up_to_the_root(tmp_path: Path) -> None:
    home, project = (tmp_path / "home").resolve(), (tmp_path / "srv" / "app").resolve()
    places = protected(Config(), home, project)
    for folder in (project, project.parent, tmp_path.resolve(), Path("/")):
        assert os.path.realpath(folder / ".codex" / "config.toml") in places, folder


def test_a_repository_made_after_the_set_was_derived_does_not_unprotect_its_root(world: tuple[Path, Path]) -> None:
    home, _ = world
    repo = home / "repo"
    sub = repo / "src"
    sub.mkdir(parents=True)
    decisions = shell_decisions(home, sub, [
        "echo x > notes.txt",  # the caller's set is derived and kept before any repository exists
        (repo / ".git").mkdir,
        "mkdir -p ../.codex && echo x > ../.codex/config.toml",
        "git init -q .. && mkdir -p ../.claude && echo {} > ../.claude/settings.json",
    ])  # fmt: skip
    assert [outcome for outcome, _ in decisions] == ["allow", "deny", "deny"]


def test_a_repository_made_by_the_same_command_does_not_unprotect_its_root(world: tuple[Path, Path]) -> None:
    home, _ = world
    sub = home / "repo" / "src"
    sub.mkdir(parents=True)
    command = "git init -q .. && mkdir -p ../.codex && echo x > ../.codex/config.toml"
    assert shell_decisions(home, sub, [command])[0][0] == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "echo x > ../sibling/notes.md", "cp notes.txt ../sibling/", "mkdir -p ../build && cp -r . ../build/copy",
        "echo x > ../README.md", "rm -rf ../sibling/dist", "mv ../sibling/a.txt ../sibling/b.txt",
        "echo x > src/app.py", "git init -q .. && git add . && git commit -qm x",
    ],
)  # fmt: skip
def test_everyday_work_in_the_project_and_beside_it_stays_allowed(world: tuple[Path, Path], command: str) -> None:
    home, _ = world
    repo = home / "code"
    sub = repo / "proj"
    (sub / "src").mkdir(parents=True)
    (repo / "sibling" / "dist").mkdir(parents=True)
    assert shell_decisions(home, sub, [command])[0][0] == "allow", command


def test_the_switches_proven_to_turn_hookd_off_are_protected(world: tuple[Path, Path]) -> None:
    """The three files whose change switched hookd off on the real CLIs (issue 25)."""
    home, project = world
    places = protected(Config(), home, project)
    for path in (home / ".copilot/hooks/hookd.json", home / ".codex/hooks.json", home / ".qwen/settings.json"):
        assert str(path) in places
    assert str(home / ".codex/config.toml") in places  # [features] hooks = false, and the trust hashes
    assert str(home / ".qwen/extensions") in places  # extension hooks run after every scope's


def test_hookds_own_files_wherever_the_config_puts_them(world: tuple[Path, Path], tmp_path: Path) -> None:
    home, project = world
    source = tmp_path / "elsewhere" / "hookd.toml"
    config = parse_config(
        {"log": {"path": str(tmp_path / "logs" / "d.log")}, "daemon": {"policies": str(tmp_path / "pol")}},
        source=source,
    )
    places = protected(config, home, project)
    for path in (source, tmp_path / "logs" / "d.log", tmp_path / "pol", project / ".hookd" / "policies"):
        assert str(path) in places, path
    assert str(config.daemon.runtime_dir) in places
    assert any(what == "the installed hookd package" for what in places.values())


def event(home: Path, project: Path, client: str, tool: str, tool_input: dict[str, Any]) -> NormalisedEvent:
    spec = AGENTS[client]
    before = next(e.name for e in spec.events if e.event.value == "BeforeTool")
    payload = {"session_id": "s", "transcript_path": "", "cwd": str(project), "hook_event_name": before,
               "tool_name": tool, "tool_input": tool_input}  # fmt: skip
    if before[0].islower():  # camelCase events (Copilot) carry camelCase fields
        payload |= {"hookEventName": before, "toolName": tool, "toolArgs": tool_input}
    request = HookRequest(
        client=client, event=before, payload=json.dumps(payload).encode(),
        env={spec.project_dir_env: str(project), "HOME": str(home)}, cwd=str(project),
        caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid()), deadline=Deadline.after(5),
    )  # fmt: skip
    parsed = spec.dialect.parse(request)
    return enrich_paths(parsed.with_facts(home=str(home)))


def keeps(home: Path, project: Path, client: str, tool: str, tool_input: dict[str, Any]) -> list[str]:
    done = ProtectedSet(Config(), env={})(event(home, project, client, tool, tool_input))
    return list(done.facts["hookd"]["keeps"])  # type: ignore[index,call-overload]


@pytest.fixture
def qwen_settings(world: tuple[Path, Path]) -> Path:
    """~/.qwen/settings.json as `hookd install --client qwen` writes it, beside a model setting."""
    home, _ = world
    path = home / ".qwen" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"model": {"name": "x"}}))
    plan, _ = command_plan(Config(), "qwen", path, None)
    install(plan)
    return path


def test_adding_an_mcp_server_keeps_the_hooks(world: tuple[Path, Path], qwen_settings: Path) -> None:
    home, project = world
    doc = json.loads(qwen_settings.read_text())
    doc["mcpServers"] = {"docs": {"command": "docs-server"}}
    assert keeps(home, project, "qwen", "write_file", {"file_path": str(qwen_settings), "content": json.dumps(doc)})


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda d: {**d, "disableAllHooks": True}, id="disableAllHooks"),
        pytest.param(lambda d: {k: v for k, v in d.items() if k != "hooks"}, id="hooks-removed"),
        pytest.param(lambda d: {**d, "hooks": {**d["hooks"], "PreToolUse": []}}, id="hookd-entry-emptied"),
        pytest.param(
            lambda d: {
                **d,
                "hooks": {
                    **d["hooks"],
                    "PreToolUse": [*d["hooks"]["PreToolUse"], {"hooks": [{"type": "command", "command": "true"}]}],
                },
            },
            id="hook-added-after",
        ),
    ],
)
def test_a_change_to_hooks_or_switches_is_not_kept(world: tuple[Path, Path], qwen_settings: Path, change: Any) -> None:
    home, project = world
    doc = change(json.loads(qwen_settings.read_text()))
    assert not keeps(home, project, "qwen", "write_file", {"file_path": str(qwen_settings), "content": json.dumps(doc)})


def test_an_edit_is_judged_on_both_one_and_every_replacement(world: tuple[Path, Path], qwen_settings: Path) -> None:
    """`"x"` appears in the model setting and (as hookd's hook needs no "x") nowhere in the hooks: kept; a
    replacement that reaches into the hooks with either reading is not."""
    home, project = world
    text = qwen_settings.read_text()
    edit = {"file_path": str(qwen_settings), "old_string": '"name": "x"', "new_string": '"name": "y"'}
    assert keeps(home, project, "qwen", "edit", edit)
    edit = {"file_path": str(qwen_settings), "old_string": '"timeout"', "new_string": '"timeoutX"'}
    assert '"timeout"' in text and not keeps(home, project, "qwen", "edit", edit)


@pytest.mark.parametrize("client", ["kilo", "opencode"])
@pytest.mark.parametrize(
    ("config", "kept"),
    [
        ({"mcp": {"docs": {"type": "remote", "url": "https://mcp.example.com/mcp"}}}, True),
        ({"model": "x", "permission": {"edit": "ask"}}, True),
        # a local server whose entry says only which program starts: its command line is the effect model's to judge
        ({"mcp": {"docs": {"type": "local", "command": ["npx", "docs-server"]}}}, True),
        ({"mcp": {"docs": {"type": "local", "command": ["npx", "docs-server"], "alwaysAllow": ["x"]}}}, False),
        ({"plugin": ["evil-plugin"]}, False),
        # a formatter is a command the agent runs after its edits: its command line is the effect model's to judge
        # (agentcfg40: `sh -c "rm -rf ~"` is asked there, tests/unit/enrich/test_effects_agent_config.py)
        ({"formatter": {"x": {"command": ["npx", "prettier", "--write", "$FILE"], "extensions": [".ts"]}}}, True),
        ({"formatter": {"x": {"command": ["npx", "prettier"], "environment": {"LD_PRELOAD": "/tmp/x.so"}}}}, False),
        ({"lsp": {"x": {"command": ["sh", "-c", "id"]}}}, False),
    ],
)
def test_a_plugin_agents_config_is_kept_unless_it_brings_in_code(
    world: tuple[Path, Path], client: str, config: dict[str, Any], kept: bool
) -> None:
    """blind-tools-4: a new project `.kilo/kilo.jsonc` adding only a remote MCP server was denied as a bypass; a
    config's plugins, local MCP servers, formatters and LSP servers are commands beside hookd's hooks."""
    home, project = world
    name = ".kilo/kilo.jsonc" if client == "kilo" else ".opencode/opencode.json"
    tool_input = {"filePath": str(project / name), "content": json.dumps(config)}
    assert bool(keeps(home, project, client, "write", tool_input)) is kept


def test_hookds_own_hooks_file_is_never_kept(world: tuple[Path, Path]) -> None:
    """Copilot's hooks file is hookd's alone: any write to it is a change to hookd's hooks."""
    home, project = world
    path = home / ".copilot" / "hooks" / "hookd.json"
    plan, _ = command_plan(Config(), "copilot", path, None)
    install(plan)
    same = path.read_text()
    assert not keeps(home, project, "copilot", "create", {"path": str(path), "file_text": same})


def test_reads_get_no_protected_set(world: tuple[Path, Path]) -> None:
    home, project = world
    done = ProtectedSet(Config(), env={})(event(home, project, "gemini", "read_file", {"file_path": "x"}))
    assert "hookd" not in done.facts


def test_the_filled_in_set_is_cached_per_caller(world: tuple[Path, Path]) -> None:
    home, project = world
    protected_set = ProtectedSet(replace(Config(), log=LogConfig()), env={})
    assert protected_set.places(str(home), str(project)) is protected_set.places(str(home), str(project))


# --- the second line: an agent that asks before it applies a settings change (Claude Code's ConfigChange)


def config_change(home: Path, project: Path, path: Path) -> tuple[str, bytes]:
    """One ConfigChange through the whole hot path with the shipped policies: (outcome, Claude's stdout)."""
    import asyncio

    from hookd.assembly import build_pipeline, engine_for_dir
    from hookd.config import bundled_policies_dir

    config = Config()
    payload = {"session_id": "s", "transcript_path": "", "cwd": str(project), "hook_event_name": "ConfigChange",
               "source": "user_settings", "file_path": str(path)}  # fmt: skip
    request = HookRequest(
        client="claude", event="ConfigChange", payload=json.dumps(payload).encode(),
        env={"CLAUDE_PROJECT_DIR": str(project), "HOME": str(home)}, cwd=str(project),
        caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid()), deadline=Deadline.after(5),
    )  # fmt: skip

    async def decide() -> tuple[str, bytes]:
        engine = engine_for_dir(config, bundled_policies_dir())
        try:
            pipeline, _ = build_pipeline(config, engine, probe=lambda _pid: False)
            handled = await pipeline.handle(request)
            return handled.decision.outcome.name.lower(), handled.reply.stdout
        finally:
            await engine.aclose()

    return asyncio.run(decide())


@pytest.fixture
def claude_settings(world: tuple[Path, Path]) -> Path:
    home, _ = world
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"model": "opus"}))
    install(command_plan(Config(), "claude", path, None)[0])
    return path


def test_a_settings_change_that_keeps_hookd_is_applied(world: tuple[Path, Path], claude_settings: Path) -> None:
    home, project = world
    doc = json.loads(claude_settings.read_text())
    claude_settings.write_text(json.dumps({**doc, "permissions": {"allow": ["Bash(npm test)"]}}))
    assert config_change(home, project, claude_settings) == ("allow", b"")


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda d: {**d, "disableAllHooks": True}, id="disableAllHooks"),
        pytest.param(lambda d: {k: v for k, v in d.items() if k != "hooks"}, id="hooks-removed"),
    ],
)
def test_a_settings_change_that_drops_hookd_is_kept_out(
    world: tuple[Path, Path], claude_settings: Path, change: Any
) -> None:
    home, project = world
    claude_settings.write_text(json.dumps(change(json.loads(claude_settings.read_text()))))
    outcome, stdout = config_change(home, project, claude_settings)
    reply = json.loads(stdout)
    assert outcome == "deny" and reply["decision"] == "block", stdout
    assert "kept out" in reply["reason"], reply


def test_any_agents_settings_are_judged_whoever_writes_them(world: tuple[Path, Path]) -> None:
    """Gemini's write_file on Codex's hooks.json: judged by Codex's module (hooks.json's hookd entries),
    whichever agent asks."""
    home, project = world
    path = home / ".codex" / "hooks.json"
    path.parent.mkdir()
    install(command_plan(Config(), "codex", path, None)[0])
    doc = json.loads(path.read_text())
    same = {"file_path": str(path), "content": json.dumps(doc, indent=4)}
    assert keeps(home, project, "gemini", "write_file", same)
    emptied = {"file_path": str(path), "content": "{}"}
    assert not keeps(home, project, "gemini", "write_file", emptied)


# --- a delete takes only what is there: a tree with no settings file in it changes no settings


def shell_outcome(home: Path, project: Path, command: str) -> str:
    """One Gemini shell call through the whole hot path with the shipped policies."""
    return tool_outcome(home, project, "run_shell_command", {"command": command})


def tool_outcome(home: Path, project: Path, tool: str, tool_input: dict[str, Any]) -> str:
    """One Gemini tool call through the whole hot path with the shipped policies."""
    import asyncio

    from hookd.assembly import build_pipeline, engine_for_dir
    from hookd.config import bundled_policies_dir

    config = Config()
    payload = {"session_id": "s", "transcript_path": "", "cwd": str(project), "hook_event_name": "BeforeTool",
               "tool_name": tool, "tool_input": tool_input}  # fmt: skip
    request = HookRequest(
        client="gemini", event="BeforeTool", payload=json.dumps(payload).encode(),
        env={"GEMINI_PROJECT_DIR": str(project), "HOME": str(home)}, cwd=str(project),
        caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid()), deadline=Deadline.after(5),
    )  # fmt: skip

    async def decide() -> str:
        engine = engine_for_dir(config, bundled_policies_dir())
        try:
            pipeline, _ = build_pipeline(config, engine, probe=lambda _pid: False)
            return (await pipeline.handle(request)).decision.outcome.name.lower()
        finally:
            await engine.aclose()

    return asyncio.run(decide())


def test_a_delete_in_a_project_without_settings_files_is_allowed(world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, "find . -name '*.pyc' -delete") == "allow"


def test_a_delete_over_an_existing_settings_file_is_denied(world: tuple[Path, Path]) -> None:
    home, project = world
    (project / "opencode.json").write_text("{}")  # a project-level config that names plugins
    assert shell_outcome(home, project, "find . -name '*.pyc' -delete") == "deny"


def test_deleting_an_agents_settings_directory_is_denied_even_empty(world: tuple[Path, Path]) -> None:
    home, project = world
    (project / ".claude").mkdir()
    assert shell_outcome(home, project, "rm -rf .claude") == "deny"


def test_a_delete_above_settings_hands_on_those_that_exist_however_deep(world: tuple[Path, Path]) -> None:
    """Below a directory the call deletes, a place is handed on when it exists: one two directories down, one
    whose directory is a link to a missing target (not there), one under a directory that is missing."""
    home, project = world
    config_dir = home / ".config"
    (config_dir / "opencode").mkdir(parents=True)
    (config_dir / "opencode" / "opencode.json").write_text("{}")
    (config_dir / "kilo").symlink_to(home / "missing")
    protect = ProtectedSet(Config(), env={})
    call = event(home, project, "gemini", "run_shell_command", {"command": f"rm -rf {config_dir}"})

    def handed() -> set[str]:
        hookd = protect(enrich_shell(call)).facts["hookd"]
        return {str(p["path"]) for p in hookd["protected"]}  # type: ignore[index, call-overload, union-attr]

    assert str(config_dir / "opencode" / "opencode.json") in handed()
    assert not any(p.startswith((f"{config_dir}/kilo/", f"{config_dir}/kilocode/")) for p in handed())
    (config_dir / "opencode" / "opencode.json").unlink()
    assert str(config_dir / "opencode" / "opencode.json") not in handed()  # looked up again on every call


# --- hookd's install ledger: what doctor compares the agents' hook files with (hookd.install.ledger)


def test_the_install_ledger_is_protected(world: tuple[Path, Path]) -> None:
    home, project = world
    config = Config()
    assert str(ledger_path(config)) in protected(config, home, project)


@pytest.mark.parametrize(
    "command",
    ["rm -f {ledger}", "echo '{{}}' > {ledger}", "mv {ledger} /tmp/x", "cp /dev/null {ledger}"],
    ids=["rm", "redirect", "mv", "cp"],
)
def test_the_agent_cannot_erase_the_install_ledger_from_a_shell(world: tuple[Path, Path], command: str) -> None:
    home, project = world
    ledger = ledger_path(Config())
    assert shell_outcome(home, project, command.format(ledger=ledger)) == "deny"


def test_the_agent_cannot_overwrite_the_install_ledger_with_a_tool(world: tuple[Path, Path]) -> None:
    home, project = world
    ledger = str(ledger_path(Config()))
    assert tool_outcome(home, project, "write_file", {"file_path": ledger, "content": '{"version": 1}'}) == "deny"
    elsewhere = {"file_path": str(project / "notes.md"), "content": "x"}
    assert tool_outcome(home, project, "write_file", elsewhere) == "allow"


# --- a nested agent started with hookd's hooks switched off, or its settings moved away (issue 25.1)


def shell_decisions(home: Path, project: Path, commands: list[str | Callable[[], object]]) -> list[tuple[str, str]]:
    """Gemini shell calls through the whole hot path with the shipped policies, one pipeline for all:
    (outcome, reason) each; a callable in `commands` is run at its turn (a change on disk between calls)."""
    import asyncio

    from hookd.assembly import build_pipeline, engine_for_dir
    from hookd.config import bundled_policies_dir

    config = Config()

    def request(command: str) -> HookRequest:
        payload = {"session_id": "s", "transcript_path": "", "cwd": str(project), "hook_event_name": "BeforeTool",
                   "tool_name": "run_shell_command", "tool_input": {"command": command}}  # fmt: skip
        return HookRequest(
            client="gemini", event="BeforeTool", payload=json.dumps(payload).encode(),
            env={"GEMINI_PROJECT_DIR": str(project), "HOME": str(home)}, cwd=str(project),
            caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid()), deadline=Deadline.after(5),
        )  # fmt: skip

    async def decide() -> list[tuple[str, str]]:
        engine = engine_for_dir(config, bundled_policies_dir())
        try:
            pipeline, _ = build_pipeline(config, engine, probe=lambda _pid: False)
            out = []
            for command in commands:
                if callable(command):
                    command()
                    continue
                decision = (await pipeline.handle(request(command))).decision
                out.append((decision.outcome.name.lower(), decision.reason))
            return out
        finally:
            await engine.aclose()

    return asyncio.run(decide())


UNGUARDED_STARTS = [
    # OpenCode and Kilo: --pure / <PREFIX>_PURE load no external plugin, hookd's included
    "opencode --pure run 'write the marker'",
    "opencode run --pure=true x",
    "OPENCODE_PURE=1 opencode run x",
    "env OPENCODE_PURE=1 nohup opencode run x",
    "export OPENCODE_PURE=1; opencode run x",
    "KILO_PURE=1 kilo run x",
    "sudo -E KILO_PURE=true kilo run x",
    "echo --pure | xargs opencode run",
    "sh -c 'opencode --pure run x'",
    "XDG_CONFIG_HOME=/tmp/elsewhere opencode run x",
    "OPENCODE_CONFIG_DIR=/tmp/plugins opencode run x",
    "OPENCODE_DISABLE_PROJECT_CONFIG=1 opencode run x",
    # Claude Code
    "claude -p --settings '{\"disableAllHooks\":true}' x",
    "claude -p --settings='{\"hooks\":{}}' x",
    "claude -p --bare x",
    "timeout 60 claude --safe-mode -p x",
    "CLAUDE_CODE_SIMPLE=1 claude -p x",
    "claude -p --setting-sources project x",
    "CLAUDE_CONFIG_DIR=/tmp/x claude -p x",
    "HOME=/tmp/x claude -p x",
    # Codex CLI
    "codex exec -c features.hooks=false x",
    "codex exec --config 'features={hooks=false}' x",
    "codex exec -c hooks={} x",
    "codex exec --disable hooks x",
    "codex exec --ignore-user-config x",
    "CODEX_HOME=/tmp/x codex exec x",
    # Gemini CLI, Qwen Code, Copilot CLI, Droid: their config homes; Qwen's safe mode
    "GEMINI_CLI_HOME=/tmp/x gemini -p x",
    "node /opt/gemini/cli.js --safe-mode -p x",
    "npx --yes opencode --pure run x",
    "bun x claude --bare -p x",
    "npx -y opencode-ai@latest --pure run x",
    "pnpm dlx @anthropic-ai/claude-code@2.1.332 --bare -p x",
    "qwen --safe-mode -p x",
    "QWEN_HOME=/tmp/x qwen -p x",
    "COPILOT_HOME=/tmp/x copilot -p x",
    "HOME=/tmp/x droid exec x",
    # another user's home holds other settings
    "sudo -u nobody opencode run x",
    "su nobody -c 'claude -p x'",
    "runuser -u nobody -- codex exec x",
    'droid exec --settings \'{"hooks":{"hooksDisabled":true}}\' x',
    "FACTORY_HOME_OVERRIDE=/tmp/x droid exec x",
]


def test_a_nested_agent_started_unguarded_is_denied(world: tuple[Path, Path]) -> None:
    home, project = world
    decided = shell_decisions(home, project, UNGUARDED_STARTS)
    for command, (outcome, reason) in zip(UNGUARDED_STARTS, decided, strict=True):
        assert outcome == "deny", command
        assert "without hookd guarding it" in reason, (command, reason)


def test_a_nested_agent_started_as_it_is_stays_allowed(world: tuple[Path, Path]) -> None:
    """The control: hooks on, same config home: the nested agent fires hookd's hooks (it is guarded)."""
    home, project = world
    (project / "reviewer.json").write_text(json.dumps({"permissions": {"allow": ["Read"]}}))
    guarded = [
        "opencode run 'hello'",
        "kilo run --model m x",
        "opencode run --no-pure x",
        "claude -p x",
        "claude -p --settings reviewer.json x",
        'claude -p --settings \'{"model":"sonnet"}\' x',
        "claude -p --setting-sources user,project,local x",
        f"HOME={home} claude -p x",
        "codex exec -c model=o3 x",
        "codex exec --enable hooks x",
        "gemini -p x",
        "qwen -p x",
        "copilot -p x",
        "droid exec x",
        "droid exec --settings reviewer.json x",
        "npx -y opencode-ai run x",
        "node build.js claude",
        "echo 'opencode --pure run x'",
        "grep -r OPENCODE_PURE=1 .",
    ]
    decided = shell_decisions(home, project, guarded)
    for command, (outcome, reason) in zip(guarded, decided, strict=True):
        assert outcome == "allow", (command, reason)


def test_a_settings_path_that_is_no_regular_file_is_denied_without_blocking(world: tuple[Path, Path]) -> None:
    """A FIFO (or a device) named as settings is never read: the daemon must not wait on it."""
    home, project = world
    os.mkfifo(project / "pipe.json")
    lines = ["claude -p --settings pipe.json x", "claude -p --settings /dev/zero x"]
    assert [o for o, _ in shell_decisions(home, project, lines)] == ["deny", "deny"]


def test_every_declared_switch_is_denied_for_every_agent(world: tuple[Path, Path]) -> None:
    """What each agent's module declares is what is enforced: every hooks-off variable and every variable
    that moves its settings, on each of its process names."""
    from hookd.dialects.launch import relocating_env

    home, project = world
    lines = []
    for spec in AGENTS.values():
        for program in spec.process_names:
            lines += [f"{var}=1 {program} x" for var in spec.install.hooks_off_env]
            lines += [f"{var}=/tmp/moved {program} x" for var in relocating_env(spec)]
            lines += [f"{program} {' '.join(o.names[-1:])} x" for o in spec.install.unguarded_options if not o.takes]
    assert len(lines) > 20
    decided = shell_decisions(home, project, lines)
    for command, (outcome, _) in zip(lines, decided, strict=True):
        assert outcome == "deny", command
