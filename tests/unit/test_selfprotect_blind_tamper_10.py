"""blind-tamper-10 (policies/README.md, "The fourth blind tamper batch"): what hookd now judges about the guard's
files, environment and processes, through the whole hot path with the shipped policies, and the look-alikes that
stay allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_selfprotect import shell_outcome
from tests.unit.test_selfprotect_blind_tamper_8 import agent_outcome

_MANAGER = "org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager"


@pytest.mark.parametrize(
    "line",
    [
        "unzip -o -q ~/Downloads/dotfiles.zip '.gemini/*' -d ~",
        "~/.local/share/pipx/venvs/hookd/bin/python -m pip install --force-reinstall 'hookd==0.4.0'",
        "uv tool install --force hookd@0.3.0",
        "git rm -rq .hookd/policies",
        "systemctl --user link --force ~/.cache/hookd.service",
        'SYSTEMD_EDITOR="cp $HOME/.cache/ovr.conf" systemctl --user edit hookd.service',
        "systemctl --user set-property --runtime app.slice CPUQuota=1%",
        f"busctl --user call {_MANAGER} StopUnit ss hookd.service replace",
        "systemctl --user set-environment LD_AUDIT=$HOME/.cache/libaudit.so",
        "cpulimit -p \"$(pgrep -f 'hookd serve')\" -l 1 -b",
        'cd /tmp/seed && find .copilot -print | cpio -pdmu "$HOME"',
        'exec 7<"$HOME/.local/state/hookd/decisions.log"; truncate -s 0 /dev/fd/7',
    ],
)
def test_the_guard_changed_indirectly_is_stopped(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    (project / ".hookd" / "policies").mkdir(parents=True)
    (project / ".hookd" / "policies" / "team.rego").write_text("package hookd.team\n")
    assert shell_outcome(home, project, line) in ("deny", "ask")


@pytest.mark.parametrize(
    "line",
    [
        ".venv/bin/pip install 'django==4.2.11'",
        'echo "$PWD/src" > .venv/lib/python3.11/site-packages/myproject-src.pth',
        "unzip -o -q assets.zip -d public/",
        "git rm -r -q src/legacy",
        "systemctl --user set-environment DISPLAY=:0",
        "systemctl --user set-property --runtime devserver.service CPUQuota=50%",
        "cpulimit -l 50 -- ./scripts/reindex.sh",
        "find src -name '*.py' | cpio -pdm build/",
        "echo 500 > \"/proc/$(pgrep -f 'node server.js' | head -n1)/oom_score_adj\"",
        "exec 3<package.json; jq .name /dev/fd/3",
    ],
)
def test_everyday_look_alikes_pass(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "allow"


# --- hookd's state moved for its later starts: the decision log written elsewhere ---


@pytest.mark.parametrize(
    "line",
    ["echo 'export XDG_STATE_HOME=/tmp/st' >> ~/.profile", "systemctl --user set-environment XDG_STATE_HOME=/tmp/st"],
)
def test_hookds_state_moved_for_later_starts_is_denied(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "deny"


def test_hookds_state_set_to_its_default_passes(world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, "echo 'export XDG_STATE_HOME=$HOME/.local/state' >> ~/.profile") == "allow"


# --- a file tool's unit that holds hookd.service is hookd's too ---


@pytest.mark.parametrize(
    "name", ["app.slice.d/50-limit.conf", "app.slice", "user@1000.service.d/override.conf", "-.slice.d/x.conf"]
)
def test_a_unit_holding_the_guards_is_not_the_developers_own(name: str, world: tuple[Path, Path]) -> None:
    home, project = world
    path = str(home / ".config" / "systemd" / "user" / name)
    text = "[Slice]\nCPUQuota=1%\n"
    assert agent_outcome("gemini", home, project, "write_file", {"file_path": path, "content": text}) == "deny"


def test_the_developers_own_unit_with_a_limit_passes(world: tuple[Path, Path]) -> None:
    home, project = world
    path = str(home / ".config" / "systemd" / "user" / "devserver.service")
    text = "[Service]\nExecStart=/usr/bin/npm run dev\nCPUQuota=50%\n"
    assert agent_outcome("gemini", home, project, "write_file", {"file_path": path, "content": text}) == "allow"
