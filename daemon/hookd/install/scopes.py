"""The files beside the settings file that some agents' scopes need (`hookd install`), written for the
agent's module (hookd.dialects.spec): its trust file, a settings file of its own text format, and a
managed-hooks-only switch in a file of its own. The module says what the text becomes; this writes it."""

from __future__ import annotations

import copy
import json
import stat
from collections.abc import Callable
from pathlib import Path

from hookd.dialects.spec import HookEntry, InstallSpec, TrustChange
from hookd.errors import SettingsError
from hookd.install.files import _atomic_write, _commit, _load, _load_text
from hookd.install.plan import BACKUP_SUFFIX, InstallResult


def _rewrite_text(path: Path, change: Callable[[str], str], *, write: bool) -> Path | None:
    """Apply `change` to the text of `path` ("" when missing); write the result (with a backup of the old
    bytes) when it differs and `write`. `change` refuses with SettingsError before anything is written.
    Returns the backup path when one was made."""
    loaded = _load_text(path)
    text = loaded.data.decode("utf-8") if loaded.data is not None else ""
    new = change(text)
    if not write or new == text or (loaded.data is None and not new):
        return None
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
    return backup


def _trust(spec: InstallSpec, trust_file: Path | None, change: TrustChange, *, write: bool) -> None:
    """Bring the agent's trust file in step with `change` (nothing where the agent needs no trust)."""
    if spec.trust is None or trust_file is None:
        return
    update = spec.trust.update
    _rewrite_text(trust_file, lambda text: update(trust_file, text, change), write=write)


def _text_settings(
    spec: InstallSpec, path: Path, entries: tuple[HookEntry, ...] | None, managed_only: bool
) -> InstallResult:
    """A settings file in the agent's own text format: install (entries) or uninstall (None)."""
    text_spec = spec.text_settings
    assert text_spec is not None
    loaded = _load_text(path)
    old = loaded.data.decode("utf-8") if loaded.data is not None else ""
    new = text_spec.render(path, old, entries, managed_only)
    if new == old or (loaded.data is None and entries is None):
        return InstallResult(path, False, None, (), ())
    backup = _rewrite_text(path, lambda _old: new, write=True)
    events = text_spec.events(new)
    return InstallResult(path, True, backup, events, tuple(e for e in text_spec.events(old) if e not in events))


_RECORD_SUFFIX = ".hookd-installed"


def _managed_only_file(path: Path, key: str, *, enable: bool) -> None:
    """Set (enable) or undo the agent's managed-hooks-only switch in a file of its own (a closed schema
    that takes no hooks and no record of hookd's). What install added is recorded beside it in
    `<file>.hookd-installed`; uninstall removes the switch only then."""
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
