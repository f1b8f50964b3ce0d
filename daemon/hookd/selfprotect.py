"""Self-protection by construction: the places whose change alters whether or how hookd decides, derived at
run time from the agent registry and the running config, never listed by hand, and handed to the policies
as `input.hookd` on every tool call that can change a file (docs/self-protection.md).

The set: every registered agent's tamper surface in every scope it has (its hook settings, the files of
the switches that turn hooks off, its trust entries, the places that can bring in an overriding hook:
hookd.dialects.spec.AgentSpec.tamper_surface), and hookd's own: the config file (wherever it was read
from) and its default directory, the policy directories (every opted-in project's layer, and the layer
path in any project, which an opt-in would load), the bundle sources and keys, the state directory
(kept bundles, the token, the install ledger), the decision log and the replay store wherever
`[log]`/`[replay]` put them, the runtime directory, the service manager's unit directories, the shims,
and the installed package.

`input.hookd` is `{"protected": [{"path", "what"}], "keeps": [path]}`: `protected` holds the places a
path the call names can hit (the same place, one inside it, a directory above it), so that the policy has
no more to read than it can use; `keeps` lists the paths a file
tool writes whose new text the agent's module has judged to leave hookd's hooks, their switches and
trust as they were (an MCP server or a permission added), which the policy lets through; everything
else that writes, moves, deletes, links or changes the mode of a protected path is the policy's to deny. `later`
(only when there is one) holds the command lines of the local servers a kept text adds (hookd.policy.later_calls).
The set is derived on a caller's first call (its home, its project, the variables that move an agent's
files) and kept for the next ones.
"""

from __future__ import annotations

import os
import sys
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import replace
from pathlib import Path
from typing import Any

import hookd
from hookd.config import Config, default_config_path, default_state_dir
from hookd.config.runtime_dir import FALLBACK, runtime_dir_choices
from hookd.dialects.launch import agents_started, package_of, starting_words, unguarded_start, view_changed
from hookd.dialects.registry import AGENTS
from hookd.dialects.spec import AgentSpec, Surface, dotted, settings_doc
from hookd.enrich.edit_texts import codex_patch_texts
from hookd.enrich.paths import PathResolver, event_home
from hookd.install.ledger import ledger_path
from hookd.runtime.resources import python_shim
from hookd.selfprotect_aliases import later_agent_starts
from hookd.selfprotect_bases import base_places
from hookd.selfprotect_below import Below
from hookd.selfprotect_config import caller_config, caller_config_stamp, own_endpoints, reached_endpoints
from hookd.selfprotect_edits import event_texts
from hookd.selfprotect_env import settings_env_starts
from hookd.selfprotect_installs import pinned_installs
from hookd.selfprotect_keys import Same, extension_judge, settings_judge, undeclared_texts
from hookd.selfprotect_later import later_starts, socket_moved
from hookd.selfprotect_patterns import PATTERN, built_patterns, fixed_dir, reach, reaches
from hookd.selfprotect_programs import program_places
from hookd.selfprotect_trees import start_dirs, started_in_written, written_trees
from hookd.selfprotect_units import plain_keeps
from hookd.shims.build import QUIET_LIBRARY, native_shim_path
from hookd.types import JSON, Event, NormalisedEvent, ToolKind

_HOME = Path("/\x00home")  # stand-ins, filled in per caller
_PROJECT = Path("/\x00project")
_CACHED = 64  # (home, project) pairs whose filled-in set is kept
MAX_JUDGED_BYTES = 1 << 20  # a settings file larger than this is not read to judge an edit: the edit is denied
_NOT_WRITING = frozenset({ToolKind.READ, ToolKind.WEB})


