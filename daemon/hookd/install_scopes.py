"""The files beside the settings file that some agents' scopes need (`hookd install`): Codex's trust
entries and managed requirements.toml, Copilot's folder trust and its managed-hooks-only file."""

from __future__ import annotations

import copy
import hashlib
import json
import stat
import tomllib
from pathlib import Path

from hookd.errors import SettingsError
from hookd.install_files import _atomic_write, _commit, _constant, _DuplicateKeyError, _load, _load_text, _pairs
from hookd.install_merge import _is_named
from hookd.install_plan import _REFUSE, BACKUP_SUFFIX, InstallPlan, InstallResult, JSONObject, install_events

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
