"""GitHub Copilot CLI (1.0.102): parse its hook events onto the canonical ones, render a Decision as
Copilot honours it. No I/O. docs/copilot.md has the per-event table; the facts a renderer must respect:

* **the case of the event name picks the dialect**: a camelCase event (`preToolUse`, what hookd
  installs) gets a camelCase payload (`toolName`, `toolArgs`, no event name) and honours only the flat
  answer (`permissionDecision`, `permissionDecisionReason`, `modifiedArgs`, `additionalContext`); a
  Claude-shaped answer there is silently ignored. A PascalCase event (`PreToolUse`) gets Claude's
  snake_case payload with capitalised tool names and honours Claude's nested `hookSpecificOutput`.
  Both are parsed; each is answered in its own shape;
* an allow is nothing on stdout (Copilot's own permission checks stay); a rewrite is the whole new
  argument object (`modifiedArgs`, which replaces, never merges);
* `ask` prompts in an interactive session and is a denial under `-p`, so it passes through;
* permissionRequest (the same call again, before Copilot's own approval, even under --yolo) denies with
  `{"behavior": "deny", "message": …}`; hookd never answers `allow` there (an approval on the user's behalf);
* agentStop / subagentStop block with `{"decision": "block", "reason": …}` (the reason becomes the next
  prompt); userPromptSubmitted, sessionStart/End, errorOccurred and preCompact ignore every output, so a
  verdict there is recorded, not enforced;
* Copilot denies on a hook that exits non-zero but **allows on a timeout** and on unparseable output:
  the shim answers before the hook timeout with valid JSON.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hookd.dialects.common import (
    block_output,
    caller_facts,
    dump_json,
    joined_contexts,
    load_payload,
    note_unused_rewrites,
    reply,
    rewritten_tool_input,
    string_field,
)
from hookd.dialects.spec import (
    REASON,
    REFUSE,
    AgentEvent,
    AgentSpec,
    HookEntry,
    InstallSpec,
    JSONObject,
    Option,
    SettingsCommand,
    SubAgents,
    Switch,
    Trust,
    TrustChange,
    system_path,
)
from hookd.errors import DialectError, SettingsError, one_line
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
from hookd.wire import MAX_PAYLOAD_DEPTH, jsonstrict

# camelCase events (hookd installs these) and the PascalCase ones Copilot accepts for Claude's files.
COPILOT_EVENTS: Mapping[str, Event] = {
    "sessionStart": Event.SESSION_START,
    "sessionEnd": Event.SESSION_END,
    "userPromptSubmitted": Event.BEFORE_AGENT,
    "preToolUse": Event.BEFORE_TOOL,
    "postToolUse": Event.AFTER_TOOL,
    "postToolUseFailure": Event.AFTER_TOOL,
    "agentStop": Event.AFTER_AGENT,
    "subagentStop": Event.AFTER_AGENT,
    "preCompact": Event.PRE_COMPRESS,
    "notification": Event.NOTIFICATION,
    "subagentStart": Event.OTHER,
    "errorOccurred": Event.OTHER,
    "permissionRequest": Event.BEFORE_TOOL,  # the same call, asked again before Copilot's own approval
    "preMcpToolCall": Event.OTHER,
    "SessionStart": Event.SESSION_START,
    "SessionEnd": Event.SESSION_END,
    "UserPromptSubmit": Event.BEFORE_AGENT,
    "PreToolUse": Event.BEFORE_TOOL,
    "PostToolUse": Event.AFTER_TOOL,
    "PostToolUseFailure": Event.AFTER_TOOL,
    "Stop": Event.AFTER_AGENT,
    "SubagentStop": Event.AFTER_AGENT,
    "PreCompact": Event.PRE_COMPRESS,
    "Notification": Event.NOTIFICATION,
}
_READ, _WRITE = "read", "write"
_SEARCH = ToolSpec(ToolKind.READ, (("path", _READ), ("glob", _READ)), {"glob": "path"}, globs={"glob": "search"})
# rg (offered to GPT models) takes `paths`, one directory or a list, each searched with the `glob` filter.
_RG = ToolSpec(
    ToolKind.READ,
    (("paths", _READ), ("path", _READ), ("glob", _READ)),
    {"glob": "paths"},
    globs={"glob": "search"},
)
TOOLS: Mapping[str, ToolSpec] = {
    "bash": ToolSpec(ToolKind.SHELL),
    "powershell": ToolSpec(ToolKind.SHELL),
    "Bash": ToolSpec(ToolKind.SHELL),
    "view": ToolSpec(ToolKind.READ, (("path", _READ),)),
    "glob": ToolSpec(ToolKind.READ, (("path", _READ), ("pattern", _READ)), {"pattern": "path"}),
    # grep and rg read every file their `glob` filter (ripgrep's --glob) reaches under `path`.
    "grep": _SEARCH,
    "rg": _RG,
    # create's `file_text`, edit's `old_str`/`new_str` (str_replace_editor's parameters, whose commands these
    # tools are: https://github.com/raymondclowe/github-copilot-agent-prompts-tools/blob/main/Functions.md)
    "create": ToolSpec(ToolKind.WRITE, (("path", _WRITE),), content="file_text"),
    "edit": ToolSpec(ToolKind.EDIT, (("path", _WRITE),), replace=("old_str", "new_str")),
    "str_replace_editor": ToolSpec(ToolKind.EDIT, (("path", _WRITE),)),  # view, create, str_replace, insert
    # GPT models' freeform patch tool: the patch text in Codex's format, sent as the bare toolArgs string (read
    # as `input`, see _string_args), or under whichever of these arguments carries it.
    "apply_patch": ToolSpec(ToolKind.EDIT, patches=("input", "patch", "command")),
    "web_fetch": ToolSpec(ToolKind.WEB),
}
_FOLDED: Mapping[str, ToolSpec] = {name.lower(): spec for name, spec in TOOLS.items() if name == name.lower()}
_TOOL_EVENTS = frozenset({"preToolUse", "postToolUse", "postToolUseFailure", "permissionRequest"})
_STOP_EVENTS = frozenset({"agentStop", "subagentStop", "Stop", "SubagentStop"})
_BLOCKING = (Outcome.HALT, Outcome.DENY, Outcome.ASK)


def is_pascal(name: str) -> bool:
    return name[:1].isupper()


class CopilotDialect:
    client = "copilot"
    handles_headless_ask = True  # under -p Copilot treats an ask as a denial

    def parse(self, request: HookRequest) -> NormalisedEvent:
        name = request.event
        event = COPILOT_EVENTS.get(name)
        if event is None:
            raise DialectError(f"unknown Copilot CLI hook event {name!r}")
        payload = load_payload(request.payload)
        named = payload.get("hook_event_name") or payload.get("hookName")
        if named is not None and named != name:
            raise DialectError(f"payload says its event is {named!r} but the hook was registered for {name}")
        pascal = is_pascal(name)
        cwd = string_field(payload, "cwd") or request.cwd
        session = string_field(payload, "session_id" if pascal else "sessionId")
        return NormalisedEvent(
            client="copilot",
            event=event,
            payload=payload,
            tool=_tool_call(name, payload),
            session_id=session,
            cwd=cwd,
            project_dir=request.env.get("COPILOT_PROJECT_DIR") or cwd,
            caller=request.caller,
            env=request.env,
            facts=caller_facts(request),
            client_event=name,
        )

    def render(self, event: NormalisedEvent, decision: Decision) -> Reply:
        notes: list[str] = []
        name = event.client_event or "preToolUse"
        if name == "permissionRequest":
            output = _permission_request(event, decision, notes)
        elif event.event is Event.BEFORE_TOOL:
            output = (_pre_tool_use_nested if is_pascal(name) else _pre_tool_use)(event, decision, notes)
        elif name in _STOP_EVENTS:
            output = _stop(event, decision, notes)
        else:
            output = _observed(event, decision, notes)
        if decision.messages:
            notes.append("message not shown: Copilot CLI has no message field in a hook answer")
        return reply(output, notes)

    def fail_reply(self, event: Event, reason: str) -> Reply:
        if event is not Event.BEFORE_TOOL:
            return Reply()
        return Reply(stdout=dump_json(fail_output("preToolUse", one_line(reason))))


def fail_output(name: str, reason: str) -> dict[str, Any]:
    """The deny of a pre-tool event in the shape its name's case selects (the shims print the same)."""
    if name == "permissionRequest":
        return {"behavior": "deny", "message": reason}
    if is_pascal(name):
        return {
            "hookSpecificOutput": {
                "hookEventName": name,
                "permissionDecision": "deny",
                "permissionDecisionReason": reason,
            }
        }
    return {"permissionDecision": "deny", "permissionDecisionReason": reason}


