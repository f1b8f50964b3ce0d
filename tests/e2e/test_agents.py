"""End to end: the real Codex CLI (0.171.0), Copilot CLI (1.0.102), Qwen Code (0.24.4) and Factory Droid
(0.225.2), offline, each with hookd registered by `hookd install --client codex|copilot|qwen|droid`.

One fake model server (tests/fake_llm.py) serves the whole session from the session's network
namespace (tests/confine.py: only `lo` up); every agent run is confined there, with a read-only view of
everything but its own world (its HOME, project and the marker directory), so nothing can leave it.
Its model answers a prompt with one shell tool call running the command the prompt names
(`RUN<<command>>RUN`), then "Done.". One hookd daemon serves the session with the policies in
fixtures/agents-policies; each agent is installed twice, once against that daemon and once against a
socket where no daemon runs (fail closed). Qwen Code is installed at the system scope
(`QWEN_CODE_SYSTEM_SETTINGS_PATH`), where hookd answers after every user and project hook.

What is observed: the file system (did the command run?) and what the model was sent (the reason of a
deny, the context). Every blocking run has a control run whose command runs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from confine import Netns, confined

from hookd.dialects.codex import codex_trust_entries
from hookd.dialects.registry import AGENTS as REGISTRY
from support import ROOT, VENV_PYTHON, RunningDaemon, require, start_daemon

pytestmark = pytest.mark.e2e

AGENTS = ("codex", "copilot", "qwen", "droid", "opencode")
VERSIONS = {"codex": "codex-cli 0.171.0", "copilot": "GitHub Copilot CLI 1.0.102", "qwen": "0.24.4", "droid": "0.225.2",
            "opencode": "1.18.33", "kilo": "7.7.9"}  # fmt: skip
PLUGIN_AGENTS = ("opencode", "kilo")  # hookd is an in-process plugin (docs/opencode.md)
# Kilo takes 40-60 s a run on this loaded 2-core box (its start-up), so it runs in one test of its own.
KILO_TIMEOUT = 240.0
POLICIES = Path(__file__).resolve().parent / "fixtures" / "agents-policies"
FAKE_LLM = Path(__file__).resolve().parents[1] / "fake_llm.py"
TIMEOUT = 120.0
DENY_REASON = "touching a keep-* file is not allowed"
CONTEXT = "hookd-e2e-context-7f3a"
PATH = "/usr/local/bin:/usr/bin:/bin"


@dataclass
class Server:
    proc: subprocess.Popen[str]
    port: int
    log: Path
    netns: Netns

    def requests(self, run_id: str) -> list[dict[str, Any]]:
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        return [r for r in map(json.loads, lines) if run_id in json.dumps(r.get("body"))]


@dataclass
class Install:
    agent: str
    home: Path
    project: Path
    env: dict[str, str]
    world: tuple[Path, ...]  # what the agent may write: the rest of the machine is read-only to it


@dataclass(repr=False)
class Run:
    returncode: int
    stdout: str
    stderr: str
    sent: str  # every request the model got in this run, as JSON text

    @property
    def report(self) -> str:
        return (
            f"exited {self.returncode}\n--- stdout\n{self.stdout[-3000:]}\n--- stderr\n{self.stderr[-3000:]}"
            f"\n--- the model got (the end)\n{self.sent[-3000:]}"
        )


# --- set-up --------------------------------------------------------------------------------------------


def binary(agent: str) -> str:
    path = os.environ.get(f"HOOKD_{agent.upper()}_BIN", "")
    require(bool(path) and os.access(path, os.X_OK), f"{VERSIONS[agent]} (HOOKD_{agent.upper()}_BIN)")
    return path


def agent_settings(agent: str, home: Path, project: Path, port: int) -> None:
    """What the agent needs to run offline against the fake server, before hookd install adds to it."""
    if agent == "codex":
        (home / ".codex").mkdir(parents=True)
        (home / ".codex" / "config.toml").write_text(
            'model = "fake-model"\nmodel_provider = "fake"\napproval_policy = "never"\n'
            'sandbox_mode = "danger-full-access"\ncheck_for_update_on_startup = false\n\n'
            f'[model_providers.fake]\nname = "fake"\nbase_url = "http://127.0.0.1:{port}/v1"\n'
            'env_key = "FAKE_API_KEY"\nwire_api = "responses"\n\n[analytics]\nenabled = false\n\n'
            "[features]\nplugins = false\n"
        )
    elif agent == "qwen":
        (home / ".qwen").mkdir(parents=True)
        settings = {
            "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": False}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
            "model": {"name": "fake-model"},
        }
        (home / ".qwen" / "settings.json").write_text(json.dumps(settings))
        (home / "etc").mkdir()
        (home / "etc" / "settings.json").write_text("{}\n")
    elif agent == "droid":  # a BYOK model (Chat Completions) and no Factory account
        (home / ".factory").mkdir(parents=True)
        model = {"model": "fake-model", "displayName": "Fake", "baseUrl": f"http://127.0.0.1:{port}/v1",
                 "apiKey": "sk-fake", "provider": "generic-chat-completion-api", "maxOutputTokens": 1024}  # fmt: skip
        (home / ".factory" / "settings.json").write_text(json.dumps({"customModels": [model]}))
    elif agent in PLUGIN_AGENTS:  # an OpenAI-compatible provider (bundled in the binary), nothing shared
        provider = {"npm": "@ai-sdk/openai-compatible", "name": "Fake", "models": {"fake-model": {"name": "Fake"}},
                    "options": {"baseURL": f"http://127.0.0.1:{port}/v1", "apiKey": "sk-fake"}}  # fmt: skip
        config = {
            "provider": {"fake": provider},
            "model": "fake/fake-model",
            "autoupdate": False,
            "share": "disabled",
            "permission": {"bash": "allow", "edit": "allow", "external_directory": "allow"},
        }  # only hookd stops
        (home / ".config" / agent).mkdir(parents=True)
        (home / ".config" / agent / f"{agent}.json").write_text(json.dumps(config))


def agent_env(agent: str, home: Path, port: int, copilot_cache: Path) -> dict[str, str]:
    env = {"PATH": PATH, "HOME": str(home), "TERM": "dumb", "SHELL": "/bin/bash", "LANG": "C.UTF-8",
           "TMPDIR": str(home / "tmp")}  # fmt: skip
    if agent == "codex":
        env |= {"CODEX_HOME": str(home / ".codex"), "FAKE_API_KEY": "sk-fake"}
    elif agent == "copilot":
        env |= {
            "COPILOT_HOME": str(home / ".copilot"), "XDG_CACHE_HOME": str(copilot_cache),
            "COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false",
            "COPILOT_PROVIDER_BASE_URL": f"http://127.0.0.1:{port}/v1", "COPILOT_PROVIDER_TYPE": "openai",
            "COPILOT_PROVIDER_API_KEY": "sk-fake", "COPILOT_MODEL": "fake-model",
        }  # fmt: skip
    elif agent == "droid":  # airgapped: no org-settings or feature-flag look-ups (5 s of time-outs otherwise)
        env |= {"FACTORY_AIRGAP_ENABLED": "1"}
    elif agent in PLUGIN_AGENTS:  # the config dir's npm install of the plugin SDK fails at once offline
        env |= {"npm_config_offline": "true", "npm_config_fetch_retries": "0", "OPENCODE_DISABLE_MODELS_FETCH": "1",
                "OPENCODE_DISABLE_AUTOUPDATE": "1", "KILO_DISABLE_AUTOUPDATE": "1", "KILO_DISABLE_MODELS_FETCH": "1",
                "KILO_DISABLE_CODEBASE_INDEXING": "1", "KILO_TELEMETRY_LEVEL": "off",
                "KILO_DISABLE_SHARE": "1"}  # fmt: skip
    else:
        env |= {
            "OPENAI_API_KEY": "sk-fake", "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
            "OPENAI_MODEL": "fake-model", "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(home / "etc" / "settings.json"),
            "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
        }  # fmt: skip
    return env


def install(
    agent: str, root: Path, socket_dir: Path, port: int, copilot_cache: Path, extra: str = "", scope: str = ""
) -> Install:
    home, project = root / "home", root / "project"
    (home / "tmp").mkdir(parents=True)
    project.mkdir()
    agent_settings(agent, home, project, port)
    env = agent_env(agent, home, port, copilot_cache)
    config = root / "hookd.toml"
    config.write_text(f'[daemon]\nruntime_dir = "{socket_dir}"\n{extra}')
    scope = scope or ("system" if agent == "qwen" else "user")
    done = subprocess.run(
        [VENV_PYTHON, "-m", "hookd", "--config", str(config), "install", "--client", agent, "--shim", "python",
         "--scope", scope, "--project-dir", str(project), "--all-events"],
        env={**os.environ, **env}, cwd=project, capture_output=True, text=True, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return Install(agent, home, project, env, (root, copilot_cache))


@pytest.fixture(scope="session")
def installs(
    server: Server, daemon: RunningDaemon, copilot_cache: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[tuple[str, str], Install]:
    """(agent, "live" | "dead") -> an install against the session's daemon, or against no daemon. The dead
    one lets the prompt through (BeforeAgent fails open there), so that its runs reach the tool call."""
    dead = Path(tempfile.mkdtemp(prefix="hkd", dir="/tmp")) / "nothing"
    out = {}
    for agent in AGENTS:
        for kind, socket_dir, extra in (
            ("live", daemon.runtime_dir, ""),
            ("dead", dead, '[fail_mode]\nBeforeAgent = "open"\n'),
        ):
            out[agent, kind] = install(agent, tmp_path_factory.mktemp(f"{agent}-{kind}"), socket_dir, server.port,
                                       copilot_cache, extra)  # fmt: skip
    return out


def agent_argv(agent: str, prompt: str) -> list[str]:
    """A headless run that allows every tool (no folder or project trust flag: install provides those)."""
    program = binary(agent)
    if agent == "codex":
        return [program, "exec", "--skip-git-repo-check", "--json", prompt]
    if agent == "copilot":
        return [program, "-p", prompt, "--yolo", "--output-format", "json", "--no-auto-update"]
    if agent == "droid":
        return [program, "exec", "-m", "custom:fake-model", "--auto", "high", "-o", "json", prompt]
    if agent in PLUGIN_AGENTS:
        return [program, "run", prompt]
    return [program, "--auth-type", "openai", "--approval-mode", "yolo", "-o", "json", prompt]


def run_agent(
    server: Server, setup: Install, command: str, prompt_extra: str = "", etc: Path | None = None,
    target: Path | None = None,
) -> Run:  # fmt: skip
    """One confined run (tests/confine.py) in the fake server's network namespace, writing only to the
    install's world and `target` (the markers); `etc`: over an overlay of /etc whose upper directory is
    `etc` (the real /etc is never written)."""
    run_id = uuid.uuid4().hex[:12]
    prompt = f"Run this shell command: RUN<<{command}>>RUN (run {run_id}) {prompt_extra}"
    world = (*setup.world, *([target] if target else []))
    overlays = {Path("/etc"): etc} if etc is not None else {}
    argv = confined(agent_argv(setup.agent, prompt), world=world, netns=server.netns, overlays=overlays)
    done = subprocess.run(
        argv, env=setup.env, cwd=setup.project, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=KILO_TIMEOUT if setup.agent == "kilo" else TIMEOUT, check=False,
    )  # fmt: skip
    sent = json.dumps(server.requests(run_id))
    return Run(done.returncode, done.stdout, done.stderr, sent)


# --- the runs ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("agent", AGENTS)
def test_a_shell_deny_blocks_the_command_and_the_reason_reaches_the_model(
    agent: str, server: Server, installs: dict[tuple[str, str], Install], target: Path
) -> None:
    control = run_agent(server, installs[agent, "live"], f"touch {target}/ok-1", target=target)
    assert (target / "ok-1").exists(), control.report  # the control: an allowed command runs
    denied = run_agent(server, installs[agent, "live"], f"touch {target}/keep-1", target=target)
    assert not (target / "keep-1").exists(), denied.report
    assert DENY_REASON in denied.sent, denied.report


@pytest.mark.parametrize("agent", AGENTS)
def test_a_rewrite_runs_the_rewritten_command(
    agent: str, server: Server, installs: dict[tuple[str, str], Install], target: Path
) -> None:
    run = run_agent(server, installs[agent, "live"], f"touch {target}/rewrite-me-1", target=target)
    assert not (target / "rewrite-me-1").exists(), run.report
    if agent == "qwen":  # Qwen cannot rewrite on PreToolUse: the documented mapping is a deny
        assert not (target / "rewritten-1").exists(), run.report
        assert f"hookd would run instead: touch {target}/rewritten-1" in run.sent, run.report
    else:
        assert (target / "rewritten-1").exists(), run.report


@pytest.mark.parametrize("agent", AGENTS)
def test_context_reaches_the_model(
    agent: str, server: Server, installs: dict[tuple[str, str], Install], target: Path
) -> None:
    control = run_agent(server, installs[agent, "live"], f"touch {target}/plain-1", target=target)
    assert CONTEXT not in control.sent, control.report
    # Qwen drops context on PreToolUse: its context comes on UserPromptSubmit (the prompt names it).
    extra = "context-me" if agent == "qwen" else ""
    run = run_agent(server, installs[agent, "live"], f"touch {target}/context-me-1", extra, target=target)
    assert (target / "context-me-1").exists(), run.report
    # Droid sends no PreToolUse context to the model and fires no UserPromptSubmit under exec (docs/droid.md);
    # a plugin cannot add text for the model (docs/opencode.md).
    assert (CONTEXT in run.sent) is (agent not in ("droid", *PLUGIN_AGENTS)), run.report


@pytest.mark.parametrize("agent", AGENTS)
def test_fail_closed_when_the_daemon_is_not_running(
    agent: str, server: Server, installs: dict[tuple[str, str], Install], target: Path
) -> None:
    """The agent fails open on a broken hook (Codex, Qwen) or a timeout (Copilot): the shim's own answer
    is a deny in the shape the agent honours. The control is the same command with the daemon up."""
    control = run_agent(server, installs[agent, "live"], f"touch {target}/ok-2", target=target)
    assert (target / "ok-2").exists(), control.report
    started = time.monotonic()
    run = run_agent(server, installs[agent, "dead"], f"touch {target}/ok-3", target=target)
    assert not (target / "ok-3").exists(), run.report
    assert "hookd is not running" in run.sent, run.report
    assert time.monotonic() - started < TIMEOUT


def test_the_versions_are_the_pinned_ones() -> None:
    for agent, version in VERSIONS.items():
        done = subprocess.run([binary(agent), "--version"], capture_output=True, text=True, timeout=60, check=False,
                              env={"PATH": PATH, "HOME": tempfile.gettempdir()}, stdin=subprocess.DEVNULL)  # fmt: skip
        assert version in done.stdout + done.stderr, done.stdout + done.stderr


def test_codex_managed_scope_runs_without_review_and_alone(
    server: Server, daemon: RunningDaemon, copilot_cache: Path, tmp_path: Path, target: Path
) -> None:
    """`hookd install --client codex --scope managed --managed-hooks-only` writes requirements.toml; Codex
    reads it from /etc/codex, here an overlay of /etc in a private mount namespace (the real /etc is never
    written). Managed hooks need no trust entry, and a user hook that would let the command through does
    not run at all."""
    require(shutil.which("mount") is not None, "mount (an overlay of /etc)")
    root = tmp_path / "managed"
    home, project, system = root / "home", root / "project", root / "system"
    (home / "tmp").mkdir(parents=True)
    project.mkdir()
    agent_settings("codex", home, project, server.port)
    # A trusted user hook that leaves a trace when it runs: allow_managed_hooks_only must keep it from running.
    user_hooks = {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "timeout": 5, "statusMessage": "user",
                                                       "command": f"echo ran > {target}/user-hook"}]}]}}  # fmt: skip
    (home / ".codex" / "hooks.json").write_text(json.dumps(user_hooks))
    with (home / ".codex" / "config.toml").open("a") as handle:
        for key, digest in codex_trust_entries(home / ".codex" / "hooks.json", user_hooks, "user"):
            handle.write(f'\n[hooks.state.{json.dumps(key)}]\nenabled = true\ntrusted_hash = "{digest}"\n')
    setup = Install("codex", home, project, agent_env("codex", home, server.port, copilot_cache), (root,))
    install_managed(setup, daemon, root, system)
    assert (system / "etc" / "codex" / "requirements.toml").is_file()
    assert_managed_hooks_run_alone(server, setup, system / "etc", target)


def install_managed(setup: Install, daemon: RunningDaemon, root: Path, system: Path, only: bool = True) -> None:
    """`hookd install --scope managed [--managed-hooks-only]` into `system` (HOOKD_SYSTEM_ROOT)."""
    config = root / "hookd.toml"
    config.write_text(f'[daemon]\nruntime_dir = "{daemon.runtime_dir}"\n')
    done = subprocess.run(
        [VENV_PYTHON, "-m", "hookd", "--config", str(config), "install", "--client", setup.agent, "--shim", "python",
         "--scope", "managed", *(["--managed-hooks-only"] if only else []), "--all-events"],
        env={**os.environ, **setup.env, "HOOKD_SYSTEM_ROOT": str(system)}, cwd=setup.project, capture_output=True,
        text=True, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def assert_managed_hooks_run_alone(server: Server, setup: Install, etc: Path, target: Path) -> None:
    """Over an overlay of /etc: a control run, a deny whose reason reaches the model, and the user's own
    hook (which leaves `user-hook` in `target` when it runs) never ran."""
    control = run_agent(server, setup, f"touch {target}/ok-managed", etc=etc, target=target)
    assert (target / "ok-managed").exists(), control.report
    denied = run_agent(server, setup, f"touch {target}/keep-managed", etc=etc, target=target)
    assert not (target / "keep-managed").exists(), denied.report
    assert DENY_REASON in denied.sent, denied.report
    assert not (target / "user-hook").exists(), "managed hooks only: the user's hook must not run"


def test_copilot_managed_scope_runs_alone_under_allow_managed_hooks_only(
    server: Server, daemon: RunningDaemon, copilot_cache: Path, tmp_path: Path, target: Path
) -> None:
    """`hookd install --client copilot --scope managed --managed-hooks-only` writes hookd's hooks to
    /etc/github-copilot/policy.d/hookd.json (Copilot's managed-settings schema has no hooks key; policy.d
    files are its enterprise hooks) and allowManagedHooksOnly to managed-settings.json. Copilot reads them
    from an overlay of /etc in a private mount namespace. A user hook that would leave a trace does not run."""
    require(shutil.which("mount") is not None, "mount (an overlay of /etc)")
    root = tmp_path / "managed"
    home, project, system = root / "home", root / "project", root / "system"
    (home / ".copilot" / "hooks").mkdir(parents=True)
    (home / "tmp").mkdir()
    project.mkdir()
    user_hook = {"type": "command", "bash": f"echo ran > {target}/user-hook", "timeoutSec": 5}
    (home / ".copilot" / "hooks" / "user.json").write_text(
        json.dumps({"version": 1, "hooks": {"preToolUse": [user_hook]}})
    )
    setup = Install(
        "copilot", home, project, agent_env("copilot", home, server.port, copilot_cache), (root, copilot_cache)
    )
    install_managed(setup, daemon, root, system)
    etc = system / "etc"
    assert (etc / "github-copilot" / "policy.d" / "hookd.json").is_file()
    assert json.loads((etc / "github-copilot" / "managed-settings.json").read_text()) == {"allowManagedHooksOnly": True}
    assert_managed_hooks_run_alone(server, setup, etc, target)


@pytest.mark.parametrize("agent", ("codex", "copilot", "droid", "opencode", "kilo"))
@pytest.mark.timeout(600)
def test_the_project_scope_is_trusted_by_install_and_denies(
    agent: str, server: Server, daemon: RunningDaemon, copilot_cache: Path,
    tmp_path_factory: pytest.TempPathFactory, target: Path,
) -> None:  # fmt: skip
    """`--scope project` writes the project's own hooks file, which the agent loads only in a trusted
    project: install records that trust (Codex's [projects] trust_level and hook hashes in the user's
    config.toml, Copilot's trustedFolders in config.json); the runs pass no trust flag."""
    setup = install(agent, tmp_path_factory.mktemp(f"{agent}-project"), daemon.runtime_dir, server.port,
                    copilot_cache, scope="project")  # fmt: skip
    hooks = {"codex": ".codex/hooks.json", "copilot": ".github/hooks/hookd.json", "droid": ".factory/settings.json",
             "opencode": ".opencode/plugin/hookd.js", "kilo": ".kilo/plugin/hookd.js"}[agent]  # fmt: skip
    assert (setup.project / hooks).is_file()
    control = run_agent(server, setup, f"touch {target}/ok-project", target=target)
    assert (target / "ok-project").exists(), control.report
    denied = run_agent(server, setup, f"touch {target}/keep-project", target=target)
    assert not (target / "keep-project").exists(), denied.report
    assert DENY_REASON in denied.sent, denied.report


def test_copilot_permission_request_denies_on_its_own(
    server: Server, daemon: RunningDaemon, copilot_cache: Path, tmp_path_factory: pytest.TempPathFactory,
    target: Path,
) -> None:  # fmt: skip
    """permissionRequest runs before Copilot's own approval, even under --yolo. With hookd's preToolUse
    entry taken out of its hooks file, the permissionRequest entry alone denies (and a control runs)."""
    setup = install("copilot", tmp_path_factory.mktemp("copilot-permreq"), daemon.runtime_dir, server.port,
                    copilot_cache)  # fmt: skip
    hooks_file = setup.home / ".copilot" / "hooks" / "hookd.json"
    doc = json.loads(hooks_file.read_text())
    assert "permissionRequest" in doc["hooks"]
    del doc["hooks"]["preToolUse"]
    hooks_file.write_text(json.dumps(doc))
    control = run_agent(server, setup, f"touch {target}/ok-permreq", target=target)
    assert (target / "ok-permreq").exists(), control.report
    denied = run_agent(server, setup, f"touch {target}/keep-permreq", target=target)
    assert not (target / "keep-permreq").exists(), denied.report
    assert "Permission denied by a PermissionRequest hook" in denied.sent, denied.report
    assert DENY_REASON in denied.sent, denied.report


@pytest.mark.parametrize("agent", (*AGENTS, "kilo"))
@pytest.mark.timeout(600)
def test_fail_closed_when_the_daemon_hangs(
    agent: str, server: Server, copilot_cache: Path, tmp_path_factory: pytest.TempPathFactory, target: Path
) -> None:
    """A daemon that takes the connection and never answers: the shim's deadline (shim.deadline_ms, 4 s)
    ends before the hook timeout install writes (5 s), so the agent gets hookd's deny and not its own
    timeout (on which Copilot lets the call run). Control: the live runs of the tests above."""
    import socket as socket_module

    socket_dir = Path(tempfile.mkdtemp(prefix="hkd", dir="/tmp"))
    listener = socket_module.socket(socket_module.AF_UNIX, socket_module.SOCK_STREAM)
    listener.bind(str(socket_dir / "hook.sock"))
    listener.listen(64)  # never accepted: connect and send succeed, the reply never comes
    try:
        setup = install(agent, tmp_path_factory.mktemp(f"{agent}-hung"), socket_dir, server.port, copilot_cache,
                        '[fail_mode]\nBeforeAgent = "open"\n')  # fmt: skip
        run = run_agent(server, setup, f"touch {target}/ok-hung", target=target)
        assert not (target / "ok-hung").exists(), run.report
        assert "hookd did not answer within 4000 ms" in run.sent, run.report
    finally:
        listener.close()


@pytest.mark.parametrize("agent", AGENTS)
def test_a_command_hookd_allows_cannot_write_outside_the_world(
    agent: str, server: Server, installs: dict[tuple[str, str], Install], target: Path
) -> None:
    """The confinement (tests/confine.py) holds under a real agent: hookd allows the command, the agent
    runs it, and the write outside the world fails (read-only), while the same write in the world works."""
    outside = Path(tempfile.mkdtemp(prefix="hookd-outside-"))
    try:
        control = run_agent(server, installs[agent, "live"], f"touch {target}/inside-1", target=target)
        assert (target / "inside-1").exists(), control.report
        run = run_agent(server, installs[agent, "live"], f"touch {outside}/escaped-1", target=target)
        assert not (outside / "escaped-1").exists(), run.report
        assert "Read-only file system" in run.sent, run.report
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def test_droid_managed_scope_runs_alone_under_allow_managed_hooks_only(
    server: Server, daemon: RunningDaemon, copilot_cache: Path, tmp_path: Path, target: Path
) -> None:
    """`hookd install --client droid --scope managed --managed-hooks-only` writes hookd's hooks and
    allowManagedHooksOnly to /etc/factory/settings.json (Droid's org settings, read before any other org
    source), here an overlay of /etc. A user hook in ~/.factory/hooks.json that would leave a trace does
    not run."""
    require(shutil.which("mount") is not None, "mount (an overlay of /etc)")
    root = tmp_path / "managed"
    home, project, system = root / "home", root / "project", root / "system"
    (home / "tmp").mkdir(parents=True)
    project.mkdir()
    agent_settings("droid", home, project, server.port)
    user_hook = {"type": "command", "command": f"echo ran > {target}/user-hook", "timeout": 5}
    (home / ".factory" / "hooks.json").write_text(json.dumps({"PreToolUse": [{"hooks": [user_hook]}]}))
    setup = Install("droid", home, project, agent_env("droid", home, server.port, copilot_cache), (root,))
    install_managed(setup, daemon, root, system)
    managed = json.loads((system / "etc" / "factory" / "settings.json").read_text())
    assert managed["allowManagedHooksOnly"] is True and "PreToolUse" in managed["hooks"], managed
    assert_managed_hooks_run_alone(server, setup, system / "etc", target)


@pytest.mark.parametrize("agent", PLUGIN_AGENTS)
@pytest.mark.timeout(600)
def test_a_plugin_agents_managed_scope_loads_hookd_from_etc(
    agent: str, server: Server, daemon: RunningDaemon, copilot_cache: Path, tmp_path: Path, target: Path
) -> None:
    """`hookd install --client opencode|kilo --scope managed` writes hookd's plugin to /etc/<agent>/plugin/
    and names it in /etc/<agent>/<agent>.json's "plugin" list (the agent reads that folder's config files,
    last and over every other, but does not scan its plugin folder), here an overlay of /etc. No user or
    project plugin is installed: the deny comes from the managed one."""
    require(shutil.which("mount") is not None, "mount (an overlay of /etc)")
    root = tmp_path / "managed"
    home, project, system = root / "home", root / "project", root / "system"
    (home / "tmp").mkdir(parents=True)
    project.mkdir()
    agent_settings(agent, home, project, server.port)
    setup = Install(agent, home, project, agent_env(agent, home, server.port, copilot_cache), (root,))
    install_managed(setup, daemon, root, system, only=False)
    etc = system / "etc" / agent
    assert (etc / "plugin" / "hookd.js").is_file()
    assert json.loads((etc / f"{agent}.json").read_text()) == {"plugin": ["./plugin/hookd.js"]}
    assert not (home / ".config" / agent / "plugin").exists()
    control = run_agent(server, setup, f"touch {target}/ok-managed", etc=system / "etc", target=target)
    assert (target / "ok-managed").exists(), control.report
    denied = run_agent(server, setup, f"touch {target}/keep-managed", etc=system / "etc", target=target)
    assert not (target / "keep-managed").exists(), denied.report
    assert DENY_REASON in denied.sent, denied.report


def test_droid_ask_is_a_deny_whose_reason_reaches_the_model(
    server: Server, installs: dict[tuple[str, str], Install], target: Path
) -> None:
    """Droid only logs a hook's ask (headless or not): hookd renders it as a deny (exit 2), never lets it
    fall through to Droid's own rules (`--auto high` would run it)."""
    run = run_agent(server, installs["droid", "live"], f"touch {target}/ask-1", target=target)
    assert not (target / "ask-1").exists(), run.report
    assert "confirm touching an ask-* file" in run.sent, run.report


def test_droid_an_earlier_hooks_allow_does_not_undo_hookds_deny(
    server: Server, daemon: RunningDaemon, copilot_cache: Path, tmp_path_factory: pytest.TempPathFactory,
    target: Path,
) -> None:  # fmt: skip
    """Droid takes the first JSON permissionDecision of all its hooks, and runs project hooks before user
    hooks: a project hook answering `allow` would cancel a JSON deny. hookd's deny is exit 2, which
    nothing overrides (a control runs)."""
    setup = install("droid", tmp_path_factory.mktemp("droid-allow-first"), daemon.runtime_dir, server.port,
                    copilot_cache)  # fmt: skip
    allow = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}
    hook = {"type": "command", "command": f"echo '{json.dumps(allow)}'", "timeout": 5}
    (setup.project / ".factory").mkdir()
    (setup.project / ".factory" / "hooks.json").write_text(json.dumps({"PreToolUse": [{"hooks": [hook]}]}))
    control = run_agent(server, setup, f"touch {target}/ok-allow-first", target=target)
    assert (target / "ok-allow-first").exists(), control.report
    denied = run_agent(server, setup, f"touch {target}/keep-allow-first", target=target)
    assert not (target / "keep-allow-first").exists(), denied.report
    assert DENY_REASON in denied.sent, denied.report


