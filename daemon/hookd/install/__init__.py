"""Install and uninstall hookd's hook entries in an agent's settings (file logic only).

Everything agent-specific comes from the agent's module (hookd.dialects.spec.InstallSpec): the shape of
one hook definition (`entry`), the scopes and their files, whether the file is hookd's alone
(`own_file`), a switch hooks need on (`enable_key`), the trust file beside it (`trust`), a settings file
of the agent's own text format (`text_settings`), the managed-hooks-only switch. The rules below are
the same for every agent whose settings hold ``hooks.<Event>`` lists in JSON.

What install writes, per event of the plan: one hook definition without a matcher (so it matches
everything), appended to ``hooks.<Event>``, in the agent's shape, e.g.::

    {"hooks": [{"type": "command", "name": "hookd", "command": "<cmd>", "timeout": 5000,
                "description": "hookd policy decision (installed by hookd install)"}]}

plus the agent's enable switch (``hooksConfig.enabled = true``) where it has one. Everything else in the
file is kept as parsed: other keys, unknown keys, other hooks (also on the same events) and their order.

Our entries are recognised by ``name`` inside ``hooks``. A definition is hookd's own when its only
key is ``hooks`` and that list holds exactly one hook, named ``hookd``; install replaces such a
definition in place when the command or timeout changed, and refuses (SettingsError) when a hook
named ``hookd`` sits in a definition it did not write (with a matcher, beside other hooks, with
extra keys): silently rewriting it would drop the user's edit. Install converges the file to the
plan: hookd entries on events the plan leaves out are removed (reported in ``removed``).

Undo record: a marker in the settings file itself, not a sidecar. Install adds one top-level key::

    "hookd": {"installed": {"names": ["hookd"],
                            "created": ["hooks", "hooks.BeforeTool", …, "hooksConfig"],
                            "hooksConfig.enabled": false}}

(and ``"events"``: the agent events this install registered). ``names`` are the hook names installed,
``created`` the containers install had to create (so
uninstall deletes them again once they are empty, and only those), and ``hooksConfig.enabled`` the
value before the first install (the key is left out when the setting was absent). Why a marker:

* it is written in the same atomic replace as the hooks, so the record and the entries can never
  disagree after a crash; a sidecar would be a second, non-atomic write;
* it travels with the file (copied, restored from git or a backup, symlinked from a dotfiles
  repo), where a sidecar next to it would be lost or stale, and it adds no second file to a
  project's ``.gemini/`` directory;
* Gemini accepts it: its settings schema is a ``passthrough`` object (unknown top-level keys are
  neither warned about nor dropped, and Gemini's own format-preserving save keeps them).

Uninstall removes every hook named ``hookd`` (and a definition left without hooks), then, when no
other installed name remains in the record, puts ``hooksConfig.enabled`` back to its recorded value
if it is still ``true`` (a value the user changed since is left alone), deletes the containers in
``created`` that are now empty, and deletes the marker. So install followed by uninstall gives back
the original document exactly. Without a marker (hand-written entries) uninstall only removes the
entries.

Files: a missing ``.gemini`` directory is created with the default umask (an existing one is never
chmod-ed); a missing settings file is created with the default umask; an existing file keeps its
mode (and, best effort, its owner). A symlinked settings.json is followed: the target is rewritten
and the link stays. Writes are atomic: a temp file in the same directory, fsync, ``os.replace``,
fsync of the directory. Before an existing file is changed its previous bytes are copied to
``settings.json.hookd-backup`` next to it, overwriting the previous backup: one predictable path,
no pile-up of files in ``~/.gemini`` or in a repository, and it always holds the state just before
the latest change, which is what undoing that change needs. Nothing is written (and no backup
made) when the result would be the same document: running install twice leaves the bytes alone.

Reading follows Gemini (``JSON.parse(stripJsonComments(text))``): ``//`` and ``/* */`` comments
outside strings are accepted. Rewriting would drop them, so a file with comments is never modified
(SettingsError); it can still be read when nothing needs to change. Output is JSON with a 2-space
indent and a trailing newline. A file that is not UTF-8 JSON, whose top level is not an object,
has duplicate keys, or whose ``hooks`` / ``hooks.<Event>`` / ``hooksConfig`` / ``hookd`` has the
wrong type is refused with a one-line SettingsError and left untouched. An empty (whitespace-only)
file counts as ``{}``.
"""

from __future__ import annotations

