"""OpenAI Codex CLI (0.171.0): parse its hook events onto the canonical ones, render a Decision as Codex
honours it. No I/O. docs/codex.md has the per-event table; the facts a renderer must respect:

* every output schema is closed (`additionalProperties: false`): one unknown key, `permissionDecision:
  "ask"`, `"allow"` without `updatedInput`, a deny without a reason, or `continue: false` on PreToolUse
  makes the hook "Failed", and a failed hook lets the call run. So only the keys below are ever sent;
* an allow is nothing on stdout; a PreToolUse deny is `hookSpecificOutput.permissionDecision: "deny"` with
  a non-empty `permissionDecisionReason` (it reaches the model); a rewrite is `"allow"` + the whole
  `updatedInput`, which for the shell tool (`Bash`) must hold a string `command` or nothing runs;
* Codex has **no ask**: an ask is rendered as a deny whose reason says the call needs approval, and a
  halt on PreToolUse as a deny (Codex cannot end the session from there);
* PostToolUse, UserPromptSubmit and Stop block with `{"decision": "block", "reason": …}`; Stop with
  `stop_hook_active` is already continuing, so a second block is shown, not enforced;
* `additionalContext` is honoured on PreToolUse, PostToolUse, UserPromptSubmit and SessionStart;
  `systemMessage` is a UI warning only.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hookd.dialects.common import (
    block_output,
    caller_facts,
    carries_context,
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
    string_field,
    with_message,
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
    TextSettings,
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

CODEX_EVENTS: Mapping[str, Event] = {
    "PreToolUse": Event.BEFORE_TOOL,
    "PostToolUse": Event.AFTER_TOOL,
    "UserPromptSubmit": Event.BEFORE_AGENT,
    "Stop": Event.AFTER_AGENT,
    "SubagentStop": Event.AFTER_AGENT,
    "SessionStart": Event.SESSION_START,
    "SessionEnd": Event.SESSION_END,
    "PreCompact": Event.PRE_COMPRESS,
    "PermissionRequest": Event.BEFORE_TOOL,  # the same call, asked again in Codex's approval path
    "PostCompact": Event.OTHER,
    "SubagentStart": Event.OTHER,
    "Interrupt": Event.OTHER,
}
# Codex reports every shell tool as `Bash` with {"command": …}, and file edits as `apply_patch` with the
# patch as {"command": …} (its files, operations and moves are read from the patch: enrich/patches.py).
TOOLS: Mapping[str, ToolSpec] = {
    "Bash": ToolSpec(ToolKind.SHELL),
    "apply_patch": ToolSpec(ToolKind.EDIT, patches=("command", "input", "patch")),
    "web_search": ToolSpec(ToolKind.WEB),
}
_BLOCKING = (Outcome.HALT, Outcome.DENY, Outcome.ASK)
_CONTEXT_EVENTS = frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SubagentStart"})


class CodexDialect:
    client = "codex"
    handles_headless_ask = True  # Codex has no ask: render() maps it to a deny itself

    def parse(self, request: HookRequest) -> NormalisedEvent:
        payload = load_payload(request.payload)
        name = hook_event_name(request, payload)
        if name not in CODEX_EVENTS:
            raise DialectError(f"unknown Codex CLI hook event {name!r}")
        event = CODEX_EVENTS[name]
        cwd = string_field(payload, "cwd") or request.cwd
        return NormalisedEvent(
            client="codex",
            event=event,
            payload=payload,
            tool=_tool_call(name, event, payload),
            session_id=string_field(payload, "session_id"),
            cwd=cwd,
            project_dir=cwd,  # Codex sets no project variable: the session's cwd is the project
            caller=request.caller,
            env=request.env,
            facts=caller_facts(request),
            client_event=name,
        )

    def render(self, event: NormalisedEvent, decision: Decision) -> Reply:
        notes: list[str] = []
        name = event.client_event or "PreToolUse"
        output = _RENDERERS.get(name, _observed)(event, decision, notes)
        if decision.contexts and not carries_context(output):
            notes.append(f"context not carried: {name} cannot add it to this reply")
        return reply(output, notes)

    def fail_reply(self, event: Event, reason: str) -> Reply:
        name = _FAIL_EVENT.get(event)
        if name is None:
            return Reply()
        return Reply(stdout=dump_json(fail_output(name, one_line(reason))))


def fail_output(name: str, reason: str) -> dict[str, Any]:
    """The blocking reply of a Codex event (the shims print the same bytes when hookd is unreachable)."""
    if name == "PreToolUse":
        return _permission("deny", reason)
    if name == "PermissionRequest":
        return _approval("deny", reason)
    return {"decision": "block", "reason": reason}


_FAIL_EVENT: Mapping[Event, str] = {
    Event.BEFORE_TOOL: "PreToolUse",
    Event.AFTER_TOOL: "PostToolUse",
    Event.BEFORE_AGENT: "UserPromptSubmit",
}


def _tool_call(name: str, event: Event, payload: Mapping[str, JSON]) -> ToolCall | None:
    if name not in ("PreToolUse", "PostToolUse", "PermissionRequest"):
        return None
    tool, args, mcp = named_tool(name, payload)
    spec = TOOLS.get(tool) or ToolSpec(ToolKind.MCP if mcp else ToolKind.OTHER)
    return ToolCall(name=tool, kind=spec.kind, input=args, mcp=mcp, spec=spec)


def _permission(decision: str, reason: str = "", **fields: Any) -> dict[str, Any]:
    specific: dict[str, Any] = {"hookEventName": "PreToolUse", "permissionDecision": decision}
    if reason:
        specific["permissionDecisionReason"] = reason
    return {"hookSpecificOutput": {**specific, **fields}}


def _pre_tool_use(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    fields: dict[str, Any] = {}
    if decision.contexts:
        fields["additionalContext"] = joined_contexts(decision)
    if decision.outcome is Outcome.HALT:
        notes.append("halt mapped to deny: Codex cannot end the session from PreToolUse")
        return with_message(_permission("deny", decision.explain("stopped by hookd policy"), **fields), decision)
    if decision.outcome is Outcome.DENY:
        return with_message(_permission("deny", decision.explain("denied by hookd policy"), **fields), decision)
    if decision.outcome is Outcome.ASK:
        notes.append("ask mapped to deny: Codex cannot ask the user")
        reason = f"needs approval, which Codex cannot ask for: {decision.explain('hookd policy asks')}"
        return with_message(_permission("deny", reason, **fields), decision)
    note_unused_rewrites(event.client_event, decision, notes, "tool_input")
    full = rewritten_tool_input(event, decision, notes)
    shell = event.tool is not None and event.tool.kind is ToolKind.SHELL
    if full is not None and shell and not isinstance(full.get("command"), str):
        notes.append("rewrite mapped to deny: Codex runs a rewritten shell call only with a string command")
        return with_message(_permission("deny", "hookd could not rewrite this command", **fields), decision)
    if full is not None:
        return with_message(_permission("allow", updatedInput=full, **fields), decision)
    if fields:
        return with_message({"hookSpecificOutput": {"hookEventName": "PreToolUse", **fields}}, decision)
    return plain(decision)


def _approval(behavior: str, message: str) -> dict[str, Any]:
    decision = {"behavior": behavior, "message": message}
    return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}


def _permission_request(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    """PermissionRequest runs in Codex's approval path (only when Codex would ask; never under `codex exec`,
    whose approval policy is always never). A deny is `decision.behavior: "deny"` with the reason as its
    message; a halt is that deny (`interrupt` is reserved: a hook that sets it fails). hookd never answers
    `allow` (that approves on the user's behalf): an allow, an ask (Codex's approval is the ask) and a
    rewrite (PreToolUse carries it; `updatedInput` is reserved here) print nothing."""
    if decision.outcome in (Outcome.DENY, Outcome.HALT):
        if decision.outcome is Outcome.HALT:
            notes.append("halt mapped to deny: Codex cannot end the session from PermissionRequest")
        return with_message(_approval("deny", decision.explain("denied by hookd policy")), decision)
    note_unused_rewrites(event.client_event, decision, notes)
    if decision.outcome is Outcome.ASK:
        notes.append("ask left to Codex: PermissionRequest runs where Codex itself asks")
    return plain(decision)


def _block_or_context(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    """PostToolUse (a block puts the reason beside the result: the call ran) and UserPromptSubmit."""
    note_unused_rewrites(event.client_event, decision, notes)
    if decision.outcome is Outcome.HALT:
        return with_message(halt_output(decision), decision)
    if decision.outcome in (Outcome.DENY, Outcome.ASK):
        if decision.outcome is Outcome.ASK:
            notes.append(f"ask mapped to deny: {event.client_event} cannot ask the user")
        return with_message(block_output(decision), decision)
    if decision.contexts:
        specific = {"hookEventName": event.client_event, "additionalContext": joined_contexts(decision)}
        return with_message({"hookSpecificOutput": specific}, decision)
    return plain(decision)


def _stop(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    note_unused_rewrites(event.client_event, decision, notes)
    if decision.outcome is Outcome.HALT:
        return with_message(halt_output(decision), decision)
    if decision.outcome is Outcome.DENY and event.payload.get("stop_hook_active") is True:
        notes.append(f"deny not enforced: stop_hook_active ({event.client_event} is already continuing)")
        return plain(decision, f"hookd (deny): {decision.reason}")
    if decision.outcome is Outcome.DENY:
        return with_message(block_output(decision), decision)
    if decision.outcome is Outcome.ASK:
        notes.append(f"ask not carried: {event.client_event} cannot ask; shown as a message")
        return plain(decision, f"hookd (ask): {decision.reason}")
    return plain(decision)


def _observed(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    """Events that cannot block (and those hookd only observes): a verdict is shown, context added where
    the event takes it."""
    note_unused_rewrites(event.client_event, decision, notes)
    extra: list[str] = []
    if decision.outcome in _BLOCKING:
        kind = decision.outcome.name.lower()
        notes.append(f"{kind} not enforceable on {event.client_event}: shown as a message")
        extra.append(f"hookd ({kind}): {decision.reason}")
    out: dict[str, Any] = {}
    if decision.contexts and event.client_event in _CONTEXT_EVENTS:
        out["hookSpecificOutput"] = {
            "hookEventName": event.client_event,
            "additionalContext": joined_contexts(decision),
        }
    if event.client_event in ("SessionEnd", "Interrupt", "PermissionRequest"):
        return None  # their output schemas hold no message (PermissionRequest: a deny is a decision, unused)
    return with_message(out, decision, *extra) or None


Renderer = Callable[[NormalisedEvent, Decision, list[str]], "dict[str, Any] | None"]
_RENDERERS: Mapping[str, Renderer] = {
    "PreToolUse": _pre_tool_use,
    "PermissionRequest": _permission_request,
    "PostToolUse": _block_or_context,
    "UserPromptSubmit": _block_or_context,
    "Stop": _stop,
    "SubagentStop": _stop,
}


def _codex_home(home: Path, env: Mapping[str, str]) -> Path:
    return Path(env.get("CODEX_HOME") or home / ".codex")


def _settings_path(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> Path:
    if scope == "user":  # $CODEX_HOME (default ~/.codex)
        return _codex_home(home, env) / "hooks.json"
    if scope == "managed":  # requirements.toml hooks are trusted without review and cannot be disabled
        return system_path(env, "/etc/codex/requirements.toml")
    return project_dir / ".codex" / "hooks.json"


def _trust_path(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> Path | None:
    """Codex runs a user or project hook only when the user's config.toml trusts it (and the project)."""
    return None if scope == "managed" else _codex_home(home, env) / "config.toml"


