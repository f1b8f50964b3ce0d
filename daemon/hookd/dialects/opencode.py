"""OpenCode (1.18.33): hookd as an in-process plugin. No I/O.

OpenCode runs no hook commands; its plugins (JS/TS modules in a `plugin/` directory of the user's or the
project's config, or named in the config's `"plugin"` list) get `tool.execute.before(input, output)` for
every tool call: throwing blocks the call (the model gets the error's message as the tool result) and
changing `output.args` changes what runs. `hookd install --client opencode` writes hookd's plugin
(`client_shim/hookd_opencode.js`, with the shim's command line filled in): it sends each call to the shim
as a Claude-like payload and applies the shim's answer, which this dialect renders:

* allow: nothing;
* deny, ask, halt: `{"decision": "deny", "reason": …}`, which the plugin throws (OpenCode's headless
  `run` has no prompt of its own for a plugin, so an ask is a deny: noted);
* rewrite: `{"args": <the complete new arguments>}`, which the plugin puts in place of the call's;
* context: not carried (a plugin cannot add text for the model): noted.

The plugin fails closed on its own: a shim that cannot start, is killed, exits non-zero or answers
something that is not JSON makes it throw, and the shim's own fail output when hookd is down is the deny.
Kilo Code CLI is a fork with other directories: hookd.dialects.kilo builds its spec with `plugin_agent`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from hookd.dialects.common import (
    claude_shaped_event,
    dump_json,
    load_payload,
    named_tool,
    note_unused_rewrites,
    rewritten_tool_input,
    string_field,
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
    TextSettings,
    Trust,
    TrustChange,
    system_path,
)
from hookd.errors import DialectError, SettingsError, one_line
from hookd.runtime.resources import shipped
from hookd.types import (
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

BEFORE = "tool.execute.before"
EVENTS: Mapping[str, Event] = {BEFORE: Event.BEFORE_TOOL}
_READ, _WRITE = "read", "write"
# OpenCode's built-in tools and their arguments (1.18.33; Kilo keeps them).
TOOLS: Mapping[str, ToolSpec] = {
    "bash": ToolSpec(ToolKind.SHELL, cwd_args=("workdir",)),
    "read": ToolSpec(ToolKind.READ, (("filePath", _READ),)),
    "list": ToolSpec(ToolKind.READ, (("path", _READ),), lists=("path",)),
    "glob": ToolSpec(ToolKind.READ, (("path", _READ), ("pattern", _READ)), {"pattern": "path"}),
    # grep reads every file its `include` filter (rg --glob) reaches under `path` (every file, with none).
    "grep": ToolSpec(
        ToolKind.READ, (("path", _READ), ("include", _READ)), {"include": "path"}, globs={"include": "search"}
    ),
    "write": ToolSpec(ToolKind.WRITE, (("filePath", _WRITE),), content="content"),
    "edit": ToolSpec(ToolKind.EDIT, (("filePath", _WRITE),), replace=("oldString", "newString")),
    "multiedit": ToolSpec(ToolKind.EDIT, (("filePath", _WRITE),)),
    "patch": ToolSpec(ToolKind.EDIT, patches=("patchText",)),
    "apply_patch": ToolSpec(ToolKind.EDIT, patches=("patchText",)),  # Codex's patch format
    "webfetch": ToolSpec(ToolKind.WEB),
    "websearch": ToolSpec(ToolKind.WEB),
}
PLUGIN_TEMPLATE = "client_shim/hookd_opencode.js"
_HOOKS_LINE = "const HOOKS = {}; // HOOKD-HOOKS"
PROJECT_DIR_ENV = "OPENCODE_PROJECT_DIR"  # set by hookd's plugin for the shim
HOOK_NAME = "hookd"


class PluginDialect:
    """The dialect of hookd's plugin, for OpenCode and its forks (`client` names which)."""

    handles_headless_ask = True  # an ask is rendered as a deny

    def __init__(self, client: str, title: str) -> None:
        self.client = client
        self.title = title

    def parse(self, request: HookRequest) -> NormalisedEvent:
        payload = load_payload(request.payload)
        name = request.event or string_field(payload, "hook_event_name")
        if name not in EVENTS:
            raise DialectError(f"unknown {self.title} plugin event {name!r}")
        tool, args, mcp = named_tool(name, payload)
        spec = TOOLS.get(tool) or ToolSpec(ToolKind.MCP if mcp else ToolKind.OTHER)
        call = ToolCall(name=tool, kind=spec.kind, input=args, mcp=mcp, spec=spec)
        return claude_shaped_event(
            request, payload, name, client=self.client, event=EVENTS[name], tool=call, project_env=PROJECT_DIR_ENV
        )

    def render(self, event: NormalisedEvent, decision: Decision) -> Reply:
        notes: list[str] = []
        if decision.contexts:
            notes.append(f"context not carried: a {self.title} plugin cannot add text for the model")
        if decision.outcome in (Outcome.DENY, Outcome.ASK, Outcome.HALT):
            if decision.outcome is not Outcome.DENY:
                notes.append(f"{decision.outcome.name.lower()} mapped to deny: the plugin can only block the call")
            reason = decision.explain("denied by hookd policy" if decision.outcome is Outcome.DENY else decision.reason)
            return Reply(dump_json(_deny(reason)), notes=tuple(notes))
        note_unused_rewrites(BEFORE, decision, notes, "tool_input")
        full = rewritten_tool_input(event, decision, notes)
        if full is None:
            return Reply(notes=tuple(notes))
        return Reply(dump_json({"args": full}), notes=tuple(notes))

    def fail_reply(self, event: Event, reason: str) -> Reply:
        if event is not Event.BEFORE_TOOL:
            return Reply()
        return Reply(dump_json(_deny(one_line(reason))))


