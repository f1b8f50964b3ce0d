"""hookd.install for Codex CLI, Copilot CLI and Qwen Code, and the managed scope of every agent: the same
safety rules as for Gemini and Claude (merge, idempotent, backup, refuse what does not parse, uninstall
gives the document back), plus what each agent needs to run the hook at all (Codex's trust entries)."""

from __future__ import annotations

import hashlib
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from hookd.config import Config
from hookd.errors import SettingsError
from hookd.install import (
    install,
    install_events,
    make_plan,
    managed_only_path,
    settings_path,
    trust_path,
    uninstall,
)

PROGRAM = ["/opt/hookd/bin/hookd-shim"]


def plan(client: str, path: Path, **changes: Any) -> Any:
    from dataclasses import replace

    built, _ = make_plan(client, path, Config(), PROGRAM)
    return replace(built, **changes)


def trust_hash(event_label: str, hook: dict[str, Any]) -> str:
    """Codex's own algorithm, written out independently (codex-hooks.md §2)."""
    handler = {"type": "command", "command": hook["command"], "timeout": hook["timeout"], "async": False,
               "statusMessage": hook["statusMessage"]}  # fmt: skip
    identity = {"event_name": event_label, "hooks": [handler]}
    return "sha256:" + hashlib.sha256(json.dumps(identity, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


# --- Codex ---------------------------------------------------------------------------------------------


def test_codex_merges_hooks_json_and_trusts_exactly_its_handlers(tmp_path: Path) -> None:
    hooks_json, config = tmp_path / ".codex" / "hooks.json", tmp_path / ".codex" / "config.toml"
    hooks_json.parent.mkdir()
    user = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "mine"}]}]}}
    hooks_json.write_text(json.dumps(user, indent=2) + "\n")
    config.write_text('model = "m"\n\n[features]\nplugins = false\n')
    original_hooks, original_config = hooks_json.read_bytes(), config.read_bytes()

    result = install(plan("codex", hooks_json))
    assert result.changed and result.added == install_events("codex")
    doc = json.loads(hooks_json.read_text())
    assert set(doc) == {"hooks"}  # Codex drops a hooks.json with any other root key
    assert doc["hooks"]["PreToolUse"][0] == user["hooks"]["PreToolUse"][0]
    ours = doc["hooks"]["PreToolUse"][1]["hooks"][0]
    assert set(ours) == {"type", "command", "timeout", "statusMessage"} and ours["statusMessage"] == "hookd"
    state = tomllib.loads(config.read_text())["hooks"]["state"]
    assert state[f"{hooks_json}:pre_tool_use:1:0"]["trusted_hash"] == trust_hash("pre_tool_use", ours)
    assert len(state) == len(install_events("codex"))  # the user's own hook is not trusted by hookd
    assert tomllib.loads(config.read_text())["features"] == {"plugins": False}

    assert not install(plan("codex", hooks_json)).changed  # idempotent
    uninstall(hooks_json, client="codex")
    assert hooks_json.read_bytes() == original_hooks and config.read_bytes() == original_config


def test_codex_refuses_a_config_toml_that_does_not_parse_and_writes_nothing(tmp_path: Path) -> None:
    hooks_json, config = tmp_path / "hooks.json", tmp_path / "config.toml"
    config.write_text("model = \n")
    with pytest.raises(SettingsError, match="not valid TOML"):
        install(plan("codex", hooks_json))
    assert not hooks_json.exists() and config.read_text() == "model = \n"


def test_codex_managed_requirements_keep_the_file_and_set_the_switch(tmp_path: Path) -> None:
    path = settings_path("codex", "managed", home=tmp_path, project_dir=tmp_path,
                         env={"HOOKD_SYSTEM_ROOT": str(tmp_path / "sys")})  # fmt: skip
    assert path == tmp_path / "sys" / "etc" / "codex" / "requirements.toml"
    path.parent.mkdir(parents=True)
    path.write_text("[features]\nhooks = true\n")
    install(plan("codex", path, managed_hooks_only=True))
    doc = tomllib.loads(path.read_text())
    assert doc["allow_managed_hooks_only"] is True and doc["features"] == {"hooks": True}
    handler = doc["hooks"]["PreToolUse"][0]["hooks"][0]
    assert handler["type"] == "command" and "codex PreToolUse" in handler["command"] and handler["timeout"] == 5
    assert not install(plan("codex", path, managed_hooks_only=True)).changed
    uninstall(path, client="codex")
    assert path.read_text() == "[features]\nhooks = true\n"


# --- Copilot -------------------------------------------------------------------------------------------


