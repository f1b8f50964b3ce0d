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

import contextlib
import copy
import hashlib
import json
import os
import re
import secrets
import shlex
import stat
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hookd.config import Config
from hookd.dialects.registry import AGENTS, agent
from hookd.errors import HookdError, SettingsError
from hookd.types import Event, FailMode


def install_events(client: str) -> tuple[str, ...]:
    """The agent event names hookd registers for `client`, in the agent's table order."""
    return tuple(e.name for e in agent(client).events if e.install)


def _all_event_names() -> tuple[str, ...]:
    return tuple(dict.fromkeys(e.name for spec in AGENTS.values() for e in spec.events))


MARKER_KEY = "hookd"
BACKUP_SUFFIX = ".hookd-backup"
DESCRIPTION = "hookd policy decision (installed by hookd install)"
# Node fires a timer of 0, a negative value or more than 2**31-1 ms after ~1 ms (gemini-cli-hooks.md §3.5).
MAX_TIMEOUT_MS = 2**31 - 1

_REFUSE = "fix or move it, hookd will not overwrite it"
_ENABLED = "hooksConfig.enabled"

JSONObject = dict[str, Any]


@dataclass(frozen=True)
class InstallPlan:
    settings_path: Path
    commands: Mapping[str, str]  # event name -> full shell command string (Claude: the program)
    timeout_ms: int
    hook_name: str = "hookd"
    client: str = "gemini"
    args: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # Claude: event -> exec-form args
    http: Mapping[str, JSONObject] = field(default_factory=dict)  # Claude: event -> {url, headers, allowedEnvVars}
    block_on_failure: frozenset[str] = frozenset()  # Claude: events that get onFailure "block"
    managed_hooks_only: bool = False  # managed scope: also set the agent's "only managed hooks run" switch
    trust_path: Path | None = None  # where the agent records its trust in these hooks (see trust_path())
    managed_only_path: Path | None = None  # the file of the managed-hooks-only switch, when not settings_path
    project_dir: Path | None = None  # project scope: the folder the agent must trust to load them


@dataclass(frozen=True)
class InstallResult:
    settings_path: Path
    changed: bool
    backup_path: Path | None  # copy of the previous file; None when unchanged or newly created
    added: tuple[str, ...]  # events whose hookd entry was added or updated
    removed: tuple[str, ...]  # events whose hookd entry was removed


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


# Codex runs a non-managed hook only when its config.toml trusts that exact definition (codex-hooks.md
# §2): `[hooks.state."<hooks.json>:<event label>:<group>:<handler>"] trusted_hash = "sha256:…"`, the hash
# of the definition's canonical JSON. Install keeps one marked block of these in the config.toml beside
# hooks.json, for hookd's handlers only; an untrusted hook would be skipped silently.
_CODEX_LABELS = {
    "PreToolUse": "pre_tool_use", "PermissionRequest": "permission_request", "PostToolUse": "post_tool_use",
    "PreCompact": "pre_compact", "PostCompact": "post_compact", "SessionStart": "session_start",
    "SessionEnd": "session_end", "UserPromptSubmit": "user_prompt_submit", "SubagentStart": "subagent_start",
    "SubagentStop": "subagent_stop", "Stop": "stop",
}  # fmt: skip
_CODEX_BEGIN = "# BEGIN hookd: trust for hookd's hooks in hooks.json (written by hookd install; do not edit)"
_CODEX_END = "# END hookd"


def codex_trust_entries(path: Path, doc: JSONObject | None, name: str) -> list[tuple[str, str]]:
    """(state key, trusted_hash) of every hookd handler of a Codex hooks.json document."""
    out: list[tuple[str, str]] = []
    hooks = doc.get("hooks") if doc else None
    for event, groups in (hooks or {}).items():
        label = _CODEX_LABELS.get(event)
        for gi, group in enumerate(groups if label else []):
            for hi, hook in enumerate(group.get("hooks", []) if isinstance(group, dict) else []):
                if not _is_named(hook, name, "statusMessage") or hook.get("type") != "command":
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


