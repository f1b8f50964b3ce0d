"""hookd's ledger of installs: which agent, scope and files `hookd install` wrote, and when, kept in hookd's
own state directory (``<state_dir>/installs.json``, self-protection's like the rest of it).

Why a ledger beside the marker in the settings file (hookd.install): a hook file that is hookd's alone
(a hooks directory's file, a plugin) or a settings file that is deleted takes its marker with it, and then
nothing remembers that hookd was installed there: `hookd doctor` could only say "registered for no agent".
The ledger outlives the file, so doctor names the scope that runs unguarded and the install that fixes it.

Format::

    {"version": 1, "installs": [{"agent": …, "scope": …, "path": <the hook file>, "files": [<every file
      written>], "installed": "2026-12-05T03:40:12Z", "project": <project scope: the project>}]}

One entry per (agent, scope, hook file): install adds or replaces its own, uninstall removes exactly it.
Every change is read, changed and written under an exclusive lock on the state directory, as a temp file
renamed over the ledger (hookd.install.files), so two installs at once lose no entry and a crash leaves
the old ledger or the new one. A ledger that does not parse is never rewritten (that would lose what it
recorded): LedgerError, one line, and the caller goes on without it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hookd.config import Config
from hookd.errors import HookdError
from hookd.install.files import _atomic_write

LEDGER_NAME = "installs.json"
VERSION = 1
MAX_LEDGER_BYTES = 4 << 20  # thousands of installs; a larger file is not hookd's
_FIELDS = ("agent", "scope", "path", "installed")


class LedgerError(HookdError):
    """The ledger cannot be read or written; the message is one line and names the file."""


@dataclass(frozen=True, slots=True)
class Install:
    agent: str
    scope: str
    path: Path  # the file whose hookd entries (or plugin) make the agent call hookd
    files: tuple[Path, ...]  # every file install wrote: the hook file first, then a trust file, a switch file
    installed: datetime
    project: Path | None = None  # project scope: the project whose settings these are

    def as_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"agent": self.agent, "scope": self.scope, "path": str(self.path),
                                 "files": [str(f) for f in self.files],
                                 "installed": self.installed.strftime("%Y-%m-%dT%H:%M:%SZ")}  # fmt: skip
        if self.project is not None:
            entry["project"] = str(self.project)
        return entry

    def same_place(self, other: Install) -> bool:
        return (self.agent, self.scope, self.path) == (other.agent, other.scope, other.path)


def ledger_path(config: Config) -> Path:
    return config.daemon.state_dir / LEDGER_NAME


def now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def read_ledger(path: Path) -> tuple[Install, ...]:
    """The installs recorded in `path` (none when it does not exist); LedgerError when it does not parse."""
    return tuple(_parse(entry, path) for entry in _load(path))


def record(path: Path, install: Install, *, keep_time: bool = False) -> None:
    """Add `install`, replacing the entry of the same agent, scope and hook file (`keep_time`: that entry's
    install time stays, for an install that changed nothing)."""

    def change(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        kept, replaced = [], None
        for entry in entries:
            if install.same_place(_parse(entry, path)):
                replaced = entry
            else:
                kept.append(entry)
        new = install.as_json()
        if keep_time and replaced is not None:
            new["installed"] = replaced["installed"]
        return [*kept, new]

    _update(path, change)


def forget(path: Path, agent: str, scope: str, hook_file: Path) -> bool:
    """Remove the entry of this agent, scope and hook file; whether there was one."""
    gone: list[bool] = []

    def change(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
        kept = [e for e in entries if (e["agent"], e["scope"], e["path"]) != (agent, scope, str(hook_file))]
        gone.append(len(kept) != len(entries))
        return kept

    if path.exists():
        _update(path, change)
    return bool(gone and gone[0])


def _update(path: Path, change: Callable[[list[dict[str, Any]]], list[dict[str, Any]]]) -> None:
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with _locked(path.parent):
            entries = _load(path)
            new = change(entries)
            if new != entries or not path.exists():
                data = json.dumps({"version": VERSION, "installs": new}, indent=2) + "\n"
                _atomic_write(path, data.encode(), mode=0o600, owner=None)
    except OSError as exc:
        raise LedgerError(f"{path}: cannot write hookd's install ledger: {exc.strerror or exc}") from exc


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _load(path: Path) -> list[dict[str, Any]]:
    """The ledger's entries as stored (each checked); [] when it does not exist."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_LEDGER_BYTES + 1)
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise LedgerError(f"{path}: cannot read hookd's install ledger: {exc.strerror or exc}") from exc
    if len(data) > MAX_LEDGER_BYTES:
        raise LedgerError(f"{path}: larger than {MAX_LEDGER_BYTES} bytes, not hookd's install ledger")
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise LedgerError(f"{path}: not valid UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise LedgerError(f"{path}: not valid JSON (line {exc.lineno} column {exc.colno}): {exc.msg}") from None
    except (ValueError, RecursionError) as exc:
        raise LedgerError(f"{path}: not valid JSON: {exc}") from None
    installs = doc.get("installs") if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or doc.get("version") != VERSION or not isinstance(installs, list):
        raise LedgerError(f'{path}: not a version {VERSION} install ledger (an object with an "installs" list)')
    for entry in installs:
        _parse(entry, path)
    return installs


def _parse(entry: Any, path: Path) -> Install:
    if not isinstance(entry, dict) or any(not isinstance(entry.get(k), str) for k in _FIELDS):
        raise LedgerError(f"{path}: an install entry is not an object with {', '.join(_FIELDS)} as strings")
    files = entry.get("files", [])
    project = entry.get("project")
    if (
        not isinstance(files, list)
        or not all(isinstance(f, str) for f in files)
        or not (project is None or isinstance(project, str))
    ):
        raise LedgerError(f'{path}: an install entry\'s "files" is not a list of paths or "project" not a path')
    try:
        installed = datetime.strptime(entry["installed"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError:
        raise LedgerError(f"{path}: an install time is not YYYY-MM-DDTHH:MM:SSZ: {entry['installed'][:40]!r}") from None
    return Install(entry["agent"], entry["scope"], Path(entry["path"]), tuple(Path(f) for f in files), installed,
                   Path(project) if project is not None else None)  # fmt: skip