def test_copilot_writes_its_own_hooks_file_and_uninstall_removes_it(tmp_path: Path) -> None:
    path = settings_path("copilot", "user", home=tmp_path, project_dir=tmp_path)
    assert path == tmp_path / ".copilot" / "hooks" / "hookd.json"
    install(plan("copilot", path))
    doc = json.loads(path.read_text())
    assert doc["version"] == 1 and list(doc["hooks"]) == list(install_events("copilot"))
    assert doc["hooks"]["preToolUse"] == [
        {"type": "command", "timeoutSec": 5, "bash": doc["hooks"]["preToolUse"][0]["bash"]}
    ]
    assert "copilot preToolUse" in doc["hooks"]["preToolUse"][0]["bash"]
    assert not install(plan("copilot", path)).changed
    assert uninstall(path, client="copilot").changed and not path.exists()


def test_copilot_refuses_a_hooks_file_that_does_not_parse(tmp_path: Path) -> None:
    path = tmp_path / "hooks" / "hookd.json"
    path.parent.mkdir()
    path.write_text("{not json")
    with pytest.raises(SettingsError):
        install(plan("copilot", path))
    assert path.read_text() == "{not json"


# --- Qwen and the JSON managed scopes ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("client", "scope", "expected"),
    [
        ("qwen", "system", "etc/qwen-code/settings.json"),
        ("qwen", "managed", "etc/qwen-code/settings.json"),
        ("gemini", "managed", "etc/gemini-cli/settings.json"),
        ("claude", "managed", "etc/claude-code/managed-settings.json"),
    ],
)
def test_system_paths_are_under_the_overridable_root(tmp_path: Path, client: str, scope: str, expected: str) -> None:
    env = {"HOOKD_SYSTEM_ROOT": str(tmp_path)}
    assert settings_path(client, scope, home=tmp_path, project_dir=tmp_path, env=env) == tmp_path / expected


def test_the_agents_own_system_path_variables_win(tmp_path: Path) -> None:
    env = {"QWEN_CODE_SYSTEM_SETTINGS_PATH": "/x/q.json", "GEMINI_CLI_SYSTEM_SETTINGS_PATH": "/x/g.json"}
    assert settings_path("qwen", "system", home=tmp_path, project_dir=tmp_path, env=env) == Path("/x/q.json")
    assert settings_path("gemini", "managed", home=tmp_path, project_dir=tmp_path, env=env) == Path("/x/g.json")


def test_qwen_install_and_uninstall_give_the_document_back(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"model": {"name": "m"}}, indent=2) + "\n")
    original = path.read_bytes()
    install(plan("qwen", path))
    hook = json.loads(path.read_text())["hooks"]["PreToolUse"][0]["hooks"][0]
    assert (hook["name"], hook["timeout"]) == ("hookd", 5)  # seconds: 1000 or more would read as ms
    uninstall(path, client="qwen")
    assert path.read_bytes() == original


def test_claude_managed_hooks_only_is_set_and_undone(tmp_path: Path) -> None:
    path = tmp_path / "managed-settings.json"
    path.write_text(json.dumps({"permissions": {"deny": ["Bash(curl:*)"]}}, indent=2) + "\n")
    original = path.read_bytes()
    install(plan("claude", path, managed_hooks_only=True))
    assert json.loads(path.read_text())["allowManagedHooksOnly"] is True
    uninstall(path, client="claude")
    assert path.read_bytes() == original


def test_managed_hooks_only_needs_an_agent_that_has_the_switch(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="no switch"):
        install(plan("qwen", tmp_path / "settings.json", managed_hooks_only=True))


# --- project and managed scopes of Codex and Copilot ---------------------------------------------------


