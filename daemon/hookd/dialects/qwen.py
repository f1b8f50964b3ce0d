"""Qwen Code (0.24.4): parse its hook events onto the canonical ones, render a Decision as Qwen honours
it. No I/O. Qwen copies Claude Code's hook contract (event names, payload, `hookSpecificOutput`), so
rendering is Claude's (hookd.dialects.claude.render_claude_shaped) except on PreToolUse, where Qwen
differs (docs/qwen.md has the table):

* **no rewrite on PreToolUse**: `updatedInput` is ignored and the original call runs. A rewrite is
  therefore rendered as a deny whose reason says what hookd would have run (never dropped: the original
  call is what the policy wanted changed);
* `additionalContext` on PreToolUse is dropped by Qwen: recorded as not carried;
* `ask` is a confirmation dialog in an interactive session and a denial headless, so it passes through;
* Qwen fails open on everything but an explicit deny, and a **later hook's nested allow overrides an
  earlier deny** (hooks run project → user → system → extensions): install at the system scope so that
  hookd answers last.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from hookd.dialects.claude import ClaudeDialect, fail_output, render_claude_shaped
from hookd.dialects.common import (
    claude_shaped_event,
    hook_event_name,
    load_payload,
    named_tool,
    rewritten_tool_input,
)
from hookd.dialects.spec import (
    MCP_AND_EXTENSION_COMMANDS,
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
from hookd.errors import DialectError
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

_OBSERVED_ONLY = (
    "PostToolBatch", "UserPromptExpansion", "MessageDisplay", "SubagentStart", "PostCompact", "SessionDelete",
    "PermissionRequest", "PermissionDenied", "StopFailure", "TodoCreated", "TodoCompleted", "InstructionsLoaded",
)  # fmt: skip
QWEN_EVENTS: Mapping[str, Event] = {
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
    **dict.fromkeys(_OBSERVED_ONLY, Event.OTHER),
}
_READ, _WRITE = "read", "write"
# Qwen's hook payload carries the canonical tool names (its aliases Bash, Write, … are matcher-only).
_REPLACE = ("old_string", "new_string")
TOOLS: Mapping[str, ToolSpec] = {
    "run_shell_command": ToolSpec(ToolKind.SHELL, cwd_args=("directory",)),
    "read_file": ToolSpec(ToolKind.READ, (("absolute_path", _READ), ("file_path", _READ))),
    # `include` adds globs to `paths` (both read, as Gemini's release it was forked from took them).
    "read_many_files": ToolSpec(
        ToolKind.READ, (("paths", _READ), ("include", _READ)), globs={"paths": "path", "include": "path"}
    ),
    "list_directory": ToolSpec(ToolKind.READ, (("path", _READ),), lists=("path",)),
    "glob": ToolSpec(ToolKind.READ, (("path", _READ), ("pattern", _READ)), {"pattern": "path"}),
    # grep_search reads every file its `glob` filter (rg --glob) reaches under `path`.
    "grep_search": ToolSpec(
        ToolKind.READ, (("path", _READ), ("glob", _READ)), {"glob": "path"}, globs={"glob": "search"}
    ),
    "write_file": ToolSpec(ToolKind.WRITE, (("file_path", _WRITE),), content="content"),
    "edit": ToolSpec(ToolKind.EDIT, (("file_path", _WRITE),), replace=_REPLACE),
    "notebook_edit": ToolSpec(ToolKind.EDIT, (("notebook_path", _WRITE),)),
    "web_fetch": ToolSpec(ToolKind.WEB),
    "web_search": ToolSpec(ToolKind.WEB),
}
_TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"})


class QwenDialect:
    client = "qwen"
    handles_headless_ask = True  # headless Qwen denies an ask; interactive Qwen asks

    def parse(self, request: HookRequest) -> NormalisedEvent:
        payload = load_payload(request.payload)
        name = hook_event_name(request, payload)
        if name not in QWEN_EVENTS:
            raise DialectError(f"unknown Qwen Code hook event {name!r}")
        return claude_shaped_event(
            request, payload, name, client="qwen", event=QWEN_EVENTS[name], tool=_tool_call(name, payload),
            session_env="QWEN_CODE_SESSION_ID", project_env="QWEN_PROJECT_DIR",
        )  # fmt: skip

    def render(self, event: NormalisedEvent, decision: Decision) -> Reply:
        notes: list[str] = []
        if event.event is Event.BEFORE_TOOL:
            decision = _pre_tool_use(event, decision, notes)
        reply = render_claude_shaped(event, decision)
        return replace(reply, notes=(*notes, *reply.notes))

    def fail_reply(self, event: Event, reason: str) -> Reply:
        return ClaudeDialect().fail_reply(event, reason)  # the same events, the same bytes


def _pre_tool_use(event: NormalisedEvent, decision: Decision, notes: list[str]) -> Decision:
    """What Qwen can carry on PreToolUse: a rewrite becomes a deny, context is not sent."""
    if decision.contexts:
        notes.append("context not carried: Qwen Code drops additionalContext on PreToolUse")
        decision = replace(decision, contexts=())
    if decision.outcome in (Outcome.DENY, Outcome.HALT):
        return decision
    full = rewritten_tool_input(event, decision, [])
    rest = {k: v for k, v in decision.rewrite.items() if k != "tool_input"}
    if full is None:
        return replace(decision, rewrite=rest)
    notes.append("rewrite mapped to deny: Qwen Code cannot rewrite a call on PreToolUse")
    command = full.get("command")
    wanted = f"; hookd would run instead: {command}" if isinstance(command, str) else ""
    reason = f"{decision.explain('hookd policy rewrites this call')}{wanted}"
    return replace(decision, outcome=Outcome.DENY, reasons=(reason,), rewrite=rest, decision_id="")


def _tool_call(name: str, payload: Mapping[str, JSON]) -> ToolCall | None:
    if name not in _TOOL_EVENTS:
        return None
    tool, args, mcp = named_tool(name, payload)
    spec = TOOLS.get(tool) or ToolSpec(ToolKind.MCP if mcp else ToolKind.OTHER)
    return ToolCall(name=tool, kind=spec.kind, input=args, mcp=mcp, spec=spec)


def _settings_path(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> Path:
    if scope == "user":
        return Path(env.get("QWEN_HOME") or home / ".qwen") / "settings.json"
    if scope in ("system", "managed"):  # runs after project and user hooks: hookd decides last (see the docstring)
        return Path(env.get("QWEN_CODE_SYSTEM_SETTINGS_PATH") or system_path(env, "/etc/qwen-code/settings.json"))
    return project_dir / ".qwen" / "settings.json"


def _entry(entry: HookEntry) -> JSONObject:
    hook = {"type": "command", "name": entry.name, "command": entry.command, "timeout": entry.seconds,
            "description": entry.description}  # fmt: skip
    return {"hooks": [hook]}


def _bypass(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> tuple[Path, ...]:
    """Extensions' hooks run after every scope's (even system's) and can override hookd's answer; the
    system defaults file sits beside the system settings; trustedFolders.json decides whether a project's
    settings load at all."""
    settings = _settings_path(scope, home, project_dir, env)
    if scope in ("system", "managed"):
        return (Path(env.get("QWEN_CODE_SYSTEM_DEFAULTS_PATH") or settings.with_name("system-defaults.json")),)
    if scope == "user":
        return (settings.parent / "extensions", settings.parent / "trustedFolders.json")
    return (settings.parent / "extensions",)


_INSTALLED = ("SessionStart", "SessionEnd", "UserPromptSubmit", "Stop", "PreToolUse", "PostToolUse")
_CLOSED = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit")


def _agent_event(name: str) -> AgentEvent:
    closed = name in _CLOSED
    output = fail_output(name, REASON) if closed else None
    # a headless run shows nothing of a blocked prompt, not even the reason (measured, 0.24.4)
    return AgentEvent(name, QWEN_EVENTS[name], output, closed, name in _INSTALLED, tell_user=name == "UserPromptSubmit")


SPEC = AgentSpec(
    name="qwen",
    title="Qwen Code",
    dialect=QwenDialect(),
    events=tuple(_agent_event(name) for name in QWEN_EVENTS),
    tools=TOOLS,
    install=InstallSpec(
        scopes=("user", "project", "system", "managed"),
        settings_path=_settings_path,
        entry=_entry,
        timeout_unit_ms=1000,
        hooks_off=(Switch("", "disableAllHooks", True),),
        bypass=_bypass,
        extension_manifest="qwen-extension.json",
        location_env=("QWEN_HOME", "QWEN_CODE_SYSTEM_SETTINGS_PATH", "QWEN_CODE_SYSTEM_DEFAULTS_PATH"),
        # 0.24.4's bundle reads QWEN_CODE_TRUSTED_FOLDERS_PATH for its trustedFolders.json (Gemini CLI's namesake):
        # a trust file of the line's making lets an untrusted project's own settings load
        home_env=("QWEN_CODE_TRUSTED_FOLDERS_PATH",),
        # 0.24.4 (`qwen --help` and the docs it ships): `--safe-mode` (QWEN_CODE_SAFE_MODE) and `--bare`
        # (QWEN_CODE_SIMPLE) turn off all hooks.
        hooks_off_env=("QWEN_CODE_SAFE_MODE", "QWEN_CODE_SIMPLE"),
        unguarded_options=(Option(("--safe-mode",)), Option(("--bare",))),
        run_order=("project", "user", "system"),  # a later hook's nested allow overrides hookd's deny
        # `qwen mcp add [--scope user] NAME CMD` adds a stdio server Qwen starts outside its hooks, as Gemini CLI's
        # (https://qwenlm.github.io/qwen-code-docs/1.x/en/users/mcp/; a URL or `--transport http` is remote)
        settings_commands=MCP_AND_EXTENSION_COMMANDS,
    ),
    env=("QWEN_PROJECT_DIR", "QWEN_CODE_SESSION_ID"),
    project_dir_env="QWEN_PROJECT_DIR",
    process_names=("qwen", "cli.js"),
    packages=("@qwen-code/qwen-code",),
    headless_flags=("-p", "--prompt"),
    interactive_flags=("-i", "--prompt-interactive"),
    subagents=SubAgents(guarded="tests/e2e/test_subagents.py [qwen], 0.24.4"),
)
