"""`hookd doctor`: is the whole set-up sound? Each check gives findings: a fact that is fine, or a
problem with the one command or edit that fixes it.

Checks: the daemon (does one answer on the hook socket, and whose is it: the peer uid of the listener);
the service (units written and current, sockets enabled, when a service manager is there); every agent
and scope (hookd registered? its command current: the shim exists and is executable, points at this
socket? changed since install: entries edited or removed, another hook after hookd's on an event that
can block, hooks switched off); the runtime dir (owner, mode); the Python policy sandbox (its layers);
the policy trust rule. Every check reads; none changes anything. docs/doctor.md.
"""

from __future__ import annotations

import itertools
import json
import os
import shlex
import shutil
import socket
import stat
import struct
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from hookd.config import Config
from hookd.dialects.registry import AGENTS
from hookd.errors import HookdError

# The agents whose settings doctor reads so far (hookd's entries found by name in `hooks.<Event>`).
SCOPES = {name: AGENTS[name].install.scopes for name in ("gemini", "claude")}
# The events on which a hook after hookd's can turn its deny into something else.
BLOCKING = {
    "gemini": ("BeforeTool", "BeforeAgent", "BeforeModel", "AfterTool", "AfterModel"),
    "claude": ("PreToolUse", "UserPromptSubmit", "PostToolUse", "Stop", "SubagentStop"),
}


@dataclass(frozen=True, slots=True)
class Finding:
    check: str
    ok: bool
    detail: str
    fix: str = ""

    def line(self) -> str:
        if self.ok:
            return f"ok       {self.check}: {self.detail}"
        return f"PROBLEM  {self.check}: {self.detail}" + (f"; fix: {self.fix}" if self.fix else "")


def run_checks(config: Config, project_dir: Path, *, sandbox: bool = True, strict: bool = False) -> list[Finding]:
    findings = [*check_runtime_dir(config), *check_daemon(config), *check_service(config)]
    findings += check_agents(config, project_dir)
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
    for name, _ in systemd.SOCKETS:
        done = systemd.systemctl(scope, "is-active", name)
        if done is not None and done.stdout.strip() != "active":
            findings.append(Finding("service", False, f"{name} is {done.stdout.strip() or 'unknown'}",
                                    f"systemctl --user enable --now {name}"))  # fmt: skip
    return findings


# --- agents ----------------------------------------------------------------------------------------------


def settings_files(project_dir: Path) -> Iterator[tuple[str, str, Path]]:
    from hookd.install import settings_path

    seen: set[Path] = set()
    for client, scopes in SCOPES.items():
        for scope in scopes:
            path = settings_path(client, scope, home=Path.home(), project_dir=project_dir, env=os.environ)
            if path.resolve() not in seen:
                seen.add(path.resolve())
                yield client, scope, path


def check_agents(config: Config, project_dir: Path) -> list[Finding]:
    findings: list[Finding] = []
    registered = 0
    for client, scope, path in settings_files(project_dir):
        where = f"{client} {scope}"
        try:
            doc = _read(path)
        except HookdError as exc:
            findings.append(Finding(where, False, str(exc), f"fix {path} by hand"))
            continue
        ours = _hookd_entries(doc)
        if doc is None or not ours:
            continue
        registered += 1
        scope_findings = _check_entries(config, client, path, doc, ours)
        findings += [replace(f, check=where) for f in scope_findings] or [
            Finding(where, True, f"registered in {path}, current")
        ]
    if not registered:
        findings.append(Finding("agents", False, "hookd is registered for no agent: no hook call reaches it",
                                "hookd install --client gemini (or --client claude)"))  # fmt: skip
    return findings


def _read(path: Path) -> dict[str, Any] | None:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise HookdError(f"cannot read {path}: {exc}") from None
    if not text.strip():
        return None
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise HookdError(f"{path} is not valid JSON ({exc})") from None
    return doc if isinstance(doc, dict) else None


def _hookd_entries(doc: dict[str, Any] | None) -> dict[str, list[tuple[int, dict[str, Any]]]]:
    """Per event, (position, hook) of every hook named hookd."""
    hooks = doc.get("hooks") if doc else None
    found: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    if not isinstance(hooks, dict):
        return found
    for event, definitions in hooks.items():
        for index, definition in enumerate(definitions if isinstance(definitions, list) else []):
            for hook in definition.get("hooks", []) if isinstance(definition, dict) else []:
                if isinstance(hook, dict) and hook.get("name") == "hookd":
                    found.setdefault(event, []).append((index, hook))
    return found


