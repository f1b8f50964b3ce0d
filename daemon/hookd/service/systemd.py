"""systemd units for hookd: two socket units (the hook socket and the control socket, named `hook` and
`control` for the daemon, hookd.transport.activation) and a Type=notify service unit, hardened to what
the configured daemon does (hookd.service.needs). docs/service.md lists every directive and why.

`hookd service install` renders the three units, writes them all or none (each through a temporary
file renamed into place, and the ones already renamed put back when a later one fails), then asks
systemctl to reload and enable the sockets; `uninstall` stops and disables them and removes the files.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hookd import __version__
from hookd.config import Config, default_state_dir
from hookd.errors import ServiceError
from hookd.runtime import isolated
from hookd.service.needs import Needs, service_needs

SERVICE = "hookd.service"
SOCKETS = (("hookd.socket", "hook"), ("hookd-control.socket", "control"))
UNIT_NAMES = (SERVICE, *(name for name, _ in SOCKETS))
# the units that hold a user manager's hookd.service (systemd.special(7): the root slice, app.slice where its
# services run; user.slice, user-UID.slice and user@UID.service above the manager): a limit or stop of one is of
# hookd's too (protected_paths' guard_units_holding says the same for the policy)
HOLDING_UNITS = ("-.slice", "app.slice", "user.slice", "user-*.slice", "user@*.service")
WATCHDOG_SECONDS = 30
SYSTEMCTL_TIMEOUT_S = 60
MARK = "# Written by `hookd service install`"


@dataclass(frozen=True, slots=True)
class Scope:
    name: str  # "user" or "system"
    unit_dir: Path
    runtime_root: Path  # what RuntimeDirectory= is relative to
    state_root: Path | None  # what StateDirectory= is relative to (None: not used, see docs/service.md)

    @property
    def systemctl(self) -> list[str]:
        return ["systemctl", "--user"] if self.name == "user" else ["systemctl"]


def user_scope(unit_dir: Path | None = None) -> Scope:
    xdg_config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    runtime = os.environ.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
    # A user manager's StateDirectory= is $XDG_CONFIG_HOME up to systemd 253 (hookd's config dir), so
    # the state paths are allowed one by one instead.
    return Scope("user", unit_dir or Path(xdg_config) / "systemd" / "user", Path(runtime), None)


def system_scope(unit_dir: Path | None = None) -> Scope:
    return Scope("system", unit_dir or Path("/etc/systemd/system"), Path("/run"), Path("/var/lib"))


@dataclass(frozen=True, slots=True)
class UnitFile:
    name: str
    text: str


def render(
    config: Config, scope: Scope, exec_start: Sequence[str], run_as: str = "", needs: Needs | None = None
) -> list[UnitFile]:
    """The three units for `config`: sockets first, then the service."""
    needs = needs or service_needs(config, as_root=scope.name == "user" and os.geteuid() == 0)
    header = f"{MARK} (hookd {__version__}) for {config.source or 'the default config'}; run it again after a change."
    units = [UnitFile(name, _socket_unit(header, path, fd_name)) for (name, fd_name), path in
             zip(SOCKETS, (config.hook_socket, config.control_socket), strict=True)]  # fmt: skip
    units.append(UnitFile(SERVICE, _service_unit(header, config, scope, needs, exec_start, run_as)))
    return units


def _socket_unit(header: str, path: Path, fd_name: str) -> str:
    return f"""{header}
[Unit]
Description=hookd {fd_name} socket

[Socket]
ListenStream={path}
SocketMode=0600
DirectoryMode=0700
FileDescriptorName={fd_name}
Service={SERVICE}

