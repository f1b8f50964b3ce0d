"""End to end: the real Claude Code (2.1.332), offline, with hookd registered by `hookd install --client claude`.

Each run is confined (tests/confine.py: the session's network namespace, a read-only view of everything
but its workspace) and gets a throw-away HOME (where `hookd install --scope user` writes ~/.claude/settings.json) and
project directory, and its own fake Anthropic Messages API on 127.0.0.1 there (fake_anthropic.py) whose
model answers the prompt with one `Bash` tool call running the test's command, then "Done.". Claude
runs headless (`claude -p`), with `--dangerously-skip-permissions` unless a test says otherwise, so
that only hookd can stop a command (claude-code-offline.md, pitfall 3). Every blocking test has a
control run whose command runs because the policy allows it.

What is observed: the file system (did the command run?), the tool_result the model was sent (the
reason), Claude's JSON result (permission_denials), and the daemon's decision log.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from confine import Netns, confined
from fake_anthropic import FakeAnthropic

from support import RunningDaemon, require, start_daemon, trace_shim_config

pytestmark = pytest.mark.e2e  # all on one xdist worker: tests/e2e/conftest.py, ONE_WORKER

VERSION = "2.1.332"
TIMEOUT = 90.0
POLICIES = Path(__file__).resolve().parent / "fixtures" / "claude-policies"
KEEP_REASON = "deleting a keep-* directory is not allowed [hookd.claude_e2e:keep]"
ASK_REASON = "confirm deleting an ask-* directory [hookd.claude_e2e:ask]"
TOKEN_ENV = "HOOKD_HOOK_TOKEN"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def daemon_config(runtime_dir: Path, port: int, token_file: Path, extra: str = "") -> str:
    return (f'[daemon]\nruntime_dir = "{runtime_dir}"\n[http]\nenabled = true\nport = {port}\n'
            f'token_file = "{token_file}"\n{trace_shim_config()}{extra}')  # fmt: skip


@dataclass
class Hookd:
    daemon: RunningDaemon
    config: Path
    token: str
    netns: Netns  # where it listens (HTTP) and where the agents it serves run


@dataclass
class Workspace:
    root: Path
    home: Path
    project: Path
    token: str


@dataclass(repr=False)
class ClaudeRun:
    returncode: int
    stdout: str
    stderr: str
    result: dict[str, Any]
    tool_results: list[dict[str, Any]]  # what the model was told about its tool call
    requests: list[dict[str, Any]]  # every request the model got
    decisions: list[dict[str, Any]]  # the daemon's decision records written during this run

    @property
    def report(self) -> str:
        return (f"claude exited {self.returncode}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}\n"
                f"--- tool results\n{json.dumps(self.tool_results)}\n--- decisions\n"
                + "\n".join(json.dumps(d) for d in self.decisions))  # fmt: skip

    def told(self) -> str:
        """The text of the one tool_result the model got."""
        assert len(self.tool_results) == 1, self.report
        content = self.tool_results[0]["content"]
        return content if isinstance(content, str) else json.dumps(content)

    def pre_tool_use(self) -> dict[str, Any]:
        records = [d for d in self.decisions if d["input"].get("client_event") == "PreToolUse"]
        assert len(records) == 1, self.report
        return records[0]


# --- set-up --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def claude() -> str:
    path = os.environ.get("HOOKD_CLAUDE_BIN", "")
    require(bool(path) and os.access(path, os.X_OK), f"Claude Code {VERSION} (HOOKD_CLAUDE_BIN)")
    done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60, check=False)
    assert done.stdout.startswith(f"{VERSION} "), done.stdout + done.stderr  # the reason texts differ by version
    return path


def start_hookd(root: Path, netns: Netns, extra: str = "", *, stop: bool = False, policies: Path = POLICIES) -> Hookd:
    runtime_dir = Path(tempfile.mkdtemp(prefix="hkd", dir="/tmp")) / "run"
    token_file = root / "state" / "http-token"
    config = root / "hookd.toml"
    config.write_text(daemon_config(runtime_dir, free_port(), token_file, extra))
    with netns.entered():  # its HTTP port on the loopback the agents see
        daemon = start_daemon(root, policies, config.read_text(), runtime_dir)
    daemon.config_path = config
    if stop:
        assert daemon.stop(signal.SIGTERM) == 0, daemon.log()
    return Hookd(daemon, config, token_file.read_text().strip(), netns)


@pytest.fixture(scope="module")
def hookd(claude: str, netns: Netns, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hookd]:
    running = start_hookd(tmp_path_factory.mktemp("hookd"), netns)
    try:
        yield running
    finally:
        running.daemon.stop()
        shutil.rmtree(running.daemon.runtime_dir.parent, ignore_errors=True)


@pytest.fixture(scope="module")
def stopped_hookd(claude: str, netns: Netns, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hookd]:
    """A daemon that served and got SIGTERM; the prompt event fails open so that the tool call is reached."""
    stopped = start_hookd(tmp_path_factory.mktemp("stopped"), netns, '[fail_mode]\nBeforeAgent = "open"\n', stop=True)
    try:
        yield stopped
    finally:
        stopped.daemon.stop(signal.SIGKILL)
        shutil.rmtree(stopped.daemon.runtime_dir.parent, ignore_errors=True)


def workspace(hookd: Hookd, root: Path, transport: str = "command") -> Workspace:
    """A throw-away HOME with hookd installed by `hookd install --client claude`, and a project."""
    home, project = root / "home", root / "project"
    home.mkdir(parents=True)
    project.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "XDG_STATE"))} | {"HOME": str(home)}
    install = [sys.executable, "-m", "hookd", "--config", str(hookd.config), "install", "--client", "claude",
               "--scope", "user", "--shim", "python", "--transport", transport, "--all-events"]  # fmt: skip
    done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, f"hookd install failed:\n{done.stdout}{done.stderr}"
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    pre = settings["hooks"]["PreToolUse"][0]["hooks"][0]
    assert pre["type"] == transport and pre["onFailure"] == "block" and pre["timeout"] == 5, pre
    return Workspace(root, home, project, hookd.token)


def run_claude(
    claude: str,
    ws: Workspace,
    command: str,
    hookd: Hookd,
    *,
    bypass: bool = True,
    prompt: str = "run the command",
    tools: str = "Bash",
    delegate: bool = False,
    before_tool_use: Callable[[], None] | None = None,
    extra: tuple[str, ...] = (),
) -> ClaudeRun:
    before = len(hookd.daemon.decisions()) if hookd.daemon.proc.poll() is None else 0
    with hookd.netns.entered():
        fake = FakeAnthropic(command, delegate=delegate, before_tool_use=before_tool_use)
    tmp = ws.root / f"tmp-{len(os.listdir(ws.root))}"
    tmp.mkdir(mode=0o700)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "dumb", "HOME": str(ws.home),
        "ANTHROPIC_BASE_URL": fake.url, "ANTHROPIC_API_KEY": "sk-fake",
        "DISABLE_TELEMETRY": "1", "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "CLAUDE_CODE_TMPDIR": str(tmp), "XDG_RUNTIME_DIR": str(tmp), "TMPDIR": str(tmp),
    }  # fmt: skip
    if ws.token:
        env[TOKEN_ENV] = ws.token
    if os.geteuid() == 0:
        env["IS_SANDBOX"] = "1"  # Claude refuses to skip permissions as root otherwise
    args = [claude, "-p", prompt, "--output-format", "json", "--tools", tools, "--no-session-persistence"]
    if bypass:
        args.append("--dangerously-skip-permissions")
    args.extend(extra)
    try:
        done = subprocess.run(confined(args, world=[ws.root], netns=hookd.netns), cwd=ws.project, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=TIMEOUT, check=False)  # fmt: skip
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"claude did not finish within {TIMEOUT:.0f} s\n{exc.stdout!r}\n{exc.stderr!r}")
    finally:
        fake.close()
    decisions = hookd.daemon.decisions()[before:] if hookd.daemon.proc.poll() is None else []
    try:
        result = json.loads(done.stdout)
    except ValueError:
        result = {}
    return ClaudeRun(done.returncode, done.stdout, done.stderr, result, fake.tool_results(), fake.requests, decisions)


def target(ws: Workspace, name: str) -> Path:
    """A directory to delete, outside the project (Claude's own guard would refuse it in default mode)."""
    path = ws.root / name
    path.mkdir()
    (path / "file").write_text("x")
    return path


# --- runs ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def command_ws(hookd: Hookd, tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    return workspace(hookd, tmp_path_factory.mktemp("command"))


@pytest.fixture(scope="module")
def control_run(claude: str, hookd: Hookd, command_ws: Workspace) -> tuple[ClaudeRun, Path]:
    """The control: a delete the policy allows runs."""
    victim = target(command_ws, "scratch-control")
    return run_claude(claude, command_ws, f"rm -rf {victim}", hookd), victim


def test_control_an_allowed_command_runs(control_run: tuple[ClaudeRun, Path]) -> None:
    run, victim = control_run
    assert run.returncode == 0, run.report
    assert not victim.exists(), run.report
    record = run.pre_tool_use()
    assert (record["client"], record["event"], record["decision"], record["via"]) == (
        "claude", "BeforeTool", "allow", "socket"), run.report  # fmt: skip
    assert run.result["permission_denials"] == [], run.report
    # Every event install registered reached hookd, each under its canonical name.
    seen = {(d["input"]["client_event"], d["event"]) for d in run.decisions}
    assert {("SessionStart", "SessionStart"), ("UserPromptSubmit", "BeforeAgent"), ("PreToolUse", "BeforeTool"),
            ("PostToolUse", "AfterTool"), ("Stop", "AfterAgent")} <= seen, seen  # fmt: skip
    # SessionStart's additionalContext reached the model with its first request, PostToolUse's with
    # the tool's result (and not before the call).
    first, last = json.dumps(run.requests[0]["messages"]), json.dumps(run.requests[-1]["messages"])
    assert "hookd e2e session context" in first, run.report
    assert "hookd e2e tool context" not in first and "hookd e2e tool context" in last, run.report


def test_user_prompt_submit_block_keeps_the_prompt_from_the_model(
    claude: str, hookd: Hookd, command_ws: Workspace, control_run: tuple[ClaudeRun, Path]
) -> None:
    victim = target(command_ws, "scratch-forbidden")
    run = run_claude(claude, command_ws, f"rm -rf {victim}", hookd, prompt="FORBIDDEN: run the command")
    assert victim.exists(), run.report
    assert run.requests == [], run.report  # the model was never asked
    [record] = [d for d in run.decisions if d["event"] == "BeforeAgent"]
    assert (record["decision"], record["input"]["client_event"]) == ("deny", "UserPromptSubmit"), run.report
    assert "this prompt is forbidden" in run.stdout + run.stderr, run.report
    # Control: the same command with a plain prompt reached the model and ran.
    assert control_run[0].requests and not control_run[1].exists()


def test_stop_block_makes_claude_continue_once(claude: str, hookd: Hookd, tmp_path_factory: pytest.TempPathFactory,
                                               control_run: tuple[ClaudeRun, Path]) -> None:  # fmt: skip
    ws = workspace(hookd, tmp_path_factory.mktemp("keep-going"))
    run = run_claude(claude, ws, "true", hookd)
    assert run.returncode == 0, run.report
    stops = [d for d in run.decisions if d["input"]["client_event"] == "Stop"]
    # The first Stop is blocked: Claude goes on with the reason as its next instruction. The second
    # comes with stop_hook_active, and hookd shows the deny instead of looping.
    assert [(d["decision"], d["input"]["raw"]["stop_hook_active"]) for d in stops] == [
        ("deny", False), ("deny", True)], run.report  # fmt: skip
    assert stops[1]["notes"] == ["deny not enforced: stop_hook_active (Stop is already continuing)"], run.report
    told_to_go_on = [r for r in run.requests if "run the tests before stopping" in json.dumps(r["messages"][-1])]
    assert len(told_to_go_on) == 1, run.report
    # Control: a project the policy leaves alone stops after one turn.
    control_stops = [d for d in control_run[0].decisions if d["input"]["client_event"] == "Stop"]
    assert [d["decision"] for d in control_stops] == ["allow"], control_run[0].report


def test_pre_tool_use_deny_blocks_and_the_reason_reaches_the_model(
    claude: str, hookd: Hookd, command_ws: Workspace, control_run: tuple[ClaudeRun, Path]
) -> None:
    victim = target(command_ws, "keep-deny")
    run = run_claude(claude, command_ws, f"rm -rf {victim}", hookd)
    assert victim.exists(), run.report
    record = run.pre_tool_use()
    assert (record["decision"], [v["rule"] for v in record["verdicts"]]) == ("deny", ["keep"]), run.report
    assert f"{KEEP_REASON} (decision {record['id']})" in run.told(), run.report
    assert run.tool_results[0].get("is_error") is True, run.report
    assert not control_run[1].exists()  # control: the allowed delete ran


def test_rewrite_runs_the_rewritten_command(claude: str, hookd: Hookd, command_ws: Workspace) -> None:
    run = run_claude(claude, command_ws, f"mkdir {command_ws.root}/rewrite-me", hookd)
    assert (command_ws.root / "rewritten").is_dir(), run.report
    assert not (command_ws.root / "rewrite-me").exists(), run.report
    assert run.pre_tool_use()["decision"] == "rewrite", run.report
    # Control: a command the policy leaves alone runs as written.
    plain = run_claude(claude, command_ws, f"mkdir {command_ws.root}/left-alone", hookd)
    assert (command_ws.root / "left-alone").is_dir(), plain.report
    assert plain.pre_tool_use()["decision"] == "allow", plain.report


def test_ask_under_print_mode_is_a_denial(
    claude: str, hookd: Hookd, command_ws: Workspace, control_run: tuple[ClaudeRun, Path]
) -> None:
    victim = target(command_ws, "ask-me")
    run = run_claude(claude, command_ws, f"rm -rf {victim}", hookd)
    assert victim.exists(), run.report
    record = run.pre_tool_use()
    assert record["decision"] == "ask", run.report  # hookd passed the ask on: Claude itself denied it
    assert record["notes"] == [], run.report
    assert [d["tool_name"] for d in run.result["permission_denials"]] == ["Bash"], run.report
    assert ASK_REASON in run.told(), run.report
    assert not control_run[1].exists()


def test_allow_leaves_claudes_own_permission_checks_in_force(
    claude: str, hookd: Hookd, command_ws: Workspace, control_run: tuple[ClaudeRun, Path]
) -> None:
    # Default permission mode: hookd allows (prints nothing), and Claude's own guard against deleting
    # outside the working directories still stops the command, which -p cannot ask about.
    victim = target(command_ws, "scratch-default-mode")
    run = run_claude(claude, command_ws, f"rm -rf {victim}", hookd, bypass=False)
    assert victim.exists(), run.report
    assert run.pre_tool_use()["decision"] == "allow", run.report
    assert "hookd" not in run.told(), run.report  # the refusal is Claude's, not hookd's
    assert run.tool_results[0].get("is_error") is True, run.report
    # Control: the same command with Claude's checks skipped ran (control_run).
    assert not control_run[1].exists()


@pytest.fixture(scope="module")
def http_ws(hookd: Hookd, tmp_path_factory: pytest.TempPathFactory) -> Workspace:
    return workspace(hookd, tmp_path_factory.mktemp("http"), transport="http")


def test_http_hooks_decide_without_a_process_per_call(claude: str, hookd: Hookd, http_ws: Workspace) -> None:
    victim = target(http_ws, "keep-http")
    run = run_claude(claude, http_ws, f"rm -rf {victim}", hookd)
    assert victim.exists(), run.report
    record = run.pre_tool_use()
    assert (record["decision"], record["via"]) == ("deny", "http"), run.report
    assert f"{KEEP_REASON} (decision {record['id']})" in run.told(), run.report
    # SessionStart has no http hooks in Claude Code: it still comes through the shim.
    assert {d["via"] for d in run.decisions if d["event"] == "SessionStart"} == {"socket"}, run.report
    # Control: an allowed delete through the same http hook runs.
    allowed = target(http_ws, "scratch-http")
    control = run_claude(claude, http_ws, f"rm -rf {allowed}", hookd)
    assert not allowed.exists(), control.report
    assert (control.pre_tool_use()["decision"], control.pre_tool_use()["via"]) == ("allow", "http"), control.report


def test_http_hooks_without_the_token_are_refused_and_block(claude: str, hookd: Hookd, http_ws: Workspace) -> None:
    victim = target(http_ws, "scratch-no-token")  # a delete the policy would allow
    run = run_claude(claude, replace(http_ws, token=""), f"rm -rf {victim}", hookd)
    assert victim.exists(), run.report
    # The first http hook, UserPromptSubmit, got 401 and Claude blocked the prompt (onFailure "block").
    result = run.result["result"]
    assert result.startswith("UserPromptSubmit operation blocked by hook"), run.report
    assert 'blocking because onFailure is "block"' in result and "HTTP 401" in result, run.report
    assert run.requests == [], run.report
    assert [d for d in run.decisions if d["via"] == "http"] == [], run.report  # nothing was decided over HTTP


@pytest.mark.parametrize("transport", ["command", "http"])
def test_daemon_down_fails_closed(
    claude: str, stopped_hookd: Hookd, transport: str, tmp_path_factory: pytest.TempPathFactory,
    control_run: tuple[ClaudeRun, Path],
) -> None:  # fmt: skip
    ws = workspace(stopped_hookd, tmp_path_factory.mktemp(f"down-{transport}"), transport)
    victim = target(ws, "scratch-down")  # a delete the policy would allow
    run = run_claude(claude, ws, f"rm -rf {victim}", stopped_hookd)
    assert victim.exists(), run.report
    assert run.tool_results[0].get("is_error") is True, run.report
    if transport == "command":  # the shim's own deny
        assert f"hookd is not running (no daemon on {stopped_hookd.daemon.socket})" in run.told(), run.report
    else:  # onFailure "block": the connection was refused and Claude blocked the call
        assert 'failed; blocking because onFailure is "block"' in run.told(), run.report
    assert not control_run[1].exists()  # control: with the daemon up, the same kind of delete ran


# --- self-protection (issue 25.1) -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def guarded_hookd(claude: str, netns: Netns, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hookd]:
    """The e2e policies and the shipped self_protection package (its protected set derived by the daemon)."""
    policies = tmp_path_factory.mktemp("guarded-policies")
    shutil.copytree(POLICIES, policies, dirs_exist_ok=True)
    shipped = Path(__file__).resolve().parents[2] / "policies" / "self_protection"
    shutil.copytree(shipped, policies / "self_protection", ignore=shutil.ignore_patterns("*_test.rego", "cases"))
    running = start_hookd(tmp_path_factory.mktemp("guarded"), netns, policies=policies)
    try:
        yield running
    finally:
        running.daemon.stop()
        shutil.rmtree(running.daemon.runtime_dir.parent, ignore_errors=True)


def test_the_agent_cannot_switch_hookd_off_and_the_next_session_is_guarded(
    claude: str, guarded_hookd: Hookd, tmp_path_factory: pytest.TempPathFactory
) -> None:
    ws = workspace(guarded_hookd, tmp_path_factory.mktemp("tamper"))
    settings = ws.home / ".claude" / "settings.json"
    before = settings.read_bytes()
    run = run_claude(claude, ws, """sed -i 's/^{/{"disableAllHooks": true,/' ~/.claude/settings.json""", guarded_hookd)
    assert settings.read_bytes() == before, run.report
    record = run.pre_tool_use()
    assert (record["decision"], [v["rule"] for v in record["verdicts"]]) == ("deny", ["hookd-self-protection"]), (
        run.report
    )
    assert "hookd guards this session" in run.told(), run.report
    victim = target(ws, "keep-after-tamper")  # the next session: hookd still decides
    after = run_claude(claude, ws, f"rm -rf {victim}", guarded_hookd)
    assert victim.exists(), after.report
    assert after.pre_tool_use()["decision"] == "deny", after.report


@pytest.mark.parametrize("veto", [True, False], ids=["config_change", "control_without_it"])
def test_a_settings_change_outside_a_tool_call_is_kept_out_and_the_next_call_denied(
    claude: str, guarded_hookd: Hookd, tmp_path_factory: pytest.TempPathFactory, veto: bool
) -> None:
    """The second line (issue 25.1, docs/self-protection.md): while the session runs, a script of the test's (no
    tool call, so no PreToolUse sees it) rewrites ~/.claude/settings.json without hookd's hooks. Claude's
    settings watcher sees it and asks its ConfigChange hooks before it applies it; hookd's blocks it, and the
    session's next tool call is still sent to hookd and denied. The control, with hookd's ConfigChange hook
    taken out before the session: the same change takes effect, and the same command runs (so the veto is what
    kept hookd). Claude's debug log says when its watcher has dealt with the change (the condition waited on)."""
    ws = workspace(guarded_hookd, tmp_path_factory.mktemp("configchange"))
    settings = ws.home / ".claude" / "settings.json"
    if not veto:
        installed = json.loads(settings.read_text())
        del installed["hooks"]["ConfigChange"]
        settings.write_text(json.dumps(installed))
    victim = target(ws, "keep-after-config-change")
    debug = ws.root / "claude-debug.txt"
    seen = len(guarded_hookd.daemon.decisions())
    dealt: list[str] = []

    def tamper() -> None:
        doc = json.loads(settings.read_text())
        doc.pop("hooks")
        settings.write_text(json.dumps(doc))
        end = time.monotonic() + CONFIG_CHANGE_WAIT  # the watcher lets a file settle 1 s first
        while time.monotonic() < end and not dealt:
            text = debug.read_text(errors="replace") if debug.exists() else ""
            dealt.extend(line for line in text.splitlines() if any(said in line for said in _DEALT))
            time.sleep(0.1)

    run = run_claude(claude, ws, f"rm -rf {victim}", guarded_hookd, before_tool_use=tamper,
                     extra=("--debug-file", str(debug)))  # fmt: skip
    vetoes = [d for d in guarded_hookd.daemon.decisions()[seen:] if _client_event(d) == "ConfigChange"]
    assert dealt, f"Claude's watcher did not deal with the change within {CONFIG_CHANGE_WAIT} s\n{run.report}"
    if not veto:  # the change took effect: hookd was not asked, and its hooks were gone
        assert _DEALT[1] in dealt[0] and not vetoes and not victim.exists(), (dealt, run.report)
        return
    assert _DEALT[0] in dealt[0], dealt
    assert [(v["decision"], v["input"]["raw"]["source"]) for v in vetoes] == [("deny", "user_settings")], vetoes
    assert victim.exists(), run.report
    assert run.pre_tool_use()["decision"] == "deny", run.report


CONFIG_CHANGE_WAIT = 30.0
# What Claude's debug log says once its watcher has dealt with a change: kept out, or applied.
_DEALT = ("ConfigChange hook blocked change to", "Settings changed from userSettings")


def _client_event(record: dict[str, Any]) -> str:
    return str(record.get("input", {}).get("client_event", ""))


# --- sub-agents (issue 27.7) ------------------------------------------------------------------------------


def test_a_sub_agents_tool_call_reaches_hookd_and_is_denied(claude: str, hookd: Hookd, command_ws: Workspace) -> None:
    """The model hands the command to a sub-agent (Claude's Task/Agent tool); the sub-agent's own Bash call
    goes through hookd's PreToolUse like the main session's: denied, and the sub-agent is told why. A
    control (an allowed command, through a sub-agent too) runs."""
    allowed = target(command_ws, "sub-allowed")
    control = run_claude(claude, command_ws, f"rm -rf {allowed}", hookd, tools="Bash,Agent,Task", delegate=True)
    assert not allowed.exists(), control.report
    spawned = [d for d in control.decisions if d.get("tool") in ("Agent", "Task")]
    assert spawned, control.report  # the model really went through a sub-agent
    victim = target(command_ws, "keep-sub")
    run = run_claude(claude, command_ws, f"rm -rf {victim}", hookd, tools="Bash,Agent,Task", delegate=True)
    assert victim.exists(), run.report
    denied = [d for d in run.decisions if d.get("tool") == "Bash"]
    assert [d["decision"] for d in denied] == ["deny"], run.report
    assert any(KEEP_REASON in json.dumps(r.get("content")) for r in run.tool_results), run.report