def _tool_call(name: str, payload: Mapping[str, JSON]) -> ToolCall | None:
    if is_pascal(name):
        if name not in ("PreToolUse", "PostToolUse", "PostToolUseFailure"):
            return None
        tool, args = payload.get("tool_name"), payload.get("tool_input")
    else:
        if name not in _TOOL_EVENTS:
            return None
        tool = payload.get("toolName")
        args = payload.get("toolArgs", payload.get("toolInput"))
        if isinstance(args, str):  # the docs show toolArgs as a JSON string; 1.0.102 sends an object
            args = _string_args(args)
            if jsonstrict.deeper_than(args, MAX_PAYLOAD_DEPTH):
                raise DialectError(f"{name} payload: toolArgs nests more than {MAX_PAYLOAD_DEPTH} levels deep")
    if not isinstance(tool, str) or not tool:
        raise DialectError(f"{name} payload has no tool name")
    if not isinstance(args, dict):
        raise DialectError(f"{name} payload: the tool arguments must be a JSON object")
    # PascalCase events name the tools capitalised (`Bash`, and so `View`, `Create`, `Edit`): the same tools
    spec = TOOLS.get(tool) or _FOLDED.get(tool.lower()) or ToolSpec(ToolKind.OTHER)
    return ToolCall(name=tool, kind=spec.kind, input=args, spec=spec)


