"""Events registered only when needed (docs/install.md): a real daemon, the real `hookd install` into a scratch
HOME for Gemini CLI (its settings file), and `hookd status` / `hookd doctor` reporting an event that a policy
change needs and that is not registered, with the command that fixes it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from support import ROOT, start_daemon

TIMEOUT = 60
AGENT_VARS = ("XDG_CONFIG", "HOOKD_", "GEMINI_", "CLAUDE_", "CODEX_", "COPILOT_", "QWEN_")
SHIPPED = ROOT / "policies"


def hookd(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(AGENT_VARS)}
    return subprocess.run([sys.executable, "-m", "hookd", *args], capture_output=True, text=True, timeout=TIMEOUT,
                          env={**env, "HOME": str(home)}, stdin=subprocess.DEVNULL, check=False)  # fmt: skip


def registered(home: Path) -> set[str]:
    doc = json.loads((home / ".gemini" / "settings.json").read_text())
    return {event for event, entries in doc["hooks"].items() if any(
        h.get("name") == "hookd" for d in entries for h in d["hooks"])}  # fmt: skip


def policy_copy(target: Path, *packages: str) -> Path:
    for package in packages:
        shutil.copytree(SHIPPED / package, target / package, ignore=shutil.ignore_patterns("*_test.rego"))
    return target


def setup(tmp_path: Path, policies: Path) -> tuple[Path, Path]:
    home, runtime = tmp_path / "home", tmp_path / "run"
    home.mkdir()
    config = tmp_path / "config.toml"
    config.write_text(f'[daemon]\npolicies = "{policies}"\nruntime_dir = "{runtime}"\n[layers]\nwatch = false\n')
    return home, config


def test_model_output_event_follows_the_policies(tmp_path: Path) -> None:
    policies = policy_copy(tmp_path / "policies", "destructive_shell", "self_protection")
    home, config = setup(tmp_path, policies)
    installed = hookd(home, "--config", str(config), "install", "--client", "gemini", "--shim", "python")
    assert installed.returncode == 0, installed.stderr
    assert registered(home) == {"BeforeTool"}  # no policy inspects model output: no per-chunk hook
    record = json.loads((home / ".gemini" / "settings.json").read_text())["hookd"]["installed"]
    assert record["events"] == ["BeforeTool"]  # the install record says what was registered

    daemon = start_daemon(tmp_path, policies, runtime_dir=tmp_path / "run", config="[layers]\nwatch = false\n")
    try:
        status = hookd(home, "status", "--runtime-dir", str(daemon.runtime_dir))
        assert status.returncode == 0, status.stderr
        assert "unregistered" not in status.stdout
        doctor = hookd(home, "--config", str(config), "doctor", "--no-sandbox")
        assert "AfterModel" not in doctor.stdout, doctor.stdout

        policy_copy(policies, "model_secrets")  # a policy that needs AfterModel arrives
        reload = hookd(home, "reload", "--runtime-dir", str(daemon.runtime_dir))
        assert reload.returncode == 0, reload.stderr
        fix = f"hookd --config {config} install --client gemini --scope user"
        status = hookd(home, "--config", str(config), "status", "--runtime-dir", str(daemon.runtime_dir))
        assert f"unregistered: gemini user: AfterModel is needed by the policies; fix: {fix}" in status.stdout
        doctor = hookd(home, "--config", str(config), "doctor", "--no-sandbox")
        assert doctor.returncode == 1
        lines = [line for line in doctor.stdout.splitlines() if "AfterModel" in line]
        assert lines == [
            f"PROBLEM  gemini user: AfterModel: the policies need it, hookd is not registered on it in "
            f"{home / '.gemini' / 'settings.json'}; fix: {fix}"
        ], doctor.stdout

        again = hookd(home, *fix.split()[1:], "--shim", "python")
        assert again.returncode == 0, again.stderr
        assert registered(home) == {"BeforeTool", "AfterModel"}
        doctor = hookd(home, "--config", str(config), "doctor", "--no-sandbox")
        assert "AfterModel" not in doctor.stdout, doctor.stdout
    finally:
        daemon.stop()


def test_shipped_policies_keep_after_model(tmp_path: Path) -> None:
    home, config = setup(tmp_path, SHIPPED)
    done = hookd(home, "--config", str(config), "install", "--client", "gemini", "--shim", "python")
    assert done.returncode == 0, done.stderr
    assert "AfterModel" in registered(home)  # model_secrets redacts secrets in model output
    assert "BeforeModel" not in registered(home)


def test_all_events_registers_every_one(tmp_path: Path) -> None:
    from hookd.install import install_events

    home, config = setup(tmp_path, policy_copy(tmp_path / "policies", "destructive_shell"))
    done = hookd(home, "--config", str(config), "install", "--client", "gemini", "--shim", "python", "--all-events")
    assert done.returncode == 0, done.stderr
    assert registered(home) == set(install_events("gemini"))
    doctor = hookd(home, "--config", str(config), "doctor", "--no-sandbox")
    assert "gemini user: registered in" in doctor.stdout and "edited since install" not in doctor.stdout
