"""The shape of one agent's module: what hookd knows about an agent, as data.

Each agent is one module in this package (gemini.py, claude.py, …) that ends with one `SPEC`, and
`registry.py` is the one list of them. The module owns everything about its agent: the hook contract,
its settings format(s), scopes and their files, trust entries, how its hooks are switched off (its tamper
surface), its fail-open cases. Everything outside `dialects/` that needs an agent fact (install,
uninstall, doctor, self-protection, the config's fail-mode defaults, the shims' tables, the
interactive-session probe, the tool tables of the enrichers) reads it from a spec, never from an
agent's name.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hookd.dialects.approvals import APPROVALS, NO_APPROVALS, Approvals, RunsAny, approving_keys, runs_none
from hookd.dialects.common import dump_json
from hookd.jsonc import loads as read_jsonc
from hookd.jsonc import strict_loads
from hookd.types import Dialect, Event, ToolKind, ToolSpec

# Where the reason goes in an event's fail-closed output (see AgentEvent.fail_output).
REASON = "\x00reason\x00"


@dataclass(frozen=True, slots=True)
class AgentEvent:
    """One hook event of an agent.

    `fail_output` is the stdout that makes the agent deny when hookd cannot decide, with REASON where
    the one-line reason goes (as a JSON string); None when nothing printed there can block (the
    shims then print nothing). With `fail_exit` set, it is instead text for stderr (the reason as it
    is) and the shims exit with that code (Droid: only an exit 2 is a deny no other hook overrides).
    `fail_closed` is whether that is the default (`--fail` overrides). `install` is False for an
    event that hookd parses but does not register. `vetoes_settings`: the event comes before the
    agent applies a change to its settings files, and a block keeps the change out (a second line of
    self-protection, for changes made outside a guarded tool call). `tell_user`: the agent shows
    nothing of this event's block in a headless run (an empty turn), so when the shim fails closed it
    also writes the one-line reason to the agent's own stderr.
    """

    name: str
    event: Event
    fail_output: Mapping[str, Any] | str | None = None
    fail_closed: bool = False
    install: bool = True
    fail_exit: int = 0
    vetoes_settings: bool = False  # the agent asks before it applies a change to its settings; a block keeps it out
    tell_user: bool = False  # the agent shows nothing of this event's block headless: the shim tells its stderr

    def fail_parts(self) -> tuple[str, str] | None:
        """The fail output split around the reason: (prefix, suffix) of the exact bytes printed."""
        if self.fail_output is None:
            return None
        if isinstance(self.fail_output, str):
            prefix, suffix = self.fail_output.split(REASON)
            return prefix, suffix
        text = dump_json(self.fail_output).decode("ascii")
        marker = dump_json({"r": REASON}).decode("ascii")[5:-1]
        prefix, suffix = text.split(marker)
        return prefix, suffix


def system_path(env: Mapping[str, str], path: str) -> Path:
    """A machine-wide (managed) settings path, under $HOOKD_SYSTEM_ROOT when that is set: tests install
    the managed scope into a scratch tree, never into the real /etc."""
    return Path(env.get("HOOKD_SYSTEM_ROOT") or "/") / path.lstrip("/")


JSONObject = dict[str, Any]
REFUSE = "fix or move it, hookd will not overwrite it"  # the end of every refusal to change a file
Locate = Callable[[str, Path, Path, Mapping[str, str]], Path]  # (scope, home, project dir, environment) -> file


@dataclass(frozen=True, slots=True)
class HookEntry:
    """What hookd registers on one event, before the agent's settings format shapes it (InstallSpec.entry)."""

    event: str
    name: str  # hookd's hook name ("hookd"), the value of the agent's `identity` key
    command: str  # a shell command line; in exec form the program alone
    timeout_ms: int
    args: tuple[str, ...] = ()  # exec form: the program's arguments
    http: Mapping[str, Any] | None = None  # an http hook: {url, headers, allowedEnvVars}
    block_on_failure: bool = False  # the agent blocks when the hook cannot run (where it can be told so)
    description: str = ""

    @property
    def seconds(self) -> int:
        return -(-self.timeout_ms // 1000)  # agents that count seconds: round up


@dataclass(frozen=True, slots=True)
class TrustChange:
    """What a trust file must say after an install (doc: the hooks file's new document) or an uninstall (None)."""

    settings: Path  # the hooks file whose hooks the agent must trust
    doc: Mapping[str, Any] | None
    hook_name: str
    project_dir: Path | None  # project scope: the folder the agent must trust too


@dataclass(frozen=True, slots=True)
class Trust:
    """Where and how the agent records that it trusts a scope's hooks (Codex's hashes, Copilot's folders).

    `update` maps the trust file's text (\"\" when missing) to its new text, or raises SettingsError to
    refuse (before anything is written); `missing` says, for `hookd doctor`, why the agent would skip
    hookd's hooks ('' when it trusts them)."""

    path: Callable[[str, Path, Path, Mapping[str, str]], Path | None]
    update: Callable[[Path, str, TrustChange], str]
    missing: Callable[[Path, str, TrustChange], str]
    beside: str = ""  # the trust file's name beside the settings file, where a plan names no trust file
    keys: tuple[str, ...] = ()  # the keys of the trust file that carry trust (empty: all of it)
    # The trust entry names hookd's own file (OpenCode's managed "plugin" list): trusted while that file is
    # gone means hookd's hooks were removed, not that hookd was never installed there.
    names_hookd: bool = False


@dataclass(frozen=True, slots=True)
class TextSettings:
    """A settings file of the agent's own text format (Codex's requirements.toml), chosen by its suffix:
    `render(path, text, entries, managed_only)` gives the new text (entries None: hookd's removed), and
    `events(text)` the events hookd has in it. `doc(text)`, for a format that is neither JSON nor TOML
    (OpenCode's plugin file), is the text as the settings document `hookd doctor` reads (hookd's
    hooks under `hooks.<event>`)."""

    suffix: str
    render: Callable[[Path, str, tuple[HookEntry, ...] | None, bool], str]
    events: Callable[[str], tuple[str, ...]]
    doc: Callable[[str], dict[str, Any]] | None = None


@dataclass(frozen=True, slots=True)
class Switch:
    """A setting that switches every hook off: in a file beside the scope's settings file (\"\" for that file
    itself), a dotted key, and the value that switches them off."""

    beside: str
    key: str
    off: Any


@dataclass(frozen=True, slots=True)
class Option:
    """A command-line option that starts the agent without hookd's hooks (InstallSpec.unguarded_options),
    judged by hookd.dialects.launch. `takes`: "" a flag whose presence switches them off (`--x=false`
    and `--no-x` do not); "settings" a JSON document or a file holding one, off when it sets one of the
    agent's hooks_off switches (beside "") or gives `hooks`; "override" `key=value`, off when the key is
    such a switch key, `hooks`, or a key above or under one; "feature" a feature name, off when
    `features.<name>` is such a switch key; "scopes" a comma list of setting sources, off unless it names
    every scope the agent has but managed; "profile" a name whose settings file (`file` formatted with it,
    beside the agent's user settings file) is layered over them, off when that file sets such a key or
    cannot be read."""

    names: tuple[str, ...]
    takes: str = ""
    file: str = ""


@dataclass(frozen=True, slots=True)
class SettingsCommand:
    """A command of the agent's own CLI that writes its settings for every later session (InstallSpec.
    settings_commands), judged by hookd.dialects.launch as the start option of the same meaning is: `words`
    after the program (`features disable`), or, for `takes` "slash", the words a prompt starts with (a built-in
    slash command run headless: `gemini -p '/hooks disable hookd'`). `takes`: "feature" the next word names a
    feature switched off (off when `features.<name>` is a hooks_off key); "server" a stdio MCP server is added,
    a command the agent starts itself outside its hooks (a `--` and a command, or a command after the name; not
    a remote one: a URL, `--url`, a `--transport` of http or sse); "slash" the command itself switches hooks;
    "install" a plugin or extension is installed, linked or enabled into the places that bring in hooks from
    elsewhere (InstallSpec.bypass: its hooks and settings load beside hookd's, as a file written there would)."""

    words: tuple[str, ...]
    takes: str


# Gemini CLI's and Qwen Code's shared CLI: `mcp add NAME CMD` stores a stdio server (https://geminicli.com/docs/tools/
# mcp-server/); `extensions install SOURCE`, `link PATH`, `enable NAME` put an extension, its hooks and settings
# included, among those the agent loads (https://geminicli.com/docs/extensions/, Qwen's namesake; blind-tamper-17)
MCP_AND_EXTENSION_COMMANDS = (
    SettingsCommand(("mcp", "add"), "server"),
    *(SettingsCommand(("extensions", verb), "install") for verb in ("install", "link", "enable")),
)


@dataclass(frozen=True, slots=True)
class InstallSpec:
    """How `hookd install` registers hookd with the agent, and how its hooks can be switched off.

    `entry` shapes one HookEntry into the agent's hook definition (what goes into `hooks.<Event>`);
    `exec_form` when the agent runs a program with an argument list (no shell). `settings_path` maps
    (scope, home, project directory, environment) to the file of that scope; `scopes` lists them.
    `own_file`: the file is hookd's alone (written whole, with these top-level keys; every handler in it is
    hookd's). `enable_key`:
    a dotted key install sets to true (and uninstall restores) for hooks to run at all. `trust` is
    where the agent records that it trusts the scope's hooks, None where nothing needs trusting.
    `managed_only_file` is the file that takes `managed_only_key` when that is not the settings file
    itself (relative to its directory). `hooks_off` and `run_order` are what `hookd doctor` checks
    beyond hookd's own entries; `bypass` names the places beyond those where something can switch
    hookd's hooks off or override them (an extensions or plugins directory, another hooks file): with
    the settings, trust and switch files they are the agent's tamper surface (AgentSpec.tamper_surface).
    """

    scopes: tuple[str, ...]
    settings_path: Locate
    entry: Callable[[HookEntry], JSONObject]
    timeout_unit_ms: int = 1
    transports: tuple[str, ...] = ("command",)
    http_command_only: frozenset[str] = frozenset()  # events the agent never sends to an http hook
    exec_form: bool = False
    own_file: Mapping[str, Any] | None = None  # hookd's own file: its top-level keys beside `hooks`
    enable_key: str = ""
    marker: bool = True  # the file takes hookd's top-level install record (a closed schema does not)
    identity: str = "name"  # the handler key whose value is hookd's hook name
    managed_only_key: str = ""  # the managed setting that lets only managed hooks run (--managed-hooks-only)
    managed_only_file: str = ""
    trust: Trust | None = None
    text_settings: TextSettings | None = None
    hooks_off: tuple[Switch, ...] = ()
    switch_keys: tuple[str, ...] = ()  # keys of the hooks_off files that switch hooks off one by one
    guarded_keys: tuple[str, ...] = ()  # other keys of the settings file whose change can switch hooks off
    # other keys of the switch files beside it whose change starts a command outside the hooks (judged on edits;
    # not hooks skipped one by one, which `switch_keys` are and doctor reports)
    judged_switch_keys: tuple[str, ...] = ()
    # The scopes in the order the agent runs their hooks, when a later hook's answer replaces an earlier
    # one's (a later allow undoing hookd's deny); empty when a deny from any hook stands.
    run_order: tuple[str, ...] = ()
    bypass: Callable[[str, Path, Path, Mapping[str, str]], tuple[Path, ...]] | None = None
    # The keys of a JSON configuration among `bypass` that bring in code beside hookd's hooks (OpenCode's and
    # Kilo's `plugin`, a local MCP server's command: `mcp[local]`): a change that keeps them keeps hookd whole.
    # Empty: any change of a bypass file is the policy's to deny.
    bypass_keys: tuple[str, ...] = ()
    # The agent reads its JSON configuration as JSONC (comments, trailing commas: OpenCode's and Kilo's jsonc-parser),
    # so hookd reads those files the same way (hookd/jsonc.py); else a comment makes a file unreadable, refused.
    jsonc: bool = False
    # The file that makes a directory of `bypass`'s `extensions` directory an extension (Gemini's
    # gemini-extension.json): an installed extension's manifest and command files are judged by what they hold
    # (hookd/selfprotect_keys.py `extension_judge`), every other file of it stays guarded whole.
    extension_manifest: str = ""
    # The variables that move the agent's files (read by settings_path and bypass): the shims forward them,
    # so that the daemon protects the files the agent really reads.
    location_env: tuple[str, ...] = ()
    # Variables that, set in the agent's environment, make it run none of hookd's hooks (OpenCode's
    # OPENCODE_PURE: no external plugin): `hookd doctor` names them when they are set where it runs.
    hooks_off_env: tuple[str, ...] = ()
    # The options that start the agent without hookd's hooks (a nested agent started from a guarded shell).
    unguarded_options: tuple[Option, ...] = ()
    # The agent's own CLI commands that change its settings for later sessions (`codex features disable hooks`).
    settings_commands: tuple[SettingsCommand, ...] = ()
    # Variables beyond `location_env` (and HOME, which every agent's settings hang from) that make it read its
    # settings or plugins from elsewhere, add a source over them or skip a scope: set to another value for a
    # nested start, hookd's hooks may not be there.
    home_env: tuple[str, ...] = ()

    def trust_path(self, scope: str, home: Path, project_dir: Path, env: Mapping[str, str]) -> Path | None:
        return self.trust.path(scope, home, project_dir, env) if self.trust is not None else None


@dataclass(frozen=True, slots=True)
class Surface:
    """One place whose change can switch an agent's hooks off or bypass them (its tamper surface).

    `keys` are the dotted keys of a settings file that carry hookd's hooks, their switches and trust: a
    change that leaves them all as they were cannot touch hookd (`keeps_hooks`). Empty: any change can
    (hookd's own file, a directory, a file in a format hookd does not read)."""

    path: Path
    what: str  # for people: "Codex CLI user hook settings", "Qwen Code user hooks from elsewhere"
    scope: str
    kind: str  # "settings" (hookd's hooks), "switch", "trust", "bypass"
    keys: tuple[str, ...] = ()
    jsonc: bool = False  # the agent reads this JSON file with comments and trailing commas (InstallSpec.jsonc)
    manifest: str = ""  # a directory of extensions, each made one by this manifest (InstallSpec.extension_manifest)
    # the agent's keys whose value approves every call (hookd.dialects.approvals): a change that moves one there
    # does not keep hookd whole, one that leaves or narrows them may
    approvals: Approvals = NO_APPROVALS


# A local MCP server entry whose change the effect model judges as the command line it starts (hookd/
# selfprotect_keys.py): left out of the comparison of `KEY[local]` keys. The default judges none.
LaterRun = Callable[[Mapping[str, Any]], bool]


def _judges_none(entry: Mapping[str, Any]) -> bool:
    return False


def keeps_hooks(
    surface: Surface, old: str | None, new: str, later: LaterRun = _judges_none, runs_any: RunsAny = runs_none
) -> bool:
    """Does replacing the text `old` (None: no file) of `surface` by `new` leave every key that carries
    hookd's hooks, a switch or trust as it was? False whenever either text cannot be read as the
    settings format (JSON, JSONC where the agent reads that, TOML by suffix) or the surface has no keys to
    compare. `later`: the local MCP server entries whose command line the effect model judges instead; `runs_any`:
    the programs that run whatever they are given (a rule for one approves every call: approving_keys)."""
    if not surface.keys:
        return False
    try:
        before = settings_doc(surface.path, old or "", surface.jsonc)
        after = settings_doc(surface.path, new, surface.jsonc)
    except ValueError:
        return False
    if approving_keys(after, surface.approvals, runs_any) - approving_keys(before, surface.approvals, runs_any):
        return False
    return all(judged_value(before, key, later) == judged_value(after, key, later) for key in surface.keys)


def judged_value(doc: Mapping[str, Any], key: str, later: LaterRun = _judges_none) -> Any:
    """The value at a dotted key, or for `KEY[local]` its entries that run a command on this machine (an MCP
    server of `type` other than `remote`: https://opencode.ai/docs/mcp-servers/): a remote one added keeps it,
    and so does one whose command line the effect model judges (`later`)."""
    if not key.endswith("[local]"):
        return dotted(doc, key)
    value = dotted(doc, key.removesuffix("[local]"))
    if value is MISSING:
        return {}  # (none, as no local one)
    if not isinstance(value, Mapping):
        return value
    if isinstance(value.get("servers"), Mapping) and "command" not in value["servers"]:
        value = {**value, **value["servers"]}  # OpenCode V2 names its servers under `mcp.servers`
        del value["servers"]
    return {
        name: entry
        for name, entry in value.items()
        if not (isinstance(entry, Mapping) and (_remote(entry) or later(entry)))
    }


def _remote(entry: Mapping[str, Any]) -> bool:
    """An MCP server another host runs: OpenCode's `type: remote`, or one reached by `url` with no `command`
    (Codex's streamable HTTP servers, https://developers.openai.com/codex/config-advanced)."""
    return entry.get("type") == "remote" or ("url" in entry and "command" not in entry)


MISSING = object()


def settings_doc(path: Path, text: str, jsonc: bool = False) -> Mapping[str, Any]:
    """A settings file's text as a document: TOML by its suffix, else JSON (JSONC for a `.jsonc` file or where the
    agent reads its JSON so: `jsonc`); ValueError when it is neither."""
    if not text.strip():
        return {}
    if path.suffix == ".toml":
        import tomllib

        try:
            return tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError) as exc:  # nested deeper than the reader goes: unreadable
            raise ValueError(str(exc)) from None
    try:
        # an agent's JSON with comments is refused as unreadable, unless the agent itself reads it as JSONC
        doc = read_jsonc(text) if jsonc or path.suffix == ".jsonc" else strict_loads(text)
    except RecursionError:  # nested deeper than the decoder goes (2,000 `[` in 4 KB): unreadable, not a failure
        raise ValueError("nested deeper than hookd reads") from None
    if not isinstance(doc, dict):
        raise ValueError("not an object")
    return doc


