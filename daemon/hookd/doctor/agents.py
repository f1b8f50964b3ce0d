"""`hookd doctor`'s agent checks (hookd.doctor runs them): for every agent of the registry and every scope
its InstallSpec lists, is hookd registered there, does its command reach this daemon (the shim exists, is
executable, calls this socket), has anything changed since `hookd install` wrote it (entries edited or
removed), and can anything keep it from deciding: a setting that switches every hook off, another hook that
runs after hookd's and can override it (in the same file, or in a later scope where the agent lets a later
answer win), a trust entry the agent needs (Codex), a managed-only switch that drops hookd's scope, and
sub-agents whose tool calls hookd does not see (AgentSpec.subagents).

Everything agent-specific comes from the specs (hookd.dialects.spec.InstallSpec: scopes, settings paths,
events, hook identity, `hooks_off`, `run_order`, `managed_only_key`), so an agent added to the registry is
checked without an edit here. Reads only.
"""

from __future__ import annotations

import itertools
import json
import os
import shlex
import shutil
import tempfile
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from hookd.config import Config
from hookd.dialects.registry import AGENTS, NAMES
from hookd.dialects.spec import AgentSpec, TrustChange
from hookd.dialects.spec import dotted as settings_value
from hookd.doctor.findings import Finding
from hookd.errors import HookdError
from hookd.types import Event

JSONObject = dict[str, Any]
HOOK_NAME = "hookd"


@dataclass(frozen=True)
class ScopeFile:
    agent: AgentSpec
    scope: str
    path: Path
    doc: JSONObject | None

    @property
    def label(self) -> str:
        return f"{self.agent.name} {self.scope}"


def check_agents(
    config: Config, project_dir: Path, env: Mapping[str, str] | None = None, needed: frozenset[Event] | None = None
) -> list[Finding]:
    """`needed`: the events the policy set needs (hookd.policy.needs); None: every event."""
    env = os.environ if env is None else env
    findings: list[Finding] = []
    files: list[ScopeFile] = []
    for spec, scope, path in settings_files(project_dir, env):
        try:
            files.append(ScopeFile(spec, scope, path, read_settings(path, spec)))
        except HookdError as exc:
            findings.append(Finding(f"{spec.name} {scope}", False, str(exc), f"fix {path} by hand"))
    registered = [f for f in files if hookd_entries(f)]
    for file in registered:
        problems = check_file(config, file, needed, project_dir) + trust_problems(file, project_dir, env)
        findings += [replace(p, check=file.label) for p in problems] or [
            Finding(file.label, True, f"registered in {file.path}, current")
        ]
    for file in files:
        if file not in registered:
            findings += removed_but_trusted(file, project_dir, env)
    for spec in AGENTS.values():
        mine = [f for f in files if f.agent is spec]
        findings += overridden(spec, mine, env) + managed_only(spec, mine, project_dir, env) + off_by_env(spec, env)
        if any(f.agent is spec and hookd_entries(f) for f in files):
            findings += one_by_one(spec, mine) + hooks_from_elsewhere(spec, project_dir, env)
            findings += sub_agents(spec, project_dir, env)
    if not registered:
        findings.append(Finding("agents", False, "hookd is registered for no agent: no hook call reaches it",
                                f"hookd install --client {'|'.join(NAMES)}"))  # fmt: skip
    return findings


def settings_files(project_dir: Path, env: Mapping[str, str]) -> Iterator[tuple[AgentSpec, str, Path]]:
    """Every (agent, scope, settings file), each file once (Qwen's system and managed scopes share one)."""
    seen: set[Path] = set()
    for spec in AGENTS.values():
        for scope in spec.install.scopes:
            path = spec.install.settings_path(scope, Path.home(), project_dir, env)
            if path.resolve() not in seen:
                seen.add(path.resolve())
                yield spec, scope, path


