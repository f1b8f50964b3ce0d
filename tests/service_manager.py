"""Run hookd's units under a real systemd user manager, inside the caller's private mount namespace.

Run as root under `unshare -m` (tests/integration/test_service_manager.py does): systemd is not PID 1
on a build box or in a CI container, so this makes `/run/systemd/system` a private tmpfs (the manager's
"booted with systemd" check), starts `systemd --user` with its own XDG_RUNTIME_DIR, installs the units
with `hookd service install`, and drives them as a user would: the first shim call starts the service
through its socket, a reload, a stop. Prints one JSON object with what it saw.

Usage: unshare -m PYTHON tests/service_manager.py WORKDIR SHIM_PYTHON SHIM
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

# What the unit asks of the kernel's mounts and that a container may refuse even for /bin/true: probed
# first, and dropped (in a drop-in, reported) only when the manager refuses them for a unit that does nothing.
CONTAINER_REFUSED = ("ProtectKernelTunables", "ProtectKernelLogs", "ProtectClock", "ProtectHostname")
TIMEOUT = 60.0


def run(command: list[str], env: dict[str, str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False, **kwargs)


def wait_for(condition: Any, what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"service_manager: timed out waiting for {what}")
        time.sleep(0.05)


def private_systemd_dir() -> None:
    subprocess.run(["mount", "--make-rprivate", "/"], check=True, timeout=TIMEOUT)
    Path("/run/systemd").mkdir(exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "tmpfs", "/run/systemd"], check=True, timeout=TIMEOUT)
    Path("/run/systemd/system").mkdir()


def manager_state(env: dict[str, str]) -> str:
    return run(["systemctl", "--user", "is-system-running"], env).stdout.strip()


def refused_directives(env: dict[str, str]) -> list[str]:
    """The directives this manager cannot apply here at all: a transient unit of /bin/true fails with them."""
    refused = []
    for directive in CONTAINER_REFUSED:
        probe = run(["systemd-run", "--user", "--wait", "--quiet", "-p", f"{directive}=yes", "/bin/true"], env)
        if probe.returncode != 0:
            refused.append(directive)
    return refused


def shim_call(shim: list[str], socket_path: Path, command: str, env: dict[str, str]) -> dict[str, Any]:
    payload = {
        "hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": command},
        "session_id": "s", "cwd": "/tmp", "transcript_path": "/tmp/t", "timestamp": "2026-12-03T00:00:00Z",
    }  # fmt: skip
    started = time.monotonic()
    done = run([*shim, "gemini", "BeforeTool", "--socket", str(socket_path), "--deadline-ms", "30000"], env,
               input=json.dumps(payload))  # fmt: skip
    reply: dict[str, Any] = json.loads(done.stdout) if done.stdout.strip() else {}
    return {"reply": reply, "ms": round((time.monotonic() - started) * 1000, 1), "rc": done.returncode}


def lane_pid(status: str) -> str:
    """The lane's pid as `hookd status` gives it (0 until the lane serves), or "" without a lane line."""
    return next((line.split()[1] for line in status.splitlines() if line.startswith("lane:")), "")


