"""Another user squats /tmp/hookd-<uid> before the victim's daemon starts: the daemon and both shims fall back
to $HOME/.cache/hookd/run (hookd.config.runtime_dir), and the victim's hooks are still decided.

Run as root under `unshare -m` (tests/integration/test_runtime_dir.py does): /tmp and /run/user become
private tmpfs mounts, so the squat touches nothing outside this namespace; the squatter is uid 65534.
Prints one JSON object with what it saw.

Usage: unshare -m PYTHON tests/squat_fallback.py POLICIES SHIM_PYTHON SHIM NATIVE_SHIM
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TIMEOUT = 60.0
DENIED = {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf /"},
          "session_id": "s", "cwd": "/tmp", "transcript_path": "", "timestamp": "2026-12-05T00:00:00Z"}  # fmt: skip


def private_mounts() -> None:
    subprocess.run(["mount", "--make-rprivate", "/"], check=True, timeout=TIMEOUT)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=1777", "tmpfs", "/tmp"], check=True, timeout=TIMEOUT)
    if Path("/run/user").is_dir():
        subprocess.run(["mount", "-t", "tmpfs", "tmpfs", "/run/user"], check=True, timeout=TIMEOUT)


def shim_call(argv: list[str], env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(argv, input=json.dumps(DENIED).encode(), capture_output=True, timeout=TIMEOUT, env=env,
                          check=False)  # fmt: skip
    return {"rc": done.returncode, "reply": json.loads(done.stdout) if done.stdout.strip() else {}}


def main(policies: str, shim_python: str, shim: str, native: str) -> dict[str, Any]:
    native_bytes = Path(native).read_bytes()  # its directory is under /tmp, hidden once /tmp is mounted over
    private_mounts()
    shared = Path(f"/tmp/hookd-{os.getuid()}")
    squat = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "mkdir", "-m", "0755",
                            str(shared)], capture_output=True, text=True, timeout=TIMEOUT, check=False)  # fmt: skip
    home = Path("/tmp/victim")
    home.mkdir(mode=0o700)
    (home / "native").write_bytes(native_bytes)
    (home / "native").chmod(0o700)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "XDG_STATE_HOME": str(home / "state")}
    result: dict[str, Any] = {"squat": [squat.returncode, shared.stat().st_uid]}
    log = home / "daemon.log"
    with log.open("wb") as out:
        daemon = subprocess.Popen([sys.executable, "-m", "hookd", "serve", "--policies", policies], env=env,
                                  stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)  # fmt: skip
    try:
        socket = home / ".cache" / "hookd" / "run" / "hook.sock"
        deadline = time.monotonic() + TIMEOUT
        while not (socket.exists() and '"serving"' in log.read_text()) and daemon.poll() is None:
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
        result["daemon_running"] = daemon.poll() is None
        result["fallback_socket"] = socket.exists()
        result["fallback_mode"] = oct(socket.parent.stat().st_mode & 0o777) if socket.exists() else ""
        named = ["--socket", str(shared / "hook.sock"), "--deadline-ms", "20000"]
        shims = {"python": [shim_python, "-I", "-S", shim, "gemini", "BeforeTool"],
                 "native": [str(home / "native"), "gemini", "BeforeTool"]}  # fmt: skip
        result["calls"] = {}
        for kind, argv in shims.items():
            result["calls"][f"{kind}, default socket"] = shim_call([*argv, "--deadline-ms", "20000"], env)
            result["calls"][f"{kind}, --socket /tmp/hookd-<uid>/hook.sock"] = shim_call([*argv, *named], env)
        result["squatted_dir_untouched"] = sorted(os.listdir(shared)) == []
    finally:
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait(timeout=TIMEOUT)
        result["log_tail"] = log.read_text(errors="replace")[-1500:]
    return result


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:5])))