# --- hookd install: hooks.json, its trust entries in config.toml, managed requirements.toml --------------


def _entry(entry: HookEntry) -> JSONObject:
    """Codex's schema is closed (no name): hookd's hook is the one whose statusMessage is its name."""
    return {"hooks": [{"type": "command", "command": entry.command, "timeout": entry.seconds,
                       "statusMessage": entry.name}]}  # fmt: skip


# Codex runs a non-managed hook only when its config.toml trusts that exact definition (codex-hooks.md
# §2): `[hooks.state."<hooks.json>:<event label>:<group>:<handler>"] trusted_hash = "sha256:…"`, the hash
# of the definition's canonical JSON. Install keeps one marked block of these in the config.toml beside
# hooks.json, for hookd's handlers only; an untrusted hook would be skipped silently.
_LABELS = {
    "PreToolUse": "pre_tool_use", "PermissionRequest": "permission_request", "PostToolUse": "post_tool_use",
    "PreCompact": "pre_compact", "PostCompact": "post_compact", "SessionStart": "session_start",
    "SessionEnd": "session_end", "UserPromptSubmit": "user_prompt_submit", "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop", "Stop": "stop",
}  # fmt: skip
_TRUST_BEGIN = "# BEGIN hookd: trust for hookd's hooks in hooks.json (written by hookd install; do not edit)"
_TRUST_END = "# END hookd"


