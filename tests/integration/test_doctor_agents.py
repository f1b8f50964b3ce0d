"""`hookd doctor`'s agent checks for every agent of the registry: the settings are written by the real
`hookd install --client <agent>` (a subprocess, once per agent), then broken one way per test, and the
checks (hookd.doctor.agents) must give exactly the problem line with its fix. Parametrised over the
registry and over each agent's own InstallSpec facts (`hooks_off`, `run_order`, `managed_only_key`), so a
new agent is tested here without an edit."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from hookd.config import load_config
from hookd.dialects.registry import AGENTS
from hookd.dialects.spec import AgentSpec, SubAgents, Switch
from hookd.doctor import Finding
from hookd.doctor import agents as doctor_agents
from hookd.doctor.agents import check_agents
from hookd.install import managed_only_path

AGENT_VARS = ("XDG_", "HOOKD_", "GEMINI_", "CLAUDE_", "CODEX_", "COPILOT_", "QWEN_")
NAMES = tuple(AGENTS)


@dataclass
class Installed:
    """One agent's user scope as `hookd install` wrote it, under a root that stays at one path (Codex's
    trust entries name hooks.json by its absolute path)."""

    spec: AgentSpec
    root: Path
    pristine: Path
    config: Path
    env: dict[str, str]

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def project(self) -> Path:
        return self.root / "project"

    def settings(self, scope: str = "user") -> Path:
        return self.spec.install.settings_path(scope, self.home, self.project, self.env)

    def restore(self) -> Installed:
        """Back to what `hookd install` wrote."""
        for part in ("home", "sys"):
            shutil.rmtree(self.root / part, ignore_errors=True)
            shutil.copytree(self.pristine / part, self.root / part, symlinks=True)
        return self

    def problems(self, monkeypatch: pytest.MonkeyPatch, config: Path | None = None) -> list[str]:
        monkeypatch.setenv("HOME", str(self.home))
        findings: list[Finding] = check_agents(load_config(str(config or self.config)), self.project, self.env)
        return [f"{f.check}: {f.detail}; fix: {f.fix}" for f in findings if not f.ok]


@pytest.fixture(scope="module")
def installed() -> Iterator[dict[str, Installed]]:
    roots = []
    out: dict[str, Installed] = {}
    try:
        for name, spec in AGENTS.items():
            root = Path(tempfile.mkdtemp(prefix=f"hkddoc-{name}-", dir="/tmp"))
            roots.append(root)
            for part in ("home", "project", "sys"):
                (root / part).mkdir()
            config = root / "config.toml"
            config.write_text(f'[daemon]\nruntime_dir = "{root / "run"}"\n')
            env = {k: v for k, v in os.environ.items() if not k.startswith(AGENT_VARS)}
            env |= {"HOME": str(root / "home"), "HOOKD_SYSTEM_ROOT": str(root / "sys")}
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "hookd",
                    "--config",
                    str(config),
                    "install",
                    "--client",
                    name,
                    "--shim",
                    "python",
                    "--all-events",  # check_agents without the policies' needs checks every event
                ],
                env=env,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert done.returncode == 0, done.stderr
            pristine = root / "pristine"
            for part in ("home", "sys"):
                shutil.copytree(root / part, pristine / part, symlinks=True)
            out[name] = Installed(spec, root, pristine, config, env)
        yield out
    finally:
        for root in roots:
            shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(params=NAMES)
def agent(request: pytest.FixtureRequest, installed: dict[str, Installed]) -> Installed:
    return installed[request.param].restore()


# The agents whose settings file the editing helpers below can edit (JSON or TOML); hookd's plugin file
# (OpenCode, Kilo) is hookd's own generated code, checked by test_an_edited_plugin_file_is_reported.
EDITABLE = tuple(n for n, s in AGENTS.items() if s.install.text_settings is None or s.install.text_settings.doc is None)


@pytest.fixture(params=EDITABLE)
def editable(request: pytest.FixtureRequest, installed: dict[str, Installed]) -> Installed:
    return installed[request.param].restore()


# --- editing helpers (by the file's own format) -------------------------------------------------------


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text()) if path.exists() and path.read_text().strip() else {}


def edit(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    doc = load(path)
    change(doc)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2))


def set_key(path: Path, key: str, value: Any) -> None:
    """Set a dotted key in a JSON file, or append it to a TOML file (a table of its first part)."""
    if path.suffix == ".toml":
        table, _, leaf = key.rpartition(".")
        line = f"{leaf} = {json.dumps(value)}\n"
        text = path.read_text() if path.exists() else ""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + f"\n[{table}]\n{line}" if table else line + text)  # top-level keys come first
        return

    def put(doc: dict[str, Any]) -> None:
        *parents, leaf = key.split(".")
        for part in parents:
            doc = doc.setdefault(part, {})
        doc[leaf] = value

    edit(path, put)


def first_blocking(spec: AgentSpec) -> str:
    return next(e.name for e in spec.events if e.install and e.fail_output is not None)


def hookd_handlers(setup: Installed, doc: dict[str, Any], event: str) -> list[dict[str, Any]]:
    out = []
    for definition in doc["hooks"][event]:
        for hook in definition.get("hooks", [definition]):
            owned = setup.spec.install.own_file is not None
            if owned or hook.get(setup.spec.install.identity) == "hookd":
                out.append(hook)
    return out


def again(setup: Installed) -> str:
    return f"hookd install --client {setup.spec.name} again"


# --- the checks ------------------------------------------------------------------------------------------


def test_a_fresh_install_is_sound(agent: Installed, monkeypatch: pytest.MonkeyPatch) -> None:
    assert agent.problems(monkeypatch) == []
    monkeypatch.setenv("HOME", str(agent.home))
    found = check_agents(load_config(str(agent.config)), agent.project, agent.env)
    assert [f.line() for f in found] == [f"ok       {agent.spec.name} user: registered in {agent.settings()}, current"]


def test_shim_missing(editable: Installed, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = editable
    event = first_blocking(agent.spec)

    def break_shim(doc: dict[str, Any]) -> None:
        for hook in hookd_handlers(agent, doc, event):
            for key, value in hook.items():
                if isinstance(value, str):
                    hook[key] = value.replace("hookd_shim.py", "gone.py")
                elif isinstance(value, list):
                    hook[key] = [v.replace("hookd_shim.py", "gone.py") for v in value]

    edit(agent.settings(), break_shim)
    found = agent.problems(monkeypatch)
    line = next(p for p in found if "gone.py" in p)
    assert line.startswith(f"{agent.spec.name} user: {event} in {agent.settings()}: the Python shim ")
    assert line.endswith(f"gone.py does not exist; fix: {again(agent)}")
    trust = [p for p in found if "trust entry" in p]  # Codex: the changed command is no longer trusted
    assert len(found) == 1 + len(trust) and (agent.spec.name == "codex") == bool(trust), found


def test_shim_points_at_another_socket(agent: Installed, monkeypatch: pytest.MonkeyPatch) -> None:
    other = agent.root / "other.toml"
    other.write_text(f'[daemon]\nruntime_dir = "{agent.root / "elsewhere"}"\n')
    found = agent.problems(monkeypatch, config=other)
    mine, theirs = agent.root / "run" / "hook.sock", agent.root / "elsewhere" / "hook.sock"
    assert len(found) == 1 and f"its shim calls {mine}, not this daemon's {theirs}; fix: {again(agent)}" in found[0]


def test_entry_removed(editable: Installed, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = editable
    event = first_blocking(agent.spec)

    def drop(doc: dict[str, Any]) -> None:
        doc["hooks"][event] = [
            d for d in doc["hooks"][event] if not hookd_handlers(agent, {"hooks": {event: [d]}}, event)
        ]

    edit(agent.settings(), drop)
    assert agent.problems(monkeypatch) == [
        f"{agent.spec.name} user: {event}: the policies need it, hookd is not registered on it in {agent.settings()}; "
        f"fix: hookd --config {agent.config.resolve()} install --client {agent.spec.name} --scope user"
    ]


def test_entry_edited(editable: Installed, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = editable
    event = first_blocking(agent.spec)

    def longer(doc: dict[str, Any]) -> None:
        (hook,) = hookd_handlers(agent, doc, event)
        key = next(k for k in ("timeout", "timeoutSec") if k in hook)
        hook[key] = hook[key] + 7

    edit(agent.settings(), longer)
    found = agent.problems(monkeypatch)
    edited = (
        f"{agent.spec.name} user: hookd's entries in {agent.settings()} were edited since install; fix: {again(agent)}"
    )
    assert found[0] == edited
    trust = [p for p in found[1:] if "trust entry" in p]  # Codex: the changed timeout is no longer trusted
    assert len(found) == 1 + len(trust) and (agent.spec.name == "codex") == bool(trust), found


HOOKS_OFF = [(name, switch) for name, spec in AGENTS.items() for switch in spec.install.hooks_off]


@pytest.mark.parametrize(("name", "switch"), HOOKS_OFF, ids=[f"{n}-{s.key}" for n, s in HOOKS_OFF])
def test_hooks_switched_off(
    name: str, switch: Switch, installed: dict[str, Installed], monkeypatch: pytest.MonkeyPatch
) -> None:
    setup = installed[name].restore()
    beside, off = switch.beside, switch.off
    key = switch.key.replace("*", "quick")  # a wildcard part is every entry of its table: one named entry here
    where = (setup.settings().parent / beside).resolve() if beside else setup.settings()
    set_key(where, key, off)
    assert setup.problems(monkeypatch) == [
        f"{name} user: {key} is {json.dumps(off)} in {where}: {setup.spec.title} "
        f"runs no hook; fix: set {key} to {json.dumps(not off)} in {where}"
    ]


SAME_FILE = [n for n, s in AGENTS.items() if s.install.own_file is None and n in EDITABLE]  # not hookd's own file


@pytest.mark.parametrize("name", SAME_FILE)
def test_another_hook_after_hookd(name: str, installed: dict[str, Installed], monkeypatch: pytest.MonkeyPatch) -> None:
    setup = installed[name].restore()
    event = first_blocking(setup.spec)
    edit(
        setup.settings(),
        lambda doc: doc["hooks"][event].append({"hooks": [{"type": "command", "command": "./approve-all.sh"}]}),
    )
    order = setup.spec.install.run_order
    fix = (
        f"hookd install --client {name} --scope {order[-1]} (its hooks run last), or remove that hook"
        if order
        else "move hookd's entry last, or remove that hook"
    )
    assert setup.problems(monkeypatch) == [
        f"{name} user: on {event}, another hook (./approve-all.sh) runs after hookd "
        f"in {setup.settings()} and can override its decision; fix: {fix}"
    ]


RUN_ORDER = [name for name, spec in AGENTS.items() if spec.install.run_order]


@pytest.mark.parametrize("name", RUN_ORDER)
def test_a_later_scope_overrides_hookd(
    name: str, installed: dict[str, Installed], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Qwen: hooks run project → user → system, and the last nested allow wins: a system hook after hookd's user
    hook can undo its deny, a project hook before it cannot."""
    setup = installed[name].restore()
    event = first_blocking(setup.spec)
    order = setup.spec.install.run_order
    hook = {"hooks": {event: [{"hooks": [{"type": "command", "command": "./allow.sh"}]}]}}
    earlier, later = order[0], order[-1]
    edit(setup.settings(earlier), lambda doc: doc.update(hook))
    assert setup.problems(monkeypatch) == []
    edit(setup.settings(later), lambda doc: doc.update(hook))
    assert setup.problems(monkeypatch) == [
        f"{name} user: on {event}, another hook (./allow.sh) runs after hookd in {setup.settings(later)} (after "
        f"hookd's in {setup.settings()}) and can override its decision; fix: hookd install --client {name} --scope "
        f"{later} (its hooks run last), or remove that hook"
    ]