def _string_args(text: str) -> JSON:
    """toolArgs given as a string: JSON, or the raw input of a freeform tool (1.0.102 sends apply_patch's patch
    as the bare string), which its ToolSpec reads as `input`."""
    try:
        return jsonstrict.loads(text)
    except ValueError:
        return {"input": text}


def _pre_tool_use(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    """The flat answer of the camelCase preToolUse."""
    out: dict[str, Any] = {}
    if decision.contexts:
        out["additionalContext"] = joined_contexts(decision)
    if decision.outcome is Outcome.HALT:
        notes.append("halt mapped to deny: Copilot CLI cannot end the session from preToolUse")
        return {"permissionDecision": "deny", "permissionDecisionReason": decision.explain("stopped by hookd"), **out}
    if decision.outcome is Outcome.DENY:
        return {"permissionDecision": "deny", "permissionDecisionReason": decision.explain("denied by hookd"), **out}
    note_unused_rewrites(event.client_event, decision, notes, "tool_input")
    full = rewritten_tool_input(event, decision, notes)
    if full is not None:
        out["modifiedArgs"] = full
    if decision.outcome is Outcome.ASK:
        return {"permissionDecision": "ask", "permissionDecisionReason": decision.reason, **out}
    return out or None


def _pre_tool_use_nested(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    """The Claude-shaped answer of the PascalCase PreToolUse."""
    fields: dict[str, Any] = {"hookEventName": event.client_event}
    if decision.contexts:
        fields["additionalContext"] = joined_contexts(decision)
    if decision.outcome in (Outcome.HALT, Outcome.DENY):
        if decision.outcome is Outcome.HALT:
            notes.append("halt mapped to deny: Copilot CLI cannot end the session from PreToolUse")
        reason = decision.explain("denied by hookd")
        return {"hookSpecificOutput": {**fields, "permissionDecision": "deny", "permissionDecisionReason": reason}}
    note_unused_rewrites(event.client_event, decision, notes, "tool_input")
    full = rewritten_tool_input(event, decision, notes)
    if decision.outcome is Outcome.ASK:
        fields.update(permissionDecision="ask", permissionDecisionReason=decision.reason)
    elif full is not None:
        fields["permissionDecision"] = "allow"  # Copilot applies updatedInput only with an allow
    if full is not None:
        fields["updatedInput"] = full
    return {"hookSpecificOutput": fields} if len(fields) > 1 else None


def _permission_request(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    """permissionRequest runs before Copilot's own approval (even with --yolo): a deny there is
    `{"behavior": "deny", "message"}` (a halt also interrupts the agent). hookd never answers `allow` (that
    would approve the call on the user's behalf): an allow, an ask (Copilot's own approval is the ask) and a
    rewrite (preToolUse carries it) print nothing."""
    if decision.contexts:
        notes.append("context not carried: permissionRequest cannot add it")
    if decision.outcome in (Outcome.DENY, Outcome.HALT):
        out: dict[str, Any] = {"behavior": "deny", "message": decision.explain("denied by hookd policy")}
        if decision.outcome is Outcome.HALT:
            out["interrupt"] = True
        return out
    note_unused_rewrites(event.client_event, decision, notes)
    if decision.outcome is Outcome.ASK:
        notes.append("ask left to Copilot: its own approval follows permissionRequest")
    return None


def _stop(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    note_unused_rewrites(event.client_event, decision, notes)
    if decision.outcome is Outcome.DENY and event.payload.get("stop_hook_active") is True:
        notes.append(f"deny not enforced: stop_hook_active ({event.client_event} is already continuing)")
        return None
    if decision.outcome in (Outcome.DENY, Outcome.HALT):
        if decision.outcome is Outcome.HALT:
            notes.append(f"halt mapped to block: {event.client_event} cannot end the session")
        return block_output(decision)
    if decision.outcome is Outcome.ASK:
        notes.append(f"ask not carried: {event.client_event} cannot ask")
    return None


def _observed(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    note_unused_rewrites(event.client_event, decision, notes)
    if decision.outcome in _BLOCKING:
        kind = decision.outcome.name.lower()
        notes.append(f"{kind} not enforceable on {event.client_event}: Copilot CLI ignores its output")
    if decision.contexts and event.client_event in ("postToolUseFailure", "subagentStart", "notification"):
        return {"additionalContext": joined_contexts(decision)}
    return None


def _copilot_home(home: Path, env: Mapping[str, str]) -> Path:
    return Path(env.get("COPILOT_HOME") or home / ".copilot")


def _settings_path(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> Path:
    if scope == "user":  # hooks files in $COPILOT_HOME/hooks (default ~/.copilot/hooks): hookd's own file
        return _copilot_home(home, env) / "hooks" / "hookd.json"
    if scope == "managed":  # enterprise hooks: every policy.d/*.json, run under allowManagedHooksOnly too
        return system_path(env, "/etc/github-copilot/policy.d/hookd.json")
    return project_dir / ".github" / "hooks" / "hookd.json"


def _trust_path(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> Path | None:
    """A repository's hooks load only in a trusted folder: `trustedFolders` of $COPILOT_HOME/config.json."""
    return _copilot_home(home, env) / "config.json" if scope == "project" else None


def _entry(entry: HookEntry) -> JSONObject:
    """A flat handler list per event, in hookd's own file."""
    return {"type": "command", "bash": entry.command, "timeoutSec": entry.seconds}


def _unique_keys(pairs: list[tuple[str, Any]]) -> JSONObject:
    out: JSONObject = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _config(config: Path, text: str) -> tuple[str, JSONObject]:
    """Copilot's config.json: the `//` comment header Copilot writes itself, and the JSON object after it."""
    lines = text.splitlines(keepends=True)
    cut = next((i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("//")), len(lines))
    header, body = "".join(lines[:cut]), "".join(lines[cut:])
    try:
        doc = json.loads(body, object_pairs_hook=_unique_keys) if body.strip() else {}
    except (ValueError, RecursionError) as exc:
        raise SettingsError(f"{config}: not a JSON object with a // comment header; {REFUSE}") from exc
    if not isinstance(doc, dict):
        raise SettingsError(f"{config}: not a JSON object with a // comment header; {REFUSE}")
    return header, doc


def _folders(config: Path, doc: JSONObject) -> list[str]:
    folders = doc.get("trustedFolders", [])
    if not isinstance(folders, list) or not all(isinstance(f, str) for f in folders):
        raise SettingsError(f'{config}: "trustedFolders" is not a list of folders; {REFUSE}')
    return folders


def _trust_update(config: Path, text: str, change: TrustChange) -> str:
    """The project in `trustedFolders` (a repository's hooks load only in a trusted folder). Uninstall leaves
    it: the user may have trusted the folder for more than hookd."""
    header, doc = _config(config, text)
    folders = _folders(config, doc)
    if change.project_dir is None or change.doc is None or str(change.project_dir) in folders:
        return text
    doc["trustedFolders"] = [*folders, str(change.project_dir)]
    return header + json.dumps(doc, indent=2) + "\n"


def _trust_missing(config: Path, text: str, change: TrustChange) -> str:
    if change.project_dir is None:
        return ""
    try:
        folders = _folders(config, _config(config, text)[1])
    except SettingsError as exc:
        return str(exc)
    project = change.project_dir
    if any(project == Path(f) or Path(f) in project.parents for f in folders):
        return ""
    return f"{config} does not list {project} in trustedFolders: Copilot CLI loads none of its repository hooks"


def _bypass(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> tuple[Path, ...]:
    """Copilot loads every *.json of a hooks directory, and plugins' hooks: the directories, not only hookd's
    file; managed-settings.json (allowManagedHooksOnly) beside the managed policy directory."""
    settings = _settings_path(scope, home, project_dir, env)
    if scope == "user":
        return (settings.parent, _copilot_home(home, env) / "plugins")
    return (settings.parent,)


_INSTALLED = (
    "sessionStart", "sessionEnd", "userPromptSubmitted", "preToolUse", "permissionRequest", "postToolUse", "agentStop",
)  # fmt: skip


def _agent_event(name: str) -> AgentEvent:
    pre = COPILOT_EVENTS[name] is Event.BEFORE_TOOL
    return AgentEvent(name, COPILOT_EVENTS[name], fail_output(name, REASON) if pre else None, pre, name in _INSTALLED)


SPEC = AgentSpec(
    name="copilot",
    title="Copilot CLI",
    dialect=CopilotDialect(),
    events=tuple(_agent_event(name) for name in COPILOT_EVENTS),
    tools=TOOLS,
    install=InstallSpec(
        scopes=("user", "project", "managed"),
        settings_path=_settings_path,
        entry=_entry,
        own_file={"version": 1},
        timeout_unit_ms=1000,
        managed_only_key="allowManagedHooksOnly",  # in managed-settings.json, whose schema has no hooks key
        managed_only_file="../managed-settings.json",
        # the folders as the CLI's bundle names them, and as GitHub's docs do (configure-copilot-cli: "Edit the
        # contents of the trusted_folders array"): a folder added under either spelling is trust given
        trust=Trust(_trust_path, _trust_update, _trust_missing, keys=("trustedFolders", "trusted_folders")),
        # $COPILOT_HOME/settings.json: every hook off, or hookd's one by one (disabledHooks)
        hooks_off=(Switch("../settings.json", "disableAllHooks", True),),
        switch_keys=("disabledHooks",),
        bypass=_bypass,
        location_env=("COPILOT_HOME",),
        # `--config-dir DIR`: the deprecated option of COPILOT_HOME's meaning (1.0.102 warns "Use the
        # COPILOT_HOME environment variable instead" and reads DIR): proven in tests/e2e/test_switches.py
        unguarded_options=(Option(("--config-dir",)),),
        # `copilot plugin install SOURCE` puts a plugin, hooks and all, among Copilot's plugins (blind-tamper-17)
        settings_commands=(SettingsCommand(("plugin", "install"), "install"),),
    ),
    env=("COPILOT_PROJECT_DIR",),
    project_dir_env="COPILOT_PROJECT_DIR",
    process_names=("copilot",),
    packages=("@github/copilot",),
    headless_flags=("-p", "--prompt"),
    subagents=SubAgents(guarded="tests/e2e/test_subagents.py [copilot], 1.0.102"),
)
