"""`hookd doctor` on a sound set-up (a real daemon, hookd installed for Gemini CLI: exit 0) and on broken
ones, one per check: each gives its one problem line with the fix, and exit 1."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hookd.dialects.registry import AGENTS
from support import SHIM_PYTHON, RunningDaemon, require, start_daemon


@dataclass
class Setup:
    root: Path
    home: Path
    project: Path
    runtime: Path
    config: Path
    env: dict[str, str]

    def hookd(self, *args: str, config: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "hookd", "--config", str(config or self.config), *args],
                              env=self.env, capture_output=True, text=True, timeout=60, check=False)  # fmt: skip

    def doctor(self, *args: str, config: Path | None = None) -> tuple[int, list[dict[str, Any]]]:
        done = self.hookd("doctor", "--no-sandbox", "--json", "--project-dir", str(self.project), *args, config=config)
        assert done.stdout, done.stderr
        return done.returncode, json.loads(done.stdout)["findings"]

    def gemini_settings(self) -> Path:
        return self.home / ".gemini" / "settings.json"


def problems(findings: list[dict[str, Any]]) -> list[str]:
    return [f"{f['check']}: {f['detail']}; fix: {f['fix']}" for f in findings if not f["ok"]]


@pytest.fixture
def setup(tmp_path: Path) -> Iterator[Setup]:
    root = Path(tempfile.mkdtemp(prefix="hkddoc", dir="/tmp"))
    home, project, runtime = root / "home", root / "project", root / "run"
    home.mkdir()
    project.mkdir()
    config = root / "config.toml"
    config.write_text(f'[daemon]\nruntime_dir = "{runtime}"\n')
    # No XDG_RUNTIME_DIR nor D-Bus address: `systemctl --user` finds no manager, on any machine.
    agents = ("GEMINI_", "CLAUDE_", "CODEX_", "COPILOT_", "QWEN_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "HOOKD_", "DBUS_", *agents))}
    env |= {"HOME": str(home), "XDG_STATE_HOME": str(root / "state"), "XDG_CONFIG_HOME": str(root / "config"),
            "HOOKD_SYSTEM_ROOT": str(root / "sys")}  # fmt: skip
    try:
        yield Setup(root, home, project, runtime, config, env)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def sound(setup: Setup, tmp_path: Path) -> Iterator[Setup]:
    """A daemon answering, hookd installed for Gemini CLI (user scope): doctor finds nothing wrong."""
    daemon: RunningDaemon = start_daemon(tmp_path, config=setup.config.read_text(), runtime_dir=setup.runtime,
                                         env={"XDG_STATE_HOME": str(setup.root / "state")})  # fmt: skip
    try:
        done = setup.hookd("install", "--client", "gemini", "--shim", "python")
        assert done.returncode == 0, done.stderr
        yield setup
    finally:
        daemon.stop()


def test_a_sound_setup_has_no_problem(sound: Setup) -> None:
    code, findings = sound.doctor()
    assert problems(findings) == [] and code == 0
    checks = {f["check"] for f in findings}
    assert {"runtime dir", "daemon", "service", "gemini user", "policy trust"} <= checks
    text = sound.hookd("doctor", "--no-sandbox", "--project-dir", str(sound.project))
    assert text.returncode == 0 and all(line.startswith("ok ") for line in text.stdout.splitlines()), text.stdout


def test_no_daemon(setup: Setup) -> None:
    assert setup.hookd("install", "--client", "gemini", "--shim", "python").returncode == 0
    code, findings = setup.doctor()
    assert code == 1
    assert problems(findings) == [f"daemon: no daemon answers on {setup.runtime / 'hook.sock'}: blocking hooks "
                                  "fail closed; fix: start it: hookd serve, or hookd service install "
                                  "(socket-activated)"]  # fmt: skip


def test_another_users_daemon(setup: Setup) -> None:
    require_setpriv()
    setup.root.chmod(0o755)  # so that uid 65534 reaches its runtime dir
    setup.runtime.mkdir(mode=0o700)
    os.chown(setup.runtime, 65534, 65534)
    listen = ("import socket, sys, time; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(); "
              "print('up', flush=True); time.sleep(60)")  # fmt: skip
    proc = subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3.11",
                             "-c", listen, str(setup.runtime / "hook.sock")], stdout=subprocess.PIPE)  # fmt: skip
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"up\n"
        assert setup.hookd("install", "--client", "gemini", "--shim", "python").returncode == 0
        code, findings = setup.doctor()
        found = problems(findings)
        assert code == 1
        assert f"daemon: the daemon on {setup.runtime / 'hook.sock'} runs as uid 65534, not as you (0); fix: stop " \
               "that daemon; run your own (hookd serve) in your own runtime dir" in found, found  # fmt: skip
        assert any(p.startswith(f"runtime dir: {setup.runtime} belongs to uid 65534") for p in found), found
    finally:
        proc.kill()
        proc.wait(timeout=10)


def require_setpriv() -> None:
    if os.getuid() != 0 or shutil.which("setpriv") is None or not os.access("/usr/bin/python3.11", os.X_OK):
        pytest.skip("needs root, setpriv and /usr/bin/python3.11 to act as another user")


def test_runtime_dir_mode(sound: Setup) -> None:
    sound.runtime.chmod(0o755)
    code, findings = sound.doctor()
    assert code == 1
    assert problems(findings) == [
        f"runtime dir: {sound.runtime} has mode 0755, not 0700; fix: chmod 700 {sound.runtime}"
    ]


def test_service_units_without_a_manager_and_out_of_date(sound: Setup) -> None:
    """The units `hookd service install` writes, and no service manager to run them: the real systemctl says
    so (systemd is not PID 1 here, and the test's environment has no user session on any machine)."""
    require(shutil.which("systemctl") is not None, "systemctl (Debian's systemd package)")
    installed = sound.hookd("service", "install")
    assert installed.returncode == 0, installed.stderr
    unit_dir = sound.root / "config" / "systemd" / "user"
    assert (unit_dir / "hookd.service").is_file() and "no user service manager answers here" in installed.stderr
    said = subprocess.run(["systemctl", "--user", "show-environment"], env=sound.env, capture_output=True,
                          text=True, timeout=60, check=False)  # fmt: skip
    assert said.returncode != 0 and said.stderr.strip(), said
    code, findings = sound.doctor()
    assert code == 1
    assert problems(findings) == [
        f"service: hookd's units are installed in {unit_dir} but no user service manager runs them "
        f"({said.stderr.strip().splitlines()[-1]}): nothing starts the daemon on a hook call; fix: run a systemd "
        "user manager (loginctl enable-linger, then log in again), or keep a daemon up without one: hookd install "
        "--client <agent> --autostart, or hookd serve"
    ]
    sound.config.write_text(sound.config.read_text() + '[metrics]\nlisten = "127.0.0.1:9464"\n')
    code, findings = sound.doctor()
    assert code == 1
    assert problems(findings) == [
        "service: units out of date with the config: hookd.service; fix: hookd service install"
    ]


def test_not_registered(sound: Setup) -> None:
    assert sound.hookd("uninstall", "--client", "gemini").returncode == 0
    code, findings = sound.doctor()
    assert code == 1
    assert problems(findings) == ["agents: hookd is registered for no agent: no hook call reaches it; fix: hookd "
                                  f"install --client {'|'.join(AGENTS)}"]  # fmt: skip


def edit_settings(setup: Setup, change: Any) -> None:
    path = setup.gemini_settings()
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc, indent=2))