MANAGED_ONLY = [name for name, spec in AGENTS.items() if spec.install.managed_only_key]


@pytest.mark.parametrize("name", MANAGED_ONLY)
def test_managed_hooks_only_drops_hookd(
    name: str, installed: dict[str, Installed], monkeypatch: pytest.MonkeyPatch
) -> None:
    setup = installed[name].restore()
    key, managed = setup.spec.install.managed_only_key, setup.settings("managed")
    switch = managed_only_path(name, managed) or managed  # Copilot: managed-settings.json, beside policy.d/
    set_key(switch, key, True)
    assert setup.problems(monkeypatch) == [
        f"{name} user: {switch} sets {key}: {setup.spec.title} runs only managed "
        f"hooks, never hookd's in {setup.settings()}; fix: hookd install --client "
        f"{name} --scope managed"
    ]


def test_codex_trust_entry_missing_or_stale(installed: dict[str, Installed], monkeypatch: pytest.MonkeyPatch) -> None:
    setup = installed["codex"]
    setup.restore()
    config_toml = setup.settings().parent / "config.toml"
    written = config_toml.read_text()
    assert "trusted_hash" in written
    expected = [
        f"codex user: {config_toml} has no current trust entry for hookd's pre_tool_use hook: Codex CLI skips "
        f"it without a word; fix: {again(setup)}"
    ]
    config_toml.write_text("")  # the block removed (a user cleaning up config.toml)
    assert setup.problems(monkeypatch) == expected
    config_toml.write_text(written.replace('trusted_hash = "sha256:', 'trusted_hash = "sha256:0', 1))
    assert setup.problems(monkeypatch) == expected
    config_toml.write_text(written.replace("enabled = true", "enabled = false", 1))
    assert setup.problems(monkeypatch) == [
        f"codex user: hookd's pre_tool_use hook is switched off in {config_toml}; fix: {again(setup)}"
    ]


