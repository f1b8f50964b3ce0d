"""End to end: the real Gemini CLI, offline, with hookd registered by `hookd install`.

Each run gets a throw-away HOME and project directory. `hookd install --client gemini --scope user`
writes the hook commands into $HOME/.gemini/settings.json (pointing the shim at the daemon's socket);
the test then adds only the non-hook settings of the offline recipe. Gemini runs headless
(`gemini -p … --fake-responses <script> --yolo`), so `--yolo` approves every tool call and only
hookd can stop one. The model is a script under fixtures/; the daemon is a real `hookd serve` with
the demo policies (tests/fixtures/policies/demo/policy.rego).

What is observed, besides the project's files and the CLI's stdout/stderr:

* what the model received: Gemini's own telemetry, written to a local file with prompt logging on;
  every `gemini_cli.api_request` record carries `request_text`, the JSON of the contents of one
  model request (the environment turn, the prompt, function calls and responses);
* the tool config of a request, which telemetry does not record: the script holds no model turn,
  so Gemini's fake content generator fails on the first request and its error message prints that
  request whole (`model`, `contents` and `config`, which holds `toolConfig`);
* the daemon's decision log (`RunningDaemon.decisions()`), sliced to the lines one run produced
  (runs are sequential).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from confine import confined, run_confined, shared_netns

from support import DEMO_POLICIES, ROOT, RunningDaemon, eventually, require, start_daemon, trace_shim_config

pytestmark = pytest.mark.e2e  # all on one xdist worker: tests/e2e/conftest.py, ONE_WORKER

SCRIPTS = Path(__file__).resolve().parent / "fixtures"
TIMEOUT = 60.0
GEMINI_EVENTS = (
    "SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
    "BeforeToolSelection", "BeforeTool", "AfterTool", "PreCompress", "Notification",
)  # fmt: skip
# The non-hook settings of the offline recipe: in the user file beside what `hookd install` wrote,
# and alone in the project file. `model.name` avoids a routing call that no script answers.
OFFLINE_SETTINGS: dict[str, Any] = {
    "general": {"enableAutoUpdate": False},
    "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
    "model": {"name": "gemini-3-flash-preview"},
}

PROMPT = "Update the files as planned."
ANSWER = "The files are updated."  # the last turn of tools.responses
NOTES = "meeting at noon\n"  # notes.txt in every project; tools.responses reads it
SECRET_REASON = "writing secret.txt is not allowed [hookd.demo:no-secret]"
READ_CONTEXT = "<hook_context>a note from hookd about this read</hook_context>"
SESSION_CONTEXT = "<hook_context>hookd demo context</hook_context>"
HOOK_REWROTE = "[System] Tool input parameters were modified by a hook before execution."

REQUEST_DUMP = re.compile(r"No more mock responses for generateContentStream, got request:\n(\{.*\})$", re.M)
ERROR_REPORT = re.compile(r"Full report available at: (\S+\.json)")


# --- set-up --------------------------------------------------------------------------------------------


def short_runtime_dir() -> Path:
    """A runtime dir under a short /tmp path: the socket path must stay below 108 bytes."""
    return Path(tempfile.mkdtemp(prefix="hkd", dir="/tmp")) / "run"


def daemon_config(runtime_dir: Path, extra: str = "") -> str:
    return f'[daemon]\nruntime_dir = "{runtime_dir}"\n{trace_shim_config()}{extra}'


def deep_merge(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in extra.items():
        old = merged.get(key)
        merged[key] = deep_merge(old, value) if isinstance(old, Mapping) and isinstance(value, Mapping) else value
    return merged


@dataclass
class Workspace:
    home: Path
    project: Path
    telemetry: Path | None  # Gemini's local telemetry file, when it is on


def make_workspace(root: Path, config: Path, socket: Path, *, telemetry: bool = False) -> Workspace:
    """A throw-away HOME with hookd installed by `hookd install`, and a project directory."""
    home, project = root / "home", root / "project"
    home.mkdir(parents=True)
    (project / ".gemini").mkdir(parents=True)
    (project / "notes.txt").write_text(NOTES)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GEMINI_")} | {"HOME": str(home)}
    install = [sys.executable, "-m", "hookd", "--config", str(config), "install", "--client", "gemini",
               "--scope", "user", "--project-dir", str(project), "--all-events"]  # fmt: skip
    done = subprocess.run(install, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, f"hookd install failed:\n{done.stdout}{done.stderr}"

    user_file = home / ".gemini" / "settings.json"
    settings = json.loads(user_file.read_text())
    for event in GEMINI_EVENTS:  # registered by install, every event, pointing at this daemon's socket
        commands = [h["command"] for d in settings["hooks"][event] for h in d["hooks"] if h["name"] == "hookd"]
        assert len(commands) == 1, (event, settings["hooks"][event])
        assert f"--socket {socket} " in commands[0], (event, commands[0])
    assert settings["hooksConfig"]["enabled"] is True

    extra = dict(OFFLINE_SETTINGS)
    telemetry_file = root / "telemetry.log" if telemetry else None
    if telemetry_file:
        extra["telemetry"] = {"enabled": True, "target": "local", "outfile": str(telemetry_file),
                              "logPrompts": True}  # fmt: skip
    user_file.write_text(json.dumps(deep_merge(settings, extra), indent=2))
    (project / ".gemini" / "settings.json").write_text(json.dumps(OFFLINE_SETTINGS, indent=2))
    return Workspace(home, project, telemetry_file)


# --- running Gemini ------------------------------------------------------------------------------------


@dataclass(repr=False)
class GeminiRun:
    workspace: Workspace
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    decisions: list[dict[str, Any]]  # the daemon's decision lines written during this run

    @property
    def report(self) -> str:
        """Everything about the run, for assertion messages."""
        return (f"gemini exited {self.returncode} after {self.seconds:.1f} s\n--- stdout\n{self.stdout}"
                f"\n--- stderr\n{self.stderr}\n--- decisions\n"
                + "\n".join(json.dumps(d) for d in self.decisions))  # fmt: skip

    def file(self, name: str) -> str | None:
        path = self.workspace.project / name
        return path.read_text() if path.exists() else None

    def events(self, hook_event: str) -> list[dict[str, Any]]:
        """This event's records in the order Gemini called the hook: the log is in the order decisions
        finished, and Gemini runs the tool calls of one turn side by side (its payload's timestamp is
        when it called)."""
        records = [d for d in self.decisions if d["event"] == hook_event]
        return sorted(records, key=lambda d: str(d["input"].get("raw", {}).get("timestamp", "")))

    def model_requests(self) -> list[list[dict[str, Any]]]:
        """The contents of every model request, in order, from Gemini's telemetry."""
        assert self.workspace.telemetry is not None, "telemetry is off for this run"
        text, decoder, pos, records = self.workspace.telemetry.read_text(), json.JSONDecoder(), 0, []
        while True:  # the file is a sequence of pretty-printed JSON objects
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if pos >= len(text):
                break
            record, pos = decoder.raw_decode(text, pos)
            attributes = record.get("attributes", {})
            if attributes.get("event.name") == "gemini_cli.api_request":
                records.append(attributes)
        records.sort(key=lambda attributes: attributes["event.timestamp"])
        return [json.loads(attributes["request_text"]) for attributes in records]

    def failed_request(self) -> dict[str, Any]:
        """The request the script could not answer, as the fake content generator printed it."""
        match = REQUEST_DUMP.search(self.stderr)
        assert match, f"no request dump in the output\n{self.report}"
        request: dict[str, Any] = json.loads(match.group(1))
        return request