def codex_trust_entries(path: Path, doc: Mapping[str, Any] | None, name: str) -> list[tuple[str, str]]:
    """(state key, trusted_hash) of every hookd handler of a Codex hooks.json document."""
    out: list[tuple[str, str]] = []
    hooks = doc.get("hooks") if doc else None
    for event, groups in (hooks or {}).items():
        label = _LABELS.get(event)
        for gi, group in enumerate(groups if label else []):
            for hi, hook in enumerate(group.get("hooks", []) if isinstance(group, dict) else []):
                if not isinstance(hook, dict) or hook.get("statusMessage") != name or hook.get("type") != "command":
                    continue
                timeout = hook.get("timeout", 600)
                timeout = min(max(timeout, 1), 3) if event == "SessionEnd" else max(timeout, 1)
                handler = {"type": "command", "command": hook["command"], "timeout": timeout,
                           "async": bool(hook.get("async", False)), "statusMessage": hook["statusMessage"]}  # fmt: skip
                identity: JSONObject = {"event_name": label, "hooks": [handler]}
                if group.get("matcher") is not None and event not in ("UserPromptSubmit", "Stop"):
                    identity["matcher"] = group["matcher"]
                canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
                digest = hashlib.sha256(canonical.encode()).hexdigest()
                out.append((f"{path}:{label}:{gi}:{hi}", f"sha256:{digest}"))
    return out


