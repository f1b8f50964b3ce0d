"""An agent started by a launcher that binds, hides or overlays paths for it (hookd.enrich.shell.views, data/
views.json; hookd.dialects.launch.view_changed): a bind over, or a hiding of, the files that hold or bring in hookd's
hooks is an unguarded start; a launcher that leaves them where they are is not (holes48)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_selfprotect import shell_decisions


@pytest.fixture
def agents(world: tuple[Path, Path]) -> tuple[Path, Path]:
    home, project = world
    for relative in (".claude/settings.json", ".copilot/hooks/hookd.json", ".config/opencode/opencode.json"):
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_text("{}\n")
    return home, project


HIDDEN = [
    "bwrap --dev-bind / / --tmpfs ~/.claude claude -p x",
    'bwrap --ro-bind /usr /usr --bind "$PWD" "$PWD" claude -p x',  # only what is bound is there: no ~/.claude
    "nice bwrap --bind / / --bind /tmp/e ~/.claude/settings.json claude -p x",
    "proot -r /tmp/rootfs claude -p x",
    "proot -b /tmp/e:$HOME/.copilot/hooks copilot -p x",
    "nsjail -Mo --chroot / -T $HOME/.copilot -- copilot -p x",
    "firejail --whitelist=~/work copilot -p x",
    "firejail --tmpfs=~/.config/opencode opencode run x",
    "systemd-run --user -p BindPaths=/tmp/e:$HOME/.claude claude -p x",
    "systemd-run --user -p ProtectHome=tmpfs claude -p x",
    "systemd-run --user --property=InaccessiblePaths=$HOME/.config opencode run x",
    "systemd-nspawn -D /var/lib/machines/dev claude -p x",
    "systemd-nspawn --directory=/ --overlay=$HOME/.claude:/tmp/up:$HOME/.claude claude -p x",
    "chroot /srv/jail claude -p x",
]


def test_an_agent_shown_other_settings_by_its_launcher_is_denied(agents: tuple[Path, Path]) -> None:
    home, project = agents
    for command, (outcome, reason) in zip(HIDDEN, shell_decisions(home, project, list(HIDDEN)), strict=True):
        assert outcome == "deny", (command, reason)
        assert "its launcher" in reason, (command, reason)


def test_a_launcher_that_leaves_the_settings_where_they_are_is_allowed(agents: tuple[Path, Path]) -> None:
    home, project = agents
    kept = [
        "bwrap --dev-bind / / claude -p x",
        "bwrap --dev-bind / / --tmpfs /var/cache claude -p x",
        "firejail --blacklist=~/.aws claude -p x",
        "firejail --whitelist=~/.claude claude -p x",
        "systemd-run --user -p ProtectHome=read-only -p MemoryMax=2G claude -p x",
        "proot -b /tmp/cache:/var/cache claude -p x",
        'bwrap --ro-bind /usr /usr --bind "$PWD" "$PWD" pytest',
        "firejail --private=build/sandbox python run.py",
        "systemd-run --user -p MemoryMax=2G make -j2",
        'nsjail -Mo --bindmount "$PWD:/src" -- make -C /src',
    ]
    for command, (outcome, reason) in zip(kept, shell_decisions(home, project, list(kept)), strict=True):
        assert outcome == "allow", (command, reason)