def _deny(reason: str) -> dict[str, Any]:
    return {"decision": "deny", "reason": reason}


def plugin_text(path: Path, old: str, entries: tuple[HookEntry, ...] | None, managed_only: bool) -> str:
    """hookd's plugin file with the shim's command per event ("" when uninstalling: the file is emptied)."""
    del path, old, managed_only
    if entries is None:
        return ""
    hooks = {e.event: {"argv": [e.command, *e.args], "timeout_ms": e.timeout_ms} for e in entries}
    template = shipped(PLUGIN_TEMPLATE).read_text()
    filled = f"const HOOKS = {dump_json(hooks).decode('ascii')}; // HOOKD-HOOKS"
    return template.replace(_HOOKS_LINE, filled, 1)


def plugin_events(text: str) -> tuple[str, ...]:
    return tuple(plugin_doc(text).get("hooks", {}))


def plugin_doc(text: str) -> dict[str, Any]:
    """hookd's plugin file as the settings document `hookd doctor` reads: each event's shim as an exec-form
    handler named hookd ({} when the HOOKS line is missing or not JSON: then nothing of hookd's is there)."""
    line = next((line for line in text.splitlines() if line.endswith(" // HOOKD-HOOKS")), "")
    body = line.removeprefix("const HOOKS = ").removesuffix("; // HOOKD-HOOKS")
    try:
        hooks = json.loads(body)
    except ValueError:
        return {}
    out: dict[str, Any] = {}
    for event, hook in hooks.items() if isinstance(hooks, dict) else ():
        argv = hook.get("argv") if isinstance(hook, dict) else None
        if isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv):
            handler = {"type": "command", "name": HOOK_NAME, "command": argv[0], "args": argv[1:],
                       "timeout": hook.get("timeout_ms")}  # fmt: skip
            out[event] = [{"hooks": [handler]}]
    return {"hooks": out} if out else {}


def _no_entry(entry: HookEntry) -> JSONObject:
    raise AssertionError(f"{entry.event}: a plugin agent's hooks are its plugin file, not settings entries")


Locate = Callable[[str, Path, Path, Mapping[str, str]], Path]
# How the managed config names hookd's plugin: relative to the config file's folder (the agent resolves a
# "./" entry there), so that it holds wherever the folder is (a test's $HOOKD_SYSTEM_ROOT included).
MANAGED_ENTRY = "./plugin/hookd.js"


