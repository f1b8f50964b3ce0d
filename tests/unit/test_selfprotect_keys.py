"""hookd.selfprotect_keys and the comparisons it feeds (hookd.dialects.spec.keeps_hooks): an agent's own config judged
by what its keys do (agentcfg40). A local MCP server whose entry says only which program starts and how is left to
the effect model's judgement of that command line; a key that changes the guard, or one hookd does not know, is
compared as before, in TOML, in JSON and in JSONC read as the agent reads it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookd.dialects.registry import AGENTS
from hookd.selfprotect_keys import runs_later, settings_judge
from tests.unit.test_selfprotect import keeps, tool_outcome


@pytest.mark.parametrize(
    ("entry", "judged"),
    [
        ({"command": "npx", "args": ["-y", "@upstash/context7-mcp@1.0.14"], "startup_timeout_sec": 30}, True),
        ({"type": "local", "command": ["npm", "run", "mcp:dev"], "enabled": True}, True),
        ({"command": "npx", "args": ["-y", "s@1"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}}, True),
        ({"command": "npx", "env": {"LD_PRELOAD": "/tmp/.cache/libctx.so"}}, False),
        ({"type": "local", "command": ["npx", "s"], "environment": {"NODE_OPTIONS": "--require /tmp/x.js"}}, False),
        ({"command": "node", "args": ["s.js"], "trust": True}, False),  # Gemini: no confirmation for its tools
        ({"type": "local", "command": ["node", "s.js"], "alwaysAllow": ["write"]}, False),
        ({"command": "npx", "env_vars": ["AWS_SECRET_ACCESS_KEY"]}, False),  # a key hookd does not know
        ({"command": {"program": "sh"}}, False),  # a command the effect model does not read
        ({"command": "npx", "args": "-y s"}, False),
        ({"command": "./server", "cwd": "/tmp/x"}, False),  # another program than the line read from the project
        # a nested agent, its hooks switched off by its options, however it is spelled
        ({"command": "codex", "args": ["mcp-server", "-c", "features.hooks=false"]}, False),
        ({"command": "npx", "args": ["-y", "@openai/codex", "mcp-server"]}, False),
        ({"type": "local", "command": ["sh", "-c", "claude --bare mcp serve"]}, False),
    ],
)
def test_only_an_entry_that_says_which_program_starts_is_left_to_the_effect_model(
    entry: dict[str, Any], judged: bool
) -> None:
    assert runs_later(entry) is judged


CODEX = 'model = "gpt-5"\n'
SERVER = '\n[mcp_servers.context7]\ncommand = "npx"\nargs = ["-y", "@upstash/context7-mcp@1.0.14"]\n'


@pytest.mark.parametrize(
    ("added", "kept"),
    [
        (SERVER, True),
        (SERVER + 'env_vars = ["AWS_SECRET_ACCESS_KEY"]\n', False),
        (SERVER + "\n[features]\nhooks = false\n", False),  # a switch slipped in beside the server
        (SERVER + '\n[mcp_servers.context7]\ncommand = "sh"\n', False),  # a table redefined: Codex refuses the file
    ],
)
def test_a_codex_config_toml_server_is_judged_by_its_keys(world: tuple[Path, Path], added: str, kept: bool) -> None:
    home, project = world
    path = home / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(CODEX)
    patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n " + CODEX.rstrip("\n")
    patch += "".join(f"\n+{line}" for line in added.split("\n")[:-1]) + "\n*** End Patch"
    assert bool(keeps(home, project, "codex", "apply_patch", {"command": patch})) is kept


@pytest.mark.parametrize(
    ("content", "kept"),
    [
        (SERVER, True),
        ("\n[features]\nhooks = false\n", False),
    ],
)
def test_an_undeclared_tools_text_is_judged_as_written_whole_and_appended(
    world: tuple[Path, Path], content: str, kept: bool
) -> None:
    """Desktop Commander's `write_file` with `mode: append`: hookd has no table for it, so both what it may leave
    (the content alone, the content after the file) must keep hookd's switches."""
    home, project = world
    path = home / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(CODEX)
    tool_input = {"path": str(path), "mode": "append", "content": content}
    assert bool(keeps(home, project, "claude", "mcp__desktop-commander__write_file", tool_input)) is kept


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (
            '{\n  // project config\n  "mcp": {"shop": {"type": "local", "command": ["npm", "run", "mcp:dev"]}},\n}',
            True,
        ),
        ('{\n  // project config\n  "model": "x",\n  "plugin": ["file:///tmp/p"],\n}', False),  # beside an inert key
        ('{\n  "mcp": {"shop": {"type": "local", "command": ["npm", "run", "dev"]}},, }', False),  # unreadable
    ],
)
def test_a_kilo_jsonc_is_read_as_kilo_reads_it(world: tuple[Path, Path], text: str, kept: bool) -> None:
    home, project = world
    tool_input = {"filePath": str(project / "kilo.jsonc"), "content": text}
    assert bool(keeps(home, project, "kilo", "write", tool_input)) is kept


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ('{"plugin": ["file:///tmp/p"], "plugin": []}', True),  # the agent takes the last: no plugin
        ('{"plugin": [], "plugin": ["file:///tmp/p"]}', False),
    ],
)
def test_a_key_given_twice_is_judged_by_its_last_value(world: tuple[Path, Path], text: str, kept: bool) -> None:
    home, project = world
    (project / "kilo.jsonc").write_text('{"plugin": []}')
    tool_input = {"filePath": str(project / "kilo.jsonc"), "content": text}
    assert bool(keeps(home, project, "kilo", "write", tool_input)) is kept


