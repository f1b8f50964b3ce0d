"""Factory Droid (0.225.2): parse its hook events onto the canonical ones, render a Decision as Droid
honours it. No I/O. Droid copies Claude Code's hook contract (event names, snake_case payload,
`hookSpecificOutput`), so events other than PreToolUse render as Claude's
(hookd.dialects.claude.render_claude_shaped). On PreToolUse Droid differs (docs/droid.md has the table,
measured on the binary):

* **a deny is exit code 2 with the reason on stderr** (the model gets `Error: <reason>`): the first JSON
  `permissionDecision` of all the hooks that ran wins, so another hook's earlier JSON `allow` would
  cancel a JSON deny, but nothing overrides an exit 2;
* **an allow is nothing at all**: a hook `allow` skips Droid's own checks (its read-only and `--auto`
  levels), so hookd never sends one;
* `ask` is only logged by Droid (headless or not), so an ask is rendered as a deny;
* a rewrite is `updatedInput` with no `permissionDecision` (shallow-merged into the tool input, so
  the complete input is sent), and Droid's own checks still run on the rewritten call;
* `additionalContext` on PreToolUse is not sent to the model: recorded as not carried;
* every other hook failure (exit 1, a crash, a timeout, bad output) lets the call run, so the shims'
  own deny when hookd cannot decide is exit 2 too (AgentEvent.fail_exit).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from hookd.dialects.claude import render_claude_shaped
from hookd.dialects.common import (
    claude_shaped_event,
    dump_json,
    halt_output,
    hook_event_name,
    load_payload,
    named_tool,
    note_unused_rewrites,
    rewritten_tool_input,
)
from hookd.dialects.spec import (
    REASON,
    AgentEvent,
    AgentSpec,
    HookEntry,
    InstallSpec,
    JSONObject,
    Option,
    SubAgents,
    Switch,
    system_path,
)
from hookd.errors import DialectError, one_line
from hookd.types import (
    JSON,
    Decision,
    Event,
    HookRequest,
    NormalisedEvent,
    Outcome,
    Reply,
    ToolCall,
    ToolKind,
    ToolSpec,
)

DROID_EVENTS: Mapping[str, Event] = {
    "PreToolUse": Event.BEFORE_TOOL,
    "PostToolUse": Event.AFTER_TOOL,
    "UserPromptSubmit": Event.BEFORE_AGENT,
    "Stop": Event.AFTER_AGENT,
    "SubagentStop": Event.AFTER_AGENT,
    "SessionStart": Event.SESSION_START,
    "SessionEnd": Event.SESSION_END,
    "PreCompact": Event.PRE_COMPRESS,
    "Notification": Event.NOTIFICATION,
}
_READ, _WRITE = "read", "write"
# The tool names and arguments of Droid 0.225.2's model request (ApplyPatch, FetchUrl, WebSearch: from its code).
TOOLS: Mapping[str, ToolSpec] = {
    "Execute": ToolSpec(ToolKind.SHELL),
    "Read": ToolSpec(ToolKind.READ, (("file_path", _READ),)),
    "LS": ToolSpec(ToolKind.READ, (("directory_path", _READ),), lists=("directory_path",)),
    # Grep reads every file its `glob_pattern` filter (rg --glob) reaches under `path` (every file, with none).
    "Grep": ToolSpec(
        ToolKind.READ,
        (("path", _READ), ("glob_pattern", _READ)),
        {"glob_pattern": "path"},
        globs={"glob_pattern": "search"},
    ),
    "Glob": ToolSpec(ToolKind.READ, (("folder", _READ), ("patterns", _READ)), {"patterns": "folder"}),
    "Create": ToolSpec(ToolKind.WRITE, (("file_path", _WRITE),), content="content"),
    "Edit": ToolSpec(ToolKind.EDIT, (("file_path", _WRITE),), replace=("old_str", "new_str")),
    "ApplyPatch": ToolSpec(ToolKind.EDIT),  # arguments unknown: a patch in any of them (tool_effects._unnamed_write)
    "FetchUrl": ToolSpec(ToolKind.WEB),
    "WebSearch": ToolSpec(ToolKind.WEB),
}
_TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse"})
DENY_EXIT = 2  # the one answer no other hook's allow overrides


class DroidDialect:
    client = "droid"
    handles_headless_ask = True  # an ask is always rendered as a deny: Droid never asks for a hook

    def parse(self, request: HookRequest) -> NormalisedEvent:
        payload = load_payload(request.payload)
        name = hook_event_name(request, payload)
        if name not in DROID_EVENTS:
            raise DialectError(f"unknown Factory Droid hook event {name!r}")
        return claude_shaped_event(
            request, payload, name, client="droid", event=DROID_EVENTS[name], tool=_tool_call(name, payload),
            project_env="FACTORY_PROJECT_DIR",
        )  # fmt: skip

    def render(self, event: NormalisedEvent, decision: Decision) -> Reply:
        if event.event is Event.BEFORE_TOOL:
            return _pre_tool_use(event, decision)
        return render_claude_shaped(event, decision)

    def fail_reply(self, event: Event, reason: str) -> Reply:
        if event is not Event.BEFORE_TOOL:
            return Reply()
        return Reply(stderr=f"{one_line(reason)}\n".encode(), exit_code=DENY_EXIT)


def _pre_tool_use(event: NormalisedEvent, decision: Decision) -> Reply:
    notes: list[str] = []
    if decision.contexts:
        notes.append("context not carried: Factory Droid does not send PreToolUse context to the model")
    if decision.outcome is Outcome.HALT:  # continue:false ends the session; the exit 2 blocks the call first
        reason = decision.explain("stopped by hookd policy")
        return Reply(dump_json(halt_output(decision)), f"{reason}\n".encode(), DENY_EXIT, tuple(notes))
    if decision.outcome in (Outcome.DENY, Outcome.ASK):
        if decision.outcome is Outcome.ASK:
            notes.append("ask mapped to deny: Factory Droid does not ask the user for a hook")
        reason = decision.explain("denied by hookd policy" if decision.outcome is Outcome.DENY else decision.reason)
        return Reply(stderr=f"{reason}\n".encode(), exit_code=DENY_EXIT, notes=tuple(notes))
    note_unused_rewrites("PreToolUse", decision, notes, "tool_input")
    full = rewritten_tool_input(event, decision, notes)
    if full is None:
        return Reply(notes=tuple(notes))
    output = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": full}}
    return Reply(dump_json(output), notes=tuple(notes))


def _tool_call(name: str, payload: Mapping[str, JSON]) -> ToolCall | None:
    if name not in _TOOL_EVENTS:
        return None
    tool, args, mcp = named_tool(name, payload)
    spec = TOOLS.get(tool) or ToolSpec(ToolKind.MCP if mcp else ToolKind.OTHER)
    return ToolCall(name=tool, kind=spec.kind, input=args, mcp=mcp, spec=spec)


def _settings_path(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> Path:
    if scope == "user":
        return home / ".factory" / "settings.json"
    if scope == "managed":  # the org's settings, read before any other org source
        return system_path(env, "/etc/factory/settings.json")
    return project_dir / ".factory" / "settings.json"


def _entry(entry: HookEntry) -> JSONObject:
    """Droid's handler is {type, command, timeout (s)}; it accepts hookd's name and description beside them."""
    hook = {"type": "command", "name": entry.name, "command": entry.command, "timeout": entry.seconds,
            "description": entry.description}  # fmt: skip
    return {"hooks": [hook]}


def _bypass(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> tuple[Path, ...]:
    """A hooks.json beside a settings.json replaces that folder's settings.json hooks per event (the
    legacy hooks/hooks.json when there is none), and one invalid handler drops a whole file; the org
    scope has no such neighbour."""
    if scope == "managed":
        return ()
    folder = _settings_path(scope, home, project_dir, env).parent
    return (folder / "hooks.json", folder / "hooks")


# Registered: every event Droid fires that has a canonical counterpart (exec fires no UserPromptSubmit).
_INSTALLED = ("SessionStart", "SessionEnd", "UserPromptSubmit", "Stop", "SubagentStop", "PreToolUse", "PostToolUse")


def _agent_event(name: str) -> AgentEvent:
    if name == "PreToolUse":
        return AgentEvent(name, DROID_EVENTS[name], f"{REASON}\n", fail_closed=True, fail_exit=DENY_EXIT)
    return AgentEvent(name, DROID_EVENTS[name], install=name in _INSTALLED)


SPEC = AgentSpec(
    name="droid",
    title="Factory Droid",
    dialect=DroidDialect(),
    events=tuple(_agent_event(name) for name in DROID_EVENTS),
    tools=TOOLS,
    install=InstallSpec(
        scopes=("user", "project", "managed"),
        settings_path=_settings_path,
        entry=_entry,
        timeout_unit_ms=1000,
        managed_only_key="allowManagedHooksOnly",
        # Any level's hooks.hooksDisabled switches every hook off, the org's included (docs/droid.md); a
        # settings.local.json beside a settings.json merges over it at the same level
        # (https://docs.factory.ai/droid-cli/settings, "Local overrides"): its switch too (not proven on 0.225.2,
        # which does not load hooks from it, so judged by the switch's key, not guarded whole).
        hooks_off=(Switch("", "hooks.hooksDisabled", True), Switch("settings.local.json", "hooks.hooksDisabled", True)),
        bypass=_bypass,
        # 0.225.2 (the binary's option table and env names): `--settings <path>` merges a runtime settings
        # file for the process (as FACTORY_RUNTIME_SETTINGS_PATH does); FACTORY_HOME_OVERRIDE moves its home,
        # FACTORY_ORG_MANAGED_SETTINGS_LOCAL_PATH the managed settings.
        unguarded_options=(Option(("--settings",), "settings"),),
        home_env=("FACTORY_HOME_OVERRIDE", "FACTORY_RUNTIME_SETTINGS_PATH", "FACTORY_ORG_MANAGED_SETTINGS_LOCAL_PATH"),
    ),
    env=("FACTORY_PROJECT_DIR",),
    project_dir_env="FACTORY_PROJECT_DIR",
    process_names=("droid",),
    packages=("@factory/cli", "@factory/cli-linux-x64"),
    subagents=SubAgents(guarded="tests/e2e/test_subagents.py [droid], 0.225.2"),
)