def _toml(path: Path, text: str, what: str) -> JSONObject:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: {what} not valid TOML ({exc}); {REFUSE}") from exc


def _trust_update(config: Path, text: str, change: TrustChange) -> str:
    """hookd's block of config.toml with the trust entries of `change.doc`'s hookd handlers (replacing
    those of its file) and, for a project's hooks.json, the project's trust level (a project's hooks load
    only when the project is trusted). Refuses a config.toml that does not parse, before or after the
    change, and a project the user marked as anything but trusted."""
    path = change.settings
    start = text.find(_TRUST_BEGIN)
    end = text.find(_TRUST_END, start)
    ours: JSONObject = {}
    rest = text
    if start >= 0 and end >= 0:
        ours = _toml(config, text[start:end], "is")
        rest = text[:start].rstrip("\n") + text[end + len(_TRUST_END) :]
    mine = f"{path}:"
    entries = [(key, value["trusted_hash"]) for key, value in ours.get("hooks", {}).get("state", {}).items()
               if not key.startswith(mine)]  # fmt: skip
    entries += codex_trust_entries(path, change.doc, change.hook_name)
    projects = [d for d in ours.get("projects", {}) if d != str(path.parent.parent)]
    if change.project_dir is not None and change.doc is not None:
        level = _toml(config, rest, "is").get("projects", {}).get(str(change.project_dir), {}).get("trust_level")
        if level not in (None, "trusted"):
            raise SettingsError(f'{config}: project {change.project_dir} has trust_level = "{level}"; '
                                "hookd will not change it")  # fmt: skip
        if level is None:
            projects.append(str(change.project_dir))
    block = "".join(f'\n[hooks.state.{json.dumps(key)}]\nenabled = true\ntrusted_hash = "{digest}"\n'
                    for key, digest in entries)  # fmt: skip
    block += "".join(f'\n[projects.{json.dumps(d)}]\ntrust_level = "trusted"\n' for d in dict.fromkeys(projects))
    new = (rest.rstrip("\n") + "\n\n" if rest.strip() else "") + f"{_TRUST_BEGIN}\n{block}{_TRUST_END}\n"
    if not block:
        new = rest if rest.strip() else ""
    _toml(config, text, "is")
    _toml(config, new, "would be")
    return new


