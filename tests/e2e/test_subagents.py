"""End to end: a sub-agent's tool calls go through hookd like the main session's (issue 27.7).

The real agent CLIs of tests/e2e/test_agents.py (its fake model server, daemon, installs and confinement),
with a fake model that delegates: the main conversation names DELEGATE<<base64 of {"tool", "args"}>>DELEGATE,
and the fake model answers it with one call of the agent's own sub-agent tool (OpenCode's `task`, …), never
with the shell; the sub-agent's own conversation (its prompt names RUN<<command>>RUN, or CODE<<script>>CODE
in Codex's code mode) then runs the command. So a marker that appears was made by the sub-agent, and a
deny's reason is what the sub-agent was told. Each deny has a control (through a sub-agent too) that runs.
Gemini CLI's model is a script (`--fake-responses`): its own test is at the end.

Claude Code's sub-agent is proven in tests/e2e/test_claude_code.py. Each agent's module names its proof
(`AgentSpec.subagents`), and `hookd doctor` reports an agent that names none.
"""

from __future__ import annotations

import base64
import json
import subprocess
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from confine import confined
from e2e import test_gemini_cli as gemini_e2e
from e2e.test_agents import DENY_REASON, KILO_TIMEOUT, TIMEOUT, Install, Server, agent_argv, install

from support import RunningDaemon

pytestmark = pytest.mark.e2e


@dataclass(repr=False)
class Delegated:
    returncode: int
    stdout: str
    stderr: str
    main: list[dict[str, Any]]  # the main conversation's requests (they name DELEGATE)
    sub: list[dict[str, Any]]  # the sub-agent's (they name the command only)

    @property
    def report(self) -> str:
        return (f"exited {self.returncode}\n--- stdout\n{self.stdout[-3000:]}\n--- stderr\n{self.stderr[-3000:]}"
                f"\n--- main requests: {len(self.main)}, sub-agent requests: {len(self.sub)}")  # fmt: skip

    @property
    def told(self) -> str:
        """Everything the sub-agent's model was sent, as JSON text."""
        return json.dumps(self.sub)


# The agent's sub-agent tool ("namespace.tool" where the agent groups it), its arguments ("{prompt}": the
# sub-agent's task) and the calls after it that wait for the sub-agent ("{output.KEY}": KEY of the previous
# call's JSON output). Codex's `codex exec` ends with the main turn, so the main agent waits (wait_agent).
SPAWNERS: dict[str, dict[str, Any]] = {
    "opencode": {"tool": "task", "args": {"description": "run it", "prompt": "{prompt}", "subagent_type": "general"}},
    "kilo": {"tool": "task", "args": {"description": "run it", "prompt": "{prompt}", "subagent_type": "general"}},
    "qwen": {"tool": "agent", "args": {"description": "run it", "prompt": "{prompt}",
                                       "subagent_type": "general-purpose", "run_in_background": False}},
    "copilot": {"tool": "task", "args": {"description": "run it", "prompt": "{prompt}",
                                         "agent_type": "general-purpose", "name": "runner"}},
    "droid": {"tool": "Task", "args": {"description": "run it", "prompt": "{prompt}", "subagent_type": "runner"}},
    "codex": {"tool": "multi_agent_v1.spawn_agent", "args": {"message": "{prompt}"},
              "then": [{"tool": "wait_agent", "args": {"targets": ["{output.agent_id}"], "timeout_ms": 60000}}]},
}  # fmt: skip
# Droid's Task runs a custom droid only (its schema: "must match an available droid"): a user droid.
RUNNER_DROID = """---
name: runner
description: Runs the shell command it is given.
model: inherit
---
Run the shell command the task names with the Execute tool, then answer Done.
"""


