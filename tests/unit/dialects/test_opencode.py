"""OpenCode and Kilo Code CLI: hookd's plugin payload parses onto BeforeTool, and each verdict renders as
the plugin applies it (docs/opencode.md): a deny (ask and halt too) is {"decision": "deny"}, a rewrite is
the complete new arguments, an allow is nothing; install fills the shim's argv into the plugin file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookd.dialects.opencode import plugin_events, plugin_text
from hookd.dialects.registry import AGENTS
from hookd.dialects.spec import HookEntry
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