def _codex_trust(
    path: Path, doc: JSONObject | None, name: str, config: Path, project: Path | None, *, write: bool
) -> None:
    """Put the trust entries for `doc`'s hookd handlers into hookd's block of `config` (the user's
    config.toml), replacing those of `path`, and, for a project's hooks.json, the project's trust level (a
    project's hooks load only when the project is trusted). `doc` None: remove them. Refuses
    (SettingsError) a config.toml that does not parse, before or after the change, and a project the
    user marked as anything but trusted."""
    loaded = _load_text(config)
    text = loaded.data.decode("utf-8") if loaded.data is not None else ""
    start = text.find(_CODEX_BEGIN)
    end = text.find(_CODEX_END, start)
    ours: JSONObject = {}
    if start >= 0 and end >= 0:
        ours = _parse_toml(config, text[start:end], "is")
        text_rest = text[:start].rstrip("\n") + text[end + len(_CODEX_END) :]
    else:
        text_rest = text
    mine = f"{path}:"
    entries = [(key, value["trusted_hash"]) for key, value in ours.get("hooks", {}).get("state", {}).items()
               if not key.startswith(mine)]  # fmt: skip
    entries += codex_trust_entries(path, doc, name)
    projects = [d for d in ours.get("projects", {}) if d != str(path.parent.parent)]
    if project is not None and doc is not None:
        level = _parse_toml(config, text_rest, "is").get("projects", {}).get(str(project), {}).get("trust_level")
        if level not in (None, "trusted"):
            raise SettingsError(f'{config}: project {project} has trust_level = "{level}"; hookd will not change it')
        if level is None:
            projects.append(str(project))
    block = "".join(f'\n[hooks.state.{json.dumps(key)}]\nenabled = true\ntrusted_hash = "{digest}"\n'
                    for key, digest in entries)  # fmt: skip
    block += "".join(f'\n[projects.{json.dumps(d)}]\ntrust_level = "trusted"\n' for d in dict.fromkeys(projects))
    rest = text_rest
    new = (rest.rstrip("\n") + "\n\n" if rest.strip() else "") + f"{_CODEX_BEGIN}\n{block}{_CODEX_END}\n"
    if not block:
        new = rest if rest.strip() else ""
    _parse_toml(config, text, "is")
    _parse_toml(config, new, "would be")
    if not write or new == text:
        return
    try:
        config.parent.mkdir(parents=True, exist_ok=True)
        mode = stat.S_IMODE(loaded.target.stat().st_mode) if loaded.data is not None else None
        if loaded.data is not None:
            _atomic_write(config.with_name(config.name + BACKUP_SUFFIX), loaded.data, mode=mode, owner=None)
        _atomic_write(loaded.target, new.encode(), mode=mode, owner=None)
    except OSError as exc:
        raise SettingsError(f"{config}: cannot write it: {exc.strerror or exc}") from exc


def _parse_toml(path: Path, text: str, what: str) -> JSONObject:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: {what} not valid TOML ({exc}); {_REFUSE}") from exc


def _copilot_trust(config: Path, project: Path, *, write: bool) -> None:
    """Add `project` to `trustedFolders` in Copilot's config.json (a repository's hooks load only in a
    trusted folder). Copilot writes that file itself with a `//` comment header, which is kept; a comment
    anywhere else, or a file that is not a JSON object, is refused."""
    loaded = _load_text(config)
    text = loaded.data.decode("utf-8") if loaded.data is not None else ""
    lines = text.splitlines(keepends=True)
    cut = next((i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("//")), len(lines))
    header, body = "".join(lines[:cut]), "".join(lines[cut:])
    try:
        doc = json.loads(body, object_pairs_hook=_pairs, parse_constant=_constant) if body.strip() else {}
    except (ValueError, _DuplicateKeyError, RecursionError) as exc:
        raise SettingsError(f"{config}: not a JSON object with a // comment header; {_REFUSE}") from exc
    folders = doc.get("trustedFolders", []) if isinstance(doc, dict) else None
    if not isinstance(folders, list) or not all(isinstance(f, str) for f in folders):
        raise SettingsError(f'{config}: "trustedFolders" is not a list of folders; {_REFUSE}')
    if str(project) in folders or not write:
        return
    doc["trustedFolders"] = [*folders, str(project)]
    try:
        config.parent.mkdir(parents=True, exist_ok=True)
        mode = stat.S_IMODE(loaded.target.stat().st_mode) if loaded.data is not None else None
        if loaded.data is not None:
            _atomic_write(config.with_name(config.name + BACKUP_SUFFIX), loaded.data, mode=mode, owner=None)
        _atomic_write(loaded.target, (header + json.dumps(doc, indent=2) + "\n").encode(), mode=mode, owner=None)
    except OSError as exc:
        raise SettingsError(f"{config}: cannot write it: {exc.strerror or exc}") from exc