def read_settings(path: Path, spec: AgentSpec | None = None) -> JSONObject | None:
    """A settings file as a document (JSON, TOML by its suffix, or the agent's own text format where its
    spec reads one); None when it is missing or empty."""
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise HookdError(f"cannot read {path}: {exc}") from None
    if not text.strip():
        return None
    text_format = spec.install.text_settings if spec is not None else None
    if text_format is not None and text_format.doc is not None and path.suffix == text_format.suffix:
        return text_format.doc(text)
    try:
        doc = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise HookdError(f"{path} is not valid {'TOML' if path.suffix == '.toml' else 'JSON'} ({exc})") from None
    return doc if isinstance(doc, dict) else None


# --- one settings file -----------------------------------------------------------------------------------


def handlers(doc: JSONObject | None, event: str) -> list[tuple[int, JSONObject]]:
    """(definition index, handler) of every hook on `event`: nested (`{"hooks": [handler, …]}`, most agents)
    or flat (the definition is the handler, Copilot)."""
    hooks = doc.get("hooks") if doc else None
    definitions = hooks.get(event) if isinstance(hooks, dict) else None
    out: list[tuple[int, JSONObject]] = []
    for index, definition in enumerate(definitions if isinstance(definitions, list) else []):
        if not isinstance(definition, dict):
            continue
        inner = definition.get("hooks")
        for hook in inner if isinstance(inner, list) else [definition]:
            if isinstance(hook, dict):
                out.append((index, hook))
    return out


def is_hookd(spec: AgentSpec, hook: JSONObject) -> bool:
    return spec.install.own_file is not None or hook.get(spec.install.identity) == HOOK_NAME


def hookd_entries(file: ScopeFile) -> dict[str, list[tuple[int, JSONObject]]]:
    """Per event, (definition index, handler) of hookd's hooks in this file."""
    hooks = file.doc.get("hooks") if file.doc else None
    found: dict[str, list[tuple[int, JSONObject]]] = {}
    for event in hooks if isinstance(hooks, dict) else ():
        ours = [(i, h) for i, h in handlers(file.doc, event) if is_hookd(file.agent, h)]
        if ours:
            found[event] = ours
    return found


def check_file(
    config: Config, file: ScopeFile, needed: frozenset[Event] | None = None, project_dir: Path | None = None
) -> list[Finding]:
    path, again = file.path, f"hookd install --client {file.agent.name} again"
    findings = hooks_switched_off(file)
    ours = hookd_entries(file)
    for event, entries in sorted(ours.items()):
        problem = next(filter(None, (command_problem(config, hook) for _, hook in entries)), "")
        if problem:
            findings.append(Finding("", False, f"{event} in {path}: {problem}", again))
            break
    fix = install_command(file, project_dir, config.source)
    for event in unregistered(file, needed):
        findings.append(Finding("", False, f"{event}: the policies need it, hookd is not registered on it in {path}",
                                fix))  # fmt: skip
    if not findings and not as_install_writes(config, file):
        findings.append(Finding("", False, f"hookd's entries in {path} were edited since install", again))
    return findings


def unregistered(file: ScopeFile, needed: frozenset[Event] | None) -> list[str]:
    """The agent events `hookd install` would register for a policy set that needs `needed` (None: every
    event) on which this file has no hookd entry: a policy change that routes on a new event, or an entry
    removed by hand."""
    from hookd.install import registered_events

    ours = hookd_entries(file)
    return [event for event in registered_events(file.agent.name, needed) if event not in ours]


def install_command(file: ScopeFile, project_dir: Path | None, config_file: str | Path | None = None) -> str:
    """The `hookd install` line that registers what is missing in this file (with the config it was read from)."""
    config = ["--config", str(Path(config_file).resolve())] if config_file else []
    words = ["hookd", *config, "install", "--client", file.agent.name, "--scope", file.scope]
    if file.scope == "project" and project_dir is not None:
        words += ["--project-dir", str(project_dir)]
    return shlex.join(words)


def hooks_switched_off(file: ScopeFile) -> list[Finding]:
    findings = []
    for switch in file.agent.install.hooks_off:
        beside, key, off = switch.beside, switch.key, switch.off
        where = (file.path.parent / beside).resolve() if beside else file.path
        try:
            doc = file.doc if not beside else read_settings(where)
        except HookdError:
            continue  # not hookd's file: its syntax is the agent's business
        for found in switched(doc or {}, key, off):
            detail = f"{found} is {json.dumps(off)} in {where}: {file.agent.title} runs no hook"
            findings.append(Finding("", False, detail, f"set {found} to {json.dumps(not off)} in {where}"))
    return findings