def hookd_places(config: Config) -> Iterator[tuple[Path, str]]:
    """hookd's own files and directories, as the running config has them."""
    if config.source is not None:
        yield Path(config.source), "hookd's config"
    # The config and state directories a hookd of this user reads in any environment, the caller's included.
    yield default_config_path().parent, "hookd's config directory"
    yield _HOME / ".config" / "hookd", "hookd's config directory"
    yield default_state_dir(), "hookd's state (kept bundles, tokens, the decision log)"
    yield _HOME / ".local" / "state" / "hookd", "hookd's state (kept bundles, tokens, the decision log)"
    yield config.daemon.policies, "hookd's policies"
    for project in config.layers.projects:
        yield Path(project) / config.layers.project_policy_dir, "a project's hookd policy layer"
    yield _PROJECT / config.layers.project_policy_dir, "this project's hookd policy layer"
    if config.rollout.shadow_policies:
        yield Path(config.rollout.shadow_policies), "hookd's shadow policies"
    for source in config.bundles.sources:
        for path in (source.file, source.token_file, source.ca_file):
            if path is not None:
                yield path, f"hookd's bundle source {source.name}"
    for key in config.bundles.keys.values():
        if key.key_file is not None:
            yield key.key_file, "hookd's bundle signing key"
    yield config.daemon.state_dir, "hookd's state (kept bundles, tokens)"
    yield ledger_path(config), "hookd's install ledger (what doctor compares the agents' hook files with)"
    yield config.log.path, "hookd's decision log"
    if config.log.stdout:  # journald keeps what the daemon prints: a copy of every record (docs/decision-log.md)
        for journal in ("/var/log/journal", "/run/log/journal"):
            yield Path(journal), "the journal, which holds a copy of hookd's decision records ([log] stdout)"
    yield config.replay.path, "hookd's replay store"
    yield config.http.token_file, "hookd's HTTP hook token"
    yield config.daemon.runtime_dir, "hookd's runtime directory"
    for runtime_dir in runtime_dir_choices():
        yield runtime_dir, "hookd's runtime directory"
    yield _HOME / FALLBACK, "hookd's runtime directory"  # the caller's, where /tmp/hookd-<uid> is squatted
    yield from _unit_dirs()
    yield native_shim_path(), "hookd's native shim"
    yield native_shim_path().with_name(QUIET_LIBRARY), "hookd's native quiet chunk (loaded by the stream lane)"
    yield _HOME / ".local" / "share" / "hookd" / "bin", "hookd's shims"  # the caller's, as for config and state
    yield python_shim(), "hookd's Python shim"
    yield Path(hookd.__file__).parent, "the installed hookd package"
    if sys.prefix != sys.base_prefix:  # a virtual environment: its site-packages and interpreter run hookd
        yield Path(sys.prefix), "hookd's Python environment"
    yield from _tool_environments()


def _tool_environments() -> Iterator[tuple[Path, str]]:
    """Where `pipx install hookd` and `uv tool install hookd` keep hookd in a venv of its own, and the venv
    docs/install.md makes by hand (`~/.hookd`), for the caller and as the daemon's environment moves them (PIPX_HOME,
    UV_TOOL_DIR): code there is what a hookd started from that install imports (`pipx inject`, a `.pth`,
    `sitecustomize.py`), installed there or not yet, whichever environment this daemon runs from."""
    what = "a pipx or uv tool environment of hookd"
    yield _HOME / ".hookd", "hookd's own venv (docs/install.md)"
    for pipx in (_HOME / ".local" / "share" / "pipx", _HOME / ".local" / "pipx", os.environ.get("PIPX_HOME")):
        if pipx:
            yield Path(pipx) / "venvs" / "hookd", what
    for tools in (_HOME / ".local" / "share" / "uv" / "tools", os.environ.get("UV_TOOL_DIR")):
        if tools:
            yield Path(tools) / "hookd", what


UNITS = "service units (hookd's among them)"


def _unit_dirs() -> Iterator[tuple[Path, str]]:
    """Where a service manager reads units from: hookd's are there, and any unit there runs unguarded. A user
    manager merges the drop-ins (`hookd.service.d/*.conf`) of every directory of its search path, so each one it
    reads that its user can write changes hookd's units: `set-property`'s `user.control`, the runtime ones, the
    data home's (systemd.unit(5), "User Unit Search Path")."""
    config_home = Path(os.environ.get("XDG_CONFIG_HOME") or str(_HOME / ".config"))
    data_home = Path(os.environ.get("XDG_DATA_HOME") or str(_HOME / ".local" / "share"))
    runtime = Path(os.environ.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}")
    what = UNITS
    for home in (config_home, _HOME / ".config"):
        yield home / "systemd" / "user", what
        yield home / "systemd" / "user.control", what
    for data in (data_home, _HOME / ".local" / "share"):
        yield data / "systemd" / "user", what
    for name in ("user", "user.control", "transient"):
        yield runtime / "systemd" / name, what
    yield Path("/etc/systemd/user"), "user service units of every user"
    yield Path("/etc/systemd/system"), "system service units"
    yield _HOME / "Library" / "LaunchAgents", "launchd agents (hookd's among them)"