@pytest.mark.parametrize("name", [n for n in NAMES if n not in EDITABLE])
def test_an_edited_plugin_file_is_reported(
    name: str, installed: dict[str, Installed], monkeypatch: pytest.MonkeyPatch
) -> None:
    """hookd's plugin file (OpenCode, Kilo): a shim pointed elsewhere is reported with its fix, and a
    plugin file whose hooks line is gone registers hookd for nothing."""
    setup = installed[name].restore()
    path = setup.settings()
    path.write_text(path.read_text().replace("hookd_shim.py", "gone.py"))
    found = setup.problems(monkeypatch)
    assert any("gone.py does not exist" in p and p.startswith(f"{name} user: ") for p in found), found
    path.write_text("\n".join(line for line in path.read_text().splitlines() if "HOOKD-HOOKS" not in line))
    assert not any(p.startswith(f"{name} user: ") and "current" in p for p in setup.problems(monkeypatch))


# --- every way an agent's hooks can be bypassed (issue 27.3) ----------------------------------------------


def install_project(setup: Installed, monkeypatch: pytest.MonkeyPatch) -> None:
    """`hookd install --scope project` into the setup's project, as a user would run it."""
    done = subprocess.run(
        [sys.executable, "-m", "hookd", "--config", str(setup.config), "install", "--client", setup.spec.name,
         "--shim", "python", "--scope", "project", "--project-dir", str(setup.project), "--all-events"],
        env=setup.env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


TRUSTING = [name for name, spec in AGENTS.items()  # those that trust a project (OpenCode's trust is managed only)
            if spec.install.trust_path("project", Path("/h"), Path("/p"), {}) is not None]  # fmt: skip


@pytest.mark.parametrize("name", TRUSTING)
def test_a_project_the_agent_does_not_trust(
    name: str, installed: dict[str, Installed], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Copilot loads a repository's hooks only in a trusted folder, Codex a project's only when the project
    is trusted: with the trust taken away, doctor names the file and the fix."""
    setup = installed[name].restore()
    try:
        install_project(setup, monkeypatch)
        assert setup.problems(monkeypatch) == []  # control: install trusted the project
        trust = setup.spec.install.trust_path("project", setup.home, setup.project, setup.env)
        assert trust is not None
        if trust.suffix == ".toml":  # Codex: the project's trust_level, in hookd's block of config.toml
            trust.write_text(trust.read_text().replace('trust_level = "trusted"', 'trust_level = "untrusted"'))
        else:
            edit(trust, lambda doc: doc.update(trustedFolders=[]))
        problems = setup.problems(monkeypatch)
        assert any(f"{name} project: " in p and str(setup.project) in p and f"--client {name} --scope project" in p
                   for p in problems), problems  # fmt: skip
    finally:
        shutil.rmtree(setup.project / f".{name}", ignore_errors=True)
        shutil.rmtree(setup.project / ".github", ignore_errors=True)


ONE_BY_ONE = [(name, key) for name, spec in AGENTS.items() for key in spec.install.switch_keys]


@pytest.mark.parametrize(("name", "key"), ONE_BY_ONE)
def test_a_switch_that_turns_hooks_off_one_by_one(
    name: str, key: str, installed: dict[str, Installed], monkeypatch: pytest.MonkeyPatch
) -> None:
    setup = installed[name].restore()
    [switch] = [s for s in setup.spec.install.hooks_off if s.beside]
    where = (setup.settings().parent / switch.beside).resolve()
    set_key(where, key, ["hookd"])
    problems = setup.problems(monkeypatch)
    assert problems == [
        f'{name} user: {key} is set in {where} (["hookd"]): {setup.spec.title} skips the hooks it names, '
        f"hookd's may be among them; fix: remove hookd's hooks from {key} in {where}"
    ], problems


OVERRIDABLE = [name for name, spec in AGENTS.items() if spec.install.run_order and spec.install.bypass]


@pytest.mark.parametrize("name", OVERRIDABLE)
def test_extension_hooks_that_run_after_hookd(
    name: str, installed: dict[str, Installed], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Qwen runs an extension's hooks after every scope's, the system scope's included: one that answers on
    PreToolUse can override hookd's deny wherever hookd is installed."""
    setup = installed[name].restore()
    assert setup.problems(monkeypatch) == []  # control
    [place] = [
        p for p in setup.spec.install.bypass("user", setup.home, setup.project, setup.env) if p.name == "extensions"
    ]
    manifest = place / "allow-all" / "qwen-extension.json"
    edit(manifest, lambda doc: doc.update(name="allow-all", hooks={
        "PreToolUse": [{"hooks": [{"type": "command", "command": "echo allow"}]}]}))  # fmt: skip
    assert setup.problems(monkeypatch) == [
        f"{name} extensions: {manifest} adds hooks on PreToolUse that {setup.spec.title} runs after every scope's, "
        f"hookd's included: their allow overrides hookd's deny; fix: remove or disable that extension "
        f"({manifest.parent})"
    ]


def test_an_agent_whose_sub_agents_are_not_known_to_be_guarded(
    agent: Installed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An agent module that names no proof that its sub-agents' tool calls reach hookd gets one line."""
    assert agent.problems(monkeypatch) == []  # control: every agent's module names its proof
    unproven = replace(agent.spec, subagents=SubAgents())
    monkeypatch.setitem(doctor_agents.AGENTS, agent.spec.name, unproven)
    assert agent.problems(monkeypatch) == [
        f"{agent.spec.name} sub-agents: not known whether the tool calls of {agent.spec.title}'s sub-agents reach "
        "hookd; fix: deny the tool that starts a sub-agent in a policy"
    ]


REMOTE_AGENT = "---\nkind: remote\nname: faraway\nagent_card_url: https://agents.example/card.json\n---\n"
LOCAL_AGENT = "---\nname: nearby\ndescription: a local agent\ntools:\n  - run_shell_command\n---\nDo the task.\n"


def test_gemini_remote_sub_agents_are_reported(
    installed: dict[str, Installed], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A remote (A2A) sub-agent runs its tools on its own server: no hook fires here for them. Each such
    agent file, user or project, is one line; a local agent (its tools fire hookd's hooks) is none."""
    setup = installed["gemini"].restore()
    user_agents, project_agents = setup.home / ".gemini" / "agents", setup.project / ".gemini" / "agents"
    for directory in (user_agents, project_agents):
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "nearby.md").write_text(LOCAL_AGENT)
    assert setup.problems(monkeypatch) == []  # control: local agents only
    listed = "---\n- name: a\n  agent_card_json: '{}'\n- name: b\n  agent_card_url: https://agents.example/b\n---\n"
    (user_agents / "faraway.md").write_text(REMOTE_AGENT)
    (project_agents / "team.md").write_text(listed)
    (project_agents / "_draft.md").write_text(REMOTE_AGENT)  # Gemini skips files named _*
    why = ("a remote sub-agent (A2A): its tools run on its own server and fire no hook here, only the "
           "invoke_agent call that starts it is judged")  # fmt: skip
    try:
        assert setup.problems(monkeypatch) == [
            f"gemini sub-agents: {path}: {why}; fix: remove {path}, or deny starting it in a policy"
            for path in (user_agents / "faraway.md", project_agents / "team.md")
        ]
    finally:
        shutil.rmtree(project_agents.parent, ignore_errors=True)
