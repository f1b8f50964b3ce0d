"""Install and uninstall hookd's hook entries in Gemini CLI's and Claude Code's settings.json (file logic only).

Claude Code's file has the same shape (``hooks.<Event>`` → definitions → ``hooks``) and accepts the
same unknown keys (the ``name`` of a hook, the top-level ``hookd`` record; checked against Claude
Code 2.1.332), so one set of rules serves both. The differences, all in the plan: Claude's event
names, its hook is exec form (``command`` + ``args``, no shell) or ``type: "http"``, its timeout is
in seconds, events that fail closed get ``onFailure: "block"`` (Claude otherwise lets a hook that
crashed, timed out or was unreachable through), and there is no ``hooksConfig.enabled`` to set.

What install writes, per event of the plan: one hook definition without a matcher (so it matches
everything), appended to ``hooks.<Event>``::

    {"hooks": [{"type": "command", "name": "hookd", "command": "<cmd>", "timeout": 5000,
                "description": "hookd policy decision (installed by hookd install)"}]}

plus ``hooksConfig.enabled = true``. Everything else in the file is kept as parsed: other keys,
unknown keys, other hooks (also on the same events) and their order.

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

``names`` are the hook names installed, ``created`` the containers install had to create (so
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
from collections.abc import Mapping, Sequence
from pathlib import Path

from hookd.config import Config
from hookd.dialects.registry import AGENTS, agent
from hookd.errors import HookdError, SettingsError
from hookd.install_files import _atomic_write, _commit, _load
from hookd.install_merge import (
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
from hookd.install_plan import (
    _ENABLED,
    BACKUP_SUFFIX,
    DESCRIPTION,
    MARKER_KEY,
    InstallPlan,
    InstallResult,
    JSONObject,
    _all_event_names,
    install_events,
)
from hookd.install_scopes import (
    _codex_requirements,
    _codex_trust,
    _copilot_trust,
    _managed_only_file,
    codex_trust_entries,
)
from hookd.types import Event, FailMode

# The installer's API; its parts live in install_plan, install_files (reading and writing a settings file),
# install_merge (hookd's entries in it) and install_scopes (the files some scopes need beside it).
__all__ = [
    "BACKUP_SUFFIX",
    "DESCRIPTION",
    "MARKER_KEY",
    "InstallPlan",
    "InstallResult",
    "codex_trust_entries",
    "install",
    "install_events",
    "make_plan",
    "managed_only_path",
    "settings_path",
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
    spec = agent(client).install
    return spec.trust_path(scope, home, project_dir, env or {}) if spec.trust_path is not None else None


def managed_only_path(client: str, settings: Path) -> Path | None:
    """The file that takes `client`'s managed-hooks-only switch when it is not the settings file itself."""
    relative = agent(client).install.managed_only_file
    return Path(os.path.normpath(settings.parent / relative)) if relative else None