import copy
import os
import shlex
import sys
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from hookd.config import Config
from hookd.dialects.registry import AGENTS, agent
from hookd.dialects.spec import InstallSpec, TrustChange
from hookd.errors import HookdError, SettingsError
from hookd.install.files import _atomic_write, _commit, _load
from hookd.install.merge import (
    _check_plan,
    _definition,
    _drop_stale,
    _find_ours,
    _note,
    _put_entries,
    _record,
    _remove_entries,
    _restore_config,
)
from hookd.install.plan import (
    _ENABLE_KEYS,
    BACKUP_SUFFIX,
    DESCRIPTION,
    MARKER_KEY,
    InstallPlan,
    InstallResult,
    JSONObject,
    _all_event_names,
    hook_entries,
    install_events,
    registered_events,
)
from hookd.install.scopes import _managed_only_file, _text_settings, _trust
from hookd.types import Event, FailMode

# The installer's API; its parts live in plan (the plan and result), files (reading and writing a settings
# file), merge (hookd's entries in it) and scopes (the files some scopes need beside it).
__all__ = [
    "BACKUP_SUFFIX",
    "DESCRIPTION",
    "MARKER_KEY",
    "InstallPlan",
    "InstallResult",
    "command_plan",
    "install",
    "install_events",
    "make_plan",
    "managed_only_path",
    "registered_events",
    "settings_path",
    "shim_program",
    "trust_path",
    "uninstall",
]


def settings_path(
    client: str, scope: str, *, home: Path, project_dir: Path, env: Mapping[str, str] | None = None
) -> Path:
    """Where `client` reads its settings for `scope` (the scopes its InstallSpec lists). `home` is the
    user's home; `env` may hold the agent's own overrides of its config directory."""
    if client not in AGENTS:
        raise SettingsError(f"unknown client {client!r}: hookd install supports {_quoted(tuple(AGENTS))}")
    spec = AGENTS[client].install
    if scope not in spec.scopes:
        raise SettingsError(f"unknown scope {scope!r} for {client}: use {_quoted(spec.scopes)}")
    return spec.settings_path(scope, home, project_dir, env or {})


def trust_path(
    client: str, scope: str, *, home: Path, project_dir: Path, env: Mapping[str, str] | None = None
) -> Path | None:
    """The file where `client` records that it trusts hooks of `scope` (None: nothing to trust)."""
    return agent(client).install.trust_path(scope, home, project_dir, env or {})


def managed_only_path(client: str, settings: Path) -> Path | None:
    """The file that takes `client`'s managed-hooks-only switch when it is not the settings file itself."""
    relative = agent(client).install.managed_only_file
    return Path(os.path.normpath(settings.parent / relative)) if relative else None