def test_shim_missing(sound: Setup) -> None:
    def break_shim(doc: dict[str, Any]) -> None:
        hook = doc["hooks"]["BeforeTool"][0]["hooks"][0]
        hook["command"] = hook["command"].replace("hookd_shim.py", "gone.py")

    edit_settings(sound, break_shim)
    code, findings = sound.doctor()
    assert code == 1
    (problem,) = problems(findings)
    assert (
        problem.startswith("gemini user: BeforeTool in ")
        and "the Python shim" in problem
        and "gone.py does not exist" in problem
    )
    assert problem.endswith("fix: hookd install --client gemini again")


def test_shim_points_at_another_socket(sound: Setup) -> None:
    other = sound.root / "other.toml"
    other.write_text(f'[daemon]\nruntime_dir = "{sound.root / "elsewhere"}"\n')
    code, findings = sound.doctor(config=other)
    found = problems(findings)
    assert code == 1
    elsewhere = sound.root / "elsewhere" / "hook.sock"
    assert any(f"its shim calls {sound.runtime / 'hook.sock'}, not this daemon's {elsewhere}" in p for p in found), (
        found
    )


def test_entry_edited(sound: Setup) -> None:
    edit_settings(sound, lambda doc: doc["hooks"]["BeforeTool"][0]["hooks"][0].update(timeout=60000))
    code, findings = sound.doctor()
    assert code == 1
    assert problems(findings) == [f"gemini user: hookd's entries in {sound.gemini_settings()} were edited since "
                                  "install; fix: hookd install --client gemini again"]  # fmt: skip