def _quoted(names: tuple[str, ...]) -> str:
    quoted = [f"'{n}'" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def make_plan(
    client: str, path: Path, config: Config, program: Sequence[str], transport: str = "command"
) -> tuple[InstallPlan, str]:
    """The plan for `client` from its AgentSpec: one shim call per installed event (`program` is the
    shim, native or `python -I -S hookd_shim.py`), `--fail` where the configured mode differs from the
    shim's default for that event, and the line that describes the hook. `transport` "http": the
    agent's http hooks to hookd's HTTP endpoint, where its InstallSpec offers them."""
    spec = agent(client)
    if transport not in spec.install.transports:
        raise HookdError(f"--transport {transport} is not available for {spec.title}: it runs command hooks")
    commands: dict[str, str] = {}
    args: dict[str, tuple[str, ...]] = {}
    closed: set[str] = set()
    for event in spec.events:
        if not event.install:
            continue
        shim_args = [client, event.name, "--socket", str(config.hook_socket),
                     "--deadline-ms", str(config.shim.deadline_ms)]  # fmt: skip
        mode = config.shim.fail_modes.get(event.event)
        if mode is not None and (mode is FailMode.CLOSED) != event.fail_closed:
            shim_args += ["--fail", mode.value]
        if mode is FailMode.CLOSED and event.fail_output is not None:
            closed.add(event.name)  # the agent then blocks when the hook cannot run, where it can
        if spec.install.form != "claude":  # a shell command line
            commands[event.name] = shlex.join([*program, *shim_args])
        else:
            commands[event.name], args[event.name] = program[0], (*program[1:], *shim_args)
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


def install(plan: InstallPlan) -> InstallResult:
    """Add or update hookd's entry for every event of the plan; see the module docstring."""
    _check_plan(plan)
    spec = agent(plan.client).install
    if spec.form == "copilot":
        return _install_copilot(plan)
    if spec.form == "codex" and plan.settings_path.suffix == ".toml":
        return _codex_requirements(plan.settings_path, plan)
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
    if spec.form == "gemini":
        config = doc.get("hooksConfig")
        if config is None:
            config = doc["hooksConfig"] = {}
            _note(created, "hooksConfig")
        previous = dict(config)
        config["enabled"] = True

    _set_managed_only(doc, plan, spec.managed_only_key, created)
    if spec.marker:
        if record is None:
            record = {"names": [], "created": created}
            if "enabled" in previous:
                record[_ENABLED] = previous["enabled"]
            doc[MARKER_KEY] = {"installed": record}
        record["created"] = created
        if name not in record["names"]:
            record["names"].append(name)
    if spec.form == "codex":
        trust = plan.trust_path or path.parent / "config.toml"
        _codex_trust(path, doc, name, trust, plan.project_dir, write=False)  # refuse before anything is written
    result = _commit(path, loaded, doc, added, removed)
    if spec.form == "codex":
        _codex_trust(path, doc, name, trust, plan.project_dir, write=True)
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
    """Remove hookd's entries and undo what install recorded; see the module docstring. A Copilot folder
    stays trusted (the user may have trusted it for more than hookd): uninstall says so."""
    spec = agent(client).install if client else None
    if spec is not None and spec.form == "copilot":
        result = _uninstall_owned(settings_path)
        switch = managed_only_path(client, settings_path)
        if switch is not None:
            _managed_only_file(switch, spec.managed_only_key, enable=False)
        return result
    if spec is not None and spec.form == "codex" and settings_path.suffix == ".toml":
        return _codex_requirements(settings_path, None)
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
                _restore_config(doc, record, created)
                del doc[MARKER_KEY]
    trust = trust_path or path.parent / "config.toml"
    if spec is not None and spec.form == "codex":
        _codex_trust(path, None, name, trust, None, write=False)
    result = _commit(path, loaded, doc, (), removed)
    if spec is not None and spec.form == "codex":
        _codex_trust(path, None, name, trust, None, write=True)
    return result


def _install_copilot(plan: InstallPlan) -> InstallResult:
    """Copilot: hookd's own hooks file, then the managed-hooks-only switch or the folder trust."""
    spec = agent(plan.client).install
    trust = plan.trust_path if plan.project_dir is not None else None
    if trust is not None and plan.project_dir is not None:
        _copilot_trust(trust, plan.project_dir, write=False)  # refuse before anything is written
    switch = plan.managed_only_path
    if plan.managed_hooks_only and switch is None:  # only what the plan names is written (doctor installs a copy)
        raise SettingsError(f"{plan.settings_path}: the plan names no file for {spec.managed_only_key}")
    result = _install_owned(plan)
    if plan.managed_hooks_only and switch is not None:
        _managed_only_file(switch, spec.managed_only_key, enable=True)
    if trust is not None and plan.project_dir is not None:
        _copilot_trust(trust, plan.project_dir, write=True)
    return result


def _install_owned(plan: InstallPlan) -> InstallResult:
    """A hooks file that is hookd's alone (Copilot CLI loads every *.json of its hooks directory):
    written whole, replaced when it differs, refused when what is there does not parse."""
    path = plan.settings_path
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SettingsError(f"{path}: cannot create its directory: {exc.strerror or exc}") from exc
    loaded = _load(path)
    hooks = {event: [_definition(plan, event)] for event in install_events(plan.client) if event in plan.commands}
    doc: JSONObject = {"version": 1, "hooks": hooks}
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