def dotted(doc: Mapping[str, Any], key: str) -> Any:
    """The value at a dotted key; MISSING when there is none. A `*` part is every entry of that table: the
    value is `{name: the rest's value}` of the entries that have it (Codex's `profiles.*.features.hooks`)."""
    value: Any = doc
    parts = key.split(".")
    for i, part in enumerate(parts):
        if not isinstance(value, Mapping):
            return MISSING
        if part == "*":
            rest = ".".join(parts[i + 1 :])
            found = {name: dotted(entry, rest) if rest else entry for name, entry in value.items()}
            return {name: v for name, v in found.items() if v is not MISSING} or MISSING
        if part not in value:
            return MISSING
        value = value[part]
    return value


def _keys(keys: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(k for k in keys if k))


def _merged(surfaces: list[Surface]) -> tuple[Surface, ...]:
    """One surface per path: the first to name it, with the keys of all (none when any guards it whole)."""
    by_path: dict[Path, Surface] = {}
    for surface in surfaces:
        first = by_path.get(surface.path)
        if first is None:
            by_path[surface.path] = surface
        elif first.keys:
            keys = _keys((*first.keys, *surface.keys)) if surface.keys else ()
            jsonc = first.jsonc or surface.jsonc
            by_path[surface.path] = Surface(first.path, first.what, first.scope, first.kind, keys, jsonc)
    return tuple(by_path.values())