def _quoted(names: tuple[str, ...]) -> str:
    quoted = [f"'{n}'" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def make_plan(
    client: str,
    path: Path,
    config: Config,
    program: Sequence[str],
    transport: str = "command",
    events: Collection[str] | None = None,
) -> tuple[InstallPlan, str]:
    """The plan for `client` from its AgentSpec: one shim call per installed event (`program` is the
    shim, native or `python -I -S hookd_shim.py`), `--fail` where the configured mode differs from the
    shim's default for that event, and the line that describes the hook. `transport` "http": the
    agent's http hooks to hookd's HTTP endpoint, where its InstallSpec offers them. `events`: the agent
    event names to register (registered_events); None: every installable one."""
    spec = agent(client)
    if transport not in spec.install.transports:
        raise HookdError(f"--transport {transport} is not available for {spec.title}: it runs command hooks")
    commands: dict[str, str] = {}
    args: dict[str, tuple[str, ...]] = {}
    closed: set[str] = set()
    for event in spec.events:
        if not event.install or (events is not None and event.name not in events):
            continue
        shim_args = [client, event.name, "--socket", str(config.hook_socket),
                     "--deadline-ms", str(config.shim.deadline_ms)]  # fmt: skip
        mode = config.shim.fail_modes.get(event.event)
        if mode is not None and (mode is FailMode.CLOSED) != event.fail_closed:
            shim_args += ["--fail", mode.value]
        if mode is FailMode.CLOSED and event.fail_output is not None:
            closed.add(event.name)  # the agent then blocks when the hook cannot run, where it can
        if spec.install.exec_form:
            commands[event.name], args[event.name] = program[0], (*program[1:], *shim_args)
        else:  # a shell command line
            commands[event.name] = shlex.join([*program, *shim_args])
    first = next(e.name for e in spec.events if e.event is Event.BEFORE_TOOL)
    described = shlex.join([commands[first], *args[first]]) if args else commands[first]
    http: dict[str, JSONObject] = {}
    if transport == "http":
        url = f"http://{config.http.host}:{config.http.port}/v1/hooks/{client}"
        endpoint = {"url": url, "headers": {"Authorization": f"Bearer ${config.http.token_env}"},
                    "allowedEnvVars": [config.http.token_env]}  # fmt: skip
        http = {name: endpoint for name in commands if name not in spec.install.http_command_only}
        described = f"POST {url} (Authorization: Bearer ${config.http.token_env})"
    plan = InstallPlan(path, commands, config.shim.hook_timeout_ms, client=client, args=args, http=http,
                       block_on_failure=frozenset(closed))  # fmt: skip
    return plan, described


def shim_program(config: Config, native: Path | None = None) -> list[str]:
    """The hook program: the native shim binary when given, else the Python shim."""
    from hookd.runtime.resources import python_shim

    return [str(native)] if native else [config.shim_python, "-I", "-S", str(python_shim())]


def command_plan(
    config: Config,
    client: str,
    path: Path,
    native: Path | None,
    transport: str = "command",
    autostart: bool = False,
    events: Collection[str] | None = None,
) -> tuple[InstallPlan, str]:
    """What `hookd install` writes into `path` for this client (on `events`, None: all), and the line that
    describes it."""
    plan, described = make_plan(client, path, config, shim_program(config, native), transport, events)
    if not autostart:
        return plan, described
    extra = ["--autostart", sys.executable]  # this venv's python: `python -m hookd serve` finds hookd
    if config.source is not None:
        extra += ["--autostart-config", str(Path(config.source).resolve())]
    if transport == "command":
        described = f"{described} {shlex.join(extra)}"
    if plan.args:  # exec form: the shim's arguments are a list
        return replace(plan, args={e: (*a, *extra) for e, a in plan.args.items()}), described
    return replace(plan, commands={e: f"{c} {shlex.join(extra)}" for e, c in plan.commands.items()}), described


def install(plan: InstallPlan) -> InstallResult:
    """Add or update hookd's entry for every event of the plan; see the module docstring."""
    _check_plan(plan)
    spec = agent(plan.client).install
    if spec.own_file is not None:
        return _install_owned_file(plan, spec)
    if spec.text_settings is not None and plan.settings_path.suffix == spec.text_settings.suffix:
        change = TrustChange(plan.settings_path, {"hooks": {}}, plan.hook_name, plan.project_dir)
        _trust(spec, plan.trust_path, change, write=False)  # refuse before anything is written
        result = _text_settings(spec, plan.settings_path, hook_entries(plan), plan.managed_hooks_only)
        _trust(spec, plan.trust_path, change, write=True)
        return result
    path, name = plan.settings_path, plan.hook_name
    loaded = _load(path)
    doc = copy.deepcopy(loaded.doc)
    record = _record(doc)
    created: list[str] = list(record["created"]) if record is not None else []

    hooks = doc.get("hooks")
    ours = _find_ours(hooks, name, path, spec.identity) if isinstance(hooks, dict) else {}
    if not isinstance(hooks, dict):
        hooks = doc["hooks"] = {}
        _note(created, "hooks")
    added = _put_entries(hooks, ours, plan, created)
    removed = _drop_stale(hooks, ours, plan, created)

    previous: JSONObject = {}
    if spec.enable_key:
        container, _, leaf = spec.enable_key.rpartition(".")
        config = doc.get(container)
        if config is None:
            config = doc[container] = {}
            _note(created, container)
        previous = dict(config)
        config[leaf] = True

    _set_managed_only(doc, plan, spec.managed_only_key, created)
    if spec.marker:
        if record is None:
            record = {"names": [], "created": created}
            if spec.enable_key and spec.enable_key.rpartition(".")[2] in previous:
                record[spec.enable_key] = previous[spec.enable_key.rpartition(".")[2]]
            doc[MARKER_KEY] = {"installed": record}
        record["created"] = created
        record["events"] = [e for e in install_events(plan.client) if e in plan.commands]  # what is registered
        if name not in record["names"]:
            record["names"].append(name)
    trust = plan.trust_path or _trust_beside(spec, path)
    change = TrustChange(path, doc, name, plan.project_dir)
    _trust(spec, trust, change, write=False)  # refuse before anything is written
    result = _commit(path, loaded, doc, added, removed)
    _trust(spec, trust, change, write=True)
    return result


def _set_managed_only(doc: JSONObject, plan: InstallPlan, key: str, created: list[str]) -> None:
    """--managed-hooks-only: the agent's switch that lets only managed hooks run (uninstall deletes it
    again when install added it)."""
    if not plan.managed_hooks_only:
        return
    if not key:
        raise SettingsError(f"{plan.settings_path}: {plan.client} has no switch for managed hooks only")
    if key not in doc:
        _note(created, key)
    doc[key] = True


def uninstall(
    settings_path: Path, hook_name: str = "hookd", client: str = "", trust_path: Path | None = None
) -> InstallResult:
    """Remove hookd's entries and undo what install recorded; see the module docstring. A trusted folder
    stays trusted (the user may have trusted it for more than hookd)."""
    spec = agent(client).install if client else None
    if spec is not None and spec.own_file is not None:
        result = _uninstall_owned(settings_path)
        switch = managed_only_path(client, settings_path)
        if switch is not None:
            _managed_only_file(switch, spec.managed_only_key, enable=False)
        return result
    if spec is not None and spec.text_settings is not None and settings_path.suffix == spec.text_settings.suffix:
        change = TrustChange(settings_path, None, hook_name, None)
        _trust(spec, trust_path, change, write=False)
        result = _text_settings(spec, settings_path, None, False)
        _trust(spec, trust_path, change, write=True)
        return result
    path, name = settings_path, hook_name
    loaded = _load(path)
    if loaded.data is None:
        return InstallResult(path, False, None, (), ())
    doc = copy.deepcopy(loaded.doc)
    record = _record(doc)
    created: list[str] = list(record["created"]) if record is not None else []
    identity = spec.identity if spec is not None else "name"
    if spec is not None and not spec.marker:  # no record: an emptied container is dropped
        created = ["hooks", *(f"hooks.{event}" for event in _all_event_names())]

    removed = _remove_entries(doc, name, created, identity)
    if record is not None:
        record["created"] = created
        if name in record["names"]:
            record["names"].remove(name)
            if not record["names"]:
                for key in (spec.enable_key,) if spec is not None else sorted(_ENABLE_KEYS):  # no client: any
                    _restore_config(doc, record, created, key)
                del doc[MARKER_KEY]
    trust = trust_path or (_trust_beside(spec, path) if spec is not None else None)
    change = TrustChange(path, None, name, None)
    if spec is not None:
        _trust(spec, trust, change, write=False)
    result = _commit(path, loaded, doc, (), removed)
    if spec is not None:
        _trust(spec, trust, change, write=True)
    return result


def _trust_beside(spec: InstallSpec, settings: Path) -> Path | None:
    """The trust file beside the settings file, for a plan that names none (a copy doctor installs into)."""
    return settings.parent / spec.trust.beside if spec.trust is not None and spec.trust.beside else None


def _install_owned_file(plan: InstallPlan, spec: InstallSpec) -> InstallResult:
    """hookd's own hooks file, then the managed-hooks-only switch or the folder trust."""
    trust = plan.trust_path if plan.project_dir is not None else None
    change = TrustChange(plan.settings_path, {"hooks": {}}, plan.hook_name, plan.project_dir)
    _trust(spec, trust, change, write=False)  # refuse before anything is written
    switch = plan.managed_only_path
    if plan.managed_hooks_only and switch is None:  # only what the plan names is written (doctor installs a copy)
        raise SettingsError(f"{plan.settings_path}: the plan names no file for {spec.managed_only_key}")
    result = _install_owned(plan)
    if plan.managed_hooks_only and switch is not None:
        _managed_only_file(switch, spec.managed_only_key, enable=True)
    _trust(spec, trust, change, write=True)
    return result


def _install_owned(plan: InstallPlan) -> InstallResult:
    """A hooks file that is hookd's alone (the agent loads every file of its hooks directory): written
    whole, replaced when it differs, refused when what is there does not parse."""
    path = plan.settings_path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SettingsError(f"{path}: cannot create its directory: {exc.strerror or exc}") from exc
    loaded = _load(path)
    hooks = {event: [_definition(plan, event)] for event in install_events(plan.client) if event in plan.commands}
    doc: JSONObject = {**(agent(plan.client).install.own_file or {}), "hooks": hooks}
    removed = tuple(e for e in loaded.doc.get("hooks", {}) if e not in hooks) if loaded.data else ()
    return _commit(path, loaded, doc, tuple(hooks), removed)


def _uninstall_owned(path: Path) -> InstallResult:
    loaded = _load(path)
    if loaded.data is None:
        return InstallResult(path, False, None, (), ())
    backup = path.with_name(path.name + BACKUP_SUFFIX)
    try:
        _atomic_write(backup, loaded.data, mode=None, owner=None)
        loaded.target.unlink()
    except OSError as exc:
        raise SettingsError(f"{path}: cannot remove it: {exc.strerror or exc}") from exc
    return InstallResult(path, True, backup, (), tuple(loaded.doc.get("hooks", {})))