def add_sub_agents(setup: Install) -> None:
    """What the agent needs to start the sub-agent of SPAWNERS."""
    if setup.agent == "droid":
        (setup.home / ".factory" / "droids").mkdir(parents=True, exist_ok=True)
        (setup.home / ".factory" / "droids" / "runner.md").write_text(RUNNER_DROID)
    elif setup.agent == "codex":  # the fake model is not in Codex's catalog: sub-agents by the V1 feature flag
        config = setup.home / ".codex" / "config.toml"
        config.write_text(config.read_text().replace("[features]\n", "[features]\nmulti_agent = true\n"))


def delegation(spawner: dict[str, Any], task: str) -> dict[str, Any]:
    """The fake model's DELEGATE spec (tests/fake_llm.py) for handing `task` to a sub-agent by `spawner`."""
    namespace, _, tool = spawner["tool"].rpartition(".")
    args = {key: task if value == "{prompt}" else value for key, value in spawner["args"].items()}
    spec = {"tool": tool, "args": args, "then": spawner.get("then", [])}
    return spec | {"namespace": namespace} if namespace else spec


def delegated_run(
    server: Server, setup: Install, command: str, target: Path, spawner: dict[str, Any] | None = None
) -> Delegated:
    """One confined run whose model hands `command` to a sub-agent (the module docstring). `spawner`: the
    agent's SPAWNERS entry unless given; one whose `task` is "code" hands it over as a code-mode script."""
    run_id = uuid.uuid4().hex[:12]
    spawner = spawner or SPAWNERS[setup.agent]
    task = (
        code(shell_script(command)) if spawner.get("task") == "code" else f"Run this shell command: RUN<<{command}>>RUN"
    )
    spec = delegation(spawner, f"{task} (run {run_id})")
    encoded = base64.b64encode(json.dumps(spec).encode()).decode()
    prompt = f"Hand this to a sub-agent: DELEGATE<<{encoded}>>DELEGATE (run {run_id})"
    argv = confined(agent_argv(setup.agent, prompt), world=(*setup.world, target), netns=server.netns)
    done = subprocess.run(
        argv, env=setup.env, cwd=setup.project, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=KILO_TIMEOUT if setup.agent == "kilo" else TIMEOUT, check=False,
    )  # fmt: skip
    requests = server.requests(run_id)
    main = [r for r in requests if "DELEGATE<<" in json.dumps(r.get("body"))]
    sub = [r for r in requests if "DELEGATE<<" not in json.dumps(r.get("body"))]
    return Delegated(done.returncode, done.stdout, done.stderr, main, sub)


def assert_the_sub_agents_call_is_guarded(server: Server, setup: Install, target: Path) -> None:
    control = delegated_run(server, setup, f"touch {target}/ok-sub", target)
    # The agent really started a sub-agent, which had model turns of its own.
    assert control.main and control.sub, control.report
    assert (target / "ok-sub").exists(), control.report  # made by the sub-agent: the main one never runs it
    denied = delegated_run(server, setup, f"touch {target}/keep-sub", target)
    assert denied.sub, denied.report
    assert not (target / "keep-sub").exists(), denied.report
    assert DENY_REASON in denied.told, denied.report


@pytest.mark.timeout(900)  # Kilo takes 40-60 s a run here (tests/e2e/test_agents.py)
@pytest.mark.parametrize("agent", ("opencode", "kilo", "qwen", "droid", "copilot", "codex"))
def test_a_sub_agents_shell_call_reaches_hookd_and_is_denied(
    agent: str, server: Server, daemon: RunningDaemon, copilot_cache: Path, tmp_path: Path, target: Path
) -> None:
    setup = install(agent, tmp_path, daemon.runtime_dir, server.port, copilot_cache)
    add_sub_agents(setup)
    assert_the_sub_agents_call_is_guarded(server, setup, target)


# --- Codex's code mode: the catalog's newest models call every tool from JavaScript --------------------------
#
# For gpt-5.6-* and gpt-6* Codex 0.171.0 offers one freeform `exec` tool whose script calls the others
# (`await tools.exec_command(...)`). The fake model names the script as CODE<<base64>>CODE (tests/fake_llm.py).

CODE_MODE_MODEL = "gpt-5.6-luna"  # code mode in Codex's bundled catalog