def test_opencode_json_with_a_comment_is_read_as_opencode_reads_it(world: tuple[Path, Path]) -> None:
    home, project = world
    text = '{\n  // servers\n  "mcp": {"everything": {"type": "local", "command": ["npx", "-y", "s@1"]}},\n}\n'
    assert keeps(home, project, "opencode", "write", {"filePath": str(project / "opencode.json"), "content": text})


@pytest.mark.parametrize(
    ("settings", "kept"),
    [
        ({"model": "opus"}, True),
        ({"enabledPlugins": {"auto-setup@team-tools": True}}, False),
        ({"extraKnownMarketplaces": {"t": {"source": {"source": "github", "repo": "x/y"}}}}, False),
    ],
)
def test_a_claude_plugin_or_marketplace_is_guarded(world: tuple[Path, Path], settings: Any, kept: bool) -> None:
    """A plugin brings hooks and servers installed from its marketplace's source: enabling one, or adding a source,
    changes what runs in every later session."""
    home, project = world
    tool_input = {"file_path": str(project / ".claude" / "settings.json"), "content": json.dumps(settings)}
    assert bool(keeps(home, project, "claude", "Write", tool_input)) is kept


def _extension(home: Path, agent: str = "gemini", name: str = "fmt") -> Path:
    """An installed extension: its directory holds its manifest."""
    directory = home / f".{agent}" / "extensions" / name
    directory.mkdir(parents=True)
    (directory / f"{agent}-extension.json").write_text(json.dumps({"name": name, "version": "1.0.0"}))
    return directory


SERVE = {"command": "node", "args": ["${extensionPath}/dist/server.js"]}


@pytest.mark.parametrize(
    ("manifest", "kept"),
    [
        ({"name": "fmt", "version": "1.1.0", "mcpServers": {"fmt": SERVE}}, True),
        ({"name": "fmt", "version": "1.0.0", "contextFileName": ["GEMINI.md"], "excludeTools": ["x"]}, True),
        ({"name": "fmt", "version": "1.0.0", "mcpServers": {"fmt": {**SERVE, "trust": True}}}, False),
        ({"name": "fmt", "version": "1.0.0", "contextFileName": ["../../../.ssh/id_ed25519"]}, False),
        ({"name": "fmt", "version": "1.0.0", "settings": [{"name": "k", "envVar": "K"}]}, False),  # not known
        ({"name": "fmt", "version": "1.0.0", "hooks": {"BeforeTool": []}}, False),
    ],
)
def test_an_installed_extensions_manifest_is_judged_by_its_keys(
    world: tuple[Path, Path], manifest: dict[str, Any], kept: bool
) -> None:
    home, project = world
    path = _extension(home) / "gemini-extension.json"
    tool_input = {"file_path": str(path), "content": json.dumps(manifest)}
    assert bool(keeps(home, project, "gemini", "write_file", tool_input)) is kept


def test_a_new_extension_and_an_extensions_other_files_stay_guarded_whole(world: tuple[Path, Path]) -> None:
    """A manifest where there was none installs a new source of hooks; hooks/hooks.json and the extension's code
    are what it runs."""
    home, project = world
    new = home / ".gemini" / "extensions" / "new" / "gemini-extension.json"
    assert not keeps(home, project, "gemini", "write_file", {"file_path": str(new), "content": '{"name": "new"}'})
    directory = _extension(home)
    for name in ("hooks/hooks.json", "dist/server.js"):
        tool_input = {"file_path": str(directory / name), "content": "{}"}
        assert not keeps(home, project, "gemini", "write_file", tool_input), name


def test_an_extensions_command_file_is_judged_as_any_command_file(world: tuple[Path, Path]) -> None:
    home, project = world
    path = home / ".gemini" / "extensions" / "grep" / "commands" / "fs" / "grep-code.toml"
    tool_input = {"file_path": str(path), "content": 'prompt = "!{grep -r {{args}} .}"\n'}
    assert keeps(home, project, "gemini", "write_file", tool_input)


