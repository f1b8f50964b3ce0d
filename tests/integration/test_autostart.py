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
from shims import KINDS, Shim, build_native

from support import eventually, gemini_payload

DENIED = gemini_payload("BeforeTool", tool_name="run_shell_command", tool_input={"command": "rm -rf /"})


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_native(tmp_path_factory.mktemp("native"))


@pytest.fixture(params=KINDS)
def shim_kind(request: pytest.FixtureRequest, native: Path) -> Shim:
    return Shim.python() if request.param == "python" else Shim.native(native)


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
    # a child the daemon forks has its cmdline until it execs its own (the lane, a worker): the daemon is the one
    # whose parent is none of them
    return [pid for pid in found if _parent(pid) not in found]


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def call(
    kind: Shim, runtime: Path, deadline_ms: int = 60000, *, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    command = [*kind.argv("BeforeTool", runtime / "hook.sock", deadline_ms=deadline_ms), "--autostart", sys.executable,
               "--autostart-config", str(runtime.parent / "config.toml")]  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", "HOME": str(runtime.parent), "XDG_STATE_HOME": str(runtime.parent / "state"),
           **(env or {})}  # fmt: skip
    return subprocess.run(command, input=json.dumps(DENIED).encode(), capture_output=True, timeout=120, env=env,
                          check=False, cwd=cwd)  # fmt: skip


def serving_log(runtime: Path) -> str:
    """The daemon's log once it says "serving" (every component started; it answers as soon as its hook
    socket listens, a moment before)."""
    log = runtime / "autostart.log"
    return eventually(lambda: log.read_text() if '"event": "serving"' in log.read_text() else "", what="serving")


def test_the_first_call_starts_the_daemon_detached(shim_kind: Shim, runtime: Path) -> None:
    done = call(shim_kind, runtime)
    reply = json.loads(done.stdout)
    assert reply["decision"] == "deny" and "rm-rf-root" in reply["reason"], done
    (pid,) = daemons(runtime)
    assert os.getsid(pid) != os.getsid(0)  # a session of its own: the agent ending the hook's group leaves it running
    assert os.getpgid(pid) != os.getpgid(0)
    assert Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1] != str(os.getpid())
    assert json.loads(call(shim_kind, runtime).stdout)["decision"] == "deny"
    assert daemons(runtime) == [pid]  # the warm call used it
    assert '"event": "serving"' in serving_log(runtime)
    assert (runtime.stat().st_mode & 0o777) == 0o700


def test_one_starter_at_a_time(shim_kind: Shim, runtime: Path) -> None:
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: call(shim_kind, runtime), range(4)))
    assert all(json.loads(r.stdout)["decision"] == "deny" for r in results), results
    assert len(daemons(runtime)) == 1
    log = serving_log(runtime)
    assert log.count('"event": "serving"') == 1 and "already" not in log, log


def test_past_the_deadline_the_fail_mode(shim_kind: Shim, runtime: Path) -> None:
    # The daemon cannot answer before it has imported hookd.app, which alone takes about 0.3 s on a quiet box;
    # it answers about 0.35 s after it is run (500 ms, the deadline here before, was no longer enough).
    done = call(shim_kind, runtime, deadline_ms=100)
    reply = json.loads(done.stdout)
    assert reply["decision"] == "deny", done
    starting = f"hookd was not running on {runtime / 'hook.sock'} and did not start within 100 ms (it is starting)"
    # On a loaded machine the socket may be bound just before the deadline, with no answer yet.
    assert reply["reason"] in (starting, "hookd did not answer within 100 ms"), reply
    end = time.monotonic() + 60  # it goes on starting, for the next call
    while not (runtime / "control.sock").exists():
        assert time.monotonic() < end, "the daemon never came up"
        time.sleep(0.05)


def test_install_writes_autostart(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "HOOKD_", "GEMINI_"))}
    env |= {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    fake_native = tmp_path / "data" / "hookd" / "bin" / "hookd-shim"  # a built native shim, as far as install can tell
    fake_native.parent.mkdir(parents=True)
    fake_native.write_text("#!/bin/sh\n")
    fake_native.chmod(0o755)
    base = [sys.executable, "-m", "hookd", "install", "--client", "gemini", "--autostart"]
    done = subprocess.run([*base, "--shim", "python"], env=env, capture_output=True, text=True, timeout=60,
                          check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    settings = json.loads((tmp_path / ".gemini" / "settings.json").read_text())
    (hook,) = settings["hooks"]["BeforeTool"][0]["hooks"]
    assert "/hookd_shim.py gemini BeforeTool " in hook["command"]
    assert hook["command"].endswith(f" --autostart {sys.executable}")
    native = subprocess.run([*base, "--shim", "native"], env=env, capture_output=True, text=True, timeout=60,
                            check=False)  # fmt: skip
    assert native.returncode == 0, native.stderr
    settings = json.loads((tmp_path / ".gemini" / "settings.json").read_text())
    (hook,) = settings["hooks"]["BeforeTool"][0]["hooks"]
    assert hook["command"].startswith(f"{fake_native} gemini BeforeTool ")
    assert hook["command"].endswith(f" --autostart {sys.executable}")


PLANTED = "import pathlib\npathlib.Path({marker!r}).write_text('a planted hookd ran')\n"


def plant(directory: Path) -> Path:
    """A `hookd` package in `directory` whose import (or `-m` run) writes a marker file there."""
    marker = directory / "planted-hookd-ran"
    (directory / "hookd").mkdir(parents=True)
    for name in ("__init__.py", "__main__.py"):
        (directory / "hookd" / name).write_text(PLANTED.format(marker=str(marker)))
    return marker


def test_nothing_planted_runs_as_the_daemon(shim_kind: Shim, runtime: Path) -> None:
    """A repository that carries `hookd/__main__.py` (the agent's working directory), one in $HOME, one on
    PYTHONPATH, a .pth file and a `hookd` in the user site: the shim starts the real daemon, from /,
    isolated (issue 25). Before, `python -m hookd` ran the repository's."""
    home = runtime.parent
    repo, on_path = home / "repo", home / "on-path"
    user_site = home / ".local" / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    markers = [plant(repo), plant(home), plant(on_path), plant(user_site)]
    (user_site / "planted.pth").write_text(f"import pathlib; pathlib.Path({str(home / 'pth-ran')!r}).write_text('x')\n")
    startup = home / "startup.py"
    startup.write_text(PLANTED.format(marker=str(home / "startup-ran")))
    env = {"PYTHONPATH": str(on_path), "PYTHONSTARTUP": str(startup), "PYTHONINSPECT": "1", "PYTHONNOUSERSITE": ""}
    done = call(shim_kind, runtime, cwd=repo, env=env)
    reply = json.loads(done.stdout)
    assert reply["decision"] == "deny" and "rm-rf-root" in reply["reason"], (
        done,
        (runtime / "autostart.log").read_text(),
    )
    ran = [str(m) for m in [*markers, home / "pth-ran", home / "startup-ran"] if m.exists()]
    assert ran == [], f"planted code ran: {ran}"
    (pid,) = daemons(runtime)
    assert os.readlink(f"/proc/{pid}/cwd") == "/"
    assert Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[1:4] == [b"-I", b"-m", b"hookd"]
    serving_log(runtime)
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    assert children and all(os.readlink(f"/proc/{c}/cwd") == "/" for c in children)  # the lane