def code(script: str) -> str:
    return f"CODE<<{base64.b64encode(script.encode()).decode()}>>CODE"


def shell_script(command: str) -> str:
    """A code-mode script that runs `command` with exec_command."""
    return f"const r = await tools.exec_command({{cmd: {json.dumps(command)}}});\ntext(JSON.stringify(r));"


def code_mode_run(server: Server, setup: Install, script: str, target: Path) -> Delegated:
    """A confined run of the script; `main` holds its model requests."""
    run_id = uuid.uuid4().hex[:12]
    argv = confined(agent_argv("codex", f"{code(script)} (run {run_id})"), world=(*setup.world, target),
                    netns=server.netns)  # fmt: skip
    done = subprocess.run(argv, env=setup.env, cwd=setup.project, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=TIMEOUT, check=False)  # fmt: skip
    requests = server.requests(run_id)
    return Delegated(done.returncode, done.stdout, done.stderr, requests, [])


@pytest.fixture
def code_mode_codex(server: Server, daemon: RunningDaemon, copilot_cache: Path, tmp_path: Path) -> Install:
    setup = install("codex", tmp_path, daemon.runtime_dir, server.port, copilot_cache)
    config = setup.home / ".codex" / "config.toml"
    config.write_text(config.read_text().replace('model = "fake-model"', f'model = "{CODE_MODE_MODEL}"'))
    return setup


def test_codex_code_mode_tool_calls_reach_hookd_and_are_denied(
    server: Server, code_mode_codex: Install, target: Path
) -> None:
    """A shell command run from the `exec` script fires PreToolUse like a direct call: denied, and the script
    fails with the reason; the control (the same script shape) runs."""
    control = code_mode_run(server, code_mode_codex, shell_script(f"touch {target}/ok-code"), target)
    assert (target / "ok-code").exists(), control.report
    assert '"type": "custom_tool_call"' in json.dumps(control.main), control.report  # through exec
    denied = code_mode_run(server, code_mode_codex, shell_script(f"touch {target}/keep-code"), target)
    assert not (target / "keep-code").exists(), denied.report
    assert DENY_REASON in json.dumps(denied.main), denied.report


# Codex's default catalog model (gpt-6.2-sol: multi-agent v2, code mode) offers spawn_agent and wait_agent
# in a `collaboration` namespace, without any setting. The sub-agent starts without the parent's history
# (fork_turns "none") and, in code mode too, runs its task's script.
V2_MODEL = "gpt-6.2-sol"
V2_SPAWNER: dict[str, Any] = {
    "tool": "collaboration.spawn_agent", "args": {"task_name": "runner", "message": "{prompt}", "fork_turns": "none"},
    "then": [{"tool": "wait_agent", "args": {"timeout_ms": 60000}}], "task": "code",
}  # fmt: skip


def test_codex_multi_agent_v2_sub_agents_tool_calls_reach_hookd_and_are_denied(
    server: Server, daemon: RunningDaemon, copilot_cache: Path, tmp_path: Path, target: Path
) -> None:
    setup = install("codex", tmp_path, daemon.runtime_dir, server.port, copilot_cache)
    config = setup.home / ".codex" / "config.toml"
    config.write_text(config.read_text().replace('model = "fake-model"', f'model = "{V2_MODEL}"'))
    control = delegated_run(server, setup, f"touch {target}/ok-v2", target, V2_SPAWNER)
    assert control.main and control.sub, control.report
    assert '"namespace": "collaboration"' in json.dumps(control.main), control.report  # v2's spawn_agent
    assert (target / "ok-v2").exists(), control.report  # made by the sub-agent's script
    denied = delegated_run(server, setup, f"touch {target}/keep-v2", target, V2_SPAWNER)
    assert denied.sub, denied.report
    assert not (target / "keep-v2").exists(), denied.report
    assert DENY_REASON in denied.told, denied.report


# --- Gemini CLI: its model is a script (--fake-responses), the sub-agent's turns included ------------------

