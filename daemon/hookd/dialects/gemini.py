"""Gemini CLI: parse its 11 hook events, render a Decision as the one JSON object it honours. No I/O.

The contract is Gemini CLI's hook contract as read from its source (section numbers below); docs/gemini.md
is the per-event rendering table. Facts a renderer must respect:

* exactly one JSON object on stdout, exit code 0, nothing on stderr; the object is pure ASCII (every
  non-ASCII character `\\u`-escaped) because Gemini decodes each stdout chunk separately and would
  garble a multi-byte character split across two chunks (§3.7), and it never holds NaN/Infinity,
  which JSON.parse rejects (the whole text would become a plain-text allow, §2.1);
* `tool_input` replaces the arguments whole, so the full object is sent (§2.3, §9.6);
  `llm_request.config` overwrites all four generation values, so the full config is sent (§9.17);
* `ask` works on BeforeTool only (§6); any output on BeforeToolSelection (even `{}`) resets the tool
  config, so a no-op prints nothing (§9.18);
* a malformed `llm_response` makes Gemini drop a BeforeModel block (§9.16), so only a well-formed one
  is ever sent.

A verdict that an event cannot carry is mapped by the table in docs/gemini.md and the mapping is
recorded in the reply's notes, which `hookd eval` and the decision log show.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hookd.dialects.common import (
    caller_facts,
    dump_json,
    joined_contexts,
    load_payload,
    note_unused_rewrites,
    plain,
    reply,
    rewritten_tool_input,
    string_field,
    with_message,
)
from hookd.dialects.spec import (
    MCP_AND_EXTENSION_COMMANDS,
    REASON,
    AgentEvent,
    AgentSpec,
    HookEntry,
    InstallSpec,
    JSONObject,
    SettingsCommand,
    SubAgents,
    Switch,
    system_path,
)
from hookd.errors import DialectError, one_line
from hookd.policy.combine import allowed_names, merge_patch, tool_mode
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

_READ, _WRITE = "read", "write"
_REPLACE = ("old_string", "new_string")
TOOLS: Mapping[str, ToolSpec] = {
    "run_shell_command": ToolSpec(ToolKind.SHELL, cwd_args=("dir_path", "directory")),  # `directory`: older
    "read_file": ToolSpec(ToolKind.READ, (("file_path", _READ),)),
    # `include` is the current argument; older releases called the same list `paths`.
    "read_many_files": ToolSpec(
        ToolKind.READ, (("include", _READ), ("paths", _READ)), globs={"include": "path", "paths": "path"}
    ),
    "list_directory": ToolSpec(ToolKind.READ, (("dir_path", _READ),), lists=("dir_path",)),
    # `pattern` may be absolute (`/etc/**`) or climb out (`../**`): resolved against `dir_path`.
    "glob": ToolSpec(ToolKind.READ, (("dir_path", _READ), ("pattern", _READ)), {"pattern": "dir_path"}),
    # A search reads every file its filter (`include_pattern`; `include` in older releases) reaches under dir_path.
    "grep_search": ToolSpec(
        ToolKind.READ,
        (("dir_path", _READ), ("include_pattern", _READ), ("include", _READ)),
        {"include_pattern": "dir_path", "include": "dir_path"},
        globs={"include_pattern": "search", "include": "search"},
    ),
    "search_file_content": ToolSpec(
        ToolKind.READ,
        (("dir_path", _READ), ("path", _READ), ("include", _READ)),
        {"include": "dir_path"},
        globs={"include": "search"},
    ),
    "write_file": ToolSpec(ToolKind.WRITE, (("file_path", _WRITE),), content="content"),
    "replace": ToolSpec(ToolKind.EDIT, (("file_path", _WRITE),), replace=_REPLACE),
    "web_fetch": ToolSpec(ToolKind.WEB),
    "google_web_search": ToolSpec(ToolKind.WEB),
}
TOOL_KINDS: Mapping[str, ToolKind] = {name: spec.kind for name, spec in TOOLS.items()}

# Gemini's 11 events are the canonical ones (Event.OTHER is for other clients' extra events).
GEMINI_EVENTS: Mapping[str, Event] = {e.value: e for e in Event if e is not Event.OTHER}
TOOL_EVENTS = frozenset({Event.BEFORE_TOOL, Event.AFTER_TOOL})
# Events whose fail-closed output is a deny; on every other event a deny cannot block, or loops.
FAIL_CLOSED_DENY_EVENTS = frozenset({Event.BEFORE_TOOL, Event.BEFORE_AGENT, Event.BEFORE_MODEL, Event.AFTER_TOOL})
# AfterModel can be made to fail closed (`--fail closed`); BeforeToolSelection has no deny (any output
# resets the tool config), AfterAgent retries on deny, and the lifecycle events cannot block.
_CAN_FAIL_CLOSED = FAIL_CLOSED_DENY_EVENTS | {Event.AFTER_MODEL}
# Events whose block/stop message in the UI is `systemMessage || reason` (§2.3, §2.4): when hookd
# also has messages to show, the reason leads the systemMessage so that it is not hidden.
_MESSAGE_REPLACES_REASON = frozenset({Event.BEFORE_AGENT, Event.AFTER_AGENT})
_BLOCKING = (Outcome.HALT, Outcome.DENY, Outcome.ASK)


def tool_kind(name: str) -> ToolKind:
    if name.startswith("mcp_"):
        return ToolKind.MCP
    return TOOL_KINDS.get(name, ToolKind.OTHER)


class GeminiDialect:
    client = "gemini"
    handles_headless_ask = False  # headless Gemini waits forever on an ask
    # Every AfterModel chunk of one response carries the same request (the conversation) before the chunk:
    # the parse step reads it once (hookd.dialects.repeated).
    repeated: Mapping[str, tuple[str, str]] = {Event.AFTER_MODEL.value: ("llm_request", "llm_response")}

    def parse(self, request: HookRequest) -> NormalisedEvent:
        return self.parse_payload(request, load_payload(request.payload))

    def parse_payload(self, request: HookRequest, payload: dict[str, JSON]) -> NormalisedEvent:
        """`parse` of a payload already read (hookd.dialects.repeated)."""
        event = GEMINI_EVENTS.get(request.event)
        if event is None:
            raise DialectError(f"unknown Gemini CLI hook event {request.event!r}")
        named = payload.get("hook_event_name")
        if named is not None and named != event.value:
            raise DialectError(f"payload says hook_event_name={named!r} but the shim was registered for {event.value}")
        cwd = string_field(payload, "cwd") or request.cwd
        project_dir = request.env.get("GEMINI_PROJECT_DIR") or cwd
        return NormalisedEvent(
            client="gemini",
            event=event,
            payload=payload,
            tool=_tool_call(event, payload),
            session_id=string_field(payload, "session_id") or request.env.get("GEMINI_SESSION_ID", ""),
            cwd=cwd,
            project_dir=project_dir,
            caller=request.caller,
            env=request.env,
            facts=caller_facts(request),
        )

    def render(self, event: NormalisedEvent, decision: Decision) -> Reply:
        if event.event is Event.AFTER_MODEL and _plain_allow(decision):
            return _PRINTS_NOTHING  # what `_after_model` renders of it, for every chunk a model streams (issue 30)
        output, notes = render_output(event, decision)
        return reply(output, notes)

    def fail_reply(self, event: Event, reason: str) -> Reply:
        if event not in FAIL_CLOSED_DENY_EVENTS:
            return Reply()
        return Reply(stdout=dump_json({"decision": "deny", "reason": one_line(reason)}))


_PRINTS_NOTHING = Reply()


def _plain_allow(decision: Decision) -> bool:
    """An allow with nothing to carry: no message, context or rewrite (its id is quoted only in a reason)."""
    return decision.outcome is Outcome.ALLOW and not (decision.messages or decision.contexts or decision.rewrite)


def _tool_call(event: Event, payload: Mapping[str, JSON]) -> ToolCall | None:
    if event not in TOOL_EVENTS:
        return None
    name, args = payload.get("tool_name"), payload.get("tool_input")
    if not isinstance(name, str) or not name:
        raise DialectError(f"{event.value} payload has no tool_name string")
    if not isinstance(args, dict):
        raise DialectError(f"{event.value} payload: tool_input must be a JSON object")
    spec = TOOLS.get(name) or ToolSpec(tool_kind(name))
    return ToolCall(name=name, kind=spec.kind, input=args, mcp=_mcp(payload), spec=spec)


def _mcp(payload: Mapping[str, JSON]) -> dict[str, str] | None:
    """The server and the tool's own name from `mcp_context` (the tool name alone is ambiguous:
    `mcp_<server>_<tool>`, and both may hold underscores)."""
    context = payload.get("mcp_context")
    if not isinstance(context, Mapping):
        return None
    server, tool = context.get("server_name"), context.get("tool_name")
    if not isinstance(server, str) or not isinstance(tool, str):
        return None
    return {"server": server, "tool": tool}


def render_output(event: NormalisedEvent, decision: Decision) -> tuple[dict[str, Any] | None, list[str]]:
    """The JSON object for stdout (None: print nothing) and notes on verdicts mapped or not carried."""
    renderer = _RENDERERS.get(event.event, _observed)
    notes: list[str] = []
    output = renderer(event, decision, notes)
    if decision.contexts:
        specific = output.get("hookSpecificOutput") if output else None
        if not isinstance(specific, Mapping) or "additionalContext" not in specific:
            notes.append(f"context not carried: {event.event.value} cannot add it to this reply")
        elif event.event is Event.SESSION_START and event.payload.get("source") == "clear":
            notes.append("context sent, but Gemini ignores SessionStart additionalContext after /clear")
    return output, notes


def _specific(event: NormalisedEvent, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event.event.value, **fields}}


def _lead(event: NormalisedEvent, decision: Decision, reason: str) -> tuple[str, ...]:
    """On BeforeAgent/AfterAgent a systemMessage replaces the reason in the stop/block message."""
    return (reason,) if decision.messages and event.event in _MESSAGE_REPLACES_REASON else ()


def _halt(event: NormalisedEvent, decision: Decision) -> dict[str, Any]:
    reason = decision.explain("stopped by hookd policy")
    out: dict[str, Any] = {"continue": False, "stopReason": reason}
    return with_message(out, decision, *_lead(event, decision, reason))


def _deny(event: NormalisedEvent, decision: Decision) -> dict[str, Any]:
    reason = decision.explain("denied by hookd policy")
    return with_message({"decision": "deny", "reason": reason}, decision, *_lead(event, decision, reason))


def _shown(name: str, decision: Decision) -> str:
    """A halt/deny/ask that an event cannot enforce, as the line shown to the user instead."""
    return f"hookd ({name}): {decision.reason}"


def _blocking_or_none(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    """Halt, deny, and ask mapped to deny (ask is honoured on BeforeTool only)."""
    if decision.outcome is Outcome.HALT:
        return _halt(event, decision)
    if decision.outcome in (Outcome.DENY, Outcome.ASK):
        if decision.outcome is Outcome.ASK:
            notes.append(f"ask mapped to deny: {event.event.value} cannot ask the user")
        return _deny(event, decision)
    return None


def _before_tool(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    if decision.outcome is Outcome.HALT:
        return _halt(event, decision)
    if decision.outcome is Outcome.DENY:
        return _deny(event, decision)
    note_unused_rewrites(event.event.value, decision, notes, "tool_input")
    full = rewritten_tool_input(event, decision, notes)
    if decision.outcome is Outcome.ASK:
        # Gemini applies a tool_input rewrite and then asks (§2.3 steps 3-4, §6): the user confirms
        # the call that will really run. The systemMessage is the text of the confirmation dialog.
        out: dict[str, Any] = {"decision": "ask"}
        if full is not None:
            out.update(_specific(event, tool_input=full))
        return with_message(out, decision, decision.reason)
    if full is not None:
        return with_message(_specific(event, tool_input=full), decision)
    return plain(decision)


def _after_tool(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    blocked = _blocking_or_none(event, decision, notes)
    if blocked is not None:
        return blocked
    note_unused_rewrites(event.event.value, decision, notes, "tail_tool_call")
    specific: dict[str, Any] = {}
    if decision.contexts:
        specific["additionalContext"] = joined_contexts(decision)
    if "tail_tool_call" in decision.rewrite:
        tail = decision.rewrite["tail_tool_call"]
        name = tail.get("name") if isinstance(tail, Mapping) else None
        args = tail.get("args", {}) if isinstance(tail, Mapping) else None
        if isinstance(name, str) and name and isinstance(args, Mapping | None):
            specific["tailToolCallRequest"] = {"name": name, "args": dict(args or {})}
        else:
            notes.append("tail_tool_call not carried: it needs a non-empty `name` and an object `args`")
    if not specific:
        return plain(decision)
    return with_message(_specific(event, **specific), decision)


def _before_agent(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    blocked = _blocking_or_none(event, decision, notes)
    if blocked is not None:
        return blocked
    note_unused_rewrites(event.event.value, decision, notes)
    if decision.contexts:
        return with_message(_specific(event, additionalContext=joined_contexts(decision)), decision)
    return plain(decision)


def _after_agent(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    note_unused_rewrites(event.event.value, decision, notes)
    if decision.outcome is Outcome.HALT:
        out = _halt(event, decision)
    elif decision.outcome is Outcome.DENY and event.payload.get("stop_hook_active") is True:
        # Gemini is already retrying because of an AfterAgent deny; denying again loops until the
        # turn budget is spent, so the second deny is shown, not enforced.
        notes.append("deny not enforced: stop_hook_active (AfterAgent is already retrying)")
        return plain(decision, _shown("deny", decision))
    elif decision.outcome is Outcome.DENY:
        out = _deny(event, decision)
    elif decision.outcome is Outcome.ASK:
        notes.append("ask not carried: AfterAgent cannot ask; shown as a message")
        return plain(decision, _shown("ask", decision))
    else:
        return plain(decision)
    if decision.extras.get("clear_context") is True:
        out.update(_specific(event, clearContext=True))
    return out


def _before_model(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    blocked = _blocking_or_none(event, decision, notes)
    if blocked is not None:
        if decision.outcome is not Outcome.HALT and "llm_response" in decision.extras:
            synthetic = _llm_response(decision.extras["llm_response"], finish_reason="STOP")
            if synthetic is None:
                # A malformed llm_response would make Gemini drop the block (§9.16): block without it.
                notes.append("synthetic llm_response not sent: it has no text (a string, text or candidates)")
            else:
                blocked.update(_specific(event, llm_response=synthetic))
        return blocked
    note_unused_rewrites(event.event.value, decision, notes, "llm_request")
    request = _rewritten_llm_request(event, decision, notes)
    if request is not None:
        return with_message(_specific(event, llm_request=request), decision)
    return plain(decision)


def _rewritten_llm_request(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    """The keys of llm_request the patch touches, each complete (merged over what Gemini sent).

    `config` must be complete: Gemini overwrites temperature, maxOutputTokens, topP and topK with the
    hook's values, an omitted one becoming undefined (§9.17). `messages` are sent only when a policy
    set them (they merge positionally and re-sending them is lossy); `model` only when set.
    """
    if "llm_request" not in decision.rewrite:
        return None
    patch = decision.rewrite["llm_request"]
    if not isinstance(patch, Mapping):
        notes.append("rewrite of llm_request not carried: the patch is not a JSON object")
        return None
    sent = event.payload.get("llm_request")
    original: Mapping[str, JSON] = sent if isinstance(sent, Mapping) else {}
    full = merge_patch(original, patch)
    out: dict[str, Any] = {}
    for key in patch:
        if key not in full:
            notes.append(f"llm_request.{key} not carried: Gemini cannot delete it")
        elif key == "messages" and not isinstance(full[key], list):
            notes.append("llm_request.messages not carried: it must be a list")
        elif key == "config" and not isinstance(full[key], Mapping):
            notes.append("llm_request.config not carried: it must be an object")
        elif full[key] != original.get(key):
            out[key] = full[key]
    if not out:
        notes.append("rewrite of llm_request changed nothing")
        return None
    return out


def _after_model(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    blocked = _blocking_or_none(event, decision, notes)
    if blocked is not None:
        return blocked
    note_unused_rewrites(event.event.value, decision, notes, "llm_response")
    if "llm_response" in decision.rewrite:
        rendered = _llm_response(decision.rewrite["llm_response"], finish_reason=_finish_reason(event))
        if rendered is not None:
            return with_message(_specific(event, llm_response=rendered), decision)
        notes.append("llm_response rewrite not carried: it has no text parts")
    return plain(decision)


def _finish_reason(event: NormalisedEvent) -> str | None:
    """The finishReason of the chunk being replaced: a replacement keeps the stream's shape."""
    response = event.payload.get("llm_response")
    candidates = response.get("candidates") if isinstance(response, Mapping) else None
    first = candidates[0] if isinstance(candidates, list) and candidates else None
    reason = first.get("finishReason") if isinstance(first, Mapping) else None
    return reason if isinstance(reason, str) else None


