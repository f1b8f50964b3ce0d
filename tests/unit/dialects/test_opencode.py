"""OpenCode and Kilo Code CLI: hookd's plugin payload parses onto BeforeTool, and each verdict renders as
the plugin applies it (docs/opencode.md): a deny (ask and halt too) is {"decision": "deny"}, a rewrite is
the complete new arguments, an allow is nothing; install fills the shim's argv into the plugin file."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from hookd.config import Config
from hookd.dialects.opencode import plugin_events, plugin_text
from hookd.dialects.registry import AGENTS
from hookd.dialects.spec import HookEntry, TrustChange
from hookd.errors import SettingsError
from hookd.install import install, make_plan, trust_path, uninstall
from hookd.types import Caller, Deadline, Decision, Event, HookRequest, NormalisedEvent, Outcome, ToolKind

CALLER = Caller(uid=1000, gid=1000, pid=1)
PAYLOAD = {"hook_event_name": "tool.execute.before", "session_id": "ses_1", "call_id": "call_1", "tool_name": "bash",
           "tool_input": {"command": "touch x", "description": "d"}, "cwd": "/p"}  # fmt: skip


def parse(client: str, payload: dict[str, object] = PAYLOAD) -> NormalisedEvent:
    env = {"HOME": "/home/a", "OPENCODE_PROJECT_DIR": "/proj"}
    request = HookRequest(client, "tool.execute.before", json.dumps(payload).encode(), env, "/", CALLER,
                          Deadline.after(5))  # fmt: skip
    return AGENTS[client].dialect.parse(request)


@pytest.mark.parametrize("client", ["opencode", "kilo"])
def test_the_plugin_payload_parses(client: str) -> None:
    event = parse(client)
    assert (event.client, event.event, event.session_id, event.project_dir) == (client, Event.BEFORE_TOOL, "ses_1",
                                                                                "/proj")  # fmt: skip
    assert event.tool is not None and event.tool.kind is ToolKind.SHELL and event.tool.input["command"] == "touch x"
    write = parse(client, {**PAYLOAD, "tool_name": "write", "tool_input": {"filePath": "/p/a", "content": ""}})
    assert write.tool is not None and write.tool.kind is ToolKind.WRITE


@pytest.mark.parametrize("outcome", [Outcome.DENY, Outcome.ASK, Outcome.HALT])
def test_blocking_verdicts_are_a_deny_the_plugin_throws(outcome: Outcome) -> None:
    reply = AGENTS["opencode"].dialect.render(parse("opencode"), Decision(outcome, reasons=("no",), decision_id="d"))
    assert json.loads(reply.stdout) == {"decision": "deny", "reason": "no (decision d)"}
    assert reply.exit_code == 0 and any("mapped to deny" in n for n in reply.notes) == (outcome is not Outcome.DENY)


def test_a_rewrite_is_the_complete_arguments_and_allow_is_nothing() -> None:
    dialect = AGENTS["opencode"].dialect
    reply = dialect.render(parse("opencode"), Decision(Outcome.REWRITE, rewrite={"tool_input": {"command": "true"}}))
    assert json.loads(reply.stdout) == {"args": {"command": "true", "description": "d"}}
    allowed = dialect.render(parse("opencode"), Decision(Outcome.ALLOW, contexts=("c",)))
    assert allowed.stdout == b"" and any("context not carried" in n for n in allowed.notes)


def test_the_fail_reply_is_the_deny() -> None:
    reply = AGENTS["opencode"].dialect.fail_reply(Event.BEFORE_TOOL, "hookd is not\nrunning")
    assert json.loads(reply.stdout) == {"decision": "deny", "reason": "hookd is not running"}


def test_install_fills_the_shims_argv_into_the_plugin_and_uninstall_empties_it() -> None:
    entry = HookEntry("tool.execute.before", "hookd", "/bin/shim", 5000, args=("opencode", "tool.execute.before"))
    text = plugin_text(Path("hookd.js"), "", (entry,), False)
    line = next(line for line in text.splitlines() if line.startswith("const HOOKS = "))
    hooks = json.loads(line.removeprefix("const HOOKS = ").removesuffix("; // HOOKD-HOOKS"))
    assert hooks == {"tool.execute.before": {"argv": ["/bin/shim", "opencode", "tool.execute.before"],
                                             "timeout_ms": 5000}}  # fmt: skip
    assert "export const HookdPlugin" in text and plugin_events(text) == ("tool.execute.before",)
    assert plugin_text(Path("hookd.js"), text, None, False) == "" and plugin_events("") == ()


@pytest.mark.parametrize(("client", "user", "project"), [
    ("opencode", ".config/opencode/plugin/hookd.js", ".opencode/plugin/hookd.js"),
    ("kilo", ".config/kilo/plugin/hookd.js", ".kilo/plugin/hookd.js"),
])  # fmt: skip
def test_the_plugin_files_and_other_plugins_are_the_tamper_surface(client: str, user: str, project: str) -> None:
    spec = AGENTS[client]
    home, proj = Path("/home/a"), Path("/p")
    assert spec.install.settings_path("user", home, proj, {}) == home / user
    assert spec.install.settings_path("project", home, proj, {}) == proj / project
    surface = {s.path: s.kind for s in spec.tamper_surface(home, proj, {})}
    assert surface[home / user] == "settings" and surface[proj / project] == "settings"
    assert surface[(home / user).parent.parent / "plugins"] == "bypass"
    assert surface[Path("/etc") / client / "plugin" / "hookd.js"] == "settings"
    assert surface[Path("/etc") / client / f"{client}.json"] == "trust"


@pytest.mark.parametrize("client", ["opencode", "kilo"])
def test_the_managed_scope_names_the_plugin_in_the_managed_config(client: str, tmp_path: Path) -> None:
    """The agent reads only the config files of its managed folder (/etc/<agent>): install names hookd's
    plugin in its "plugin" list, keeping the admin's entries; uninstall takes only hookd's out again; a
    config hookd cannot change is refused before anything is written; doctor says what is missing."""
    env = {"HOOKD_SYSTEM_ROOT": str(tmp_path)}
    home, proj = tmp_path / "home", tmp_path / "p"
    spec = AGENTS[client].install
    plugin = spec.settings_path("managed", home, proj, env)
    config = trust_path(client, "managed", home=home, project_dir=proj, env=env)
    assert plugin == tmp_path / "etc" / client / "plugin" / "hookd.js"
    assert config == tmp_path / "etc" / client / f"{client}.json"
    assert trust_path(client, "user", home=home, project_dir=proj, env=env) is None
    assert spec.trust is not None
    missing = spec.trust.missing
    config.parent.mkdir(parents=True)
    config.write_text('{"plugin": ["org-plugin"], "share": "disabled"}')
    plan, _ = make_plan(client, plugin, Config(), ["/bin/shim"])
    plan = replace(plan, trust_path=config)
    install(plan)
    assert json.loads(config.read_text()) == {"plugin": ["org-plugin", "./plugin/hookd.js"], "share": "disabled"}
    assert "export const HookdPlugin" in plugin.read_text()
    assert missing(config, config.read_text(), TrustChange(plugin, {}, "hookd", None)) == ""
    uninstall(plugin, client=client, trust_path=config)
    assert json.loads(config.read_text()) == {"plugin": ["org-plugin"], "share": "disabled"}
    assert "does not name ./plugin/hookd.js" in missing(config, config.read_text(), TrustChange(plugin, {}, "", None))
    config.write_text('{"plugin": "not a list"}')
    before = plugin.read_bytes()
    with pytest.raises(SettingsError, match="fix it by hand"):
        install(plan)
    assert plugin.read_bytes() == before  # refused before anything was written


@pytest.mark.parametrize("client", ["opencode", "kilo"])
def test_doctor_names_a_removed_managed_plugin_and_the_pure_switch(
    client: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The managed config still names hookd's plugin while the plugin file is gone or emptied: hookd's hooks
    were removed by hand (a user-scope plugin leaves no such trace). And OPENCODE_PURE / KILO_PURE set
    where doctor runs: the agent started from there loads no plugin at all."""
    from hookd.doctor.agents import check_agents

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    env = {"HOOKD_SYSTEM_ROOT": str(tmp_path)}
    proj = tmp_path / "p"
    plugin = AGENTS[client].install.settings_path("managed", tmp_path / "home", proj, env)
    config = trust_path(client, "managed", home=tmp_path / "home", project_dir=proj, env=env)
    plan, _ = make_plan(client, plugin, Config(), ["/bin/shim"])
    install(replace(plan, trust_path=config))

    def lines(extra: dict[str, str]) -> list[str]:
        return [f.line() for f in check_agents(Config(), proj, {**env, **extra}) if f.check.startswith(client)]

    assert not any("runs unguarded" in line or "is set here" in line for line in lines({}))
    plugin.write_text("")
    assert f"PROBLEM  {client} managed: {config} names hookd's {plugin}, which is empty" in "\n".join(lines({}))
    plugin.unlink()
    [gone] = [line for line in lines({}) if "runs unguarded" in line]
    assert gone.endswith(f"which is gone: {AGENTS[client].title} runs unguarded here; fix: hookd install --client "
                         f"{client} --scope managed")  # fmt: skip
    variable = AGENTS[client].install.hooks_off_env[0]
    assert f"PROBLEM  {client}: {variable}=1 is set here" in "\n".join(lines({variable: "1"}))
    assert not any(variable in line for line in lines({variable: "0"}))