_RECORD_SUFFIX = ".hookd-installed"


def _managed_only_file(path: Path, key: str, *, enable: bool) -> None:
    """Set (enable) or undo the agent's managed-hooks-only switch in a file of its own (Copilot's
    managed-settings.json, whose closed schema takes no hooks and no record of hookd's). What install
    added is recorded beside it in `<file>.hookd-installed`; uninstall removes the switch only then."""
    record = path.with_name(path.name + _RECORD_SUFFIX)
    if not enable and not record.exists():
        return
    loaded = _load(path)
    doc = copy.deepcopy(loaded.doc)
    try:
        if enable:
            if doc.get(key) is True:
                return  # the administrator's own setting: not hookd's to undo later
            record.write_text(json.dumps({"added": [key]}) + "\n")
            doc[key] = True
        elif doc.get(key) is True:
            del doc[key]
        _commit(path, loaded, doc, (), ())
        if not enable:
            record.unlink()
    except OSError as exc:
        raise SettingsError(f"{record}: cannot write it: {exc.strerror or exc}") from exc


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


def _codex_requirements(path: Path, plan: InstallPlan | None) -> InstallResult:
    """Install (plan) or uninstall (None) hookd's managed hooks in a Codex requirements.toml."""
    loaded = _load_text(path)
    text = loaded.data.decode("utf-8") if loaded.data is not None else ""
    rest = _cut_block(_cut_block(text, _REQ_TOP), _REQ_HOOKS).rstrip("\n")
    events: tuple[str, ...] = ()
    new = rest + "\n" if rest else ""
    if plan is not None:
        events = tuple(e for e in install_events(plan.client) if e in plan.commands)
        seconds = -(-plan.timeout_ms // 1000)
        tables = "".join(
            f'\n[[hooks.{event}]]\n[[hooks.{event}.hooks]]\ntype = "command"\n'
            f"command = {json.dumps(plan.commands[event])}\ntimeout = {seconds}\n"
            f"statusMessage = {json.dumps(plan.hook_name)}\n"
            for event in events
        )
        top = f"{_REQ_TOP[0]}\nallow_managed_hooks_only = true\n{_REQ_TOP[1]}\n\n" if plan.managed_hooks_only else ""
        new = (
            f"{top}{rest}\n\n{_REQ_HOOKS[0]}\n{tables}{_REQ_HOOKS[1]}\n"
            if rest
            else f"{top}{_REQ_HOOKS[0]}\n{tables}{_REQ_HOOKS[1]}\n"
        )
    for candidate, what in ((text, "is"), (new, "would be")):
        try:
            tomllib.loads(candidate)
        except tomllib.TOMLDecodeError as exc:
            raise SettingsError(f"{path}: {what} not valid TOML ({exc}); {_REFUSE}") from exc
    if new == text or (loaded.data is None and plan is None):
        return InstallResult(path, False, None, (), ())
    backup = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        mode = stat.S_IMODE(loaded.target.stat().st_mode) if loaded.data is not None else None
        if loaded.data is not None:
            backup = path.with_name(path.name + BACKUP_SUFFIX)
            _atomic_write(backup, loaded.data, mode=mode, owner=None)
        _atomic_write(loaded.target, new.encode(), mode=mode, owner=None)
    except OSError as exc:
        raise SettingsError(f"{path}: cannot write it: {exc.strerror or exc}") from exc
    block = text[text.find(_REQ_HOOKS[0]) :] if _REQ_HOOKS[0] in text else ""
    removed = tuple(e for e in _CODEX_LABELS if f"[[hooks.{e}]]" in block and e not in events)
    return InstallResult(path, True, backup, events, removed)


def _put_entries(
    hooks: JSONObject, ours: Mapping[str, list[int]], plan: InstallPlan, created: list[str]
) -> tuple[str, ...]:
    """Append or update hookd's definition on every event of the plan; return the events changed."""
    added: list[str] = []
    for event in install_events(plan.client):
        if event not in plan.commands:
            continue
        definition = _definition(plan, event)
        entries = hooks.get(event)
        if entries is None:
            entries = hooks[event] = []
            _note(created, f"hooks.{event}")
        found = ours.get(event, [])
        if not found:
            entries.append(definition)
            added.append(event)
            continue
        first, *extra = found
        for index in reversed(extra):
            del entries[index]
        if extra or _dump(entries[first]) != _dump(definition):
            entries[first] = definition
            added.append(event)
    return tuple(added)


def _drop_stale(
    hooks: JSONObject, ours: Mapping[str, list[int]], plan: InstallPlan, created: list[str]
) -> tuple[str, ...]:
    """Remove hookd's definitions from events the plan leaves out; return those events."""
    removed: list[str] = []
    for event, found in ours.items():
        if event in plan.commands:
            continue
        entries = hooks[event]
        for index in reversed(found):
            del entries[index]
        removed.append(event)
        _drop_if_empty(hooks, event, created, f"hooks.{event}")
    return _event_order(removed)


def _remove_entries(doc: JSONObject, name: str, created: list[str], identity: str = "name") -> tuple[str, ...]:
    """Remove every hook called `name` (and definitions left without hooks); return the events."""
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        return ()
    removed: list[str] = []
    for event in list(hooks):
        entries = hooks[event]
        if not isinstance(entries, list) or not any(_names(d, name, identity) for d in entries):
            continue
        kept: list[Any] = []
        for definition in entries:
            if not _names(definition, name, identity):
                kept.append(definition)
                continue
            rest = [h for h in definition["hooks"] if not _is_named(h, name, identity)]
            if rest:
                kept.append({**definition, "hooks": rest})
        entries[:] = kept
        removed.append(event)
        _drop_if_empty(hooks, event, created, f"hooks.{event}")
    _drop_if_empty(doc, "hooks", created, "hooks")
    return _event_order(removed)


def _event_order(events: list[str]) -> tuple[str, ...]:
    """The agents' table order first (registry order), then any other keys as they came."""
    rank = {event: index for index, event in enumerate(_all_event_names())}
    return tuple(sorted(events, key=lambda event: rank.get(event, len(rank))))


def _restore_config(doc: JSONObject, record: JSONObject, created: list[str]) -> None:
    """Put hooksConfig.enabled back as it was before the first install, unless the user changed it, and
    delete a managed-hooks-only switch that install added."""
    for key in [c for c in created if "." not in c and c not in ("hooks", "hooksConfig")]:
        if doc.get(key) is True:
            del doc[key]
        created.remove(key)
    config = doc.get("hooksConfig")
    if not isinstance(config, dict):
        return
    if config.get("enabled") is True:
        if _ENABLED in record:
            config["enabled"] = record[_ENABLED]
        else:
            del config["enabled"]
    _drop_if_empty(doc, "hooksConfig", created, "hooksConfig")


def _drop_if_empty(parent: JSONObject, key: str, created: list[str], container: str) -> None:
    """Delete `parent[key]` when it is empty and install created it."""
    if container in created and key in parent and not parent[key]:
        del parent[key]
        created.remove(container)


# --- plan and document helpers ---------------------------------------------------------------------


def _check_plan(plan: InstallPlan) -> None:
    if not isinstance(plan.hook_name, str) or not plan.hook_name.strip():
        raise ValueError("hook name must be a non-empty string")
    if not plan.commands:
        raise ValueError("install plan has no events")
    if plan.client not in AGENTS:
        raise ValueError(f"unknown client {plan.client!r}")
    known = install_events(plan.client)
    for event, command in plan.commands.items():
        if event not in known:
            raise ValueError(f"unknown {plan.client} event {event!r}; known: {', '.join(known)}")
        if not isinstance(command, str) or not command.strip():
            raise ValueError(f"empty command for event {event}")
    timeout = plan.timeout_ms
    if isinstance(timeout, bool) or not isinstance(timeout, int) or not 0 < timeout <= MAX_TIMEOUT_MS:
        raise ValueError(f"hook timeout must be an integer from 1 to {MAX_TIMEOUT_MS} ms, got {timeout!r}")


def _definition(plan: InstallPlan, event: str) -> JSONObject:
    name, command = plan.hook_name, plan.commands[event]
    spec = agent(plan.client).install
    seconds = -(-plan.timeout_ms // 1000)  # agents that count seconds: round up
    if spec.form == "gemini":
        hook: JSONObject = {
            "type": "command",
            "name": name,
            "command": command,
            "timeout": plan.timeout_ms,
            "description": DESCRIPTION,
        }
        return {"hooks": [hook]}
    if spec.form == "qwen":
        hook = {"type": "command", "name": name, "command": command, "timeout": seconds, "description": DESCRIPTION}
        return {"hooks": [hook]}
    if spec.form == "codex":  # closed schema: no name, so hookd's hook is the one whose statusMessage is its name
        return {"hooks": [{"type": "command", "command": command, "timeout": seconds, "statusMessage": name}]}
    if spec.form == "copilot":  # a flat handler list per event, in hookd's own file
        return {"type": "command", "bash": command, "timeoutSec": seconds}
    http = plan.http.get(event)
    if http is not None:
        hook = {"type": "http", "name": name, **http}
    else:
        hook = {"type": "command", "name": name, "command": command, "args": list(plan.args.get(event, ()))}
    hook["timeout"] = seconds
    if event in plan.block_on_failure:
        hook["onFailure"] = "block"
    return {"hooks": [hook]}


def _is_named(hook: Any, name: str, identity: str = "name") -> bool:
    return isinstance(hook, dict) and hook.get(identity) == name


def _names(definition: Any, name: str, identity: str = "name") -> bool:
    """Does this hook definition hold a hook called `name`?"""
    return (
        isinstance(definition, dict)
        and isinstance(definition.get("hooks"), list)
        and any(_is_named(h, name, identity) for h in definition["hooks"])
    )


def _find_ours(hooks: JSONObject, name: str, path: Path, identity: str = "name") -> dict[str, list[int]]:
    """Indexes of hookd's own definitions per event; SettingsError for a `name` hook we did not write."""
    found: dict[str, list[int]] = {}
    for event, entries in hooks.items():
        if not isinstance(entries, list):
            continue
        for index, definition in enumerate(entries):
            if not _names(definition, name, identity):
                continue
            extra = sorted(set(definition) - {"hooks"})
            if len(definition["hooks"]) == 1 and not extra:
                found.setdefault(event, []).append(index)
                continue
            why = (
                f"its definition also has {', '.join(repr(k) for k in extra)}"
                if extra
                else "it shares its definition with other hooks"
            )
            raise SettingsError(
                f"{path}: hooks.{event}[{index}] holds a hook named {name!r} that hookd install did not "
                f"write ({why}); remove it, or uninstall hookd first, then install again"
            )
    return found


def _note(created: list[str], container: str) -> None:
    if container not in created:
        created.append(container)


def _record(doc: JSONObject) -> JSONObject | None:
    marker = doc.get(MARKER_KEY)
    if marker is None:
        return None
    record: JSONObject = marker["installed"]
    return record


def _type_name(value: Any) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"


def _validate(doc: Any, path: Path) -> JSONObject:
    if not isinstance(doc, dict):
        raise SettingsError(f"{path}: the top level is {_type_name(doc)}, expected an object; {_REFUSE}")
    hooks = doc.get("hooks")
    if hooks is not None:
        if not isinstance(hooks, dict):
            raise SettingsError(f'{path}: "hooks" is {_type_name(hooks)}, expected an object; {_REFUSE}')
        for event in _all_event_names():
            entries = hooks.get(event)
            if entries is not None and not isinstance(entries, list):
                raise SettingsError(f'{path}: "hooks.{event}" is {_type_name(entries)}, expected an array; {_REFUSE}')
    config = doc.get("hooksConfig")
    if config is not None and not isinstance(config, dict):
        raise SettingsError(f'{path}: "hooksConfig" is {_type_name(config)}, expected an object; {_REFUSE}')
    if MARKER_KEY in doc and not _is_marker(doc[MARKER_KEY]):
        raise SettingsError(
            f'{path}: the top-level key "{MARKER_KEY}" is not the install record hookd writes; '
            f"remove or rename it, hookd will not overwrite it"
        )
    return doc


def _is_marker(marker: Any) -> bool:
    if not isinstance(marker, dict) or set(marker) != {"installed"}:
        return False
    record = marker["installed"]
    if not isinstance(record, dict) or not set(record) <= {"names", "created", _ENABLED}:
        return False
    return all(
        isinstance(record.get(key), list) and all(isinstance(item, str) for item in record[key])
        for key in ("names", "created")
    )


# --- reading ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Loaded:
    target: Path  # the file actually read and written (a symlinked settings.json resolved)
    doc: JSONObject
    data: bytes | None  # None: the file does not exist
    st: os.stat_result | None
    comment_at: tuple[int, int] | None  # (line, column) of the first comment


class _DuplicateKeyError(Exception):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> JSONObject:
    out: JSONObject = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKeyError(key)
        out[key] = value
    return out


def _constant(token: str) -> Any:
    raise ValueError(f"{token} is not JSON")


# A JSON string, a // comment, a /* */ comment, or an unterminated /* (strip-json-comments' grammar).
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?\*/|/\*', re.DOTALL)


def _position(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _strip_comments(text: str, path: Path) -> tuple[str, tuple[int, int] | None]:
    """Blank out comments outside strings, keeping every offset, line and column in place."""
    first: list[tuple[int, int]] = []

    def blank(match: re.Match[str]) -> str:
        token = match.group()
        if token.startswith('"'):
            return token
        line, column = _position(text, match.start())
        if token == "/*":
            raise SettingsError(
                f"{path}: not valid JSON (line {line} column {column}): unterminated /* comment; {_REFUSE}"
            )
        if not first:
            first.append((line, column))
        return re.sub(r"[^\r\n]", " ", token)

    stripped = _TOKENS.sub(blank, text)
    return stripped, (first[0] if first else None)


def _load_text(path: Path) -> _Loaded:
    """The bytes of a file that is not JSON (Codex's config.toml); data None when it does not exist."""
    target = path.resolve()
    try:
        data = target.read_bytes()
    except FileNotFoundError:
        return _Loaded(target, {}, None, None, None)
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read it: {exc.strerror or exc}") from exc
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path}: not valid UTF-8 (byte {exc.start}); {_REFUSE}") from exc
    return _Loaded(target, {}, data, None, None)


def _load(path: Path) -> _Loaded:
    try:
        target = path.resolve()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop
        raise SettingsError(f"{path}: cannot resolve it: {exc}") from exc
    try:
        with target.open("rb") as handle:
            st = os.fstat(handle.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise SettingsError(f"{path}: not a regular file")
            data = handle.read()
    except FileNotFoundError:
        return _Loaded(target, {}, None, None, None)
    except IsADirectoryError:
        raise SettingsError(f"{path}: is a directory, expected a settings file") from None
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read it: {exc.strerror or exc}") from exc
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SettingsError(f"{path}: not valid UTF-8 (byte {exc.start}); {_REFUSE}") from exc
    if text.startswith("\ufeff"):
        raise SettingsError(f"{path}: starts with a byte-order mark, which is not JSON; {_REFUSE}")
    if not text.strip():
        return _Loaded(target, {}, data, st, None)
    stripped, comment_at = _strip_comments(text, path)
    try:
        doc = json.loads(stripped, object_pairs_hook=_pairs, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"{path}: not valid JSON (line {exc.lineno} column {exc.colno}): {exc.msg}; {_REFUSE}"
        ) from exc
    except _DuplicateKeyError as exc:
        raise SettingsError(f"{path}: duplicate key {exc.args[0]!r} in an object; {_REFUSE}") from exc
    except RecursionError:
        raise SettingsError(f"{path}: not valid JSON: nested too deeply; {_REFUSE}") from None
    except ValueError as exc:
        raise SettingsError(f"{path}: not valid JSON: {exc}; {_REFUSE}") from exc
    return _Loaded(target, _validate(doc, path), data, st, comment_at)


# --- writing ---------------------------------------------------------------------------------------


def _dump(value: Any) -> bytes:
    try:
        return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a \udXXX escape: keep it escaped
        return (json.dumps(value, indent=2) + "\n").encode("ascii")


def _commit(
    path: Path, loaded: _Loaded, doc: JSONObject, added: tuple[str, ...], removed: tuple[str, ...]
) -> InstallResult:
    new = _dump(doc)
    if loaded.data is not None and new == _dump(loaded.doc):
        return InstallResult(path, False, None, (), ())
    if loaded.comment_at is not None:
        line, column = loaded.comment_at
        raise SettingsError(
            f"{path}: contains comments (first at line {line} column {column}) that rewriting would lose; "
            f"remove them or edit the hooks by hand (see docs/install.md), hookd did not change the file"
        )
    backup: Path | None = None
    try:
        if loaded.st is None:
            mode, owner = None, None
            try:
                loaded.target.parent.mkdir(exist_ok=True)
            except FileNotFoundError:
                raise SettingsError(f"{path}: directory {loaded.target.parent.parent} does not exist") from None
        else:
            mode = stat.S_IMODE(loaded.st.st_mode)
            owner = (loaded.st.st_uid, loaded.st.st_gid)
            if owner == (os.geteuid(), os.getegid()):
                owner = None
            assert loaded.data is not None
            backup = path.with_name(path.name + BACKUP_SUFFIX)
            _atomic_write(backup, loaded.data, mode=mode, owner=owner)
        _atomic_write(loaded.target, new, mode=mode, owner=owner, check=lambda: _unchanged(path, loaded))
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        raise SettingsError(f"{path}: cannot write{where}: {exc.strerror or exc}") from exc
    return InstallResult(path, True, backup, added, removed)


def _unchanged(path: Path, loaded: _Loaded) -> None:
    """Refuse to replace a file someone else changed (or created) since we read it."""
    try:
        now: os.stat_result | None = loaded.target.stat()
    except FileNotFoundError:
        now = None
    before = loaded.st
    same = (now is None and before is None) or (
        now is not None
        and before is not None
        and (now.st_dev, now.st_ino, now.st_size, now.st_mtime_ns)
        == (before.st_dev, before.st_ino, before.st_size, before.st_mtime_ns)
    )
    if not same:
        raise SettingsError(f"{path}: changed by another program while hookd was editing it; run it again")


def _atomic_write(
    target: Path,
    data: bytes,
    *,
    mode: int | None,
    owner: tuple[int, int] | None,
    check: Callable[[], None] | None = None,
) -> None:
    """Write `data` to a temp file beside `target`, fsync it, then rename it over `target`.

    `mode` None creates the file with the default umask (0666 & ~umask); otherwise exactly `mode`.
    """
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666 if mode is None else 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            if owner is not None:
                with contextlib.suppress(PermissionError):
                    os.fchown(handle.fileno(), *owner)
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if check is not None:
            check()
        tmp.replace(target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    with contextlib.suppress(OSError):
        dir_fd = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