@dataclass(frozen=True, slots=True)
class SubAgents:
    """How the agent's sub-agents (the agents its model starts with a tool) meet its hooks.

    `guarded`: the evidence that a sub-agent's tool calls fire the same hooks as the main session's (the
    real-CLI test, on which version), "" when that is not known: `hookd doctor` then says so. `unseen`:
    (home, project dir, environment) -> the sub-agent definitions whose tool calls fire no hook on this
    machine, each with why (Gemini's remote agents run on their own server); only the call that starts
    one is judged."""

    guarded: str = ""
    unseen: Callable[[Path, Path, Mapping[str, str]], tuple[tuple[Path, str], ...]] | None = None


@dataclass(frozen=True, slots=True)
class AgentSpec:
    name: str  # the registry key, the shim's CLIENT argument and `input.client`
    title: str  # for people: "Gemini CLI"
    dialect: Dialect
    events: tuple[AgentEvent, ...]
    tools: Mapping[str, ToolSpec]
    install: InstallSpec
    env: tuple[str, ...] = ()  # variables the agent sets for a hook that the shims forward to hookd
    project_dir_env: str = ""  # the one of `env` that names the project directory
    process_names: tuple[str, ...] = ()  # basenames of the agent's process (or its script), for the probe
    packages: tuple[str, ...] = ()  # its npm packages: what `npx <package>` starts (hookd.dialects.launch)
    # its own subcommands that install a release TARGET in its place (`claude install 1.0.20`, `opencode upgrade
    # 0.1.48`): hookd.selfprotect_installs
    version_commands: tuple[str, ...] = ()
    # Its headless behaviour, for the probe: the options that make a run headless (no one to answer an
    # ask) or interactive whatever its stdin (`--opt` also matches `--opt=value`).
    headless_flags: tuple[str, ...] = ()
    interactive_flags: tuple[str, ...] = ()
    mcp_prefix: str = "mcp__"
    subagents: SubAgents = SubAgents()
    event_index: Mapping[str, AgentEvent] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "event_index", {e.name: e for e in self.events})

    def tamper_surface(self, home: Path, project_dir: Path, env: Mapping[str, str]) -> tuple[Surface, ...]:
        """Every file or directory, in every scope, whose change can switch this agent's hooks off or let
        another hook override hookd's: the settings files, the files of their switches, trust and
        managed-only switch, and what `bypass` names. Derived from this spec, never listed by hand."""
        spec, out = self.install, []
        own = spec.own_file is not None
        settings_keys = (
            "hooks", "hookd", spec.enable_key, spec.managed_only_key if not spec.managed_only_file else "",
            *(s.key for s in spec.hooks_off if not s.beside), *spec.guarded_keys,
        )  # fmt: skip
        switch_keys = (*(s.key for s in spec.hooks_off if s.beside), *spec.switch_keys, *spec.judged_switch_keys)
        for scope in spec.scopes:
            settings = spec.settings_path(scope, home, project_dir, env)
            text_format = spec.text_settings is not None and settings.suffix == spec.text_settings.suffix
            keys = () if own or text_format else settings_keys
            out.append(Surface(settings, f"{self.title} {scope} hook settings", scope, "settings", _keys(keys)))
            for switch in spec.hooks_off:
                if switch.beside:
                    where = Path(os.path.normpath(settings.parent / switch.beside))
                    out.append(Surface(where, f"{self.title} {scope} hook switches", scope, "switch", switch_keys))
            if spec.managed_only_file:
                where = Path(os.path.normpath(settings.parent / spec.managed_only_file))
                out.append(Surface(where, f"{self.title} {spec.managed_only_key}", scope, "switch",
                                   (spec.managed_only_key,)))  # fmt: skip
            trust = spec.trust_path(scope, home, project_dir, env)
            if trust is not None and spec.trust is not None:
                out.append(Surface(trust, f"{self.title} trust in hooks", scope, "trust", spec.trust.keys))
            for path in spec.bypass(scope, home, project_dir, env) if spec.bypass is not None else ():
                keys = spec.bypass_keys if path.suffix in (".json", ".jsonc") else ()
                what = f"{self.title} {scope} hooks from elsewhere"
                manifest = spec.extension_manifest if path.name == "extensions" else ""
                jsonc = spec.jsonc and path.suffix == ".json"
                out.append(Surface(path, what, scope, "bypass", keys, jsonc, manifest))
        approvals = APPROVALS.get(self.name, NO_APPROVALS)
        return tuple(replace(surface, approvals=approvals) for surface in _merged(out))

    def tool_spec(self, name: str) -> ToolSpec:
        spec = self.tools.get(name)
        if spec is not None:
            return spec
        return ToolSpec(ToolKind.MCP if name.startswith(self.mcp_prefix) else ToolKind.OTHER)
