"""The runtime dir is the daemon's own: `serve --runtime-dir` and `install` refuse what another user made.

As with the default path, a symlink is refused (never followed, created or chmod-ed through) and so is
a directory another uid owns; `hookd install` makes the socket's directory itself, 0700, before it
registers a socket in a directory others can write to. The attacker is a real other uid (nobody).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from attacker import ATTACKER, as_attacker

HOOKD = [sys.executable, "-m", "hookd"]


pytestmark = pytest.mark.usefixtures("privileged")


def serve(tmp: Path, runtime_dir: Path) -> subprocess.CompletedProcess[str]:
    """`hookd serve --runtime-dir`; one that starts serving is stopped and fails the test."""
    config = tmp / "empty.toml"
    config.write_text("")
    env = {**os.environ, "HOOKD_CONFIG": "", "XDG_STATE_HOME": str(tmp / "state")}
    cmd = [*HOOKD, "--config", str(config), "serve", "--runtime-dir", str(runtime_dir)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate(timeout=10)
        pytest.fail(f"hookd serve --runtime-dir {runtime_dir} started serving instead of refusing")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def one_line_refusal(result: subprocess.CompletedProcess[str], *parts: str) -> None:
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for part in parts:
        assert part in lines[0], lines[0]


def test_serve_refuses_a_symlink_to_a_missing_dir(shared_tmp: Path) -> None:
    target = shared_tmp / "made-by-root"
    link = shared_tmp / "run"
    as_attacker("ln", "-s", str(target), str(link))
    one_line_refusal(serve(shared_tmp, link), f"runtime dir {link} is a symlink")
    assert not target.exists()  # not created through the link


def test_serve_refuses_a_symlink_to_a_dir_and_leaves_its_mode(shared_tmp: Path) -> None:
    target = shared_tmp / "root-owned"
    target.mkdir(mode=0o755)
    os.chmod(target, 0o755)
    link = shared_tmp / "run"
    as_attacker("ln", "-s", str(target), str(link))
    one_line_refusal(serve(shared_tmp, link), f"runtime dir {link} is a symlink")
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
    assert list(target.iterdir()) == []


def test_serve_refuses_a_dir_another_user_made(shared_tmp: Path) -> None:
    squatted = shared_tmp / "run"
    as_attacker("mkdir", "-m", "777", str(squatted))
    one_line_refusal(serve(shared_tmp, squatted), f"runtime dir {squatted} belongs to uid {ATTACKER}")
    assert list(squatted.iterdir()) == []


def install(tmp: Path, runtime_dir: Path) -> subprocess.CompletedProcess[str]:
    config = tmp / "config.toml"
    config.write_text(f'[daemon]\nruntime_dir = "{runtime_dir}"\n')
    (tmp / "home").mkdir(exist_ok=True)
    env = {**os.environ, "HOOKD_CONFIG": "", "HOME": str(tmp / "home")}
    cmd = [*HOOKD, "--config", str(config), "install", "--client", "gemini", "--shim", "python"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env, check=False)


def test_install_makes_the_socket_dir_private_before_registering_it(shared_tmp: Path) -> None:
    runtime = shared_tmp / "hookd-run"
    result = install(shared_tmp, runtime)
    assert result.returncode == 0, result.stderr
    info = runtime.lstat()
    assert stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) == 0o700
    settings = json.loads((shared_tmp / "home" / ".gemini" / "settings.json").read_text())
    assert f"--socket {runtime}/hook.sock" in settings["hooks"]["BeforeTool"][0]["hooks"][0]["command"]


def test_install_refuses_a_socket_dir_another_user_made(shared_tmp: Path) -> None:
    runtime = shared_tmp / "hookd-run"
    as_attacker("mkdir", "-m", "700", str(runtime))
    result = install(shared_tmp, runtime)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"runtime dir {runtime} belongs to uid {ATTACKER}" in lines[0], result.stderr
    assert not (shared_tmp / "home" / ".gemini" / "settings.json").exists()


def test_a_squatted_default_dir_falls_back_to_the_home_directory(tmp_path: Path) -> None:
    """issue 25: nobody makes /tmp/hookd-<uid> before the victim's daemon starts (in a private mount namespace,
    /tmp a tmpfs of its own); the daemon starts in $HOME/.cache/hookd/run, 0700, and both shims, with the
    default socket and with the /tmp/hookd-<uid>/hook.sock that `hookd install` wrote before, reach it and get
    its deny. Before, the daemon refused to start and every hook failed closed."""
    from shims import build_native

    from support import ROOT, SHIM, SHIM_PYTHON, require

    require(all(shutil.which(t) for t in ("unshare", "mount", "setpriv")), "unshare, mount and setpriv")
    native = build_native(tmp_path)
    done = subprocess.run(["unshare", "-m", sys.executable, str(ROOT / "tests" / "squat_fallback.py"),
                           str(ROOT / "policies"), SHIM_PYTHON, str(SHIM), str(native)],
                          capture_output=True, text=True, timeout=300, check=False, cwd=ROOT)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout)
    report = json.dumps(seen, indent=1)
    assert seen["squat"] == [0, ATTACKER], report
    assert seen["daemon_running"] and seen["fallback_socket"] and seen["fallback_mode"] == "0o700", report
    for call, answer in seen["calls"].items():
        assert answer["rc"] == 0 and answer["reply"].get("decision") == "deny", (call, report)
        assert "rm-rf-root" in answer["reply"]["reason"], (call, report)
    assert seen["squatted_dir_untouched"], report