def _trust_missing(config: Path, text: str, change: TrustChange) -> str:
    """Why Codex would skip one of hookd's hooks: no current trust entry, or one switched off."""
    try:
        state = _toml(config, text, "is").get("hooks", {}).get("state", {})
    except SettingsError as exc:
        return f"{exc}: Codex trusts none of hookd's hooks"
    for key, digest in codex_trust_entries(change.settings, change.doc, change.hook_name):
        entry = state.get(key) if isinstance(state, dict) else None
        label = key.rsplit(":", 3)[-3]
        if not isinstance(entry, dict) or entry.get("trusted_hash") != digest:
            return f"{config} has no current trust entry for hookd's {label} hook: Codex CLI skips it without a word"
        if entry.get("enabled") is False:
            return f"hookd's {label} hook is switched off in {config}"
    if change.project_dir is not None:
        level = _toml(config, text, "is").get("projects", {}).get(str(change.project_dir), {}).get("trust_level")
        if level != "trusted":
            return f"{config} does not trust the project {change.project_dir}: Codex CLI loads none of its hooks"
    return ""


# Codex's managed scope: `[[hooks.<Event>]]` tables in requirements.toml (trusted without review, not
# disableable by the user) and, with --managed-hooks-only, the top-level `allow_managed_hooks_only`, which
# must come before every table. Both are marked blocks hookd owns; the rest of the file is kept as written.
_REQ_TOP = ("# BEGIN hookd: top-level keys (written by hookd install; do not edit)", "# END hookd: top-level keys")
_REQ_HOOKS = ("# BEGIN hookd: managed hooks (written by hookd install; do not edit)", "# END hookd: managed hooks")


def _cut_block(text: str, marks: tuple[str, str]) -> str:
    start = text.find(marks[0])
    end = text.find(marks[1], start)
    if start < 0 or end < 0:
        return text
    return text[:start] + text[end + len(marks[1]) :].lstrip("\n")


def _requirements(path: Path, text: str, entries: tuple[HookEntry, ...] | None, managed_only: bool) -> str:
    """requirements.toml with hookd's managed hooks (entries None: without them)."""
    rest = _cut_block(_cut_block(text, _REQ_TOP), _REQ_HOOKS).rstrip("\n")
    new = rest + "\n" if rest else ""
    if entries is not None:
        tables = "".join(
            f'\n[[hooks.{e.event}]]\n[[hooks.{e.event}.hooks]]\ntype = "command"\n'
            f"command = {json.dumps(e.command)}\ntimeout = {e.seconds}\nstatusMessage = {json.dumps(e.name)}\n"
            for e in entries
        )
        top = f"{_REQ_TOP[0]}\nallow_managed_hooks_only = true\n{_REQ_TOP[1]}\n\n" if managed_only else ""
        body = f"{_REQ_HOOKS[0]}\n{tables}{_REQ_HOOKS[1]}\n"
        new = f"{top}{rest}\n\n{body}" if rest else f"{top}{body}"
    _toml(path, text, "is")
    _toml(path, new, "would be")
    return new