def _llm_response(value: JSON, finish_reason: str | None) -> dict[str, Any] | None:
    """A well-formed LLMResponse, or None when `value` has no text to send.

    A policy may give a plain string, `{"text": …}`, or `{"candidates": [...]}`. Gemini maps every
    candidate's `content.parts` (strings) to `{text}` parts and needs candidates[0]'s parts non-empty
    (§2.2); anything else throws inside Gemini, which on BeforeModel silently lifts the block.
    """
    if isinstance(value, str):
        if not value:
            return None
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [value]}, "index": 0}
        if finish_reason is not None:
            candidate["finishReason"] = finish_reason
        return {"candidates": [candidate]}
    if not isinstance(value, Mapping):
        return None
    if "candidates" in value:
        raw = value["candidates"]
        candidates = [_candidate(c, i) for i, c in enumerate(raw)] if isinstance(raw, list) else []
        valid = [c for c in candidates if c is not None]
        if not valid or len(valid) != len(candidates) or not valid[0]["content"]["parts"]:
            return None
        out: dict[str, Any] = {"candidates": valid}
        if isinstance(value.get("usageMetadata"), Mapping):
            out["usageMetadata"] = dict(value["usageMetadata"])
        return out
    text = value.get("text")
    return _llm_response(text, finish_reason) if isinstance(text, str) else None