class ProtectedSet:
    """The protected places for each caller (home, project, and the variables that move an agent's files),
    derived on a caller's first call and kept for the next ones."""

    def __init__(self, config: Config, env: Mapping[str, str] | None = None) -> None:
        self._env = dict(os.environ if env is None else env)
        self._own = tuple(Surface(path, what, "", "hookd") for path, what in hookd_places(config))
        self._endpoints = own_endpoints(config)
        self._moves = tuple(dict.fromkeys(name for spec in AGENTS.values() for name in spec.install.location_env))
        self._cache: OrderedDict[tuple[str, ...], tuple[list[JSON], dict[str, Surface]]] = OrderedDict()
        self._indexes: dict[int, tuple[list[JSON], _Index]] = {}

    def places(
        self, home: str, project: str, caller_env: Mapping[str, str] | None = None
    ) -> tuple[list[JSON], dict[str, Surface]]:
        """The protected list handed to policies, and the judgeable settings files by path. The agents'
        files are taken where the daemon's environment, the caller's and the agents' defaults put them:
        a variable can add places, never take one away."""
        moved = {name: caller_env[name] for name in self._moves if caller_env.get(name)} if caller_env else {}
        stamp = caller_config_stamp(home)
        key = (home, project, str(stamp), *(f"{k}={v}" for k, v in sorted(moved.items())))
        found = self._cache.get(key)
        if found is not None:
            self._cache.move_to_end(key)
            return found
        surfaces: list[tuple[Surface, str]] = []
        for root in project_dirs(project, home) if home.startswith("/") and project.startswith("/") else ():
            for spec in AGENTS.values():
                for environment in (self._env, {}, moved):
                    surfaces += [(s, root) for s in spec.tamper_surface(Path(home), Path(root), environment)]
        own = self._own
        caller = caller_config(home) if stamp is not None else None
        if caller is not None:  # the files the caller's own config names: the next daemon's
            own += tuple(Surface(path, what, "", "hookd") for path, what in hookd_places(caller))
        environments = [(_fill(str(path), home, project) or [""])[0] for path, _ in _tool_environments()]
        own += tuple(Surface(path, what, "", "hookd") for path, what in base_places(home, environments))
        own += tuple(Surface(path, what, "", "hookd") for path, what in program_places(home, project, self._env))
        listed: list[JSON] = []
        judged: dict[str, Surface] = {}
        seen: set[str] = set()
        for surface, root in (*surfaces, *((s, project) for s in own)):
            for path in [p for p in _fill(str(surface.path), home, root) or () if p not in seen]:
                seen.add(path)
                listed.append({"path": path, "what": surface.what})
                if surface.keys or surface.manifest:
                    judged[path] = replace(surface, path=Path(path))
        self._cache[key] = found = (listed, judged)
        if len(self._cache) > _CACHED:
            self._cache.popitem(last=False)
        return found

    def _index(self, listed: list[JSON]) -> _Index:
        index = self._indexes.get(id(listed))
        if index is None or index[0] is not listed:
            index = self._indexes[id(listed)] = (listed, _Index(listed))
            if len(self._indexes) > _CACHED:
                self._indexes.pop(next(iter(self._indexes)))
        return index[1]

    def __call__(self, event: NormalisedEvent) -> NormalisedEvent:
        """The enricher: `input.hookd` on every tool call that can change a file."""
        tool = event.tool
        if event.event is Event.OTHER and _vetoes(event):
            why = unguarded(AGENTS[event.client], Path(event_home(event)), Path(event.project_dir), event.env)
            return event.with_facts(hookd={"protected": [], "keeps": [], "unguarded": why})
        if event.event is not Event.BEFORE_TOOL or tool is None:
            return event
        if tool.kind in _NOT_WRITING:  # a web tool's request may still change hookd's engine (`method: PUT`)
            if tool.kind is not ToolKind.WEB:  # a read: the package is not routed for it
                return event
            found = reached_endpoints(self._endpoints, event.facts.get("effects"))
            return event.with_facts(hookd={"protected": [], "keeps": [], **found}) if found else event
        home = event_home(event)
        listed, judged = self.places(home, event.project_dir, event.env)
        named, only_deleted, written = _reached(event.facts)
        near, reached = self.hit(event, home, listed, named, only_deleted)
        later: list[str] = []  # the command lines of the local servers the kept settings add, judged as run now
        keeps = [p for p in written if p in judged and _keeps(event, Path(p), settings_judge(judged[p], later))]
        extensions = ((p, extension_judge(p, judged, later, event.project_dir)) for p in written if p not in keeps)
        keeps += [p for p, same in extensions if same is not None and _keeps(event, Path(p), same)]
        keeps += plain_keeps(event, [p for p in written if p not in keeps], near, UNITS)
        starts = [*unguarded_starts(event), *later_starts(event), *later_agent_starts(event, event_home(event))]
        starts += pinned_installs(_shell_commands(event), event.cwd) + settings_env_starts(event, written, judged)
        hookd: dict[str, Any] = {"protected": near, "keeps": keeps, "starts": starts, "patterns": reached}
        hookd |= reached_endpoints(self._endpoints, event.facts.get("effects"))
        return event.with_facts(hookd={**hookd, "later": later} if later else hookd)

    def hit(
        self, event: NormalisedEvent, home: str, listed: list[JSON], named: set[str], only_deleted: set[str]
    ) -> tuple[list[JSON], list[JSON]]:
        """The places the call's named paths and built patterns can hit, and what each pattern reaches."""
        built = built_patterns(_dicts(event.facts.get("effects")), home)
        if not (named := named | set(built)):
            return [], []
        index = self._index(listed)
        near = index.near(named, only_deleted, {event.project_dir.rstrip("/") or "/", home.rstrip("/") or "/"})
        patterns = index.pattern_hits(named, only_deleted)
        near += [h["place"] for h in patterns if h["place"] not in near]
        return near, [reach(h, built) for h in patterns]