def _requirements_events(text: str) -> tuple[str, ...]:
    block = text[text.find(_REQ_HOOKS[0]) :] if _REQ_HOOKS[0] in text else ""
    return tuple(e for e in _LABELS if f"[[hooks.{e}]]" in block)


def _bypass(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> tuple[Path, ...]:
    """The system config layers can switch hooks off (`[features] hooks = false`) for every scope."""
    if scope != "managed":
        return ()
    return (system_path(env, "/etc/codex/config.toml"), system_path(env, "/etc/codex/managed_config.toml"))


_INSTALLED = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "Stop")


def _agent_event(name: str) -> AgentEvent:
    closed = name in ("PreToolUse", "PermissionRequest", "PostToolUse", "UserPromptSubmit")
    output = fail_output(name, REASON) if closed else None
    # `codex exec` shows nothing of a blocked prompt, not even the reason (measured, 0.171.0)
    return AgentEvent(
        name, CODEX_EVENTS[name], output, closed, name in _INSTALLED, tell_user=name == "UserPromptSubmit"
    )


SPEC = AgentSpec(
    name="codex",
    title="Codex CLI",
    dialect=CodexDialect(),
    events=tuple(_agent_event(name) for name in CODEX_EVENTS),
    tools=TOOLS,
    install=InstallSpec(
        scopes=("user", "project", "managed"),
        settings_path=_settings_path,
        entry=_entry,
        trust=Trust(_trust_path, _trust_update, _trust_missing, beside="config.toml", keys=("hooks", "projects")),
        text_settings=TextSettings(".toml", _requirements, _requirements_events),
        timeout_unit_ms=1000,
        marker=False,
        identity="statusMessage",
        managed_only_key="allow_managed_hooks_only",
        hooks_off=(
            Switch("config.toml", "features.hooks", False),
            Switch("config.toml", "features.codex_hooks", False),
            # a profile's keys win over the top level's when `profile = NAME` (or `--profile NAME`) selects it
            # (https://github.com/openai/codex/blob/main/docs/config.md, "profiles"): the same switches in any one
            Switch("config.toml", "profiles.*.features.hooks", False),
            Switch("config.toml", "profiles.*.features.codex_hooks", False),
        ),
        # config.toml's commands Codex starts itself, outside its hooks: a local (stdio) MCP server's `command`,
        # `notify` after each turn (https://developers.openai.com/codex/config-advanced); a patch or write that
        # leaves them as they were is judged by these keys like any settings edit
        judged_switch_keys=("mcp_servers[local]", "notify"),
        bypass=_bypass,
        location_env=("CODEX_HOME",),
        # 0.171.0 `codex exec --help`: -c/--config key=value overrides config.toml, --disable <feature> is
        # -c features.<feature>=false, --ignore-user-config skips config.toml (its hooks trust with it),
        # -p/--profile <name> layers $CODEX_HOME/<name>.config.toml over it (tests/e2e/test_switches.py).
        unguarded_options=(
            Option(("-c", "--config"), "override"),
            Option(("-p", "--profile"), "profile", file="{}.config.toml"),
            Option(("--disable",), "feature"),
            Option(("--ignore-user-config",)),
        ),
        # `codex features disable NAME` writes `[features] NAME = false` into config.toml, the persisted
        # `--disable NAME` (https://developers.openai.com/codex/cli/reference, `codex features`); `codex mcp add
        # NAME -- CMD` writes a stdio server Codex starts itself (https://developers.openai.com/codex/mcp)
        settings_commands=(
            SettingsCommand(("features", "disable"), "feature"),
            SettingsCommand(("mcp", "add"), "server"),
        ),
    ),
    process_names=("codex",),
    packages=("@openai/codex",),
    subagents=SubAgents(guarded="tests/e2e/test_subagents.py [codex], 0.171.0, multi-agent v1 and v2"),
)