def test_entry_removed(sound: Setup) -> None:
    edit_settings(sound, lambda doc: doc["hooks"].pop("BeforeTool"))  # always registered: the tool gate
    code, findings = sound.doctor()
    assert code == 1
    path = sound.gemini_settings()
    assert [p.rsplit("; fix: ", 1)[0] for p in problems(findings)] == [
        f"gemini user: BeforeTool: the policies need it, hookd is not registered on it in {path}"]  # fmt: skip
    assert problems(findings)[0].endswith("install --client gemini --scope user")


def test_another_hook_after_hookd(sound: Setup) -> None:
    edit_settings(sound, lambda doc: doc["hooks"]["BeforeTool"].append(
        {"hooks": [{"type": "command", "command": "./approve-all.sh"}]}))  # fmt: skip
    code, findings = sound.doctor()
    assert code == 1
    assert problems(findings) == [f"gemini user: on BeforeTool, another hook (./approve-all.sh) runs after hookd in "
                                  f"{sound.gemini_settings()} and can override its decision; fix: move hookd's entry "
                                  "last, or remove that hook"]  # fmt: skip


def test_hooks_switched_off(sound: Setup) -> None:
    edit_settings(sound, lambda doc: doc["hooksConfig"].update(enabled=False))
    code, findings = sound.doctor()
    assert code == 1
    path = sound.gemini_settings()
    assert problems(findings)[0] == (f"gemini user: hooksConfig.enabled is false in {path}: Gemini CLI runs no hook; "
                                     f"fix: set hooksConfig.enabled to true in {path}")  # fmt: skip


def test_policy_trust(sound: Setup) -> None:
    policies = sound.root / "policies"
    policies.mkdir()
    (policies / "p.py").write_text("from hookd.policy_api import policy\n")
    (policies / "p.py").chmod(0o666)
    code, findings = sound.doctor("--policies", str(policies))
    found = problems(findings)
    assert code == 1 and len(found) == 1 and found[0].startswith("policy trust: ") and "writable" in found[0], found