[Install]
WantedBy=sockets.target
"""


def _directories(config: Config, scope: Scope, needs: Needs) -> tuple[list[str], list[str], list[str]]:
    """RuntimeDirectory=, StateDirectory= and ReadWritePaths= entries for the paths the daemon writes."""
    runtime, state, read_write = [], [], []
    for path in needs.writes:
        if path.is_relative_to(scope.runtime_root) and path != scope.runtime_root:
            runtime.append(str(path.relative_to(scope.runtime_root)))
        elif scope.state_root is not None and path.is_relative_to(scope.state_root) and path != scope.state_root:
            state.append(str(path.relative_to(scope.state_root)))
        else:
            read_write.append(str(path))
    if runtime and needs.temp.is_relative_to(config.daemon.runtime_dir):
        runtime.append(str(needs.temp.relative_to(scope.runtime_root)))
    return sorted(set(runtime)), state, read_write


def _service_unit(
    header: str, config: Config, scope: Scope, needs: Needs, exec_start: Sequence[str], run_as: str
) -> str:
    runtime, state, read_write = _directories(config, scope, needs)
    lines = [
        header,
        "[Unit]",
        "Description=hookd policy daemon for AI coding agents' hooks",
        f"Requires={' '.join(name for name, _ in SOCKETS)}",
        f"After={' '.join(name for name, _ in SOCKETS)}",
        "",
        "[Service]",
        "Type=notify",
        "NotifyAccess=main",
        f"ExecStart={shlex.join(exec_start)}",
        f"WorkingDirectory={isolated.SAFE_CWD}",  # a user unit starts in $HOME, where the agent may plant hookd/
        "ExecReload=/bin/kill -HUP $MAINPID",
        f"Sockets={' '.join(name for name, _ in SOCKETS)}",
        f"WatchdogSec={WATCHDOG_SECONDS}",
        "Restart=on-failure",
        "RestartSec=1",
        "KillMode=mixed",
        "TimeoutStopSec=20",
    ]
    if run_as:
        lines += [f"User={run_as}", f"Group={run_as}", "RemoveIPC=yes"]
    # The daemon's default state paths follow $XDG_STATE_HOME: pin it to what this config was read with.
    lines.append(f"Environment=XDG_STATE_HOME={default_state_dir().parent}")
    lines.append(f"Environment=TMPDIR={needs.temp}")
    if runtime:
        lines += [f"RuntimeDirectory={' '.join(runtime)}", "RuntimeDirectoryMode=0700", "RuntimeDirectoryPreserve=yes"]
    if state:
        lines += [f"StateDirectory={' '.join(state)}", "StateDirectoryMode=0700"]
    if read_write:
        lines.append(f"ReadWritePaths={' '.join(read_write)}")
    lines += _hardening(needs)
    lines += ["", "[Install]", "WantedBy=default.target" if scope.name == "user" else "WantedBy=multi-user.target",
              f"Also={' '.join(name for name, _ in SOCKETS)}", ""]  # fmt: skip
    return "\n".join(lines)


def _hardening(needs: Needs) -> list[str]:
    lines = [
        "UMask=0077",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "ProtectHome=read-only",
        "PrivateDevices=yes",
        "PrivateUsers=yes",
        "PrivateMounts=yes",
        "ProtectKernelTunables=yes",
        "ProtectKernelModules=yes",
        "ProtectKernelLogs=yes",
        "ProtectControlGroups=yes",
        "ProtectClock=yes",
        "ProtectHostname=yes",
        "ProtectProc=invisible",
        "RestrictRealtime=yes",
        "RestrictSUIDSGID=yes",
        "LockPersonality=yes",
        "MemoryDenyWriteExecute=yes",
        "SystemCallArchitectures=native",
        "CapabilityBoundingSet=",
        "AmbientCapabilities=",
        "KeyringMode=private",
        "DevicePolicy=closed",
        f"RestrictAddressFamilies={' '.join(needs.families)}",
        "SystemCallFilter=@system-service",
        "SystemCallErrorNumber=EPERM",
    ]
    if needs.python:  # the workers' sandbox: user + network namespaces, Landlock, their own seccomp filter
        lines += [
            "RestrictNamespaces=user net",
            "SystemCallFilter=seccomp landlock_create_ruleset landlock_add_rule landlock_restrict_self",
            "SystemCallFilter=~@privileged",
        ]
    else:
        # setpriority back from @resources: the lane lowers its own priority (with no capability, a process
        # can only lower priorities, never raise one).
        lines += ["RestrictNamespaces=yes", "SystemCallFilter=~@privileged @resources", "SystemCallFilter=setpriority"]
    if not needs.network:
        lines.append("PrivateNetwork=yes")
    if not needs.remote:
        lines += ["IPAddressDeny=any", "IPAddressAllow=localhost"]
    return lines


# --- writing and removing --------------------------------------------------------------------------------


def write_units(unit_dir: Path, units: Sequence[UnitFile]) -> list[Path]:
    """All the units or none: each is written to a temporary file first; the renames come last, and a
    failed one puts back what the earlier ones replaced."""
    try:
        unit_dir.mkdir(mode=0o755, parents=True, exist_ok=True)
    except OSError as exc:
        raise ServiceError(f"cannot create {unit_dir}: {exc.strerror or exc}") from exc
    staged: list[tuple[Path, Path]] = []
    try:
        for unit in units:
            target = unit_dir / unit.name
            temp = unit_dir / f".{unit.name}.hookd-new"
            temp.write_text(unit.text, encoding="utf-8")
            os.chmod(temp, 0o644)
            staged.append((temp, target))
        _rename_all(staged)
    except OSError as exc:
        raise ServiceError(f"cannot write the units into {unit_dir}: {exc.strerror or exc}") from exc
    finally:
        for temp, _ in staged:
            temp.unlink(missing_ok=True)
    return [target for _, target in staged]


def _rename_all(staged: Sequence[tuple[Path, Path]]) -> None:
    saved: list[tuple[Path, bytes | None]] = []
    try:
        for temp, target in staged:
            saved.append((target, target.read_bytes() if target.exists() else None))
            os.replace(temp, target)
    except OSError:
        for target, old in saved:
            if old is None:
                target.unlink(missing_ok=True)
            else:
                target.write_bytes(old)
        raise


def remove_units(unit_dir: Path) -> list[Path]:
    """Remove the units hookd wrote (recognised by their first line); others are left alone."""
    removed = []
    for name in UNIT_NAMES:
        path = unit_dir / name
        if path.is_file() and path.read_text(encoding="utf-8", errors="replace").startswith(MARK):
            path.unlink()
            removed.append(path)
    return removed


def systemctl(scope: Scope, *args: str) -> subprocess.CompletedProcess[str] | None:
    """Run systemctl for this scope; None when there is no systemctl or no manager to talk to."""
    done = _run_systemctl(scope, *args)
    if isinstance(done, str):
        return None
    return done


def manager_missing(scope: Scope) -> str:
    """Why no service manager of this scope answers here (systemctl's own words), or '' when one does."""
    done = _run_systemctl(scope, "show-environment")
    return done if isinstance(done, str) else ""


def _run_systemctl(scope: Scope, *args: str) -> subprocess.CompletedProcess[str] | str:
    """systemctl's answer, or why there is none: no systemctl, or no manager to talk to."""
    if shutil.which("systemctl") is None:
        return "there is no systemctl"
    try:
        done = subprocess.run([*scope.systemctl, *args], capture_output=True, text=True,
                              timeout=SYSTEMCTL_TIMEOUT_S, check=False, stdin=subprocess.DEVNULL)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"systemctl did not answer: {exc}"
    lines = done.stderr.strip().splitlines()
    if done.returncode != 0 and lines and _no_manager(done.stderr):
        return lines[-1]
    return done


def _no_manager(stderr: str) -> bool:
    # "No medium found": systemctl --user without $XDG_RUNTIME_DIR (no login session, a container)
    return any(text in stderr for text in ("Failed to connect to", "System has not been booted with systemd",
                                           "No such file or directory", "Host is down", "No medium found"))  # fmt: skip


def default_exec_start(config: Config) -> list[str]:
    """This interpreter running hookd, isolated (hookd.runtime.isolated: -I, from WorkingDirectory=/); a venv's python,
    not the base one: it finds the venv's packages."""
    command = isolated.serve_command(
        os.path.abspath(sys.executable), "-B"
    )  # -B: the code is on a read-only file system
    if config.source is not None:
        command += ["--config", str(config.source)]
    return [*command, "serve", "--runtime-dir", str(config.daemon.runtime_dir)]
