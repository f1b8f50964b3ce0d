"""Claude Code: parse its hook events onto the canonical ones, render a Decision as Claude honours it.

No I/O. The contract is Claude Code's hook contract (docs/claude.md has the per-event table). Facts a
renderer must respect:

* an allow is **nothing on stdout**: `permissionDecision: "allow"` would skip Claude's own permission
  checks (its rules, its prompt, its guard against deleting outside the working directories), so
  hookd never sends it;
* a PreToolUse deny or ask is `hookSpecificOutput.permissionDecision` with
  `permissionDecisionReason`; the reason of a deny reaches the model, that of an ask the user;
  under `-p` Claude cannot prompt and treats an ask as a denial, so an ask passes through as it is
  (no headless fallback, unlike Gemini);
* `updatedInput` replaces the tool's input whole, so the full object is sent; it is honoured
  without a permissionDecision, which keeps Claude's own checks on the rewritten call;
* every other blocking event blocks with a top-level `{"decision": "block", "reason": …}`;
  `hookSpecificOutput` always carries `hookEventName` (the Claude event name);
* Stop/SubagentStop: a block makes Claude continue; with `stop_hook_active` it is already continuing
  because of a block, so a second one is shown, not enforced (it would loop);
* exit code 0 always: only exit 2 blocks, and any other code is a non-blocking error (an allow).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hookd.dialects.common import (
    block_output,
    carries_context,
    claude_shaped_event,
    dump_json,
    halt_output,
    hook_event_name,
    joined_contexts,
    load_payload,
    named_tool,
    note_unused_rewrites,
    plain,
    reply,
    rewritten_tool_input,
    with_message,
)
from hookd.dialects.spec import (
    REASON,
    AgentEvent,
    AgentSpec,
    HookEntry,
    InstallSpec,
    JSONObject,
    Option,
    SettingsCommand,
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

# Claude events with a canonical counterpart; every other well-formed name is Event.OTHER (observed).
CLAUDE_EVENTS: Mapping[str, Event] = {
    "PreToolUse": Event.BEFORE_TOOL,
    "PostToolUse": Event.AFTER_TOOL,
    "PostToolUseFailure": Event.AFTER_TOOL,
    "UserPromptSubmit": Event.BEFORE_AGENT,
    "Stop": Event.AFTER_AGENT,
    "SubagentStop": Event.AFTER_AGENT,
    "SessionStart": Event.SESSION_START,
    "SessionEnd": Event.SESSION_END,
    "PreCompact": Event.PRE_COMPRESS,
    "Notification": Event.NOTIFICATION,
    "ConfigChange": Event.OTHER,  # a settings file changed mid-session: a block keeps the change out
}
# The Claude event whose reply stands for a canonical event (fail_reply has only the canonical one).
PRIMARY_EVENT: Mapping[Event, str] = {
    Event.BEFORE_TOOL: "PreToolUse",
    Event.AFTER_TOOL: "PostToolUse",
    Event.BEFORE_AGENT: "UserPromptSubmit",
    Event.AFTER_AGENT: "Stop",
    Event.PRE_COMPRESS: "PreCompact",
}
# Where a fail-closed reply blocks (as in the shims): a block on Stop would loop, lifecycle events
# cannot block, and Claude has no model events.
FAIL_CLOSED_EVENTS = frozenset({Event.BEFORE_TOOL, Event.BEFORE_AGENT, Event.AFTER_TOOL})

_READ, _WRITE = "read", "write"
_REPLACE = ("old_string", "new_string")
TOOLS: Mapping[str, ToolSpec] = {
    "Bash": ToolSpec(ToolKind.SHELL),
    "PowerShell": ToolSpec(ToolKind.SHELL),
    "Read": ToolSpec(ToolKind.READ, (("file_path", _READ),)),
    "NotebookRead": ToolSpec(ToolKind.READ, (("notebook_path", _READ),)),
    "Glob": ToolSpec(ToolKind.READ, (("path", _READ), ("pattern", _READ)), {"pattern": "path"}),
    # Grep reads every file its `glob` filter reaches under `path` (ripgrep's --glob).
    "Grep": ToolSpec(ToolKind.READ, (("path", _READ), ("glob", _READ)), {"glob": "path"}, globs={"glob": "search"}),
    "LS": ToolSpec(ToolKind.READ, (("path", _READ),), lists=("path",)),
    "Write": ToolSpec(ToolKind.WRITE, (("file_path", _WRITE),), content="content"),
    "Edit": ToolSpec(ToolKind.EDIT, (("file_path", _WRITE),), replace=_REPLACE),
    "MultiEdit": ToolSpec(ToolKind.EDIT, (("file_path", _WRITE),)),
    "NotebookEdit": ToolSpec(ToolKind.EDIT, (("notebook_path", _WRITE),)),
    "WebFetch": ToolSpec(ToolKind.WEB),
    "WebSearch": ToolSpec(ToolKind.WEB),
}
TOOL_KINDS: Mapping[str, ToolKind] = {name: spec.kind for name, spec in TOOLS.items()}
_EVENT_NAME = re.compile(r"[A-Z][A-Za-z]{1,63}")
_BLOCKING = (Outcome.HALT, Outcome.DENY, Outcome.ASK)


def tool_kind(name: str) -> ToolKind:
    if name.startswith("mcp__"):
        return ToolKind.MCP
    return TOOL_KINDS.get(name, ToolKind.OTHER)


def canonical_event(name: str) -> Event:
    """The canonical event of a Claude event name; DialectError for a name Claude cannot send."""
    event = CLAUDE_EVENTS.get(name)
    if event is not None:
        return event
    if not _EVENT_NAME.fullmatch(name):
        raise DialectError(f"unknown Claude Code hook event {name!r}")
    return Event.OTHER


class ClaudeDialect:
    client = "claude"
    handles_headless_ask = True  # under -p Claude treats an ask as a denial

    def parse(self, request: HookRequest) -> NormalisedEvent:
        payload = load_payload(request.payload)
        name = hook_event_name(request, payload)
        event = canonical_event(name)
        return claude_shaped_event(
            request, payload, name, client="claude", event=event, tool=_tool_call(name, event, payload),
            session_env="CLAUDE_CODE_SESSION_ID", project_env="CLAUDE_PROJECT_DIR",
        )  # fmt: skip

    def render(self, event: NormalisedEvent, decision: Decision) -> Reply:
        return render_claude_shaped(event, decision)

    def fail_reply(self, event: Event, reason: str) -> Reply:
        if event not in FAIL_CLOSED_EVENTS:
            return Reply()
        return Reply(stdout=dump_json(fail_output(PRIMARY_EVENT[event], one_line(reason))))


def render_claude_shaped(event: NormalisedEvent, decision: Decision) -> Reply:
    """Claude Code's rendering, for every agent whose hook contract copies it (event names from
    `event.client_event`)."""
    notes: list[str] = []
    render = _CLIENT_RENDERERS.get(_name(event)) or _RENDERERS.get(event.event, _observed)
    output = render(event, decision, notes)
    if decision.contexts and not carries_context(output):
        notes.append(f"context not carried: {_name(event)} cannot add it to this reply")
    return reply(output, notes)


def fail_output(client_event: str, reason: str) -> dict[str, Any]:
    """The blocking reply of a Claude event (the shims print the same bytes when hookd is unreachable)."""
    if client_event == "PreToolUse":
        return _permission(client_event, "deny", reason)
    return {"decision": "block", "reason": reason}


def _tool_call(name: str, event: Event, payload: Mapping[str, JSON]) -> ToolCall | None:
    tool, args = payload.get("tool_name"), payload.get("tool_input")
    well_formed = isinstance(tool, str) and tool and isinstance(args, dict)
    if event not in (Event.BEFORE_TOOL, Event.AFTER_TOOL) and not well_formed:
        return None  # other events (PermissionRequest, ...) may name a tool: kept when well formed
    tool, args, mcp = named_tool(name, payload)
    spec = TOOLS.get(tool) or ToolSpec(tool_kind(tool))
    return ToolCall(name=tool, kind=spec.kind, input=args, mcp=mcp, spec=spec)


def _name(event: NormalisedEvent) -> str:
    return event.client_event or event.event.value


def _specific(event: NormalisedEvent, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": _name(event), **fields}}


def _permission(client_event: str, decision: str, reason: str, **fields: Any) -> dict[str, Any]:
    specific = {"hookEventName": client_event, "permissionDecision": decision, "permissionDecisionReason": reason}
    return {"hookSpecificOutput": {**specific, **fields}}


def _shown(decision: Decision, notes: list[str], event: NormalisedEvent) -> list[str]:
    """On events that cannot block, a halt/deny/ask is shown to the user instead."""
    if decision.outcome not in _BLOCKING:
        return []
    kind = decision.outcome.name.lower()
    notes.append(f"{kind} not enforceable on {_name(event)}: shown as a message")
    return [f"hookd ({kind}): {decision.reason}"]


def _pre_tool_use(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    name = _name(event)
    if decision.outcome is Outcome.HALT:
        # continue:false ends the session; the deny keeps the call itself from running first.
        out = {**halt_output(decision), **_permission(name, "deny", decision.explain("stopped by hookd policy"))}
        return with_message(out, decision)
    if decision.outcome is Outcome.DENY:
        return with_message(_permission(name, "deny", decision.explain("denied by hookd policy")), decision)
    note_unused_rewrites(_name(event), decision, notes, "tool_input")
    full = rewritten_tool_input(event, decision, notes)
    fields: dict[str, Any] = {}
    if full is not None:
        fields["updatedInput"] = full
    if decision.contexts:
        fields["additionalContext"] = joined_contexts(decision)
    if decision.outcome is Outcome.ASK:
        # With updatedInput, Claude shows the user the rewritten call: the one that would really run.
        return with_message(_permission(name, "ask", decision.reason, **fields), decision)
    if fields:
        return with_message(_specific(event, **fields), decision)
    return plain(decision)


def _blocking(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    """Halt, or deny and ask as a block (Claude asks on PreToolUse only)."""
    if decision.outcome is Outcome.HALT:
        return with_message(halt_output(decision), decision)
    if decision.outcome in (Outcome.DENY, Outcome.ASK):
        if decision.outcome is Outcome.ASK:
            notes.append(f"ask mapped to deny: {_name(event)} cannot ask the user")
        return with_message(block_output(decision), decision)
    return None


def _block_or_context(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    """PostToolUse(Failure) (a block puts the reason beside the result: the call ran) and UserPromptSubmit
    (a block erases the prompt)."""
    note_unused_rewrites(_name(event), decision, notes)
    blocked = _blocking(event, decision, notes)
    if blocked is not None:
        return blocked
    if decision.contexts:
        return with_message(_specific(event, additionalContext=joined_contexts(decision)), decision)
    return plain(decision)


def _stop(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    """Stop / SubagentStop: a block makes Claude go on, with the reason as its next instruction."""
    note_unused_rewrites(_name(event), decision, notes)
    if decision.outcome is Outcome.HALT:
        return with_message(halt_output(decision), decision)
    if decision.outcome is Outcome.DENY and event.payload.get("stop_hook_active") is True:
        notes.append(f"deny not enforced: stop_hook_active ({_name(event)} is already continuing)")
        return plain(decision, f"hookd (deny): {decision.reason}")
    if decision.outcome is Outcome.DENY:
        return with_message(block_output(decision), decision)
    if decision.outcome is Outcome.ASK:
        notes.append(f"ask not carried: {_name(event)} cannot ask; shown as a message")
        return plain(decision, f"hookd (ask): {decision.reason}")
    return plain(decision)


def _session_start(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    note_unused_rewrites(_name(event), decision, notes)
    extra = _shown(decision, notes, event)
    out = _specific(event, additionalContext=joined_contexts(decision)) if decision.contexts else {}
    return with_message(out, decision, *extra) or None


def _pre_compact(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    note_unused_rewrites(_name(event), decision, notes)
    return _blocking(event, decision, notes) or plain(decision)


def _observed(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    note_unused_rewrites(_name(event), decision, notes)
    return plain(decision, *_shown(decision, notes, event))


Renderer = Callable[[NormalisedEvent, Decision, list[str]], "dict[str, Any] | None"]
_RENDERERS: Mapping[Event, Renderer] = {
    Event.BEFORE_TOOL: _pre_tool_use,
    Event.AFTER_TOOL: _block_or_context,
    Event.BEFORE_AGENT: _block_or_context,
    Event.AFTER_AGENT: _stop,
    Event.SESSION_START: _session_start,
    Event.PRE_COMPRESS: _pre_compact,
}


# Events without a canonical counterpart that can still block: ConfigChange keeps a settings change out
# (except a managed one, policy_settings, which Claude applies whatever the hook says).
_CLIENT_RENDERERS: Mapping[str, Renderer] = {"ConfigChange": _pre_compact}


def _settings_path(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> Path:
    if scope == "user":  # Claude Code keeps its user files in $CLAUDE_CONFIG_DIR when that is set
        config_dir = env.get("CLAUDE_CONFIG_DIR")
        return Path(config_dir) / "settings.json" if config_dir else home / ".claude" / "settings.json"
    if scope == "local":
        return project_dir / ".claude" / "settings.local.json"
    if scope == "managed":  # enterprise policy: above every other scope, not overridable by the user
        return system_path(env, "/etc/claude-code/managed-settings.json")
    return project_dir / ".claude" / "settings.json"


def _entry(entry: HookEntry) -> JSONObject:
    """Exec form (`command` + `args`, no shell) or an http hook; `onFailure: "block"` where hookd fails closed
    (Claude otherwise lets a hook that crashed, timed out or was unreachable through)."""
    hook: JSONObject
    if entry.http is not None:
        hook = {"type": "http", "name": entry.name, **entry.http}
    else:
        hook = {"type": "command", "name": entry.name, "command": entry.command, "args": list(entry.args)}
    hook["timeout"] = entry.seconds
    if entry.block_on_failure:
        hook["onFailure"] = "block"
    return {"hooks": [hook]}


def _bypass(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> tuple[Path, ...]:
    """Plugins register hooks of their own; managed-settings.d drops in beside the managed file."""
    settings = _settings_path(scope, home, project_dir, env)
    if scope == "managed":
        return (settings.with_name("managed-settings.d"),)
    return (settings.parent / "plugins",) if scope == "user" else ()


# The events hookd registers: those with a canonical counterpart (docs/claude.md).
_INSTALLED = (
    "SessionStart", "SessionEnd", "UserPromptSubmit", "Stop", "SubagentStop", "PreToolUse", "PostToolUse",
    "PostToolUseFailure", "PreCompact", "Notification", "ConfigChange",
)  # fmt: skip


def _agent_event(name: str) -> AgentEvent:
    event = CLAUDE_EVENTS[name]
    closed = event in FAIL_CLOSED_EVENTS
    output = fail_output(name, REASON) if closed else None
    return AgentEvent(name, event, output, fail_closed=closed, vetoes_settings=name == "ConfigChange")


SPEC = AgentSpec(
    name="claude",
    title="Claude Code",
    dialect=ClaudeDialect(),
    events=tuple(_agent_event(name) for name in _INSTALLED),
    tools=TOOLS,
    install=InstallSpec(
        scopes=("user", "project", "local", "managed"),
        settings_path=_settings_path,
        entry=_entry,
        exec_form=True,
        timeout_unit_ms=1000,
        transports=("command", "http"),
        http_command_only=frozenset({"SessionStart", "Setup"}),
        managed_only_key="allowManagedHooksOnly",
        hooks_off=(Switch("", "disableAllHooks", True),),
        # an http hook refused lets a call through; the answers to the project `.mcp.json` trust prompt start
        # that file's servers, commands Claude runs itself outside its hooks, with no prompt
        # (https://code.claude.com/docs/en/settings: enableAllProjectMcpServers, enabledMcpjsonServers)
        # A plugin brings hooks, MCP servers and commands of its own, installed from the marketplace that names
        # it: `extraKnownMarketplaces` adds a source (a repository, a URL) and `enabledPlugins` turns one on for
        # every later session (https://code.claude.com/docs/en/settings#plugin-settings).
        guarded_keys=(
            "allowedHttpHookUrls",
            "httpHookAllowedEnvVars",
            "enableAllProjectMcpServers",
            "enabledMcpjsonServers",
            "enabledPlugins",
            "extraKnownMarketplaces",
        ),
        bypass=_bypass,
        location_env=("CLAUDE_CONFIG_DIR",),
        # 2.1.332 (the binary's option table and env checks): --bare sets CLAUDE_CODE_SIMPLE ("skip hooks"),
        # --safe-mode CLAUDE_CODE_SAFE_MODE (no hooks); --settings <file-or-json> adds a settings source over
        # the files; --setting-sources drops scopes. Each proven in tests/e2e/test_switches.py, which also
        # proves CLAUDE_CODE_PERSONAL_HOOKS_OFF is none (it only words a notice).
        hooks_off_env=("CLAUDE_CODE_SIMPLE", "CLAUDE_CODE_SAFE_MODE"),
        unguarded_options=(
            Option(("--bare",)),
            Option(("--safe-mode",)),
            Option(("--settings",), "settings"),
            Option(("--setting-sources",), "scopes"),
        ),
        home_env=("CLAUDE_CODE_MANAGED_SETTINGS_PATH",),
        # `claude plugin install|enable NAME@MARKETPLACE` writes ~/.claude/plugins and enabledPlugins: the plugin's
        # hooks run beside hookd's (https://docs.claude.com/en/docs/claude-code/plugins-reference, blind-tamper-17)
        settings_commands=tuple(SettingsCommand(("plugin", verb), "install") for verb in ("install", "enable")),
    ),
    env=("CLAUDE_PROJECT_DIR", "CLAUDE_CODE_SESSION_ID"),
    project_dir_env="CLAUDE_PROJECT_DIR",
    process_names=("claude",),
    packages=("@anthropic-ai/claude-code",),
    # `claude install [target]`: stable, latest or a version (claude-wrapper's InstallCommand, docs.rs)
    version_commands=("install",),
    headless_flags=("-p", "--print"),
    subagents=SubAgents(guarded="tests/e2e/test_claude_code.py (sub-agents), 2.1.332"),
)