# blind-tools-5 / blind-tools-4: a project config written whole is judged by the keys that run or load something
# (plugins, a local MCP server's command, permissions, experimental hooks), not guarded whole by its name.
@pytest.mark.parametrize("client", ["opencode", "kilo"])
@pytest.mark.parametrize(
    ("doc", "keeps"),
    [
        ({"mcp": {"docs": {"type": "remote", "url": "https://mcp.example.net/mcp"}}}, True),
        # OpenCode V2 names them under `mcp.servers` (blind-tools-14): a remote one keeps hookd whole, a local not
        ({"mcp": {"servers": {"docs": {"type": "remote", "url": "https://mcp.example.net/mcp"}}}}, True),
        ({"mcp": {"servers": {"t": {"type": "local", "command": ["sh", "-c", "id"]}}}}, False),
        ({"model": "anthropic/claude-sonnet-4", "instructions": ["CONTRIBUTING.md"]}, True),
        ({"formatter": {"p": {"command": ["sh", "-c", "rm -rf ~"]}}}, False),
        ({"plugin": ["opencode-evil"]}, False),
        ({"mcp": {"t": {"type": "local", "command": ["sh", "-c", "id"]}}}, False),
        ({"experimental": {"hook": {"file_edited": {"*": [{"command": ["id"]}]}}}}, False),
    ],
)
def test_a_project_config_is_judged_by_what_runs(client: str, doc: dict[str, object], keeps: bool) -> None:
    from hookd.dialects.spec import keeps_hooks

    project = Path("/p")
    surfaces = [s for s in AGENTS[client].tamper_surface(Path("/h"), project, {}) if s.path.suffix == ".json"]
    config = next(s for s in surfaces if s.path == project / "opencode.json")
    assert keeps_hooks(config, None, json.dumps(doc)) is keeps
    before = json.dumps({"mcp": {"t": {"type": "local", "command": ["npx", "srv"]}}})
    assert not keeps_hooks(config, before, json.dumps({"mcp": {}}))  # a local server's command taken away


@pytest.mark.parametrize(
    ("client", "names"),
    [
        ("opencode", [".opencode/opencode.json", ".opencode/opencode.jsonc", ".opencode/plugin"]),
        ("kilo", [".opencode/opencode.jsonc", ".kilo/kilo.json", ".kilocode/plugins"]),
    ],
)
def test_the_homes_own_config_directory_is_guarded(client: str, names: list[str], tmp_path: Path) -> None:
    """OpenCode (and its forks) scan `~/.opencode` as a config directory wherever they start (config.ts, "Always
    scan user home ~/.opencode/"): its configs and plugins are as the user config's."""
    home = tmp_path / "home"
    guarded = {s.path for s in AGENTS[client].tamper_surface(home, tmp_path / "p", {})}
    assert {home / name for name in names} <= guarded