def run_gemini(workspace: Workspace, prompt: str, script: Path, daemon: RunningDaemon | None) -> GeminiRun:
    gemini = os.environ["HOOKD_GEMINI_BIN"]
    before = len(daemon.decisions()) if daemon else 0
    tmp = workspace.home.parent / "tmp"
    tmp.mkdir(exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(workspace.home),
        "GEMINI_API_KEY": "fake",
        "TMPDIR": str(tmp),
    }
    start = time.monotonic()
    # Confined (tests/confine.py): it writes only in its workspace, and reaches no network.
    argv = confined([gemini, "-p", prompt, "--fake-responses", str(script), "--yolo"],
                    world=[workspace.home.parent], netns=shared_netns())  # fmt: skip
    code, stdout, stderr = run_confined(argv, cwd=workspace.project, env=env, timeout=TIMEOUT)
    seconds = time.monotonic() - start
    for report in ERROR_REPORT.findall(stderr):  # Gemini leaves an error report in the temp dir
        if Path(report).name.startswith("gemini-client-error-"):
            Path(report).unlink(missing_ok=True)
    decisions = daemon.decisions()[before:] if daemon else []
    return GeminiRun(workspace, code, stdout, stderr, seconds, decisions)


def verdicts(record: Mapping[str, Any]) -> list[str]:
    """A decision record's verdicts as kind:policy:rule."""
    return [f"{v['kind']}:{v['policy']}:{v['rule']}" for v in record["verdicts"]]


