"""`hookd doctor`: is the whole set-up sound? Each check gives findings: a fact that is fine, or a
problem with the one command or edit that fixes it.

Checks: the daemon (does one answer on the hook socket, and whose is it: the peer uid of the listener);
the service (units written and current, sockets active, when a service manager is there); every agent
and scope of the registry (hookd.doctor.agents); every install hookd's ledger records, against the file it
wrote (hookd.doctor.ledger); the runtime dir (owner, mode); the Python policy sandbox (its layers); the
policy trust rule; what would run as hookd instead of this package (hookd.doctor.shadows). Every check
reads; none changes anything. docs/doctor.md.
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import stat
import struct
from dataclasses import asdict
from pathlib import Path

from hookd.config import Config
from hookd.doctor.findings import Finding
from hookd.errors import HookdError
from hookd.types import Event

__all__ = ["Finding", "as_json", "run_checks"]


def run_checks(
    config: Config,
    project_dir: Path,
    *,
    sandbox: bool = True,
    strict: bool = False,
    needed: frozenset[Event] | None = None,
) -> list[Finding]:
    """`needed`: the events the policy set needs (hookd.policy.needs), None: every event."""
    findings = [*check_runtime_dir(config), *check_daemon(config), *check_native_quiet(), *check_service(config)]
    from hookd.doctor.agents import check_agents

    findings += check_agents(config, project_dir, needed=needed)
    from hookd.doctor.ledger import check_ledger

    findings += check_ledger(config)
    from hookd.doctor.shadows import check_shadows

    findings += check_shadows(project_dir)
    findings += check_trust(config)
    if sandbox:
        findings += check_sandbox(config, strict)
    return findings


def as_json(findings: list[Finding]) -> str:
    return json.dumps({"ok": all(f.ok for f in findings), "findings": [asdict(f) for f in findings]}, indent=2)


# --- the daemon and its runtime dir ------------------------------------------------------------------------


def check_runtime_dir(config: Config) -> list[Finding]:
    path = config.daemon.runtime_dir
    try:
        info = path.lstat()
    except FileNotFoundError:
        return [Finding("runtime dir", True, f"{path} does not exist yet (the daemon creates it 0700)")]
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        return [Finding("runtime dir", False, f"{path} is not a directory (a symlink or a file)",
                        f"remove it: rm {shlex.quote(str(path))}")]  # fmt: skip
    problems = []
    if info.st_uid != os.getuid():
        owner = f"{path} belongs to uid {info.st_uid}, not to you ({os.getuid()})"
        problems.append(Finding("runtime dir", False, owner,
                                "another user may answer your hooks: stop that daemon and remove the dir"))  # fmt: skip
    mode = stat.S_IMODE(info.st_mode)
    if mode != 0o700:
        problems.append(Finding("runtime dir", False, f"{path} has mode {mode:04o}, not 0700",
                                f"chmod 700 {shlex.quote(str(path))}"))  # fmt: skip
    return problems or [Finding("runtime dir", True, f"{path}: yours, mode 0700")]


def listener_uid(path: Path, timeout: float = 2.0) -> int | None:
    """The uid of the process listening on a Unix socket (SO_PEERCRED of a connection); None: no one."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(timeout)
        try:
            probe.connect(str(path))
        except OSError:
            return None
        _, uid, _ = struct.unpack("3i", probe.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        return int(uid)


def check_daemon(config: Config) -> list[Finding]:
    path = config.hook_socket
    uid = listener_uid(path)
    if uid is None:
        return [Finding("daemon", False, f"no daemon answers on {path}: blocking hooks fail closed",
                        "start it: hookd serve, or hookd service install (socket-activated)")]  # fmt: skip
    if uid != os.getuid():
        return [Finding("daemon", False, f"the daemon on {path} runs as uid {uid}, not as you ({os.getuid()})",
                        "stop that daemon; run your own (hookd serve) in your own runtime dir")]  # fmt: skip
    return [Finding("daemon", True, f"answering on {path} (uid {uid})")]


def check_native_quiet() -> list[Finding]:
    """Which path answers a quiet streamed chunk (optional: both are correct)."""
    from hookd.transport.native_quiet import described

    return [Finding("stream lane", True, described())]


# --- the service -----------------------------------------------------------------------------------------


def check_service(config: Config) -> list[Finding]:
    from hookd.service import systemd

    scope = systemd.user_scope()
    units = systemd.render(config, scope, systemd.default_exec_start(config))
    written = {u.name: (scope.unit_dir / u.name) for u in units if (scope.unit_dir / u.name).is_file()}
    if not written:
        return [Finding("service", True, f"no hookd units in {scope.unit_dir} (hookd service install adds them)")]
    stale = [u.name for u in units if u.name not in written or written[u.name].read_text() != u.text]
    if stale:
        return [Finding("service", False, f"units out of date with the config: {', '.join(stale)}",
                        "hookd service install")]  # fmt: skip
    findings = [Finding("service", True, f"units in {scope.unit_dir} are current")]
    missing = systemd.manager_missing(scope)
    if missing:
        return [Finding("service", False, f"hookd's units are installed in {scope.unit_dir} but no {scope.name} "
                        f"service manager runs them ({missing}): nothing starts the daemon on a hook call",
                        "run a systemd user manager (loginctl enable-linger, then log in again), or keep a daemon "
                        "up without one: hookd install --client <agent> --autostart, or hookd serve")]  # fmt: skip
    for name, _ in systemd.SOCKETS:
        done = systemd.systemctl(scope, "is-active", name)
        if done is not None and done.stdout.strip() != "active":
            findings.append(Finding("service", False, f"{name} is {done.stdout.strip() or 'unknown'}",
                                    f"systemctl --user enable --now {name}"))  # fmt: skip
    return findings


# --- policies ----------------------------------------------------------------------------------------------


def check_trust(config: Config) -> list[Finding]:
    from hookd.errors import PolicyLoadError
    from hookd.policy.python_sources import discover_python, load_python_set

    policy_dir = config.daemon.policies
    count = len(discover_python(policy_dir)) if policy_dir.is_dir() else 0
    if count == 0:
        return [Finding("policy trust", True, f"{policy_dir}: no Python policies")]
    try:
        load_python_set(policy_dir)
    except PolicyLoadError as exc:
        return [Finding("policy trust", False, str(exc), "chown the files to the daemon's user and chmod go-w")]
    return [Finding("policy trust", True, f"{policy_dir}: {count} Python policy file(s), owner and modes right")]


def check_sandbox(config: Config, strict: bool) -> list[Finding]:
    """One real Python worker and the layers it got; an unavailable layer is a problem when Python policies
    are there (or with --strict)."""
    from hookd.engines.python.engine import probe_layers
    from hookd.policy.python_sources import discover_python

    policy_dir = config.daemon.policies
    in_use = strict or (policy_dir.is_dir() and bool(discover_python(policy_dir)))
    findings = []
    try:
        layers = probe_layers(config)
    except HookdError as exc:
        return [Finding("sandbox", not in_use, f"a Python policy worker does not start here: {exc}",
                        "see docs/python-policies.md for what the kernel must allow")]  # fmt: skip
    for layer in layers:
        detail = f"{layer['name']}: {str(layer['detail']).removeprefix('unavailable: ')}"
        already = layer["name"] == "unprivileged-uid" and os.geteuid() != 0  # the daemon has no privilege to drop
        if layer["active"] or not in_use or already:
            findings.append(Finding("sandbox", True, detail + ("" if layer["active"] else " (unused: no Python)")))
        else:
            findings.append(Finding("sandbox", False, f"{detail} is unavailable",
                                    "see docs/python-policies.md for what the kernel must allow"))  # fmt: skip
    return findings