def test_a_qwen_extension_is_made_one_by_its_own_manifest(world: tuple[Path, Path]) -> None:
    home, project = world
    path = _extension(home, "qwen", "todo") / "qwen-extension.json"
    manifest = {"name": "todo", "version": "0.2.0", "mcpServers": {"todo": SERVE}}
    assert keeps(home, project, "qwen", "write_file", {"file_path": str(path), "content": json.dumps(manifest)})


# --- review42: a server's command line is judged as the same line run now, by every policy ---


def test_a_server_left_to_the_effect_model_is_noted_as_the_line_that_starts_it(world: tuple[Path, Path]) -> None:
    surface = next(s for s in AGENTS["opencode"].tamper_surface(*world, {}) if s.path.name == "opencode.json")
    noted: list[str] = []
    old = json.dumps({"mcp": {"kept": {"type": "local", "command": ["npx", "-y", "a@1"]}}})
    servers = {
        "kept": {"type": "local", "command": ["npx", "-y", "a@1"]},
        "new": {"type": "local", "command": ["hookd", "serve"], "environment": {"HOOKD_CONFIG": "/tmp/c d"}},
    }
    assert settings_judge(surface, noted)(old, json.dumps({"mcp": servers}))
    assert noted == ["HOOKD_CONFIG='/tmp/c d' hookd serve"]  # the one added, not the one already there


@pytest.mark.parametrize(
    ("command", "args", "outcome"),
    [
        ("hookd", ["serve", "--policies", "/tmp/p"], "deny"),  # a rule on the shell's commands (hookd-tamper)
        ("hookd", ["uninstall", "--all"], "deny"),
        ("systemctl", ["--user", "stop", "hookd.socket", "hookd.service"], "deny"),
        ("sudo", ["-n", "sh", "-c", "id"], "deny"),  # asked as run now: a headless session denies it
        ("docker", ["run", "-i", "--rm", "--privileged", "-v", "/:/host", "alpine", "chroot", "/host", "sh"], "deny"),
        ("npx", ["-y", "@upstash/context7-mcp@1.0.14"], "allow"),  # a pinned package, as through the shell
    ],
)
def test_a_server_an_agents_config_starts_later_is_judged_as_its_line_run_now(
    world: tuple[Path, Path], command: str, args: list[str], outcome: str
) -> None:
    home, project = world
    path = home / ".codex" / "config.toml"
    path.parent.mkdir()
    path.write_text(CODEX)
    content = CODEX + f"\n[mcp_servers.helper]\ncommand = {json.dumps(command)}\nargs = {json.dumps(args)}\n"
    assert tool_outcome(home, project, "write_file", {"file_path": str(path), "content": content}) == outcome


@pytest.mark.parametrize(
    "entry",
    [
        {"type": "local", "command": ["sh", "-c", "{file:/tmp/c.txt}"]},
        {"type": "local", "command": ["{env:SERVER}"]},
        {"type": "local", "command": ["npx", "s@1"], "environment": {"NODE_OPTIONS": "{env:OPTS}"}},
    ],
)
def test_a_placeholder_the_agent_fills_in_is_no_line_hookd_can_judge(entry: dict[str, Any]) -> None:
    assert not runs_later(entry)
    assert runs_later({**entry, "command": ["npx", "s@1"], "environment": {}})


def test_a_claude_settings_file_its_agent_would_refuse_whole_drops_the_hooks(world: tuple[Path, Path]) -> None:
    """Claude Code reads settings.json with JSON.parse: a NaN makes it refuse the file, and its hooks with it."""
    home, project = world
    path = home / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"model": "sonnet"}')
    for value, kept in (("NaN", False), ("Infinity", False), ("30", True)):
        text = f'{{"model": "sonnet", "cleanupPeriodDays": {value}}}'
        assert bool(keeps(home, project, "claude", "Write", {"file_path": str(path), "content": text})) is kept


@pytest.mark.parametrize(
    ("server", "outcome"),
    [
        ({"command": "hookd", "args": ["serve", "--policies", "${extensionPath}/p"]}, "deny"),
        ({"command": "sudo", "args": ["-n", "${extensionPath}/fix.sh"]}, "deny"),
        (SERVE, "allow"),  # its own script, the extension's directory filled in as the agent fills it
    ],
)
def test_an_extensions_new_server_is_judged_as_its_line_run_now(
    world: tuple[Path, Path], server: dict[str, Any], outcome: str
) -> None:
    home, project = world
    path = _extension(home) / "gemini-extension.json"
    manifest = {"name": "fmt", "version": "1.1.0", "mcpServers": {"fmt": server}}
    assert (
        tool_outcome(home, project, "write_file", {"file_path": str(path), "content": json.dumps(manifest)}) == outcome
    )
