"""macOS: a launchd agent that keeps `hookd serve` running for the user (~/Library/LaunchAgents).

launchd can pass a listening socket (launch_activate_socket), but hookd's daemon takes sockets the
systemd way (hookd.transport.activation), so the agent is started at login and kept alive instead
(RunAtLoad, KeepAlive): the daemon binds its own sockets. The plist is built as a dict and written with
plistlib, then read back with plistlib before it replaces the old one. docs/service.md.
"""

from __future__ import annotations

import os
import plistlib
import shutil
import subprocess
from pathlib import Path
from typing import Any

from hookd.config import Config
from hookd.errors import HookdError
from hookd.runtime import isolated
from hookd.service.systemd import default_exec_start

LABEL = "dev.hookd.daemon"


def agent_dir(override: Path | None = None) -> Path:
    return override or Path.home() / "Library" / "LaunchAgents"


def agent_path(override: Path | None = None) -> Path:
    return agent_dir(override) / f"{LABEL}.plist"


def render(config: Config) -> dict[str, Any]:
    logs = Path.home() / "Library" / "Logs" / "hookd.log"
    return {
        "Label": LABEL,
        "ProgramArguments": default_exec_start(config),
        "WorkingDirectory": isolated.SAFE_CWD,  # not $HOME, where the agent may plant hookd/ (hookd.runtime.isolated)
        "RunAtLoad": True,
        "KeepAlive": True,
        "ProcessType": "Interactive",  # hook calls wait on it: no background throttling
        "ThrottleInterval": 1,
        "Umask": 0o077,
        "StandardOutPath": str(logs),
        "StandardErrorPath": str(logs),
        "EnvironmentVariables": {"HOME": str(Path.home())},
    }


def install(config: Config, directory: Path | None = None, *, start: bool = True) -> Path:
    path = agent_path(directory)
    data = plistlib.dumps(render(config), fmt=plistlib.FMT_XML, sort_keys=True)
    if plistlib.loads(data)["Label"] != LABEL:  # what launchd will parse
        raise HookdError("the launchd agent did not read back as written")
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.hookd-new")
    try:
        temp.write_bytes(data)
        os.replace(temp, path)
    except OSError as exc:
        temp.unlink(missing_ok=True)
        raise HookdError(f"cannot write {path}: {exc.strerror or exc}") from None
    if start and shutil.which("launchctl"):
        domain = f"gui/{os.getuid()}"
        subprocess.run(["launchctl", "bootout", domain, str(path)], capture_output=True, timeout=30, check=False)
        subprocess.run(["launchctl", "bootstrap", domain, str(path)], capture_output=True, timeout=30, check=False)
    return path


def uninstall(directory: Path | None = None) -> Path | None:
    path = agent_path(directory)
    if not path.is_file():
        return None
    if shutil.which("launchctl"):
        subprocess.run(["launchctl", "bootout", f"gui/{os.getuid()}", str(path)],
                       capture_output=True, timeout=30, check=False)  # fmt: skip
    path.unlink()
    return path