def _candidate(value: JSON, index: int) -> dict[str, Any] | None:
    content = value.get("content") if isinstance(value, Mapping) else None
    parts = content.get("parts") if isinstance(content, Mapping) else None
    if not isinstance(value, Mapping) or not isinstance(parts, list) or not all(isinstance(p, str) for p in parts):
        return None
    out: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, "index": index}
    if isinstance(value.get("finishReason"), str):
        out["finishReason"] = value["finishReason"]
    if isinstance(value.get("index"), int):
        out["index"] = value["index"]
    return out


def _before_tool_selection(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    note_unused_rewrites(event.event.value, decision, notes, "tool_config")
    if decision.messages:
        notes.append("message not shown: any output on BeforeToolSelection would reset the tool config")
    if decision.outcome in _BLOCKING:
        notes.append(f"{decision.outcome.name.lower()} mapped to tool mode NONE: no tool may be called this turn")
        return _tool_config({"mode": "NONE"}, event, notes)
    config = decision.rewrite.get("tool_config")
    if isinstance(config, Mapping):
        return _tool_config(config, event, notes)
    if "tool_config" in decision.rewrite:
        notes.append("rewrite of tool_config not carried: it is not a JSON object")
    return None  # a no-op must print nothing: `{}` would reset the tool config


def _tool_config(config: Mapping[str, JSON], event: NormalisedEvent, notes: list[str]) -> dict[str, Any]:
    mode = tool_mode(config)
    if "mode" in config and config["mode"] != mode:
        notes.append(f"tool_config mode {config['mode']!r} not understood: AUTO used")
    names = allowed_names(config)
    if names == [] and mode != "NONE":
        notes.append("tool_config allows no tool name: mode NONE")
        mode = "NONE"
    body = {"mode": mode, "allowedFunctionNames": [] if mode == "NONE" or names is None else names}
    return _specific(event, toolConfig=body)


def _session_start(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    note_unused_rewrites(event.event.value, decision, notes)
    extra = _observed_outcome(event, decision, notes)
    out: dict[str, Any] = {}
    if decision.contexts:
        out = _specific(event, additionalContext=joined_contexts(decision))
    with_message(out, decision, *extra)
    return out or None


def _observed(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    note_unused_rewrites(event.event.value, decision, notes)
    extra = _observed_outcome(event, decision, notes)
    return plain(decision, *extra)


def _observed_outcome(event: NormalisedEvent, decision: Decision, notes: list[str]) -> list[str]:
    """On events that cannot block, a halt/deny/ask is shown to the user instead."""
    if decision.outcome in _BLOCKING:
        name = decision.outcome.name.lower()
        notes.append(f"{name} not enforceable on {event.event.value}: shown as a message")
        return [_shown(name, decision)]
    return []


_RENDERERS = {
    Event.BEFORE_TOOL: _before_tool,
    Event.AFTER_TOOL: _after_tool,
    Event.BEFORE_AGENT: _before_agent,
    Event.AFTER_AGENT: _after_agent,
    Event.BEFORE_MODEL: _before_model,
    Event.AFTER_MODEL: _after_model,
    Event.BEFORE_TOOL_SELECTION: _before_tool_selection,
    Event.SESSION_START: _session_start,
    Event.SESSION_END: _observed,
    Event.PRE_COMPRESS: _observed,
    Event.NOTIFICATION: _observed,
}
assert set(_RENDERERS) == set(GEMINI_EVENTS.values())


def _settings_path(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> Path:
    if scope == "user":  # Gemini CLI reads $GEMINI_CLI_HOME/.gemini/settings.json when that is set
        return Path(env.get("GEMINI_CLI_HOME") or home) / ".gemini" / "settings.json"
    if scope == "managed":  # the system settings, which override user and project settings
        return Path(env.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or system_path(env, "/etc/gemini-cli/settings.json"))
    return project_dir / ".gemini" / "settings.json"


def _entry(entry: HookEntry) -> JSONObject:
    hook = {"type": "command", "name": entry.name, "command": entry.command, "timeout": entry.timeout_ms,
            "description": entry.description}  # fmt: skip
    return {"hooks": [hook]}


def _bypass(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> tuple[Path, ...]:
    """Extensions register hooks of their own; the system defaults sit under every scope; the user's
    trustedFolders.json decides whether a project's settings, and their hooks, load at all (a folder marked
    DO_NOT_TRUST runs in safe mode: https://geminicli.com/docs/cli/trusted-folders)."""
    settings = _settings_path(scope, home, project_dir, env)
    if scope == "managed":
        return (settings.with_name("system-defaults.json"),)
    if scope == "user":
        return (settings.parent / "extensions", settings.parent / "trustedFolders.json")
    return (settings.parent / "extensions",)


# A remote sub-agent (A2A: `kind: remote`, `agent_card_url` or `agent_card_json` in the front matter of an
# agent file) runs its tools on its own server: hookd sees only the invoke_agent call that starts it.
_REMOTE_AGENT = re.compile(r"^[ \t-]*(kind[ \t]*:[ \t]*[\"']?remote\b|agent_card_(url|json)[ \t]*:)", re.M)
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---", re.S)
MAX_AGENT_FILES = 200  # agent files read per directory
MAX_AGENT_BYTES = 65536


def _agent_dirs(home: Path, project_dir: Path, env: Mapping[str, str]) -> list[Path]:
    """Where Gemini loads sub-agent definitions: the user's and the project's `.gemini/agents`, and the
    `agents` folder of every extension."""
    user = _settings_path("user", home, project_dir, env).parent
    out = [user / "agents", project_dir / ".gemini" / "agents"]
    for extensions in (user / "extensions", project_dir / ".gemini" / "extensions"):
        out += sorted(extensions.glob("*/agents"))[:MAX_AGENT_FILES] if extensions.is_dir() else []
    return out


def _remote_agents(home: Path, project_dir: Path, env: Mapping[str, str]) -> tuple[tuple[Path, str], ...]:
    """The sub-agent files that define a remote agent, whose tool calls fire no hook on this machine."""
    found = []
    for directory in _agent_dirs(home, project_dir, env):
        files = sorted(directory.glob("*.md"))[:MAX_AGENT_FILES] if directory.is_dir() else []
        for path in (f for f in files if not f.name.startswith("_")):
            try:
                with path.open("rb") as handle:
                    text = handle.read(MAX_AGENT_BYTES).decode("utf-8", "replace")
            except OSError:
                continue
            front = _FRONT_MATTER.match(text)
            if front and _REMOTE_AGENT.search(front.group(1)):
                found.append((path, "a remote sub-agent (A2A): its tools run on its own server and fire no hook "
                                    "here, only the invoke_agent call that starts it is judged"))  # fmt: skip
    return tuple(found)


def _agent_event(event: Event) -> AgentEvent:
    deny = {"decision": "deny", "reason": REASON} if event in _CAN_FAIL_CLOSED else None
    return AgentEvent(event.value, event, deny, fail_closed=event in FAIL_CLOSED_DENY_EVENTS)


SPEC = AgentSpec(
    name="gemini",
    title="Gemini CLI",
    dialect=GeminiDialect(),
    events=tuple(_agent_event(e) for e in GEMINI_EVENTS.values()),
    tools=TOOLS,
    install=InstallSpec(
        scopes=("user", "project", "managed"),
        settings_path=_settings_path,
        entry=_entry,
        enable_key="hooksConfig.enabled",
        hooks_off=(Switch("", "hooksConfig.enabled", False),),
        guarded_keys=("hooksConfig",),  # hooksConfig.disabled names hooks to skip
        bypass=_bypass,
        extension_manifest="gemini-extension.json",
        location_env=("GEMINI_CLI_HOME", "GEMINI_CLI_SYSTEM_SETTINGS_PATH"),
        # 0.61.0's bundle: the system defaults file (under every scope: `hooksConfig.enabled` can be set there); the
        # folder-trust variables of docs/reference/configuration.md (GEMINI_CLI_TRUST_WORKSPACE=true trusts the
        # workspace, GEMINI_CLI_TRUSTED_FOLDERS_PATH moves trustedFolders.json) load a project's own settings
        home_env=("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", "GEMINI_CLI_TRUST_WORKSPACE", "GEMINI_CLI_TRUSTED_FOLDERS_PATH"),
        # the built-in `/hooks disable NAME` writes `hooksConfig.disabled` into the settings
        # (packages/cli/src/ui/commands/hooksCommand.ts); `mcp add`, `extensions install`: MCP_AND_EXTENSION_COMMANDS
        settings_commands=(SettingsCommand(("/hooks", "disable"), "slash"), *MCP_AND_EXTENSION_COMMANDS),
    ),
    env=("GEMINI_PROJECT_DIR", "GEMINI_CWD", "GEMINI_SESSION_ID", "GEMINI_PLANS_DIR"),
    project_dir_env="GEMINI_PROJECT_DIR",
    process_names=("gemini", "gemini.js", "cli.js"),
    packages=("@google/gemini-cli",),
    headless_flags=("-p", "--prompt"),
    interactive_flags=("-i", "--prompt-interactive"),
    mcp_prefix="mcp_",
    subagents=SubAgents(guarded="tests/e2e/test_subagents.py [gemini], 0.61.0", unseen=_remote_agents),
)
