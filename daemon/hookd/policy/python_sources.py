"""The Python policies of one policy directory: which files, whether they may run (the trust rule), and
their sources, read once so that every worker of a set runs exactly the code that was loaded.

Trust: Python from a local directory runs only when the directory, every directory below it that holds a
policy, and every policy file are owned by the daemon's uid and not writable by group or others. Python
from a bundle runs only when the bundle's signature verified.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hookd.errors import PolicyLoadError

Source = Literal["local", "bundle"]


@dataclass(frozen=True, slots=True)
class PolicySource:
    path: str  # relative to the policy directory, with "/"
    filename: str  # absolute, for tracebacks
    source: str


@dataclass(frozen=True, slots=True)
class PythonPolicySet:
    policy_dir: Path
    sources: tuple[PolicySource, ...]
    revision: str


def is_policy_file(name: str) -> bool:
    stem = name.removesuffix(".py")
    return name.endswith(".py") and not (stem.startswith(("test_", "_")) or stem.endswith("_test"))


def discover_python(policy_dir: Path) -> list[Path]:
    """The Python policy files of a directory in a stable order (tests, `_private.py` and dot dirs skipped)."""
    found = []
    for root, dirs, files in os.walk(policy_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        found += [Path(root) / name for name in sorted(files) if is_policy_file(name)]
    return found


def check_local_trust(policy_dir: Path, files: Sequence[Path]) -> None:
    """Refuse Python policies that someone other than the daemon's uid could have written."""
    euid = os.geteuid()
    checked = {policy_dir, *files, *(f.parent for f in files)}
    for path in sorted(checked):
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            raise PolicyLoadError(f"refusing Python policies: {path} is a symbolic link")
        if info.st_uid != euid:
            raise PolicyLoadError(
                f"refusing Python policies: {path} is owned by uid {info.st_uid}, not by the daemon's uid {euid}"
            )
        if info.st_mode & 0o022:
            raise PolicyLoadError(
                f"refusing Python policies: {path} is writable by group or others "
                f"(mode {stat.S_IMODE(info.st_mode):o}); run chmod go-w {path}"
            )


def load_python_set(policy_dir: Path, *, source: Source = "local", signed: bool = False) -> PythonPolicySet | None:
    """The directory's Python policies, or None when it has none. Raises PolicyLoadError when they may not run."""
    policy_dir = policy_dir.resolve()
    files = discover_python(policy_dir)
    if not files:
        return None
    if source == "bundle" and not signed:
        raise PolicyLoadError(
            f"refusing Python policies from the bundle in {policy_dir}: a bundle that carries Python must be signed"
        )
    if source == "local":
        check_local_trust(policy_dir, files)
    sources = []
    digest = hashlib.sha256()
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PolicyLoadError(f"cannot read {path}: {exc}") from None
        relative = path.relative_to(policy_dir).as_posix()
        sources.append(PolicySource(relative, str(path), text))
        digest.update(relative.encode() + b"\0" + text.encode() + b"\0")
    return PythonPolicySet(policy_dir, tuple(sources), digest.hexdigest()[:12])