def switched(doc: JSONObject, key: str, off: Any) -> list[str]:
    """The keys that hold `off`: `key` itself, or where it has a `*` part (Codex's `profiles.*.features.hooks`)
    each entry of that table that does, by its own name (`profiles.quick.features.hooks`)."""
    value = settings_value(doc, key)
    if "*" not in key:
        return [key] if value == off else []
    entries = value.items() if isinstance(value, dict) else ()
    return [key.replace("*", name, 1) for name, found in entries if found == off]


def dotted(doc: JSONObject, key: str) -> Any:
    value: Any = doc
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def command_problem(config: Config, hook: JSONObject) -> str:
    """Why this registered hook cannot reach this daemon, or ''."""
    if hook.get("type") == "http":
        if not config.http.enabled:
            return "it is an HTTP hook but [http] enabled is false in hookd's config"
        return ""
    command = str(hook.get("command") or hook.get("bash") or "")
    if "args" in hook:  # exec form (Claude Code)
        argv = [command, *(str(a) for a in hook.get("args", []))]
    else:
        try:
            argv = shlex.split(command)
        except ValueError:
            return "its command cannot be parsed"
    if not argv:
        return "its command is empty"
    program = Path(argv[0])
    if not program.is_file() or not os.access(program, os.X_OK):
        return f"the shim {program} does not exist or is not executable"
    if "-S" in argv[1:3] or "-I" in argv[1:3]:
        script = next((Path(a) for a in argv[1:] if a.endswith(".py")), None)
        if script is None or not script.is_file():
            return f"the Python shim {script} does not exist"
    socket_arg = argv[argv.index("--socket") + 1] if "--socket" in argv[:-1] else ""
    if socket_arg != str(config.hook_socket):
        return f"its shim calls {socket_arg or 'no socket'}, not this daemon's {config.hook_socket}"
    return ""


def as_install_writes(config: Config, file: ScopeFile) -> bool:
    """Would `hookd install` leave this file as it is (with either shim, transport, --autostart or not, and
    in the managed scope with --managed-hooks-only or not)?"""
    from hookd.install import command_plan, install, install_events
    from hookd.shims.build import is_usable, native_shim_path

    spec = file.agent.install
    events = [e for e in install_events(file.agent.name) if e in hookd_entries(file)]  # as registered
    natives = [None, native_shim_path()] if is_usable(native_shim_path()) else [None]
    managed_only = (False, True) if file.scope == "managed" and spec.managed_only_key else (False,)
    with tempfile.TemporaryDirectory(prefix="hookd-doctor-") as scratch:
        copy = Path(scratch) / file.path.name
        shutil.copyfile(file.path, copy)
        for native, transport, autostart, only in itertools.product(natives, spec.transports, (False, True),
                                                                   managed_only):  # fmt: skip
            plan, _ = command_plan(config, file.agent.name, copy, native, transport, autostart, events)
            try:
                if not install(replace(plan, managed_hooks_only=only)).changed:
                    return True
            except HookdError:
                return False
            shutil.copyfile(file.path, copy)
    return False


def trust_problems(file: ScopeFile, project_dir: Path, env: Mapping[str, str]) -> list[Finding]:
    """The agent runs hookd's hooks of this scope only when it trusts them (Codex: each definition's hash;
    Copilot: the repository's folder): the agent's module says what is missing."""
    spec = file.agent.install
    trust_file = spec.trust_path(file.scope, Path.home(), project_dir, env)
    if spec.trust is None or trust_file is None:
        return []
    try:
        text = trust_file.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    except (OSError, UnicodeDecodeError) as exc:
        return [Finding("", False, f"cannot read {trust_file}: {exc}", "fix it by hand")]
    project = project_dir if file.scope == "project" else None
    missing = spec.trust.missing(trust_file, text, TrustChange(file.path, file.doc, HOOK_NAME, project))
    if not missing:
        return []
    scope = "" if file.scope == "user" else f" --scope {file.scope}"
    scope += f" --project-dir {project}" if project is not None else ""
    return [Finding("", False, missing, f"hookd install --client {file.agent.name}{scope} again")]