def _check_entries(
    config: Config, client: str, path: Path, doc: dict[str, Any], ours: dict[str, list[tuple[int, dict[str, Any]]]]
) -> list[Finding]:
    from hookd.install import install_events

    findings = []
    if client == "gemini" and isinstance(doc.get("hooksConfig"), dict) and doc["hooksConfig"].get("enabled") is False:
        findings.append(Finding("", False, f"hooksConfig.enabled is false in {path}: Gemini runs no hook",
                                "set it to true, or hookd install --client gemini again"))  # fmt: skip
    if client == "claude" and doc.get("disableAllHooks") is True:
        findings.append(Finding("", False, f"disableAllHooks is true in {path}: Claude Code runs no hook",
                                "remove it"))  # fmt: skip
    for event, entries in sorted(ours.items()):
        for _, hook in entries:
            problem = _command_problem(config, hook)
            if problem:
                findings.append(Finding("", False, f"{event} in {path}: {problem}",
                                        f"hookd install --client {client} again"))  # fmt: skip
                break
    missing = [e for e in install_events(client) if e not in ours]
    if missing:
        findings.append(Finding("", False, f"hookd's entry was removed from {', '.join(missing)} in {path}",
                                f"hookd install --client {client} again"))  # fmt: skip
    if not findings and not _as_install_writes(config, client, path):
        findings.append(Finding("", False, f"hookd's entries in {path} were edited since install",
                                f"hookd install --client {client} again"))  # fmt: skip
    for event in BLOCKING[client]:
        after = _hooks_after(doc, event, ours.get(event, []))
        if after:
            findings.append(Finding("", False, f"on {event}, {after} runs after hookd in {path} and can override its "
                                    "decision", "move hookd's entry last, or remove that hook"))  # fmt: skip
    return findings


def _command_problem(config: Config, hook: dict[str, Any]) -> str:
    """Why this registered hook cannot reach this daemon, or ''."""
    if hook.get("type") == "http":
        if not config.http.enabled:
            return "it is an HTTP hook but [http] enabled is false in hookd's config"
        return ""
    if "args" in hook:  # Claude's exec form
        argv = [str(hook.get("command", "")), *(str(a) for a in hook.get("args", []))]
    else:
        try:
            argv = shlex.split(str(hook.get("command", "")))
        except ValueError:
            return "its command cannot be parsed"
    if not argv:
        return "its command is empty"
    program = Path(argv[0])
    if not program.is_file() or not os.access(program, os.X_OK):
        return f"the shim {program} does not exist or is not executable"
    if "-S" in argv[1:3] or "-I" in argv[1:3]:
        script = next((Path(a) for a in argv[1:] if a.endswith(".py")), None)
        if script is None or not script.is_file():
            return f"the Python shim {script} does not exist"
    socket_arg = argv[argv.index("--socket") + 1] if "--socket" in argv[:-1] else ""
    if socket_arg != str(config.hook_socket):
        return f"its shim calls {socket_arg or 'no socket'}, not this daemon's {config.hook_socket}"
    return ""


def _as_install_writes(config: Config, client: str, path: Path) -> bool:
    """Would `hookd install` leave this file as it is (with either shim, transport, --autostart or not)?"""
    from hookd.cli.commands import install_plan
    from hookd.install import install
    from hookd.shimbuild import is_usable, native_shim_path

    natives = [None, native_shim_path()] if is_usable(native_shim_path()) else [None]
    transports = AGENTS[client].install.transports
    with tempfile.TemporaryDirectory(prefix="hookd-doctor-") as scratch:
        copy = Path(scratch) / path.name
        shutil.copyfile(path, copy)
        for native, transport, autostart in itertools.product(natives, transports, (False, True)):
            plan, _ = install_plan(config, client, copy, native, transport, autostart)
            try:
                if not install(plan).changed:
                    return True
            except HookdError:
                return False
            shutil.copyfile(path, copy)
    return False


def _hooks_after(doc: dict[str, Any], event: str, ours: list[tuple[int, dict[str, Any]]]) -> str:
    if not ours:
        return ""
    definitions = doc.get("hooks", {}).get(event, [])
    last = max(index for index, _ in ours)
    for definition in definitions[last + 1 :]:
        for hook in definition.get("hooks", []) if isinstance(definition, dict) else []:
            if isinstance(hook, dict) and hook.get("name") != "hookd":
                return f"another hook ({hook.get('command') or hook.get('url') or hook.get('name') or '?'})"
    return ""


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