def managed_trust(title: str, config_name: str, config_dir: Locate) -> Trust:
    """The managed folder's plugin directory is not scanned (only its config files are read): the managed
    config's `"plugin"` list must name hookd's plugin for the agent to load it. Uninstall takes the entry
    out again."""

    def path(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> Path | None:
        return config_dir(scope, home, project_dir, env) / config_name if scope == "managed" else None

    def update(config: Path, text: str, change: TrustChange) -> str:
        doc, plugins = _plugin_list(config, text)
        kept = [p for p in plugins if p != MANAGED_ENTRY]
        doc["plugin"] = kept if change.doc is None else [*kept, MANAGED_ENTRY]
        if not doc["plugin"]:
            del doc["plugin"]
        return json.dumps(doc, indent=2) + "\n"

    def missing(config: Path, text: str, change: TrustChange) -> str:
        try:
            _, plugins = _plugin_list(config, text)
        except SettingsError as exc:
            return str(exc)
        if MANAGED_ENTRY in plugins:
            return ""
        return f'{config} does not name {MANAGED_ENTRY} in its "plugin" list: {title} does not load hookd\'s plugin'

    return Trust(path, update, missing, keys=("plugin",), names_hookd=True)


def _plugin_list(config: Path, text: str) -> tuple[dict[str, Any], list[Any]]:
    refuse = 'hookd changes only a JSON object whose "plugin" is a list; fix it by hand'
    try:
        doc = json.loads(text) if text.strip() else {}
    except ValueError:
        raise SettingsError(f"{config}: not JSON; {refuse}") from None
    plugins = doc.get("plugin", []) if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or not isinstance(plugins, list):
        raise SettingsError(f"{config}: {refuse}")
    return doc, plugins


# The variables (after OpenCode's or a fork's prefix) that move or add to the config hookd's plugin is in.
_MOVES = ("TEST_HOME", "TEST_MANAGED_CONFIG_DIR", "CONFIG", "CONFIG_DIR", "CONFIG_CONTENT", "DISABLE_PROJECT_CONFIG")


_BYPASS_KEYS = ("plugin", "plugins", "mcp[local]", "lsp", "formatter[local]", "experimental", "hooks", "hookd")


def plugin_agent(
    name: str, title: str, config_dir: Locate, bypass: Callable[..., tuple[Path, ...]], managed_config: str,
    pure_env: str, subagents: SubAgents, packages: tuple[str, ...] = (),
) -> AgentSpec:  # fmt: skip
    """The spec of OpenCode or a fork: `config_dir(scope, home, project, env)` is the scope's config folder,
    whose `plugin/hookd.js` install writes; at the managed scope, `managed_config` in that folder must name
    it (managed_trust). `pure_env` set (what `--pure` sets) loads no external plugin, hookd's included."""

    prefix = pure_env.removesuffix("PURE")

    def settings_path(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> Path:
        return config_dir(scope, home, project_dir, env) / "plugin" / "hookd.js"

    event = AgentEvent(BEFORE, Event.BEFORE_TOOL, _deny(REASON), fail_closed=True)
    return AgentSpec(
        name=name,
        title=title,
        dialect=PluginDialect(name, title),
        events=(event,),
        tools=TOOLS,
        install=InstallSpec(
            scopes=("user", "project", "managed"),
            settings_path=settings_path,
            entry=_no_entry,
            exec_form=True,
            marker=False,
            text_settings=TextSettings(".js", plugin_text, plugin_events, plugin_doc),
            trust=managed_trust(title, managed_config, config_dir),
            bypass=bypass,
            # a config's plugins run in the process beside hookd's; a local MCP server, LSP server or formatter is
            # a command the agent starts itself (https://opencode.ai/docs/config/, /docs/formatters). The files
            # `instructions` name are judged as the reads they are (enrich/context_files.py). A local server's and a
            # formatter's entry that only says which program starts is judged by its command line (`[local]`:
            # hookd/selfprotect_keys.py, agentcfg40); an LSP server stays guarded whole.
            # `plugins` is the list's newer name, where `-ID` disables a plugin (https://opencode.ai/v2/docs/plugins/)
            bypass_keys=_BYPASS_KEYS,
            jsonc=True,  # config.ts: jsonc-parser's parse(text, errors, {allowTrailingComma: true}), errors refused
            hooks_off_env=(pure_env,),
            # 1.18.33 / Kilo 7.7.9 (the binary's yargs table and env reads): --pure sets <PREFIX>_PURE; the
            # config home hangs from XDG_CONFIG_HOME and <PREFIX>_TEST_HOME, the managed one from
            # <PREFIX>_TEST_MANAGED_CONFIG_DIR; <PREFIX>_CONFIG(_DIR, _CONTENT) add a config whose plugins run
            # beside hookd's; <PREFIX>_DISABLE_PROJECT_CONFIG skips the project scope.
            unguarded_options=(Option(("--pure",)),),
            home_env=("XDG_CONFIG_HOME", *(prefix + v for v in _MOVES)),
        ),
        env=(PROJECT_DIR_ENV,),
        project_dir_env=PROJECT_DIR_ENV,
        process_names=(name,),
        packages=packages,
        version_commands=("upgrade",),  # `opencode upgrade [target]` (its CLI page; a lower target downgrades)
        subagents=subagents,
    )


def _config_dir(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> Path:
    if scope == "managed":  # read last, over every other config (1.18.33: `managedConfigDir`)
        return system_path(env, "/etc/opencode")
    if scope == "user":
        return Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "opencode"
    return project_dir / ".opencode"


def _bypass(scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> tuple[Path, ...]:
    """Every other plugin (a file beside hookd's, or one the config names) runs in the same process and can
    change a call's arguments after hookd judged them; the configs name plugins and permissions."""
    if scope == "managed":  # opencode.json is the managed scope's trust file (managed_trust)
        return (_config_dir(scope, home, project_dir, env) / "opencode.jsonc",)
    folder = _config_dir(scope, home, project_dir, env)
    configs: tuple[Path, ...] = (folder / "opencode.json", folder / "opencode.jsonc", folder / "config.json")
    if scope == "project":  # and every directory above, as OpenCode finds them (`upward`)
        configs += upward(project_dir, home, ("opencode.json", "opencode.jsonc"), (".opencode",))
    else:  # the home's `.opencode`, always scanned as a config directory (its configs and plugins: `home_folder`)
        configs += home_folder(home / ".opencode")
    return (folder / "plugin", folder / "plugins", *configs)


def upward(project_dir: Path, home: Path, names: tuple[str, ...], folders: tuple[str, ...]) -> tuple[Path, ...]:
    """The project configs OpenCode (and each fork, under its names) finds from the project up to its worktree's
    root, `/` outside a git repository (config/paths.ts: `Filesystem.findUp(name, directory, worktree)` for each
    name, `Filesystem.up({targets: [".opencode"], …})`; issue 3407): an `opencode.jsonc` in the home is a project
    layer of every project below it that is not a repository. Every directory above is taken, and the home's: where
    the walk stops is the repository a session starts in, and a later session may start anywhere below the home."""
    places = tuple(dict.fromkeys((project_dir, *project_dir.parents, home)))
    return tuple(
        p for d in places for p in (*(d / n for n in names), *(x for f in folders for x in home_folder(d / f)))
    )


def home_folder(folder: Path) -> tuple[Path, ...]:
    """What OpenCode (and each fork, under its own names) loads from a `.opencode` directory in the home, read as
    one more config directory wherever the agent starts (config.ts, "Always scan user home ~/.opencode/":
    `Filesystem.up({targets: [".opencode"], start: Global.Path.home, stop: Global.Path.home})`, its
    opencode.jsonc and opencode.json, its {plugin,plugins}/ files)."""
    return (folder / "plugin", folder / "plugins", folder / "opencode.json", folder / "opencode.jsonc")


SPEC = plugin_agent("opencode", "OpenCode", _config_dir, _bypass, "opencode.json", "OPENCODE_PURE",
                    SubAgents(guarded="tests/e2e/test_subagents.py [opencode], 1.18.33"),
                    ("opencode-ai", "opencode-linux-x64"))  # fmt: skip