def removed_but_trusted(file: ScopeFile, project_dir: Path, env: Mapping[str, str]) -> list[Finding]:
    """A trust entry that names hookd's own file (OpenCode's managed "plugin" list) while that file has no
    hooks of hookd's: it was removed or emptied by hand, and the agent runs unguarded at that scope."""
    spec = file.agent.install
    trust_file = spec.trust_path(file.scope, Path.home(), project_dir, env)
    if spec.trust is None or not spec.trust.names_hookd or trust_file is None:
        return []
    try:
        text = trust_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    if spec.trust.missing(trust_file, text, TrustChange(file.path, {}, HOOK_NAME, None)):
        return []
    state = "is empty" if file.path.exists() else "is gone"
    detail = f"{trust_file} names hookd's {file.path}, which {state}: {file.agent.title} runs unguarded here"
    return [Finding(file.label, False, detail, install_command(file, project_dir))]


def off_by_env(spec: AgentSpec, env: Mapping[str, str]) -> list[Finding]:
    """A variable that makes the agent run none of hookd's hooks, set where doctor runs (and so, likely,
    where the agent is started)."""
    found = []
    for var in spec.install.hooks_off_env:
        if env.get(var, "").lower() not in ("", "0", "false"):
            detail = f"{var}={env[var]} is set here: {spec.title} started from it runs none of hookd's hooks"
            found.append(Finding(spec.name, False, detail, f"unset {var}"))
    return found


# --- across the files of one agent ------------------------------------------------------------------------


def overridden(spec: AgentSpec, files: list[ScopeFile], env: Mapping[str, str]) -> list[Finding]:
    """Another hook that runs after hookd's on an event that can block, and can replace its answer: in the
    same file, or (where the agent lets a later answer win: `run_order`) in any later scope's file."""
    blocking = [e.name for e in spec.events if e.install and e.fail_output is not None]
    order = spec.install.run_order
    if order:
        by_scope = {f.scope: f for f in files}
        chains = [[by_scope[s] for s in order if s in by_scope]]
        fix = f"hookd install --client {spec.name} --scope {order[-1]} (its hooks run last), or remove that hook"
    else:
        chains = [[f] for f in files]
        fix = "move hookd's entry last, or remove that hook"
    findings = []
    for chain, event in itertools.product(chains, blocking):
        sequence = [(f, hook) for f in chain for _, hook in handlers(f.doc, event)]
        last = max((i for i, (_, hook) in enumerate(sequence) if is_hookd(spec, hook)), default=None)
        if last is None:
            continue
        ours = sequence[last][0]
        after = next(((f, h) for f, h in sequence[last + 1 :] if not is_hookd(spec, h)), None)
        if after is None:
            continue
        other, hook = after
        what = f"another hook ({hook.get('command') or hook.get('bash') or hook.get('url') or hook.get('name') or '?'})"
        where = f"in {ours.path}" if other is ours else f"in {other.path} (after hookd's in {ours.path})"
        findings.append(Finding(ours.label, False, f"on {event}, {what} runs after hookd {where} and can override "
                                "its decision", fix))  # fmt: skip
    return findings


def managed_only(spec: AgentSpec, files: list[ScopeFile], project_dir: Path, env: Mapping[str, str]) -> list[Finding]:
    """The agent's "only managed hooks run" switch is on, and hookd is registered in other scopes only."""
    from hookd.install import managed_only_path

    key = spec.install.managed_only_key
    if not key or "managed" not in spec.install.scopes:
        return []
    managed_path = spec.install.settings_path("managed", Path.home(), project_dir, env)
    managed = next((f for f in files if f.path == managed_path), None)
    if managed is not None and hookd_entries(managed):
        return []
    # Copilot keeps the switch in managed-settings.json, beside the managed hooks directory, not in hookd's file.
    switch_path = managed_only_path(spec.name, managed_path) or managed_path
    try:
        switch = read_settings(switch_path)
    except HookdError as exc:
        return [Finding(f"{spec.name} managed", False, str(exc), f"fix {switch_path} by hand")]
    if switch is None or dotted(switch, key) is not True:
        return []
    return [Finding(f.label, False, f"{switch_path} sets {key}: {spec.title} runs only managed hooks, never hookd's "
                    f"in {f.path}", f"hookd install --client {spec.name} --scope managed")
            for f in files if f is not managed and hookd_entries(f)]  # fmt: skip