gemini, hookd = gemini_e2e.gemini, gemini_e2e.hookd
NO_RM = "rm is not allowed [hookd.demo:no-rm]"
COMPLETED = [("BeforeTool", "complete_task", "allow"), ("AfterTool", "complete_task", "allow")]  # the sub-agent ends


def gemini_script(path: Path, command: str) -> Path:
    """The main agent invokes the `generalist` sub-agent (invoke_agent); the sub-agent runs `command` with
    run_shell_command and ends with complete_task; the main agent answers. One model turn a line."""

    def turn(*parts: dict[str, Any]) -> str:
        candidate = {"content": {"role": "model", "parts": list(parts)}, "finishReason": "STOP", "index": 0}
        return json.dumps({"method": "generateContentStream", "response": [{"candidates": [candidate]}]})

    def call(name: str, **args: Any) -> dict[str, Any]:
        return {"functionCall": {"name": name, "args": args}}

    path.write_text("\n".join([
        turn(call("invoke_agent", agent_name="generalist", prompt="Run the shell command of your task.")),
        turn(call("run_shell_command", command=command, description="the sub-agent's command")),
        turn(call("complete_task", result={"response": "The command was attempted."})),
        turn({"text": "The sub-agent is done."}),
    ]) + "\n")  # fmt: skip
    return path


def gemini_tool_calls(run: gemini_e2e.GeminiRun) -> list[tuple[str, str, str]]:
    """(event, tool, decision) of every BeforeTool/AfterTool in the order Gemini called the hook."""
    records = sorted(run.events("BeforeTool") + run.events("AfterTool"),
                     key=lambda d: str(d["input"].get("raw", {}).get("timestamp", "")))  # fmt: skip
    return [(d["event"], d["tool"], d["decision"]) for d in records]


def test_gemini_a_sub_agents_shell_call_reaches_hookd_and_is_denied(
    hookd: RunningDaemon, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Gemini's `invoke_agent` runs the sub-agent inside the call: its run_shell_command's BeforeTool comes
    between invoke_agent's BeforeTool and AfterTool, so it is the sub-agent's. Denied, and the sub-agent's
    model is told why; the control (through the sub-agent too) runs."""
    scripts = tmp_path_factory.mktemp("scripts")
    control_ws = gemini_e2e.workspace_for(hookd, tmp_path_factory.mktemp("gemini-sub-control"))
    script = gemini_script(scripts / "control.responses", "printf ran > sub-ran.txt")
    control = gemini_e2e.run_gemini(control_ws, "Hand this to a sub-agent.", script, hookd)
    assert control.returncode == 0, control.report
    assert control.file("sub-ran.txt") == "ran", control.report
    assert gemini_tool_calls(control) == [
        ("BeforeTool", "invoke_agent", "allow"), ("BeforeTool", "run_shell_command", "allow"),
        ("AfterTool", "run_shell_command", "allow"), *COMPLETED, ("AfterTool", "invoke_agent", "allow"),
    ], control.report  # fmt: skip
    ws = gemini_e2e.workspace_for(hookd, tmp_path_factory.mktemp("gemini-sub-deny"), telemetry=True)
    script = gemini_script(scripts / "deny.responses", "rm notes.txt")
    denied = gemini_e2e.run_gemini(ws, "Hand this to a sub-agent.", script, hookd)
    assert denied.returncode == 0, denied.report
    assert denied.file("notes.txt") == gemini_e2e.NOTES, denied.report
    assert gemini_tool_calls(denied) == [
        ("BeforeTool", "invoke_agent", "allow"), ("BeforeTool", "run_shell_command", "deny"),
        *COMPLETED, ("AfterTool", "invoke_agent", "allow"),
    ], denied.report  # fmt: skip
    sub_agent = [r for r in denied.model_requests() if r and "Run the shell command of your task." in json.dumps(r[0])]
    assert any(NO_RM in json.dumps(r) for r in sub_agent), denied.report  # the sub-agent's own model was told