def test_codex_project_scope_trusts_its_handlers_and_the_project_in_the_user_config(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    config = home / ".codex" / "config.toml"
    config.parent.mkdir(parents=True)
    project.mkdir()
    config.write_text('model = "m"\n')
    user_path = settings_path("codex", "user", home=home, project_dir=project)
    install(plan("codex", user_path))
    path = settings_path("codex", "project", home=home, project_dir=project)
    assert path == project / ".codex" / "hooks.json"
    trust = trust_path("codex", "project", home=home, project_dir=project)
    assert trust == config
    install(plan("codex", path, trust_path=trust, project_dir=project))
    doc = tomllib.loads(config.read_text())
    assert doc["projects"] == {str(project): {"trust_level": "trusted"}}
    keys = set(doc["hooks"]["state"])
    assert f"{path}:pre_tool_use:0:0" in keys and f"{user_path}:pre_tool_use:0:0" in keys  # both installs
    assert not install(plan("codex", path, trust_path=trust, project_dir=project)).changed
    uninstall(path, client="codex", trust_path=trust)
    doc = tomllib.loads(config.read_text())
    assert "projects" not in doc and all(k.startswith(f"{user_path}:") for k in doc["hooks"]["state"])
    uninstall(user_path, client="codex")
    assert config.read_text() == 'model = "m"\n'


def test_codex_project_scope_refuses_a_project_the_user_distrusts(tmp_path: Path) -> None:
    config, project = tmp_path / "config.toml", tmp_path / "p"
    config.write_text(f'[projects."{project}"]\ntrust_level = "untrusted"\n')
    with pytest.raises(SettingsError, match="trust_level"):
        install(plan("codex", project / ".codex" / "hooks.json", trust_path=config, project_dir=project))
    assert not (project / ".codex" / "hooks.json").exists()


def test_copilot_project_scope_trusts_the_folder_and_keeps_copilots_header(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    config = home / ".copilot" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text('// User settings belong in settings.json.\n// This file is managed automatically.\n'
                      '{\n  "firstLaunchAt": "2026-03-11T00:00:00.000Z"\n}\n')  # fmt: skip
    path = settings_path("copilot", "project", home=home, project_dir=project)
    assert path == project / ".github" / "hooks" / "hookd.json"
    trust = trust_path("copilot", "project", home=home, project_dir=project)
    assert trust == config and trust_path("copilot", "user", home=home, project_dir=project) is None
    install(plan("copilot", path, trust_path=trust, project_dir=project))
    text = config.read_text()
    assert text.startswith("// User settings belong in settings.json.\n// This file is managed automatically.\n{")
    doc = json.loads(text.split("\n", 2)[2])
    assert doc == {"firstLaunchAt": "2026-03-11T00:00:00.000Z", "trustedFolders": [str(project)]}
    assert not install(plan("copilot", path, trust_path=trust, project_dir=project)).changed
    assert config.read_text() == text


def test_copilot_project_scope_refuses_a_config_it_cannot_read_and_writes_nothing(tmp_path: Path) -> None:
    config, project = tmp_path / "config.json", tmp_path / "p"
    config.write_text('{"trustedFolders": "/x"}\n')
    with pytest.raises(SettingsError, match="trustedFolders"):
        install(plan("copilot", project / "hookd.json", trust_path=config, project_dir=project))
    assert not (project / "hookd.json").exists()


def test_copilot_managed_scope_is_a_policy_file_and_the_switch_is_undone(tmp_path: Path) -> None:
    env = {"HOOKD_SYSTEM_ROOT": str(tmp_path / "sys")}
    path = settings_path("copilot", "managed", home=tmp_path, project_dir=tmp_path, env=env)
    assert path == tmp_path / "sys" / "etc" / "github-copilot" / "policy.d" / "hookd.json"
    managed = path.parent.parent / "managed-settings.json"
    path.parent.mkdir(parents=True)
    managed.write_text(json.dumps({"enabledPlugins": {"x@y": False}}, indent=2) + "\n")
    original = managed.read_bytes()
    switch = managed_only_path("copilot", path)
    assert switch == managed
    install(plan("copilot", path, managed_hooks_only=True, managed_only_path=switch))
    doc = json.loads(path.read_text())
    assert set(doc) == {"version", "hooks"}  # a policy document with any other key is skipped whole
    assert json.loads(managed.read_text()) == {"enabledPlugins": {"x@y": False}, "allowManagedHooksOnly": True}
    assert not install(plan("copilot", path, managed_hooks_only=True, managed_only_path=switch)).changed
    uninstall(path, client="copilot")
    assert not path.exists() and managed.read_bytes() == original
    assert not managed.with_name("managed-settings.json.hookd-installed").exists()


def test_copilot_managed_uninstall_keeps_an_administrators_own_switch(tmp_path: Path) -> None:
    path = tmp_path / "policy.d" / "hookd.json"
    managed = tmp_path / "managed-settings.json"
    path.parent.mkdir()
    managed.write_text('{"allowManagedHooksOnly": true}\n')
    install(plan("copilot", path, managed_hooks_only=True, managed_only_path=managed))
    uninstall(path, client="copilot")
    assert json.loads(managed.read_text()) == {"allowManagedHooksOnly": True}


def test_copilot_managed_hooks_only_writes_no_file_the_plan_does_not_name(tmp_path: Path) -> None:
    """hookd doctor installs into a copy in a scratch directory: nothing may land beside that directory."""
    path = tmp_path / "scratch" / "hookd.json"
    with pytest.raises(SettingsError, match="names no file"):
        install(plan("copilot", path, managed_hooks_only=True))
    assert not (tmp_path / "managed-settings.json").exists() and not path.exists()