def one_by_one(spec: AgentSpec, files: list[ScopeFile]) -> list[Finding]:
    """A setting that switches hooks off one by one (Copilot's disabledHooks), set in a switch file: it may
    name hookd's hooks (its keys are the agent's; any value there is reported)."""
    findings, seen = [], set()
    for file, switch in itertools.product(files, spec.install.hooks_off):
        where = (file.path.parent / switch.beside).resolve() if switch.beside else file.path
        if where in seen:
            continue
        seen.add(where)
        try:
            doc = file.doc if not switch.beside else read_settings(where)
        except HookdError:
            continue
        for key in spec.install.switch_keys:
            value = dotted(doc or {}, key)
            if value not in (None, [], {}, ""):
                findings.append(Finding(file.label, False, f"{key} is set in {where} ({json.dumps(value)[:120]}): "
                                        f"{spec.title} skips the hooks it names, hookd's may be among them",
                                        f"remove hookd's hooks from {key} in {where}"))  # fmt: skip
    return findings


MAX_BYPASS_FILES = 200  # JSON files read under one agent's extension/plugin directories


def hooks_from_elsewhere(spec: AgentSpec, project_dir: Path, env: Mapping[str, str]) -> list[Finding]:
    """Where the agent lets a later hook's answer replace hookd's (`run_order`), hooks brought in from
    elsewhere (an extension's, a plugin's: the spec's `bypass` places) that run after every scope's and can
    answer allow on an event hookd blocks on, even when hookd is installed where it runs last."""
    if not spec.install.run_order or spec.install.bypass is None:
        return []
    blocking = {e.name for e in spec.events if e.install and e.fail_output is not None}
    places = {p for scope in spec.install.scopes for p in spec.install.bypass(scope, Path.home(), project_dir, env)}
    findings = []
    for path in sorted(_json_files(sorted(places)))[:MAX_BYPASS_FILES]:
        try:
            doc = read_settings(path)
        except HookdError:
            continue
        events = sorted(e for e in blocking if any(not is_hookd(spec, h) for _, h in handlers(doc, e)))
        if events:
            detail = (f"{path} adds hooks on {', '.join(events)} that {spec.title} runs after every scope's, "
                      "hookd's included: their allow overrides hookd's deny")  # fmt: skip
            fix = f"remove or disable that extension ({path.parent})"
            findings.append(Finding(f"{spec.name} extensions", False, detail, fix))
    return findings


def sub_agents(spec: AgentSpec, project_dir: Path, env: Mapping[str, str]) -> list[Finding]:
    """The agent's sub-agents whose tool calls hookd does not see: not known for the agent at all (its spec
    names no proof), or sub-agent definitions whose tools fire no hook here (`SubAgents.unseen`)."""
    facts, check = spec.subagents, f"{spec.name} sub-agents"
    findings = []
    if not facts.guarded:
        findings.append(Finding(check, False, f"not known whether the tool calls of {spec.title}'s sub-agents reach "
                                "hookd", "deny the tool that starts a sub-agent in a policy"))  # fmt: skip
    for path, why in facts.unseen(Path.home(), project_dir, env) if facts.unseen is not None else ():
        findings.append(Finding(check, False, f"{path}: {why}", f"remove {path}, or deny starting it in a policy"))
    return findings


def _json_files(places: list[Path]) -> Iterator[Path]:
    for place in places:
        if place.is_file() and place.suffix == ".json":
            yield place
        elif place.is_dir():
            for depth in ("*.json", "*/*.json", "*/*/*.json"):
                yield from place.glob(depth)