def plant(directory: Path, marker: Path) -> Path:
    """A `hookd` package in `directory` whose import (or `-m` run) writes `marker` (in a directory the unit
    lets the daemon write: $HOME is read-only to it)."""
    (directory / "hookd").mkdir(parents=True)
    for name in ("__init__.py", "__main__.py"):
        (directory / "hookd" / name).write_text(f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n")
    return marker


def main(workdir: Path, shim_python: str, shim_path: str) -> dict[str, Any]:
    private_systemd_dir()
    runtime, config = workdir / "run", workdir / "config"
    runtime.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if k != "DBUS_SESSION_BUS_ADDRESS"}
    env |= {"XDG_RUNTIME_DIR": str(runtime), "HOME": str(workdir), "XDG_CONFIG_HOME": str(config)}
    env.pop("XDG_STATE_HOME", None)
    with (workdir / "manager.log").open("wb") as log:
        manager = subprocess.Popen(["/lib/systemd/systemd", "--user"], env=env, stdout=log, stderr=log,
                                   stdin=subprocess.DEVNULL)  # fmt: skip
    result: dict[str, Any] = {}
    try:
        wait_for(lambda: manager_state(env) in ("running", "degraded"), "the user manager")
        result["refused"] = refused_directives(env)
        install = run([sys.executable, "-m", "hookd", "service", "install", "--no-start"], env)
        result["install"] = install.returncode, install.stdout + install.stderr
        if result["refused"]:
            dropin = config / "systemd" / "user" / "hookd.service.d"
            dropin.mkdir(parents=True)
            lines = "".join(f"{d}=no\n" for d in result["refused"])
            (dropin / "container.conf").write_text(f"[Service]\n{lines}")
        run(["systemctl", "--user", "daemon-reload"], env)
        # What an agent could plant (issue 25): a `hookd` package in $HOME, where a user unit starts unless it
        # says otherwise, and one on a PYTHONPATH given to every service of the manager.
        markers = [
            plant(workdir, runtime / "hookd" / "home-ran"),
            plant(workdir / "on-path", runtime / "hookd" / "path-ran"),
        ]
        run(["systemctl", "--user", "set-environment", f"PYTHONPATH={workdir / 'on-path'}"], env)
        started = run(["systemctl", "--user", "start", "hookd.socket", "hookd-control.socket"], env)
        result["sockets_started"] = started.returncode, started.stderr
        service = ["systemctl", "--user", "is-active", "hookd.service"]
        result["before_first_call"] = run(service, env).stdout.strip()
        shim, hook_socket = [shim_python, "-I", "-S", shim_path], runtime / "hookd" / "hook.sock"
        result["first"] = shim_call(shim, hook_socket, "rm -rf /", env)
        # It answers once its hook socket listens, and tells the manager READY=1 once every component started.
        wait_for(lambda: run(service, env).stdout.strip() != "activating", "the service's start")
        result["after_first_call"] = run(service, env).stdout.strip()
        result["second"] = shim_call(shim, hook_socket, "ls", env)
        status_command = [sys.executable, "-m", "hookd", "status", "--runtime-dir", str(runtime / "hookd")]
        # The lane serves once it loaded the policies (status names its pid then): a heavy request sent before
        # waits for that, which on a loaded box can outlast its deadline (tests/support.py's wait_for_lane).
        wait_for(lambda: lane_pid(run(status_command, env).stdout) not in ("", "0"), "the lane serving")
        # A heavy request (over [limits] lane_command_tokens): the lane decides it, inside the same unit.
        result["heavy"] = shim_call(shim, hook_socket, "rm -rf " + " ".join(f"/srv/d{i}" for i in range(40)), env)
        reload = run(["systemctl", "--user", "reload", "hookd.service"], env)
        result["reload"] = reload.returncode, reload.stderr.strip()
        # RELOADING=1 … READY=1: the manager shows "reloading" until the daemon (and its lane) reloaded.
        wait_for(lambda: run(service, env).stdout.strip() != "reloading", "the service's reload")
        result["after_reload"] = run(service, env).stdout.strip()
        result["third"] = shim_call(shim, hook_socket, "rm -rf /", env)
        # The lane reports the requests it took each second: until then status shows the lane at 0.
        with contextlib.suppress(SystemExit):
            wait_for(lambda: "(1 heavy requests taken)" in run(status_command, env).stdout, "the lane's count")
        status = run(status_command, env)
        result["status"] = status.returncode, status.stdout
        lane = lane_pid(status.stdout)
        stat = Path(f"/proc/{lane}/stat").read_text() if lane.isdigit() else ")" + " 0" * 17
        result["lane_nice"] = int(stat.rsplit(")", 1)[1].split()[16])  # the unit lets it lower its priority
        stop = run(["systemctl", "--user", "stop", "hookd.service", "hookd.socket", "hookd-control.socket"], env)
        result["stop"] = stop.returncode, stop.stderr.strip()
        result["after_stop"] = run(service, env).stdout.strip()
        log_path = workdir / ".local" / "state" / "hookd" / "decisions.log"
        records = [json.loads(line) for line in log_path.read_text().splitlines()] if log_path.exists() else []
        result["logged"] = [r.get("decision") for r in records if r.get("type") == "decision"]
        result["planted_ran"] = [str(m) for m in markers if m.exists()]
    finally:
        manager.terminate()
        try:
            manager.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            manager.kill()
            manager.wait(timeout=TIMEOUT)
    return result


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), sys.argv[2], sys.argv[3])))