def test_sandbox_layer_unavailable(sound: Setup) -> None:
    """A layer the kernel refuses: without CAP_SYS_ADMIN root cannot make the workers' network namespace."""
    if os.getuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to take CAP_SYS_ADMIN away")
    done = subprocess.run(["setpriv", "--bounding-set=-sys_admin", sys.executable, "-m", "hookd", "--config",
                           str(sound.config), "doctor", "--json", "--strict", "--project-dir", str(sound.project)],
                          env=sound.env, capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    found = problems(json.loads(done.stdout)["findings"])
    assert done.returncode == 1
    assert len(found) == 1 and found[0].startswith("sandbox: "), found
    assert "Operation not permitted" in found[0]  # the namespace the kernel refused
    assert found[0].endswith("; fix: see docs/python-policies.md for what the kernel must allow")


def test_claude_scope_switched_off_and_overridden(sound: Setup) -> None:
    assert sound.hookd("install", "--client", "claude", "--shim", "python").returncode == 0
    assert sound.doctor()[0] == 0
    path = sound.home / ".claude" / "settings.json"
    doc = json.loads(path.read_text())
    doc["disableAllHooks"] = True
    doc["hooks"]["PreToolUse"].append({"matcher": "Bash", "hooks": [{"type": "command", "command": "./allow.sh"}]})
    path.write_text(json.dumps(doc, indent=2))
    code, findings = sound.doctor()
    assert code == 1
    assert problems(findings) == [
        f"claude user: disableAllHooks is true in {path}: Claude Code runs no hook; fix: set disableAllHooks to "
        f"false in {path}",
        f"claude user: on PreToolUse, another hook (./allow.sh) runs after hookd in {path} and can override its "
        "decision; fix: move hookd's entry last, or remove that hook",
    ]


def test_what_would_run_as_hookd_is_reported(sound: Setup) -> None:
    """issue 25: a `hookd` an agent could plant where a start that is not isolated finds it first, a .pth
    file naming hookd, and a unit whose interpreter would not import this hookd: one line each, its fix."""
    user_site = (
        sound.home / ".local" / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    )
    on_path = sound.root / "on-path"
    planted = [sound.project / "hookd", sound.home / "hookd", on_path / "hookd", user_site / "hookd"]
    for package in planted:
        package.mkdir(parents=True)
        (package / "__main__.py").write_text("print('not hookd')\n")
    (sound.project / "hookd.py").write_text("")
    (user_site / "zz.pth").write_text("import hookd_helper  # hookd\n")
    unit = sound.root / "config" / "systemd" / "user" / "hookd.service"
    unit.parent.mkdir(parents=True)
    unit.write_text(f"[Service]\nExecStart={SHIM_PYTHON} -I -m hookd serve\nWorkingDirectory=/\n")  # no hookd there
    sound.env["PYTHONPATH"] = str(on_path)
    code, findings = sound.doctor()
    shadows = [f"{f['detail']}; fix: {f['fix']}" for f in findings if f["check"] == "shadows"]
    assert code == 1 and not any(f["ok"] for f in findings if f["check"] == "shadows"), shadows
    expected = [
        f"`{SHIM_PYTHON} -I -m hookd` (how the daemon starts) does not import hookd: ModuleNotFoundError: No "
        "module named 'hookd'; fix: install hookd into a virtual environment (pipx install hookd), not the user "
        "site or PYTHONPATH, then run hookd install and hookd service install again",
        *(f"{path} is a `hookd` in {where}: a start that is not isolated would run it as hookd; fix: remove it "
          f"(rm -r {path}) unless it is yours" for path, where in [
              (sound.home / "hookd", "your home directory, where a user unit without WorkingDirectory= starts"),
              (sound.project / "hookd", "the project, where an agent runs `python -m hookd` from"),
              (sound.project / "hookd.py", "the project, where an agent runs `python -m hookd` from"),
              (user_site / "hookd", "the user site, which Python searches unless run with -I"),
              (on_path / "hookd", "a PYTHONPATH entry, which Python searches first unless run with -I"),
          ]),
        f"{user_site / 'zz.pth'} names hookd and is not hookd's own: Python runs its import lines at every start "
        f"and adds its paths to sys.path; fix: remove it (rm {user_site / 'zz.pth'}) unless it is yours",
    ]  # fmt: skip
    assert sorted(shadows) == sorted(expected), shadows