_EXPORTERS = frozenset({"export", "declare", "typeset", "readonly", "local"})
# Wrappers that run a command as another user: it reads that user's home, not the caller's.
_SWITCH_USER = frozenset({"sudo", "doas", "su", "runuser", "setpriv", "pkexec"})


def unguarded_starts(event: NormalisedEvent) -> list[JSON]:
    """The agents a shell call starts without hookd's hooks ({"program", "agent", "why"}), by what each agent's
    module declares (hookd.dialects.launch): a variable the line sets anywhere counts for every command of
    it, an assignment before the command and one that is exported alike."""
    commands = _shell_commands(event)
    if not commands:
        return []
    words = starting_words(AGENTS)
    if all(words.isdisjoint(_first_words(command)) for command in commands):
        return []  # no command names an agent, or a runtime or package runner that could start one
    line_set: dict[str, str] = {}
    for command in commands:
        env = command.get("env")
        if not command.get("name") and isinstance(env, dict):
            line_set.update({str(k): str(v) for k, v in env.items()})
        argv = command.get("argv")
        if command.get("name") in _EXPORTERS and isinstance(argv, list):
            pairs = (str(w).partition("=") for w in argv[1:] if "=" in str(w) and not str(w).startswith("-"))
            line_set.update({name: value for name, _, value in pairs})
    current = {**event.env, "HOME": event_home(event)}
    trees = written_trees(_dicts(event.facts.get("effects")), event.cwd)
    starts: list[JSON] = []
    for command, start_dir in zip(commands, start_dirs(commands, event.cwd), strict=True):
        argv = [str(w) for w in command.get("argv") or []]
        env = command.get("env")
        assigned = {**line_set, **({str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {})}
        wrappers = command.get("wrappers")
        other_user = bool(command.get("sudo")) or not _SWITCH_USER.isdisjoint(wrappers or ())
        for spec, at in agents_started(str(command.get("name") or ""), argv, AGENTS):
            why = unguarded_start(spec, argv[at + 1 :], assigned, current, event.cwd)
            why = why or socket_moved(assigned, current["HOME"], event.env) or started_in_written(start_dir, trees)
            why = why or view_changed(spec, command.get("view"), {**current, **assigned}, event.cwd)
            if other_user and not why:
                why = "run as another user it reads that user's settings, not the ones that hold hookd's hooks"
            if why:
                starts.append({"program": argv[at], "agent": spec.title, "why": why})
    return starts


def _shell_commands(event: NormalisedEvent) -> list[dict[str, Any]]:
    shell = event.facts.get("shell")
    return _dicts(shell.get("commands") if isinstance(shell, dict) else None)


def _first_words(command: dict[str, Any]) -> tuple[str, str]:
    """The words by which `agents_started` recognises a command first: its name, and the npm package its
    first word would be."""
    argv = command.get("argv")
    return str(command.get("name") or ""), package_of(str(argv[0])) if isinstance(argv, list) and argv else ""


def _reached(facts: Mapping[str, JSON]) -> tuple[set[str], set[str], list[str]]:
    """Every resolved path the call names (a file tool's paths, a shell command's arguments and redirects, the effects'
    paths and destinations); those its effects only delete (or read); those a file tool or a shell line writes."""
    named: set[str] = set()
    written: list[str] = []
    for entry in _dicts(facts.get("paths")):
        named.add(str(entry.get("path", "")))
        if entry.get("access") == "write" and "path" in entry:
            written.append(str(entry["path"]))
    shell = facts.get("shell")
    for command in _dicts(shell.get("commands") if isinstance(shell, dict) else None):
        for entry in (*_dicts(command.get("args")), *_dicts(command.get("redirects"))):
            named.add(str(entry.get("path") or ""))
    deleted: set[str] = set()
    other: set[str] = set()
    for effect in _dicts(facts.get("effects")):
        op, path, to = effect.get("op"), str(effect.get("path") or ""), str(effect.get("to") or "")
        named.add(path)
        named.add(to)
        if op == "delete":
            deleted.add(path)
        elif op == "write" and effect.get("via") == "shell" and path not in written:  # selfprotect_edits judges it
            written.append(path)
        elif op not in ("read", "list"):
            other.add(path)
        other.add(to)
    named.discard("")
    return named, deleted - other, written


def _exists(chain: tuple[str, ...], exists: dict[str, bool]) -> bool:
    """Whether the last path of `chain` exists, `chain` holding each directory down to it from the one a call
    deletes: a directory that does not exist is looked up once for every place under it (most places under a
    home belong to agents that are not installed). `exists` holds what this call looked up; never kept
    between calls."""
    for path in chain:
        found = exists.get(path)
        if found is None:
            found = exists[path] = os.path.lexists(path)
        if not found:
            return False
    return True


def _dicts(value: object) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _ancestry(path: str, longest: int | None = None) -> Iterator[str]:
    """The path and every directory above it, up to /; with `longest`, from the first no longer than it (one longer
    is no place's: a word of 8,000 slashes made 8,000 copies of itself, seconds)."""
    if longest is not None and len(path) > longest:
        path = path[: path.rfind("/", 0, longest + 1)] or "/"
    while True:
        yield path
        if path == "/":
            return
        path = path.rpartition("/")[0] or "/"


class _Index:
    """A caller's protected places, looked up by a named path: the place itself or one above it (the path
    is that place or inside it), and the places below a directory (a delete, move or copy into it)."""

    def __init__(self, listed: list[JSON]) -> None:
        self.at: dict[str, list[JSON]] = {}
        self.below: dict[str, list[JSON]] = {}
        self._trees: dict[str, Below] = {}
        self.longest = 1  # the longest place's path: a longer one is inside it at most
        for place in listed:
            path = str(place["path"])
            self.longest = max(self.longest, len(path))
            self.at.setdefault(path, []).append(place)
            for parent in _ancestry(path):
                if parent != path:
                    self.below.setdefault(parent, []).append(place)

    def near(
        self, named: set[str], only_deleted: AbstractSet[str] = frozenset(), roots: AbstractSet[str] = frozenset()
    ) -> list[JSON]:
        """The places a named path can hit as the policy judges it: the same place, one it is inside, or one
        below it. Only those are handed on: the policy decides the same with less to read. Below a path the
        call only deletes, a place that does not exist is hit only from its own directory (an agent's
        settings directory is its configuration, file or not): deleting a project or a build tree that holds
        no settings file changes no settings. A write or a copy into a tree could create one, so those keep
        every place."""
        found: dict[int, JSON] = {}
        exists: dict[str, bool] = {}
        for named_path in named:
            path = named_path.rstrip("/") or "/"
            if PATTERN.search(path):
                pass  # what a pattern of paths reaches below: pattern_hits
            elif named_path in only_deleted:
                # an agent's settings directory is at hand when deleted (not the project or home a file sits in)
                direct = path not in roots
                for place in self._below(path).existing(direct, exists):
                    found[id(place)] = place
            else:
                for place in self.below.get(path, ()):
                    found[id(place)] = place
            for current in _ancestry(path, self.longest):
                for place in self.at.get(current, ()):
                    found[id(place)] = place
        return list(found.values())

    def pattern_hits(self, named: set[str], only_deleted: AbstractSet[str]) -> list[JSON]:
        """Each place a pattern of paths the call names (`~/.local/state/**/decisions.log*`, the effect model's
        reading of `find ~/.local/state -name 'decisions.log*' -exec truncate …`) can reach, {"pattern", "place"}:
        the place itself, or a path inside a directory place that is there. A pattern only deleted reaches a place
        that is there (one that is not has nothing to lose: `rm -f ./*` in a project with no settings file)."""
        hits: list[JSON] = []
        exists: dict[str, bool] = {}
        for pattern in sorted(n for n in named if PATTERN.search(n)):
            deleted = pattern in only_deleted
            for place in self.below.get(fixed_dir(pattern), ()):
                path = str(place["path"])
                reach = reaches(pattern, path)
                if reach == "inside" and not os.path.isdir(path):
                    continue  # what the pattern selects inside a place is there only in a directory that is
                if reach and (not deleted or _exists((path,), exists)):
                    hits.append({"pattern": pattern, "place": place})
        return hits

    def _below(self, path: str) -> Below:
        """The places below `path` as a tree (selfprotect_below.py): derived once per deleted path. Only the names:
        whether each exists is looked up on every call (nothing about the file system is kept between calls)."""
        below = self._trees.get(path)
        if below is None:
            if len(self._trees) >= _CACHED:
                self._trees.clear()
            below = self._trees[path] = Below(path, self.below.get(path, []))
        return below


def _vetoes(event: NormalisedEvent) -> bool:
    spec = AGENTS.get(event.client)
    agent_event = spec.event_index.get(event.client_event) if spec is not None else None
    return agent_event is not None and agent_event.vetoes_settings


def unguarded(spec: AgentSpec, home: Path, project: Path, env: Mapping[str, str]) -> str:
    """Why the agent's settings as they are on disk now would no longer run hookd's hooks ('' when they
    would): a switch that turns hooks off, or an event hookd registers that no scope's file holds any more.
    For an agent that asks before it applies a change (a veto event), so that the change is kept out."""
    registered: set[str] = set()
    for scope in spec.install.scopes:
        path = spec.install.settings_path(scope, home, project, env)
        doc = _doc(path)
        if doc is None:
            return f"{path} can no longer be read as {spec.title} settings"
        for switch in spec.install.hooks_off:
            where = Path(os.path.normpath(path.parent / switch.beside)) if switch.beside else path
            beside = doc if not switch.beside else _doc(where)
            if beside is not None and dotted(beside, switch.key) == switch.off:
                return f"{switch.key} in {where} would switch every hook off, hookd's among them"
        hooks = doc.get("hooks") if doc else None
        for event, definitions in hooks.items() if isinstance(hooks, Mapping) else ():
            if _holds_hookd(spec, definitions):
                registered.add(event)
    missing = [e.name for e in spec.events if e.install and e.fail_output is not None and e.name not in registered]
    if missing:  # the veto came from hookd's hook, so hookd was registered when the session started
        return f"hookd's {', '.join(missing)} hook would be gone from every {spec.title} settings file"
    return ""


def _doc(path: Path) -> Mapping[str, Any] | None:
    """A settings file's document ({} when missing); None when it cannot be read."""
    readable, text = _read(path)
    if not readable:
        return None
    try:
        return settings_doc(path, text or "")
    except ValueError:
        return None


def _holds_hookd(spec: AgentSpec, definitions: Any) -> bool:
    for definition in definitions if isinstance(definitions, list) else ():
        inner = definition.get("hooks") if isinstance(definition, dict) else None
        for hook in inner if isinstance(inner, list) else [definition]:
            if isinstance(hook, dict) and (
                spec.install.own_file is not None or hook.get(spec.install.identity) == "hookd"
            ):
                return True
    return False


def project_dirs(project: str, home: str) -> list[str]:
    """The project and every directory above it up to the home (the home included), or up to / when the
    project lies outside the home: an agent started in a subdirectory takes project settings from the
    directories above it up to its repository's root (Codex reads `.codex/` in each, the others those of the
    directory they are started in), so a call from `repo/src` writing `repo/.claude/settings.json` writes a
    project's settings. Where that root is cannot be known at check time: a `.git` made later, or by the same
    command (`git init ..`), moves it, so every directory that could become it counts, with no look at the
    file system (the set is kept between calls)."""
    top = home.rstrip("/") or "/"
    dirs: list[str] = []
    for current in _ancestry(project.rstrip("/") or "/"):
        dirs.append(current)
        if current == top:
            break
    return dirs


def _fill(template: str, home: str, project: str) -> list[str] | None:
    """The template's path for this caller, symlinks resolved as input.paths has them, then as named where a link
    on its way leads elsewhere (holes44: `ln -sfn DIR ~/.claude` replaces the link, not what it points at); None
    when a stand-in cannot be filled (no project)."""
    for mark, value in ((str(_HOME), home), (str(_PROJECT), project)):
        if template.startswith(mark):
            if not value.startswith("/"):
                return None
            template = value.rstrip("/") + template[len(mark) :]
    return list(dict.fromkeys((os.path.realpath(template), os.path.normpath(template))))


def _keeps(event: NormalisedEvent, path: Path, same: Same) -> bool:
    """Would this change of `path` leave what `same(old, new)` compares as it was (hookd's hooks, switches and trust
    in a settings file; an extension's manifest's keys)? Each text the tool or line may leave must."""
    tool = event.tool
    spec = tool.spec if tool is not None else None
    readable, old = _read(path)
    if tool is None or spec is None or not readable:
        return False
    if tool.kind is ToolKind.SHELL:  # an edit whose text hookd computes (`sed -i 's/…/…/'`, `jq … > T && mv T F`)
        return (texts := event_texts(event, str(path), old)) is not None and all(same(old, t) for t in texts)
    for arg in spec.patches:  # Codex's apply_patch: the text its hunks leave, as an edit's replacements do
        patch = tool.input.get(arg)
        if isinstance(patch, str) and patch.lstrip().startswith("*** Begin Patch"):
            texts = codex_patch_texts(patch, str(path), old, lambda name: _patched(event, name))
            return texts is not None and all(same(old, text) for text in texts)
    if spec.content:
        new = tool.input.get(spec.content)
        return isinstance(new, str) and same(old, new)
    undeclared = undeclared_texts(tool, old)
    if undeclared is not None:
        return all(same(old, new) for new in undeclared)
    if spec.replace and old is not None:  # each result (one occurrence or all, each name given) must keep hookd's hooks
        pairs = [tuple(tool.input.get(arg) for arg in pair) for pair in spec.replace_pairs(tool.input)]
        return all(isinstance(b, str) and isinstance(a, str) and b != "" and b in old
                   and same(old, old.replace(b, a, 1)) and same(old, old.replace(b, a)) for b, a in pairs)  # fmt: skip
    return False


def _patched(event: NormalisedEvent, name: str) -> str:
    """A patch's file name as `input.paths` resolves it (hookd.enrich.paths, `_patch_entries`): from the agent's
    directory, `~` not the home: the protected place a patch hits and the text it leaves there are one file."""
    resolver = PathResolver(home=event_home(event), project_dir=event.project_dir)
    return str(resolver.resolve(name, event.cwd or event.project_dir, tilde=False)["path"])


def _read(path: Path) -> tuple[bool, str | None]:
    """(can it be judged, its text: None when it does not exist); not when too large or unreadable."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_JUDGED_BYTES + 1)
    except FileNotFoundError:
        return True, None
    except OSError:
        return False, None
    if len(data) > MAX_JUDGED_BYTES:
        return False, None
    try:
        return True, data.decode("utf-8")
    except UnicodeDecodeError:
        return False, None
