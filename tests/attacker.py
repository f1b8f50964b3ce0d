"""Another local user, for real: commands run as nobody (65534) through setpriv. The suite runs as root
in CI; a permission check tested as root proves nothing, so the attacker is always dropped."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from support import require

ATTACKER = 65534
DROPPED_PYTHON = "/usr/bin/python3.11"  # the pyenv interpreter under /root is closed to nobody
DROP = ("setpriv", f"--reuid={ATTACKER}", f"--regid={ATTACKER}", "--clear-groups")


def require_privileges() -> None:
    require(os.getuid() == 0 and shutil.which("setpriv") is not None, "root and setpriv (to act as another uid)")
    require(os.access(DROPPED_PYTHON, os.X_OK), DROPPED_PYTHON)


def as_attacker(*argv: str, timeout: float = 10) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*DROP, *argv], capture_output=True, timeout=timeout, check=True)


@contextmanager
def shared_tmp() -> Iterator[Path]:
    """A world-writable sticky directory, as /tmp is: where the attacker can get in first."""
    with tempfile.TemporaryDirectory(prefix="hka", dir="/tmp") as tmp:
        os.chmod(tmp, 0o1777)
        yield Path(tmp)