def quoted(reason: str, record: Mapping[str, Any]) -> str:
    """A blocking reason as the agent shows it: with the id of the decision (from the decision log)."""
    return f"{reason} (decision {record['id']})"


def tool_results(contents: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """What the model was told about each tool call of a request, keyed by the call's file_path."""
    paths = {}
    results = {}
    for content in contents:
        for part in content["parts"]:
            if "functionCall" in part:
                paths[part["functionCall"]["id"]] = part["functionCall"]["args"]["file_path"]
            if "functionResponse" in part:
                results[paths[part["functionResponse"]["id"]]] = part["functionResponse"]["response"]
    return results


def user_texts(contents: list[dict[str, Any]]) -> list[str]:
    return [p["text"] for c in contents if c["role"] == "user" for p in c["parts"] if "text" in p]


# --- fixtures ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gemini() -> str:
    path = os.environ.get("HOOKD_GEMINI_BIN", "")
    require(bool(path) and os.access(path, os.X_OK), "Gemini CLI 0.61.0 (HOOKD_GEMINI_BIN)")
    return path


@pytest.fixture(scope="module")
def hookd(gemini: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    """One daemon for every run that needs it running; its replay store records them all (replayed below)."""
    runtime_dir = short_runtime_dir()
    store = f'[replay]\nenabled = true\npath = "{runtime_dir.parent / "replay"}"\n'
    daemon = start_daemon(
        tmp_path_factory.mktemp("daemon"), DEMO_POLICIES, daemon_config(runtime_dir, store), runtime_dir
    )
    try:
        yield daemon
    finally:
        daemon.stop()
        shutil.rmtree(runtime_dir.parent, ignore_errors=True)


@pytest.fixture(scope="module")
def stopped_hookd(gemini: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    """A daemon that served, then got SIGTERM: what the shim meets when hookd is stopped."""
    runtime_dir = short_runtime_dir()
    daemon = start_daemon(tmp_path_factory.mktemp("stopped"), DEMO_POLICIES, daemon_config(runtime_dir), runtime_dir)
    try:
        assert daemon.stop(signal.SIGTERM) == 0, daemon.log()
        assert not daemon.socket.exists(), "a stopped daemon left its socket behind"
        yield daemon
    finally:
        daemon.stop(signal.SIGKILL)
        shutil.rmtree(runtime_dir.parent, ignore_errors=True)


def workspace_for(daemon: RunningDaemon, root: Path, *, telemetry: bool = False) -> Workspace:
    return make_workspace(root, daemon.config_path, daemon.socket, telemetry=telemetry)


@pytest.fixture(scope="module")
def tools_run(hookd: RunningDaemon, tmp_path_factory: pytest.TempPathFactory) -> GeminiRun:
    """One model turn of five calls (write secret.txt, ok.txt, shout.txt, plain.txt; read notes.txt)."""
    workspace = workspace_for(hookd, tmp_path_factory.mktemp("tools"), telemetry=True)
    return run_gemini(workspace, PROMPT, SCRIPTS / "tools.responses", hookd)


@pytest.fixture(scope="module")
def no_turns_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    script = tmp_path_factory.mktemp("scripts") / "no-turns.responses"
    script.write_text("")  # the first model request fails and prints itself
    return script


# --- tests ---------------------------------------------------------------------------------------------


def test_before_tool_deny_blocks_the_write_and_the_reason_reaches_the_model(tools_run: GeminiRun) -> None:
    run = tools_run
    assert run.returncode == 0, run.report
    assert run.file("secret.txt") is None, run.report
    reason = quoted(SECRET_REASON, run.events("BeforeTool")[0])
    assert f"Error executing tool write_file: Tool execution blocked: {reason}" in run.stderr, run.report
    requests = run.model_requests()
    assert len(requests) == 2, requests
    told = tool_results(requests[1])
    assert told["secret.txt"] == {"error": f"Tool execution blocked: {reason}"}
    # Control: an allowed name in the same turn is written, and the model gets the tool's output.
    assert run.file("ok.txt") == "fine", run.report
    assert "error" not in told["ok.txt"]
    assert told["ok.txt"]["output"].startswith("Successfully created and wrote to new file")
    # The daemon decided each call, in the script's order.
    before_tool = run.events("BeforeTool")
    assert [(d["tool"], d["decision"]) for d in before_tool] == [
        ("write_file", "deny"), ("write_file", "allow"), ("write_file", "rewrite"),
        ("write_file", "allow"), ("read_file", "allow"),
    ], run.report  # fmt: skip
    assert verdicts(before_tool[0]) == ["deny:hookd.demo:no-secret"]


def test_before_tool_rewrite_runs_the_rewritten_arguments(tools_run: GeminiRun) -> None:
    run = tools_run
    assert run.file("shout.txt") == "QUIET", run.report
    assert run.file("plain.txt") == "quiet", run.report  # control: same content, a name the policy leaves alone
    told = tool_results(run.model_requests()[1])
    assert HOOK_REWROTE in told["shout.txt"]["output"]
    assert HOOK_REWROTE not in told["plain.txt"]["output"]
    assert verdicts(run.events("BeforeTool")[2]) == ["rewrite:hookd.demo:shout"]


def test_after_tool_context_reaches_the_next_model_request(tools_run: GeminiRun) -> None:
    run = tools_run
    first, second = run.model_requests()
    told = tool_results(second)
    assert told["notes.txt"]["output"].startswith(NOTES), told["notes.txt"]
    assert told["notes.txt"]["output"].endswith(f"\n\n{READ_CONTEXT}"), told["notes.txt"]
    # Control: no context before the read, and none on the writes' results (the policy adds it to reads).
    assert "a note from hookd" not in json.dumps(first)
    for name in ("ok.txt", "shout.txt", "plain.txt"):
        assert "hook_context" not in json.dumps(told[name]), told[name]
    after_read = [d for d in run.events("AfterTool") if d["tool"] == "read_file"]
    assert [verdicts(d) for d in after_read] == [["context:hookd.demo:after-read"]], run.report


def test_session_start_context_is_prepended_to_the_prompt(tools_run: GeminiRun, stopped_tool_run: GeminiRun) -> None:
    first = tools_run.model_requests()[0]
    assert user_texts(first)[-1] == f"{SESSION_CONTEXT}\n\n{PROMPT}", first
    assert [verdicts(d) for d in tools_run.events("SessionStart")] == [["context:hookd.demo:hello"]]
    # Control: the same prompt with no daemon to answer SessionStart (it fails open) reaches the model bare.
    bare = stopped_tool_run.model_requests()[0]
    assert user_texts(bare)[-1] == PROMPT, bare


@pytest.fixture(scope="module")
def forbidden_run(hookd: RunningDaemon, tmp_path_factory: pytest.TempPathFactory) -> GeminiRun:
    workspace = workspace_for(hookd, tmp_path_factory.mktemp("forbidden"))
    return run_gemini(workspace, f"FORBIDDEN: {PROMPT}", SCRIPTS / "tools.responses", hookd)


def test_before_agent_deny_blocks_the_prompt_before_any_model_call(
    forbidden_run: GeminiRun, tools_run: GeminiRun
) -> None:
    run = forbidden_run
    (before_agent,) = run.events("BeforeAgent")
    blocked = "Agent execution blocked: " + quoted(
        "this prompt is forbidden [hookd.demo:no-forbidden-prompt]", before_agent
    )
    assert blocked in run.stderr, run.report
    assert ANSWER not in run.stdout, run.report
    assert run.file("ok.txt") is None, run.report
    assert [(d["decision"], verdicts(d)) for d in run.events("BeforeAgent")] == [
        ("deny", ["deny:hookd.demo:no-forbidden-prompt"])
    ], run.report
    assert run.events("BeforeModel") == [], run.report  # the model was never asked
    # Control: the same script without FORBIDDEN reaches the model and runs its tool calls.
    assert [d["decision"] for d in tools_run.events("BeforeAgent")] == ["allow"], tools_run.report
    assert len(tools_run.events("BeforeModel")) == 2, tools_run.report
    assert ANSWER in tools_run.stdout, tools_run.report
    assert tools_run.file("ok.txt") == "fine", tools_run.report


@pytest.fixture(scope="module")
def read_only_run(hookd: RunningDaemon, tmp_path_factory: pytest.TempPathFactory, no_turns_script: Path) -> GeminiRun:
    workspace = workspace_for(hookd, tmp_path_factory.mktemp("read-only"))
    return run_gemini(workspace, "READ-ONLY: summarise notes.txt", no_turns_script, hookd)


@pytest.fixture(scope="module")
def any_tool_run(hookd: RunningDaemon, tmp_path_factory: pytest.TempPathFactory, no_turns_script: Path) -> GeminiRun:
    workspace = workspace_for(hookd, tmp_path_factory.mktemp("any-tool"))
    return run_gemini(workspace, "Summarise notes.txt", no_turns_script, hookd)


def test_before_tool_selection_restricts_the_request_to_read_file(
    read_only_run: GeminiRun, any_tool_run: GeminiRun
) -> None:
    request = read_only_run.failed_request()
    assert request["config"].get("toolConfig") == {
        "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["read_file"]}
    }, request["config"].get("toolConfig")
    declared = {f["name"] for tool in request["config"]["tools"] for f in tool.get("functionDeclarations", [])}
    assert {"read_file", "write_file"} <= declared  # a hook restricts calling, it cannot remove tools
    selection = read_only_run.events("BeforeToolSelection")
    assert [(d["decision"], verdicts(d)) for d in selection] == [("rewrite", ["rewrite:hookd.demo:only-read"])]
    # Control: without READ-ONLY hookd prints nothing (`{}` would reset the config to AUTO), so the
    # request carries Gemini's own tool config, which is none.
    control = any_tool_run.failed_request()
    assert "toolConfig" not in control["config"], control["config"].get("toolConfig")
    assert [(d["decision"], verdicts(d)) for d in any_tool_run.events("BeforeToolSelection")] == [("allow", [])]


@pytest.fixture(scope="module")
def default_policies_hookd(gemini: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDaemon]:
    """A daemon serving the shipped default policies (policies/), not the demo ones."""
    runtime_dir = short_runtime_dir()
    daemon = start_daemon(
        tmp_path_factory.mktemp("defaults"), ROOT / "policies", daemon_config(runtime_dir), runtime_dir
    )
    try:
        eventually(lambda: '"lane_serving"' in daemon.log(), timeout=30)  # where every AfterModel chunk goes
        yield daemon
    finally:
        daemon.stop()
        shutil.rmtree(runtime_dir.parent, ignore_errors=True)


def test_a_write_through_a_link_made_on_the_same_line_is_denied(
    default_policies_hookd: RunningDaemon, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # Issue 17: `ln -s ~/.ssh s && printf … >> s/authorized_keys` was allowed and the key was written,
    # because the path was resolved before the link existed.
    workspace = workspace_for(default_policies_hookd, tmp_path_factory.mktemp("link"))
    (workspace.home / ".ssh").mkdir(mode=0o700)
    run = run_gemini(workspace, "Add the deploy key.", SCRIPTS / "link-attack.responses", default_policies_hookd)
    assert run.returncode == 0, run.report
    assert not (workspace.home / ".ssh" / "authorized_keys").exists(), run.report
    attack, control = run.events("BeforeTool")
    assert attack["decision"] == "deny" and "deny:hookd.protected_paths:ssh-dir" in verdicts(attack), run.report
    # Control: the shell tool ran the next, harmless command of the same turn.
    assert run.file("shell-ran.txt") == "ran", run.report
    assert control["decision"] == "allow", run.report


def test_the_agent_cannot_switch_hookd_off_and_the_next_session_is_guarded(
    default_policies_hookd: RunningDaemon, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # Issue 25: the model turns Gemini's hooks off (hooksConfig.enabled false) with sed, then overwrites the
    # settings with a file tool; self_protection (its protected set derived from the agents' modules)
    # denies both, and the next session still runs hookd's hooks.
    workspace = workspace_for(default_policies_hookd, tmp_path_factory.mktemp("tamper"))
    settings = workspace.home / ".gemini" / "settings.json"
    before = settings.read_bytes()
    run = run_gemini(workspace, "Turn the hooks off.", SCRIPTS / "tamper.responses", default_policies_hookd)
    assert run.returncode == 0, run.report
    assert settings.read_bytes() == before, run.report
    shell, write, control = run.events("BeforeTool")
    for attempt in (shell, write):
        assert attempt["decision"] == "deny", run.report
        assert "deny:hookd.self_protection:hookd-self-protection" in verdicts(attempt), run.report
    assert run.file("shell-ran.txt") == "ran" and control["decision"] == "allow", run.report
    # The next session: hookd still decides (the link attack of issue 17 is still denied).
    (workspace.home / ".ssh").mkdir(mode=0o700)
    after = run_gemini(workspace, "Add the deploy key.", SCRIPTS / "link-attack.responses", default_policies_hookd)
    assert not (workspace.home / ".ssh" / "authorized_keys").exists(), after.report
    assert after.events("BeforeTool")[0]["decision"] == "deny", after.report


def test_a_secret_split_across_streamed_chunks_stops_the_turn(
    default_policies_hookd: RunningDaemon, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # Issue 17: AfterModel sees one streamed chunk at a time; the default policies see the text streamed
    # so far (hookd.enrich.stream), so the chunk that completes a private key stops the turn.
    workspace = workspace_for(default_policies_hookd, tmp_path_factory.mktemp("stream"))
    run = run_gemini(workspace, "Show me the deploy key.", SCRIPTS / "split-secret.responses", default_policies_hookd)
    assert "b3BlbnNzaC1rZXktdjE" not in run.stdout + run.stderr, run.report
    # One record for the response (hookd.audit.streams): half a key passed, the chunk that completed it halted.
    (response,) = run.events("AfterModel")
    assert (response["decision"], response["stream"]["chunks"], response["stream"]["ended"]) == ("halt", 2, "halt")
    assert [c["decision"] for c in response["stream"]["changes"]] == ["allow", "halt"], run.report
    assert verdicts(response) == ["halt:hookd.model_secrets:private-key"], run.report
    assert "b3BlbnNzaC1rZXktdjE" not in json.dumps(response), run.report  # the log holds no key either


@pytest.fixture(scope="module")
def ask_run(hookd: RunningDaemon, tmp_path_factory: pytest.TempPathFactory) -> GeminiRun:
    workspace = workspace_for(hookd, tmp_path_factory.mktemp("ask"))
    return run_gemini(workspace, "Write the two files.", SCRIPTS / "ask.responses", hookd)


def test_ask_in_headless_mode_is_denied_instead_of_hanging(ask_run: GeminiRun) -> None:
    run = ask_run  # run_gemini fails the test if Gemini is still waiting after TIMEOUT
    assert run.returncode == 0, run.report
    assert "Both writes were attempted." in run.stdout, run.report
    assert run.file("ask-me.txt") is None, run.report
    first, second = run.events("BeforeTool")
    why = quoted(
        "please confirm ask-me.txt [hookd.demo:ask-me] (ask answered deny: the agent session is headless)", first
    )
    assert f"Tool execution blocked: {why}" in run.stderr, run.report
    # Control: the next call of the same turn, a name the policy allows, still ran.
    assert run.file("after-ask.txt") == "still running", run.report
    assert (first["decision"], verdicts(first)) == ("deny", ["ask:hookd.demo:ask-me"]), run.report
    assert first["notes"] == ["ask fallback applied: deny (the agent session is headless)"], run.report
    assert (second["decision"], verdicts(second), second["notes"]) == ("allow", [], []), run.report


@pytest.fixture(scope="module")
def stopped_prompt_run(stopped_hookd: RunningDaemon, tmp_path_factory: pytest.TempPathFactory) -> GeminiRun:
    """Default fail modes, daemon stopped."""
    workspace = workspace_for(stopped_hookd, tmp_path_factory.mktemp("stopped-default"))
    return run_gemini(workspace, PROMPT, SCRIPTS / "tools.responses", None)


@pytest.fixture(scope="module")
def stopped_tool_run(stopped_hookd: RunningDaemon, tmp_path_factory: pytest.TempPathFactory) -> GeminiRun:
    """Daemon stopped, BeforeAgent and BeforeModel fail open: the model runs, the tool calls meet the shim."""
    root = tmp_path_factory.mktemp("stopped-open")
    config = root / "config.toml"
    open_modes = '[fail_mode]\nBeforeAgent = "open"\nBeforeModel = "open"\n'
    config.write_text(daemon_config(stopped_hookd.runtime_dir, open_modes))
    workspace = make_workspace(root, config, stopped_hookd.socket, telemetry=True)
    settings = json.loads((workspace.home / ".gemini" / "settings.json").read_text())
    assert settings["hooks"]["BeforeAgent"][0]["hooks"][0]["command"].endswith("--fail open")
    return run_gemini(workspace, PROMPT, SCRIPTS / "tools.responses", None)


def not_running(daemon: RunningDaemon) -> str:
    return f"hookd is not running (no daemon on {daemon.socket}): start it with `hookd serve`"


def test_daemon_stopped_fails_closed_at_the_prompt(
    stopped_prompt_run: GeminiRun, stopped_hookd: RunningDaemon, tools_run: GeminiRun
) -> None:
    run = stopped_prompt_run
    assert f"Agent execution blocked: {not_running(stopped_hookd)}" in run.stderr, run.report
    assert ANSWER not in run.stdout, run.report
    for name in ("ok.txt", "shout.txt", "plain.txt"):
        assert run.file(name) is None, run.report
    # Control: the same script and prompt with the daemon running writes ok.txt.
    assert tools_run.file("ok.txt") == "fine", tools_run.report


def test_daemon_stopped_fails_closed_on_tool_calls(
    stopped_tool_run: GeminiRun, stopped_hookd: RunningDaemon, tools_run: GeminiRun
) -> None:
    run = stopped_tool_run
    blocked = f"Tool execution blocked: {not_running(stopped_hookd)}"
    assert f"Error executing tool write_file: {blocked}" in run.stderr, run.report
    assert ANSWER in run.stdout, run.report  # the model ran, was told, and answered
    for name in ("ok.txt", "shout.txt", "plain.txt"):
        assert run.file(name) is None, run.report
    told = tool_results(run.model_requests()[1])
    assert told["ok.txt"] == {"error": blocked}, told
    # Control: the same script and prompt with the daemon running writes ok.txt.
    assert tools_run.file("ok.txt") == "fine", tools_run.report


# --- replay: the recorded runs against a changed policy --------------------------------------------


CHANGED_RULE = """
deny contains {"id": "no-plain", "reason": "the candidate refuses plain.txt"} if {
\tinput.tool.kind == "write"
\tendswith(input.tool.input.file_path, "plain.txt")
}
"""


def replay(store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hookd", "replay", "--store", str(store), "--json", *args],
        capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ, "HOOKD_CONFIG": ""}, check=False,
    )  # fmt: skip


def stored(store: Path, at_least: int) -> list[dict[str, Any]]:
    """The replay store's lines, once it holds `at_least` (it is written just after each reply)."""
    end = time.monotonic() + TIMEOUT
    while True:
        lines = [json.loads(x) for f in sorted(store.glob("replay-*.jsonl")) for x in f.read_text().splitlines()]
        if len(lines) >= at_least or time.monotonic() > end:
            return lines
        time.sleep(0.05)


def test_the_recorded_runs_replay_against_a_changed_policy(
    hookd: RunningDaemon, tools_run: GeminiRun, forbidden_run: GeminiRun, ask_run: GeminiRun, tmp_path: Path
) -> None:
    store = hookd.runtime_dir.parent / "replay"
    records = hookd.decisions()
    lines = stored(store, len(records))
    assert [line["id"] for line in lines] == [r["id"] for r in records]
    assert oct(store.stat().st_mode & 0o777) == "0o700"
    assert {oct(f.stat().st_mode & 0o777) for f in store.glob("replay-*")} == {"0o600"}

    # the policies that decided, replayed: nothing changes (the stored input is what they saw)
    same = replay(store, "--policies", str(DEMO_POLICIES), "--fail-on", "any")
    assert same.returncode == 0, same.stdout + same.stderr
    assert json.loads(same.stdout)["differing"] == 0
    assert json.loads(same.stdout)["replayed"] == len(records)

    # the candidate drops the secret.txt rule and refuses plain.txt
    candidate = tmp_path / "candidate"
    shutil.copytree(DEMO_POLICIES, candidate)
    rego = candidate / "demo" / "policy.rego"
    rego.write_text(
        rego.read_text().replace('endswith(input.tool.input.file_path, "secret.txt")', "false") + CHANGED_RULE
    )
    changed = replay(store, "--policies", str(candidate), "--fail-on", "deny-to-allow,allow-to-deny", "--first", "3")
    assert changed.returncode == 1, changed.stdout + changed.stderr
    report = json.loads(changed.stdout)

    def calls(name: str) -> list[dict[str, Any]]:  # BeforeTool, and AfterTool when the write ran
        return [r for r in records if ((r["input"].get("tool") or {}).get("input") or {}).get("file_path") == name]

    secret, plain = calls("secret.txt"), calls("plain.txt")
    assert [r["event"] for r in secret] == ["BeforeTool"], "denied: it never ran"
    assert [r["event"] for r in plain] == ["BeforeTool", "AfterTool"]
    assert report["by_transition"] == {"deny-to-allow": 1, "allow-to-deny": 2}
    assert report["by_rule"] == {"hookd.demo:no-secret": 1, "hookd.demo:no-plain": 2}
    assert report["by_event"] == {"BeforeTool": 2, "AfterTool": 1}
    assert report["by_tool"] == {"write_file": 3}
    first = report["first"][0]
    assert (first["recorded"], first["candidate"], first["recorded_rules"]) == (
        "deny",
        "allow",
        ["hookd.demo:no-secret"],
    )
    assert len(report["first"]) == min(3, report["differing"])
    # a CI gate that only cares about other changes passes
    assert replay(store, "--policies", str(candidate), "--fail-on", "ask-to-allow").returncode == 0
    # the text report for people
    text = subprocess.run(
        [sys.executable, "-m", "hookd", "replay", "--store", str(store), "--policies", str(candidate)],
        capture_output=True, text=True, timeout=TIMEOUT, env={**os.environ, "HOOKD_CONFIG": ""}, check=True,
    ).stdout  # fmt: skip
    assert "by transition: allow-to-deny 2, deny-to-allow 1" in text, text
