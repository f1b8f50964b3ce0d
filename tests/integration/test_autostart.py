"""`hookd install --autostart`: where no service manager runs, the shim starts `hookd serve` itself when
no daemon answers: detached (its own session, not the hook's child), one starter at a time, within the
shim's deadline; past the deadline, the fail mode as before."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from support import SHIM, SHIM_PYTHON, gemini_payload

DENIED = gemini_payload("BeforeTool", tool_name="run_shell_command", tool_input={"command": "rm -rf /"})


@pytest.fixture
def runtime() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="hkdas", dir="/tmp"))
    (root / "config.toml").write_text("")
    try:
        yield root / "run"
    finally:
        for pid in daemons(root / "run"):
            os.kill(pid, signal.SIGTERM)
        end = time.monotonic() + 30
        while daemons(root / "run") and time.monotonic() < end:
            time.sleep(0.05)
        shutil.rmtree(root, ignore_errors=True)


def daemons(runtime: Path) -> list[int]:
    """The pids of the `hookd serve` processes for this runtime dir."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if b"serve" in argv and str(runtime).encode() in argv:
            found.append(int(cmdline.parent.name))
    return found


def shim(runtime: Path, deadline_ms: int = 60000) -> subprocess.CompletedProcess[bytes]:
    command = [SHIM_PYTHON, "-I", "-S", str(SHIM), "gemini", "BeforeTool", "--socket", str(runtime / "hook.sock"),
               "--deadline-ms", str(deadline_ms), "--autostart", sys.executable,
               "--autostart-config", str(runtime.parent / "config.toml")]  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", "HOME": str(runtime.parent), "XDG_STATE_HOME": str(runtime.parent / "state")}
    return subprocess.run(command, input=json.dumps(DENIED).encode(), capture_output=True, timeout=120, env=env,
                          check=False)  # fmt: skip


def test_the_first_call_starts_the_daemon_detached(runtime: Path) -> None:
    done = shim(runtime)
    reply = json.loads(done.stdout)
    assert reply["decision"] == "deny" and "rm-rf-root" in reply["reason"], done
    (pid,) = daemons(runtime)
    assert os.getsid(pid) != os.getsid(0)  # a session of its own: the agent ending the hook's group leaves it running
    assert os.getpgid(pid) != os.getpgid(0)
    assert Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1] != str(os.getpid())
    assert json.loads(shim(runtime).stdout)["decision"] == "deny"
    assert daemons(runtime) == [pid]  # the warm call used it
    assert "serving" in (runtime / "autostart.log").read_text()
    assert (runtime.stat().st_mode & 0o777) == 0o700


def test_one_starter_at_a_time(runtime: Path) -> None:
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: shim(runtime), range(4)))
    assert all(json.loads(r.stdout)["decision"] == "deny" for r in results), results
    assert len(daemons(runtime)) == 1
    log = (runtime / "autostart.log").read_text()
    assert log.count('"event": "serving"') == 1 and "already" not in log, log


def test_past_the_deadline_the_fail_mode(runtime: Path) -> None:
    done = shim(runtime, deadline_ms=1)
    reply = json.loads(done.stdout)
    assert reply["decision"] == "deny", done
    assert "did not start within 1 ms" in reply["reason"] or "did not answer within 1 ms" in reply["reason"], reply
    end = time.monotonic() + 60  # it goes on starting, for the next call
    while not (runtime / "control.sock").exists():
        assert time.monotonic() < end, "the daemon never came up"
        time.sleep(0.05)


def test_install_writes_autostart(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "HOOKD_", "GEMINI_"))}
    env |= {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    native = tmp_path / "data" / "hookd" / "bin" / "hookd-shim"  # a built native shim, as far as install can tell
    native.parent.mkdir(parents=True)
    native.write_text("#!/bin/sh\n")
    native.chmod(0o755)
    base = [sys.executable, "-m", "hookd", "install", "--client", "gemini", "--autostart"]
    done = subprocess.run(base, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    settings = json.loads((tmp_path / ".gemini" / "settings.json").read_text())
    (hook,) = settings["hooks"]["BeforeTool"][0]["hooks"]
    assert "/hookd_shim.py gemini BeforeTool " in hook["command"]
    assert hook["command"].endswith(f" --autostart {sys.executable}")
    refused = subprocess.run([*base, "--shim", "native"], env=env, capture_output=True, text=True, timeout=60,
                             check=False)  # fmt: skip
    assert refused.returncode == 2 and "--autostart needs the Python shim" in refused.stderr