# --- Codex's apply_patch, judged by the files the patch names (issue 26) --------------------------------
#
# The default policies (policies/) against the real Codex CLI, whose model (gpt-5.5 here, served by the fake
# server) is offered the apply_patch tool: the fake model answers a prompt naming PATCH<<patch>>PATCH with
# that patch. The agent runs confined (tests/confine.py) to a throw-away world: its HOME, CODEX_HOME, TMPDIR
# and project all lie in it, and every mount but the world is read-only to it (a probe checks that before
# any run), in the fake server's network namespace.


@dataclass
class World:
    agent: str
    root: Path
    home: Path
    project: Path
    env: dict[str, str]

    def run(self, server: Server, argv: list[str], timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
        """`argv` confined to the world: the server's network namespace, a private mount namespace with
        everything outside the world read-only (tests/confine.py)."""
        return subprocess.run(
            confined(argv, world=[self.root], netns=server.netns), env=self.env, cwd=self.project,
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout, check=False,
        )  # fmt: skip


def make_world(agent: str, server: Server, tmp_path: Path) -> Iterator[World]:
    """A world for `agent` with hookd installed (user scope) against a daemon of the default policies; the
    agent's model is gpt-5.5, which both agents offer the apply_patch tool."""
    binary(agent)
    require(shutil.which("mount") is not None, "mount (a read-only view outside the world)")
    root = Path(tempfile.mkdtemp(prefix="hookd-world-"))
    daemon = start_daemon(tmp_path, ROOT / "policies")
    try:
        home, project = root / "home", root / "project"
        (home / "tmp").mkdir(parents=True)
        (home / ".ssh").mkdir(mode=0o700)
        (project / ".git" / "hooks").mkdir(parents=True)
        agent_settings(agent, home, project, server.port)
        env = agent_env(agent, home, server.port, root / "cache")  # Copilot unpacks itself into the world
        if agent == "codex":
            config = home / ".codex" / "config.toml"
            config.write_text(config.read_text().replace('model = "fake-model"', 'model = "gpt-5.5"'))
        else:
            env["COPILOT_MODEL"] = "gpt-5.5"
        hookd_config = root / "hookd.toml"
        hookd_config.write_text(f'[daemon]\nruntime_dir = "{daemon.runtime_dir}"\n')
        done = subprocess.run(
            [VENV_PYTHON, "-m", "hookd", "--config", str(hookd_config), "install", "--client", agent, "--shim",
             "python", "--scope", "user", "--project-dir", str(project), "--all-events"],
            env={**os.environ, **env}, cwd=project, capture_output=True, text=True, timeout=TIMEOUT, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        yield World(agent, root, home, project, env)
    finally:
        daemon.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def codex_world(server: Server, tmp_path: Path) -> Iterator[World]:
    yield from make_world("codex", server, tmp_path)


@pytest.fixture
def copilot_world(server: Server, tmp_path: Path) -> Iterator[World]:
    yield from make_world("copilot", server, tmp_path)


def patch_run(server: Server, world: World, patch: str) -> Run:
    run_id = uuid.uuid4().hex[:12]
    prompt = f"Apply this patch: PATCH<<{patch}>>PATCH (run {run_id})"
    done = world.run(server, agent_argv(world.agent, prompt))
    return Run(done.returncode, done.stdout, done.stderr, json.dumps(server.requests(run_id)))


def test_the_world_is_confined(server: Server, codex_world: World, tmp_path: Path) -> None:
    """The confinement holds: inside the world a write lands, outside it fails."""
    outside = tmp_path / "outside-probe"
    done = codex_world.run(server, ["sh", "-c", f"touch {codex_world.root}/inside-probe; touch {outside}"])
    assert (codex_world.root / "inside-probe").exists(), done.stderr
    assert done.returncode != 0 and not outside.exists(), done.stderr


def test_codex_apply_patch_into_ssh_and_git_hooks_is_denied_with_the_reason(server: Server, codex_world: World) -> None:
    world = codex_world
    control = patch_run(server, world, "*** Begin Patch\n*** Add File: notes.txt\n+ok\n*** End Patch")
    assert (world.project / "notes.txt").read_text() == "ok\n", control.report  # the control: a patch applies
    keys = world.home / ".ssh" / "authorized_keys"
    denied = patch_run(
        server, world, f"*** Begin Patch\n*** Add File: {keys}\n+ssh-ed25519 AAAA attacker\n*** End Patch"
    )
    assert not keys.exists(), denied.report
    assert f"apply_patch on {keys} is blocked" in denied.sent and "SSH keys" in denied.sent, denied.report
    hook = world.project / ".git" / "hooks" / "pre-commit"
    denied = patch_run(server, world, "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n*** End Patch")
    assert not hook.exists(), denied.report
    assert f"apply_patch on {hook} is blocked" in denied.sent and "git's internal directory" in denied.sent, (
        denied.report
    )


def test_codex_apply_patch_moving_a_file_into_git_hooks_is_denied(server: Server, codex_world: World) -> None:
    world = codex_world
    (world.project / "tool.sh").write_text("x\n")
    patch = (
        "*** Begin Patch\n*** Update File: tool.sh\n*** Move to: .git/hooks/post-checkout\n@@\n-x\n+y\n*** End Patch"
    )
    denied = patch_run(server, world, patch)
    assert not (world.project / ".git" / "hooks" / "post-checkout").exists(), denied.report
    assert (world.project / "tool.sh").read_text() == "x\n", denied.report
    assert "git's internal directory" in denied.sent, denied.report


def test_codex_shell_apply_patch_heredoc_into_git_hooks_is_denied(server: Server, codex_world: World) -> None:
    """The same patch sent through the shell tool (`apply_patch <<'EOF'`, which Codex reports as Bash)."""
    world = codex_world
    command = (
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n*** End Patch\nEOF"
    )
    run_id = uuid.uuid4().hex[:12]
    prompt = f"Run this shell command: RUN<<{command}>>RUN (run {run_id})"
    done = world.run(server, agent_argv("codex", prompt))
    run = Run(done.returncode, done.stdout, done.stderr, json.dumps(server.requests(run_id)))
    assert not (world.project / ".git" / "hooks" / "pre-commit").exists(), run.report
    assert "git's internal directory" in run.sent, run.report


def test_copilot_apply_patch_into_git_hooks_is_denied_with_the_reason(server: Server, copilot_world: World) -> None:
    """Copilot offers GPT models a freeform apply_patch tool, whose patch reaches the hook as the bare toolArgs
    string: the files it names are judged as Codex's are."""
    world = copilot_world
    control = patch_run(server, world, "*** Begin Patch\n*** Add File: notes.txt\n+ok\n*** End Patch")
    assert (world.project / "notes.txt").read_text() == "ok\n", control.report
    hook = world.project / ".git" / "hooks" / "pre-commit"
    denied = patch_run(server, world, "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n*** End Patch")
    assert not hook.exists(), denied.report
    assert f"apply_patch on {hook} is blocked" in denied.sent, denied.report


# --- self-protection (issue 25.1) -----------------------------------------------------------------------
# One allowed command used to switch hookd off on each of these agents (`rm ~/.copilot/hooks/hookd.json`,
# emptying `~/.codex/hooks.json`, `disableAllHooks` in `~/.qwen/settings.json`, each proven on the real CLI).
# With the shipped self_protection package (whose protected set the daemon derives from the agents'
# modules), each agent asks for that change through its shell tool: it is denied with the reason reaching
# the model, the file is as it was, and the next session is still guarded.

SHIPPED = Path(__file__).resolve().parents[2] / "policies" / "self_protection"

# The change that switched each agent's hooks off on its real CLI, asked for through its shell tool (Qwen's
# hookd sits at the system scope here; the user file holds the switch that turns every hook off).
TAMPER = {
    "codex": ("echo '{}' > ~/.codex/hooks.json", ".codex/hooks.json"),
    "copilot": ("rm ~/.copilot/hooks/hookd.json", ".copilot/hooks/hookd.json"),
    "qwen": ("""sed -i 's/^{/{"disableAllHooks": true,/' ~/.qwen/settings.json""", ".qwen/settings.json"),
    "droid": (
        """sed -i 's/"hooks": {/"hooks": {"hooksDisabled": true, /' ~/.factory/settings.json""",
        ".factory/settings.json",
    ),
    "opencode": ("rm ~/.config/opencode/plugin/hookd.js", ".config/opencode/plugin/hookd.js"),
    "kilo": ("rm ~/.config/kilo/plugin/hookd.js", ".config/kilo/plugin/hookd.js"),
}


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    """A daemon with the e2e fixture policy and the shipped self-protection package."""
    policies = tmp_path_factory.mktemp("policies")
    shutil.copytree(POLICIES, policies, dirs_exist_ok=True)
    shutil.copytree(SHIPPED, policies / "self_protection", ignore=shutil.ignore_patterns("*_test.rego", "cases"))
    runtime_dir = Path(tempfile.mkdtemp(prefix="hkd", dir="/tmp")) / "run"
    running = start_daemon(tmp_path_factory.mktemp("hookd"), policies, "", runtime_dir)
    yield running
    running.stop()


@pytest.mark.parametrize("agent", AGENTS)
def test_the_agent_cannot_switch_hookd_off_and_the_next_session_is_guarded(
    agent: str,
    server: Server,
    guarded: RunningDaemon,
    copilot_cache: Path,
    tmp_path: Path,
    target: Path,
) -> None:
    setup: Install = install(agent, tmp_path, guarded.runtime_dir, server.port, copilot_cache)
    command, relative = TAMPER[agent]
    switch = setup.home / relative
    before = switch.read_bytes()
    attempt = run_agent(server, setup, command, target=target)
    if agent == "qwen":  # Qwen rewrites its own settings file on start (adds "$version"): judge the switch
        assert json.loads(switch.read_text()).get("disableAllHooks") is not True, attempt.report
    else:
        assert switch.read_bytes() == before, attempt.report
    assert "hookd guards this session" in attempt.sent, attempt.report
    control = run_agent(server, setup, f"touch {target}/ok-tamper", target=target)
    assert (target / "ok-tamper").exists(), control.report
    after = run_agent(server, setup, f"touch {target}/keep-tamper", target=target)  # the next session: still guarded
    assert not (target / "keep-tamper").exists(), after.report
    assert DENY_REASON in after.sent, after.report


def plugin_tampering(agent: str) -> list[tuple[str, str]]:
    """(command, the file it would change, relative to the world) for each way to unhook hookd's plugin:
    remove it, edit it, name another plugin in the config's list, drop one beside it, give the project a
    config whose plugin list runs one (any plugin runs in the same process, after hookd's)."""
    folder = f"~/.config/{agent}"
    evil = "export const Evil = async () => ({})"
    return [
        (f"rm {folder}/plugin/hookd.js", f"home/.config/{agent}/plugin/hookd.js"),
        (f"sed -i 's/=== \"deny\"/=== \"never\"/' {folder}/plugin/hookd.js", f"home/.config/{agent}/plugin/hookd.js"),
        (f"""sed -i 's/^{{/{{"plugin": ["\\/tmp\\/evil.js"], /' {folder}/{agent}.json""",
         f"home/.config/{agent}/{agent}.json"),
        (f"mkdir -p {folder}/plugins && echo '{evil}' > {folder}/plugins/evil.js",
         f"home/.config/{agent}/plugins/evil.js"),
        (f"""mkdir -p .{agent} && echo '{{"plugin": ["./evil.js"]}}' > .{agent}/{agent}.json""",
         f"project/.{agent}/{agent}.json"),
    ]  # fmt: skip


@pytest.mark.parametrize("agent", PLUGIN_AGENTS)
@pytest.mark.timeout(900)
def test_a_plugin_agent_cannot_unhook_hookd_and_the_next_session_is_guarded(
    agent: str, server: Server, guarded: RunningDaemon, copilot_cache: Path, tmp_path: Path, target: Path
) -> None:
    """Each way to unhook hookd's plugin, asked for through the agent's shell tool, is denied with the reason
    reaching the model and leaves the file as it was; the next session is still guarded."""
    setup = install(agent, tmp_path, guarded.runtime_dir, server.port, copilot_cache)
    for command, relative in plugin_tampering(agent):
        place = tmp_path / relative
        before = place.read_bytes() if place.exists() else None
        attempt = run_agent(server, setup, command, target=target)
        assert (place.read_bytes() if place.exists() else None) == before, f"{command}\n{attempt.report}"
        assert "hookd guards this session" in attempt.sent, f"{command}\n{attempt.report}"
    control = run_agent(server, setup, f"touch {target}/ok-unhook", target=target)
    assert (target / "ok-unhook").exists(), control.report
    after = run_agent(server, setup, f"touch {target}/keep-unhook", target=target)
    assert not (target / "keep-unhook").exists(), after.report
    assert DENY_REASON in after.sent, after.report


@pytest.mark.timeout(900)
def test_kilo_denies_with_the_reason_and_fails_closed(
    server: Server, daemon: RunningDaemon, copilot_cache: Path, tmp_path_factory: pytest.TempPathFactory,
    target: Path,
) -> None:  # fmt: skip
    """Kilo Code CLI (OpenCode's fork) with hookd's plugin in ~/.config/kilo/plugin: a deny's reason reaches
    the model and the call does not run; with no daemon the plugin's shim denies (a control runs). Kilo is
    slow to start here, so its runs are these three."""
    live = install("kilo", tmp_path_factory.mktemp("kilo-live"), daemon.runtime_dir, server.port, copilot_cache)
    assert (live.home / ".config" / "kilo" / "plugin" / "hookd.js").is_file()
    control = run_agent(server, live, f"touch {target}/ok-kilo", target=target)
    assert (target / "ok-kilo").exists(), control.report
    denied = run_agent(server, live, f"touch {target}/keep-kilo", target=target)
    assert not (target / "keep-kilo").exists(), denied.report
    assert DENY_REASON in denied.sent, denied.report
    nothing = Path(tempfile.mkdtemp(prefix="hkd", dir="/tmp")) / "nothing"
    dead = install("kilo", tmp_path_factory.mktemp("kilo-dead"), nothing, server.port, copilot_cache)
    down = run_agent(server, dead, f"touch {target}/ok-kilo-down", target=target)
    assert not (target / "ok-kilo-down").exists(), down.report
    assert "hookd is not running" in down.sent, down.report


@pytest.mark.timeout(900)
def test_kilo_rewrites_and_its_ask_is_a_deny(
    server: Server, daemon: RunningDaemon, copilot_cache: Path, tmp_path_factory: pytest.TempPathFactory,
    target: Path,
) -> None:  # fmt: skip
    """Kilo's plugin applies hookd's rewrite (the rewritten command is the one that ran) and renders an ask as
    a deny whose reason reaches the model: neither binary calls a plugin's `permission.ask`, and `kilo run`
    rejects its own asks (docs/kilo.md)."""
    live = install("kilo", tmp_path_factory.mktemp("kilo-rewrite"), daemon.runtime_dir, server.port, copilot_cache)
    run = run_agent(server, live, f"touch {target}/rewrite-me-kilo", target=target)
    assert not (target / "rewrite-me-kilo").exists(), run.report
    assert (target / "rewritten-kilo").exists(), run.report
    asked = run_agent(server, live, f"touch {target}/ask-kilo", target=target)
    assert not (target / "ask-kilo").exists(), asked.report
    assert "confirm touching an ask-* file" in asked.sent, asked.report


def test_opencode_ask_is_a_deny_whose_reason_reaches_the_model(
    server: Server, installs: dict[tuple[str, str], Install], target: Path
) -> None:
    """OpenCode's plugin cannot ask (the binary never calls a plugin's `permission.ask`, and `opencode run`
    rejects its own asks): hookd's ask is a deny whose reason reaches the model."""
    run = run_agent(server, installs["opencode", "live"], f"touch {target}/ask-1", target=target)
    assert not (target / "ask-1").exists(), run.report
    assert "confirm touching an ask-* file" in run.sent, run.report


@pytest.mark.parametrize("agent", PLUGIN_AGENTS)
@pytest.mark.timeout(600)
def test_the_pure_switch_unhooks_the_plugin_and_doctor_names_it(
    agent: str, server: Server, daemon: RunningDaemon, copilot_cache: Path,
    tmp_path_factory: pytest.TempPathFactory, target: Path,
) -> None:  # fmt: skip
    """`--pure` (OPENCODE_PURE / KILO_PURE in the environment) loads no external plugin: the call hookd
    denies runs (a marker in the test's world). No setting in any config file does that in these versions;
    `hookd doctor` names the variable when it is set where doctor runs, with its fix."""
    setup = install(agent, tmp_path_factory.mktemp(f"{agent}-pure"), daemon.runtime_dir, server.port, copilot_cache)
    [variable] = REGISTRY[agent].install.hooks_off_env
    pure = Install(agent, setup.home, setup.project, {**setup.env, variable: "1"}, setup.world)
    run = run_agent(server, pure, f"touch {target}/keep-pure", target=target)
    assert (target / "keep-pure").exists(), run.report  # the bypass is real: doctor must name it
    done = subprocess.run(
        [VENV_PYTHON, "-m", "hookd", "--config", str(setup.home.parent / "hookd.toml"), "doctor"],
        env={**os.environ, **pure.env}, cwd=setup.project, capture_output=True, text=True, timeout=TIMEOUT,
        check=False,
    )  # fmt: skip
    assert f"PROBLEM  {agent}: {variable}=1 is set here" in done.stdout and f"fix: unset {variable}" in done.stdout, (
        done.stdout + done.stderr
    )


# A plugin with a `permission.ask` hook, which the plugin docs describe as the way to answer the agent's own
# permission requests: it leaves a marker when it is called, and would allow the request.
PERMISSION_ASK_PLUGIN = """export const AskProbe = async () => ({
  "permission.ask": async (input, output) => {
    (await import("node:fs")).writeFileSync(process.env.HOOKD_ASK_MARKER, JSON.stringify(input));
    output.status = "allow";
  },
});
"""


@pytest.mark.parametrize("agent", PLUGIN_AGENTS)
@pytest.mark.timeout(600)
def test_the_agent_never_calls_a_plugins_permission_ask(
    agent: str, server: Server, daemon: RunningDaemon, copilot_cache: Path,
    tmp_path_factory: pytest.TempPathFactory, target: Path,
) -> None:  # fmt: skip
    """The binary wins over the plugin docs: with the agent's own rule asking for every shell command, the
    run asks (and, headless, rejects), and the plugin's `permission.ask` is never called, so it cannot
    answer an ask either way. hookd's ask is therefore a deny (the tests above)."""
    setup = install(agent, tmp_path_factory.mktemp(f"{agent}-permission-ask"), daemon.runtime_dir, server.port,
                    copilot_cache)  # fmt: skip
    config = setup.home / ".config" / agent / f"{agent}.json"
    doc = json.loads(config.read_text())
    doc["permission"]["bash"] = "ask"
    config.write_text(json.dumps(doc))
    (setup.home / ".config" / agent / "plugin" / "ask-probe.js").write_text(PERMISSION_ASK_PLUGIN)
    marker = target / "permission-ask-called"
    setup = Install(setup.agent, setup.home, setup.project, {**setup.env, "HOOKD_ASK_MARKER": str(marker)},
                    setup.world)  # fmt: skip
    run = run_agent(server, setup, f"touch {target}/ok-asked", target=target)
    assert not (target / "ok-asked").exists(), run.report  # the agent's own ask: rejected headless
    assert "permission requested: bash" in run.stdout + run.stderr, run.report
    assert not marker.exists(), run.report


# --- the daemon-down message reaches the user (issue 27.4) ---------------------------------------------
# With the daemon down and the defaults (the prompt event fails closed), Codex and Qwen stop at the prompt
# with an empty turn and show nothing of the block, not even its reason. The shim writes the reason to
# the agent's own stderr for such events (AgentEvent.tell_user).

SILENT = [a for a in AGENTS if any(e.tell_user for e in REGISTRY[a].events)]


@pytest.mark.parametrize("agent", SILENT)
def test_the_daemon_down_reason_reaches_the_user_when_the_prompt_is_blocked(
    agent: str, server: Server, copilot_cache: Path, tmp_path: Path, target: Path
) -> None:
    dead = Path(tempfile.mkdtemp(prefix="hkd", dir="/tmp")) / "nothing"
    setup = install(agent, tmp_path, dead, server.port, copilot_cache)  # the defaults: the prompt fails closed
    run = run_agent(server, setup, f"touch {target}/ok-down", target=target)
    assert not (target / "ok-down").exists(), run.report
    assert f"hookd: hookd is not running (no daemon on {dead / 'hook.sock'})" in run.stderr, run.report


@pytest.mark.timeout(900)
def test_a_nested_opencode_with_hooks_switched_off_is_denied_and_a_guarded_one_runs(
    server: Server, guarded: RunningDaemon, copilot_cache: Path, tmp_path: Path, target: Path
) -> None:
    """The guarded agent asks its shell for a nested OpenCode with hookd's plugin switched off (`--pure`, and
    OPENCODE_PURE through `env`): denied, the reason reaches the model, and the nested run's marker never
    appears. The control: the same nested start without the switch runs (it fires hookd's hooks) and its
    marker appears. The nested prompt names RUN<<…>>RUN only once the shell has joined its quotes, so the
    fake model gives the outer conversation the whole line and the nested one the touch."""
    setup = install("opencode", tmp_path, guarded.runtime_dir, server.port, copilot_cache)
    program = binary("opencode")

    for before, after, marker in (("", " --pure", "nested-pure"), ("env OPENCODE_PURE=1 ", "", "nested-env")):
        command = f"{before}{program} run{after} 'RUN<<touch {target}/{marker}>''>RUN'"
        attempt = run_agent(server, setup, command, target=target)
        assert not (target / marker).exists(), attempt.report
        assert "without hookd guarding it" in attempt.sent, attempt.report
    control = run_agent(server, setup, f"{program} run 'RUN<<touch {target}/nested-ok>''>RUN'", target=target)
    assert (target / "nested-ok").exists(), control.report
