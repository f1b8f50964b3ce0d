"""Reading and writing an agent's settings file for `hookd install`: JSON with comments read as the agents
read it, refused whole when it is malformed, and replaced atomically with a backup (hookd.install's
docstring has the rules)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookd.errors import SettingsError
from hookd.install.plan import (
    _ENABLE_KEYS,
    _REFUSE,
    BACKUP_SUFFIX,
    MARKER_KEY,
    InstallResult,
    JSONObject,
    _all_event_names,
)


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
    if not isinstance(record, dict) or not set(record) <= {"names", "created", "events", *_ENABLE_KEYS}:
        return False
    return all(
        isinstance(record.get(key), list) and all(isinstance(item, str) for item in record[key])
        for key in ("names", "created", *(("events",) if "events" in record else ()))
    )


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
